/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the verdict on a DNS answer (src/probe/dns_judge.c): rcodes,
 * answers of the type asked (past a CNAME), ?rcode=, ?answer=, compression,
 * and what is not a DNS answer.
 */
#include <config.h>

#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "wire.h"

/* Header: id 1, QR|RD / RA|rcode, 1 question, N answers. */
#define HDR(rcode, an) "\0\1\x81" rcode "\0\1\0" an "\0\0\0\0"
#define Q_X_TEST_A "\1x\4test\0\0\1\0\1"
#define RR_A "\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\x05"
#define RR_CNAME "\xc0\x0c\0\5\0\1\0\0\0\x3c\0\4\1y\xc0\x0e"
#define RR_MX "\xc0\x0c\0\x0f\0\1\0\0\0\x3c\0\x09\0\x0a\4mail\xc0\x0c"

static regex_t answer_regex;

static int
match(void *ctx, const char *text, size_t len)
{
    regmatch_t m = { .rm_so = 0, .rm_eo = (regoff_t) len };

    (void) ctx;
    return (regexec(&answer_regex, text, 1, &m, REG_STARTEND) == 0)? 1 : 0;
}

struct dns_case {
    const char *name;
    const char *msg;
    size_t len;
    const char *type;
    const char *rcode;      /* NULL: none */
    const char *regex;      /* NULL: none */
    enum fm_wire_verdict verdict;
    const char *code;
    const char *text;
};

#define CASE(n, m, type, rcode, regex, v, code, text) \
    { n, m, sizeof(m) - 1, type, rcode, regex, v, code, text }

static const struct dns_case cases[] = {
    CASE("A", HDR("\x80", "\1") Q_X_TEST_A RR_A, "A", NULL, NULL, FM_WIRE_OK, "", "127.0.0.5"),
    CASE("A past a CNAME", HDR("\x80", "\2") Q_X_TEST_A RR_CNAME "\xc0\x24\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\x06",
         "A", NULL, NULL, FM_WIRE_OK, "", "127.0.0.6"),
    CASE("MX", HDR("\x80", "\1") "\1x\4test\0\0\x0f\0\1" RR_MX, "MX", NULL, NULL, FM_WIRE_OK, "",
         "10 mail.x.test"),
    CASE("NXDOMAIN", HDR("\x83", "\0") Q_X_TEST_A, "A", NULL, NULL, FM_WIRE_REFUSED, "NXDOMAIN",
         ""),
    CASE("SERVFAIL", HDR("\x82", "\0") Q_X_TEST_A, "A", NULL, NULL, FM_WIRE_REFUSED, "SERVFAIL",
         ""),
    CASE("rcode 9", HDR("\x89", "\0") Q_X_TEST_A, "A", NULL, NULL, FM_WIRE_REFUSED, "RCODE9", ""),
    CASE("NODATA", HDR("\x80", "\0") Q_X_TEST_A, "A", NULL, NULL, FM_WIRE_REFUSED, "NODATA", ""),
    CASE("only a CNAME", HDR("\x80", "\1") Q_X_TEST_A RR_CNAME, "A", NULL, NULL, FM_WIRE_REFUSED,
         "NODATA", ""),
    CASE("rcode=NXDOMAIN wanted", HDR("\x83", "\0") Q_X_TEST_A, "A", "NXDOMAIN", NULL, FM_WIRE_OK,
         "NXDOMAIN", ""),
    CASE("rcode=NXDOMAIN, got NOERROR", HDR("\x80", "\1") Q_X_TEST_A RR_A, "A", "NXDOMAIN", NULL,
         FM_WIRE_REFUSED, "NOERROR", "127.0.0.5"),
    CASE("answer matches", HDR("\x80", "\1") Q_X_TEST_A RR_A, "A", NULL, "^127\\.0\\.0\\.5$",
         FM_WIRE_OK, "", "127.0.0.5"),
    CASE("answer does not match", HDR("\x80", "\1") Q_X_TEST_A RR_A, "A", NULL, "^10\\.",
         FM_WIRE_REFUSED, "NOMATCH", "127.0.0.5"),
    CASE("a query, not an answer", "\0\1\1\0\0\1\0\0\0\0\0\0" Q_X_TEST_A, "A", NULL, NULL,
         FM_WIRE_MALFORMED, "", ""),
    CASE("short header", "\0\1\x81\x80\0", "A", NULL, NULL, FM_WIRE_MALFORMED, "", ""),
    CASE("question cut", HDR("\x80", "\0") "\1x\4te", "A", NULL, NULL, FM_WIRE_MALFORMED, "", ""),
    CASE("answer cut", HDR("\x80", "\1") Q_X_TEST_A "\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4\x7f",
         "A", NULL, NULL, FM_WIRE_MALFORMED, "", ""),
    CASE("A of 3 bytes", HDR("\x80", "\1") Q_X_TEST_A "\xc0\x0c\0\1\0\1\0\0\0\x3c\0\3\x7f\0\0",
         "A", NULL, NULL, FM_WIRE_MALFORMED, "", ""),
    CASE("pointer loop", HDR("\x80", "\1") Q_X_TEST_A "\xc0\x18\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\5",
         "A", NULL, NULL, FM_WIRE_MALFORMED, "", ""),
    /* Every answer's owner is the question's name or on its CNAME chain;
     * an answer for another name counts for nothing (c-ares drops it). */
    CASE("an A for another name", HDR("\x80", "\1") Q_X_TEST_A
         "\5other\7example\0\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\x05", "A", NULL, NULL,
         FM_WIRE_REFUSED, "NODATA", ""),
    CASE("an A for another name, then one for x.test", HDR("\x80", "\2") Q_X_TEST_A
         "\5other\7example\0\0\1\0\1\0\0\0\x3c\0\4\x0a\0\0\x01" RR_A, "A", NULL, NULL,
         FM_WIRE_OK, "", "127.0.0.5"),
    CASE("a CNAME of another name", HDR("\x80", "\2") Q_X_TEST_A
         "\5other\xc0\x0e\0\5\0\1\0\0\0\x3c\0\4\1y\xc0\x0e"
         "\xc0\x2a\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\x06", "A", NULL, NULL,
         FM_WIRE_REFUSED, "NODATA", ""),
    CASE("the chain out of order", HDR("\x80", "\2") Q_X_TEST_A
         "\1y\xc0\x0e\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\x07" RR_CNAME, "A", NULL, NULL,
         FM_WIRE_OK, "", "127.0.0.7"),
    CASE("one label 'x.test'", HDR("\x80", "\1") Q_X_TEST_A
         "\6x.test\0\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\x05", "A", NULL, NULL,
         FM_WIRE_REFUSED, "NODATA", ""),
    CASE("names in another case", HDR("\x80", "\1") "\1X\4TeSt\0\0\1\0\1" RR_A, "A", NULL, NULL,
         FM_WIRE_OK, "", "127.0.0.5"),
    CASE("the question for another name", HDR("\x80", "\1") "\1z\4test\0\0\1\0\1" RR_A, "A",
         NULL, NULL, FM_WIRE_MALFORMED, "", ""),
    /* Bytes after the sections counted: ignored, as dig (with a warning),
     * c-ares and glibc do (doc/reference/protocol-replies.md). */
    CASE("bytes after the answer", HDR("\x80", "\1") Q_X_TEST_A RR_A "junk", "A", NULL, NULL,
         FM_WIRE_OK, "", "127.0.0.5"),
    CASE("pointer past the end", HDR("\x80", "\1") Q_X_TEST_A "\xc0\xff\0\1\0\1\0\0\0\x3c\0\4\x7f\0\0\5",
         "A", NULL, NULL, FM_WIRE_MALFORMED, "", ""),
};

static void
test_judge(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct dns_case *c = &cases[i];
        struct fm_dns_expect want = {
            .name = "x.test.",
            .qtype = (unsigned) fm_dns_type(c->type),
            .rcode = (c->rcode != NULL)? fm_dns_rcode(c->rcode) : -1,
        };
        struct fm_wire_reply reply;

        if (c->regex != NULL) {
            assert_int_equal(regcomp(&answer_regex, c->regex, REG_EXTENDED), 0);
            want.match = match;
        }
        fm_dns_judge((const unsigned char *) c->msg, c->len, &want, &reply);
        if (reply.verdict != c->verdict) {
            fail_msg("%s: verdict %d, want %d", c->name, reply.verdict, c->verdict);
        }
        if (strcmp(reply.code, c->code) != 0 || strcmp(reply.text, c->text) != 0) {
            fail_msg("%s: code '%s' text '%s'", c->name, reply.code, reply.text);
        }
        if (c->regex != NULL) {
            regfree(&answer_regex);
        }
    }
}

static void
test_names(void **state)
{
    (void) state;
    assert_int_equal(fm_dns_type("A"), 1);
    assert_int_equal(fm_dns_type("aaaa"), 28);
    assert_int_equal(fm_dns_type("MX"), 15);
    assert_int_equal(fm_dns_type("CAA"), 257);
    assert_int_equal(fm_dns_type("ANY"), -1);
    assert_int_equal(fm_dns_rcode("NOERROR"), 0);
    assert_int_equal(fm_dns_rcode("nxdomain"), 3);
    assert_int_equal(fm_dns_rcode("REFUSED"), 5);
    assert_int_equal(fm_dns_rcode("BADVERS"), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_judge),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
