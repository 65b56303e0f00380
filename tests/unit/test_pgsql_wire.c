/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the PostgreSQL codec (src/probe/pgsql_wire.c): the bytes of
 * the SSLRequest and the StartupMessage, and the verdict on what a backend
 * answers, read whole and cut at every byte.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "wire.h"

#define BYTES(s) (const unsigned char *) (s), sizeof(s) - 1

static void
test_ssl_request(void **state)
{
    unsigned char out[FM_PG_SSL_REQUEST_LEN];
    const unsigned char want[] = { 0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f };

    (void) state;
    fm_pg_ssl_request(out);
    assert_memory_equal(out, want, sizeof(want));
    assert_int_equal(fm_pg_ssl_answer(NULL, 0), FM_PG_SSL_MORE);
    assert_int_equal(fm_pg_ssl_answer(BYTES("S")), FM_PG_SSL_YES);
    assert_int_equal(fm_pg_ssl_answer(BYTES("N")), FM_PG_SSL_NO);
    assert_int_equal(fm_pg_ssl_answer(BYTES("E\0\0")), FM_PG_SSL_OTHER);
}

static void
test_startup(void **state)
{
    unsigned char out[128];
    const char want[] = "\0\0\0\x3e\0\3\0\0user\0postgres\0database\0app\0"
                        "application_name\0faultmon\0";
    size_t n = 0;

    (void) state;
    n = fm_pg_startup(out, sizeof(out), "postgres", "app");
    assert_int_equal(n, sizeof(want));    /* the final NUL ends the list */
    assert_memory_equal(out, want, sizeof(want));
    n = fm_pg_startup(out, sizeof(out), "postgres", NULL);
    assert_int_equal(n, sizeof(want) - sizeof("database") - sizeof("app"));
    assert_memory_equal(out + 8, "user\0postgres\0application_name\0", 31);
    assert_int_equal(fm_pg_startup(out, sizeof(out), "", NULL), 0);
    assert_int_equal(fm_pg_startup(out, sizeof(out), NULL, NULL), 0);
    for (size_t room = 0; room < sizeof(want); room++) {
        assert_int_equal(fm_pg_startup(out, room, "postgres", "app"), 0);
    }
}

struct judge_case {
    const char *name;
    const char *bytes;
    size_t len;
    enum fm_wire_verdict verdict;
    const char *code;
    const char *text;
};

#define CASE(name, s, v, code, text) { name, s, sizeof(s) - 1, v, code, text }

/* ParameterStatus, BackendKeyData and ReadyForQuery after AuthenticationOk. */
#define PG_AUTH_OK "R\0\0\0\x08\0\0\0\0"
#define PG_PARAM "S\0\0\0\x16server_version\0" "15\0"
#define PG_KEY "K\0\0\0\x0c\0\0\0\1\0\0\0\2"
#define PG_READY "Z\0\0\0\x05I"
#define PG_ERR(code, msg) "E\0\0\0" "\x0" "SFATAL\0C" code "\0M" msg "\0\0"

static const struct judge_case judge_cases[] = {
    CASE("md5 password asked", "R\0\0\0\x0c\0\0\0\x05\1\2\3\4", FM_WIRE_OK, "",
         "authentication request 5"),
    CASE("SASL asked", "R\0\0\0\x17\0\0\0\x0aSCRAM-SHA-256\0\0", FM_WIRE_OK, "",
         "authentication request 10"),
    CASE("trust: ready", PG_AUTH_OK PG_PARAM PG_KEY PG_READY, FM_WIRE_OK, "",
         "ready for query"),
    CASE("notice then ready", PG_AUTH_OK "N\0\0\0\x0bSNOTE\0\0" PG_READY, FM_WIRE_OK, "",
         "ready for query"),
    CASE("not yet ready", PG_AUTH_OK PG_PARAM PG_KEY, FM_WIRE_MORE, "", ""),
    CASE("bad ready", PG_AUTH_OK "Z\0\0\0\x06II", FM_WIRE_MALFORMED, "", ""),
    CASE("short auth", "R\0\0\0\x06\0\0", FM_WIRE_MALFORMED, "", ""),
    CASE("length 3", "R\0\0\0\x03", FM_WIRE_MALFORMED, "", ""),
    CASE("length too big", "R\x7f\0\0\0", FM_WIRE_MALFORMED, "", ""),
    CASE("HTTP", "HTTP/1.0 400", FM_WIRE_MALFORMED, "", ""),
    CASE("empty", "", FM_WIRE_MORE, "", ""),
    CASE("no SQLSTATE", "E\0\0\0\x0cSFATAL\0\0", FM_WIRE_MALFORMED, "", ""),
    CASE("short SQLSTATE", "E\0\0\0\x09" "C53\0\0", FM_WIRE_MALFORMED, "", ""),
    CASE("SQLSTATE not A-Z0-9", "E\0\0\0\x0c" "C53a00\0\0", FM_WIRE_MALFORMED, "", ""),
    CASE("fields not ended", "E\0\0\0\x0c" "C53300\0Mx", FM_WIRE_MALFORMED, "", ""),
    CASE("bytes after the list", "E\0\0\0\x0d" "C53300\0\0xy", FM_WIRE_MALFORMED, "", ""),
    /* Only the authentication requests the protocol defines, each with its
     * length (doc/reference/protocol-replies.md). */
    CASE("cleartext asked", "R\0\0\0\x08\0\0\0\x03", FM_WIRE_OK, "", "authentication request 3"),
    CASE("GSS asked", "R\0\0\0\x08\0\0\0\x07", FM_WIRE_OK, "", "authentication request 7"),
    CASE("code 999", "R\0\0\0\x08\0\0\x03\xe7", FM_WIRE_MALFORMED, "", ""),
    CASE("code 0xffffffff", "R\0\0\0\x08\xff\xff\xff\xff", FM_WIRE_MALFORMED, "", ""),
    CASE("md5 without its salt", "R\0\0\0\x08\0\0\0\x05", FM_WIRE_MALFORMED, "", ""),
    CASE("md5 with a long salt", "R\0\0\0\x0d\0\0\0\x05\1\2\3\4\5", FM_WIRE_MALFORMED, "", ""),
    CASE("cleartext with bytes", "R\0\0\0\x09\0\0\0\x03x", FM_WIRE_MALFORMED, "", ""),
    CASE("SASL without mechanisms", "R\0\0\0\x09\0\0\0\x0a\0", FM_WIRE_MALFORMED, "", ""),
    CASE("SASL not ended", "R\0\0\0\x0d\0\0\0\x0aSCRAM", FM_WIRE_MALFORMED, "", ""),
    CASE("SASL continue first", "R\0\0\0\x09\0\0\0\x0bx", FM_WIRE_MALFORMED, "", ""),
    CASE("ok with bytes", "R\0\0\0\x09\0\0\0\0x", FM_WIRE_MALFORMED, "", ""),
};

/* The error replies, whose length byte is filled in by the test. */
static const struct judge_case error_cases[] = {
    CASE("starting up", PG_ERR("57P03", "the database system is starting up"),
         FM_WIRE_REFUSED, "57P03", "the database system is starting up"),
    CASE("too many", PG_ERR("53300", "sorry, too many clients already"),
         FM_WIRE_REFUSED, "53300", "sorry, too many clients already"),
    CASE("no role", PG_ERR("28000", "role \"x\" does not exist"),
         FM_WIRE_REFUSED, "28000", "role \"x\" does not exist"),
};

static void
check_judge(const struct judge_case *c, const unsigned char *bytes)
{
    struct fm_wire_reply reply;

    fm_pg_judge(bytes, c->len, &reply);
    if (reply.verdict != c->verdict) {
        fail_msg("%s: verdict %d, want %d", c->name, reply.verdict, c->verdict);
    }
    assert_string_equal(reply.code, c->code);
    assert_string_equal(reply.text, c->text);
    assert_true(reply.used <= c->len);
    /* Every prefix of a reply that is judged waits for more, or is judged
     * the same (a malformed start is judged early). */
    for (size_t cut = 0; cut < c->len; cut++) {
        struct fm_wire_reply part;

        fm_pg_judge(bytes, cut, &part);
        if (part.verdict != FM_WIRE_MORE && part.verdict != c->verdict) {
            fail_msg("%s: the first %zu bytes give %d", c->name, cut, part.verdict);
        }
        if (c->verdict == FM_WIRE_MORE) {
            assert_int_equal(part.verdict, FM_WIRE_MORE);
        }
    }
}

static void
test_judge(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(judge_cases) / sizeof(judge_cases[0]); i++) {
        check_judge(&judge_cases[i], (const unsigned char *) judge_cases[i].bytes);
    }
    for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
        unsigned char buf[256];
        const struct judge_case *c = &error_cases[i];

        memcpy(buf, c->bytes, c->len);
        buf[4] = (unsigned char) (c->len - 1);
        check_judge(c, buf);
    }
}

/* What follows the verdict is not read; what precedes it is counted. */
static void
test_judge_used(void **state)
{
    const char bytes[] = "R\0\0\0\x0c\0\0\0\x05\1\2\3\4garbage";
    struct fm_wire_reply reply;

    (void) state;
    fm_pg_judge((const unsigned char *) bytes, sizeof(bytes) - 1, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_OK);
    assert_int_equal(reply.used, 13);
}

/* What may follow a judged reply at once: libpq's asynchronous messages,
 * not an error, not garbage. */
static void
test_judge_after(void **state)
{
    struct fm_wire_reply reply;

    (void) state;
    fm_pg_judge_after(BYTES(""), &reply);
    assert_int_equal(reply.verdict, FM_WIRE_OK);
    fm_pg_judge_after(BYTES("N\0\0\0\x0bSNOTE\0\0" PG_PARAM), &reply);
    assert_int_equal(reply.verdict, FM_WIRE_OK);
    fm_pg_judge_after(BYTES("N\0\0\0\x0bSNO"), &reply);
    assert_int_equal(reply.verdict, FM_WIRE_OK);
    fm_pg_judge_after(BYTES("E\0\0\0\x2bSFATAL\0C57P01\0Mterminating connection\0\0"), &reply);
    assert_int_equal(reply.verdict, FM_WIRE_REFUSED);
    assert_string_equal(reply.code, "57P01");
    fm_pg_judge_after(BYTES("garbage"), &reply);
    assert_int_equal(reply.verdict, FM_WIRE_MALFORMED);
    fm_pg_judge_after(BYTES("Z\0\0\0\x05I"), &reply);
    assert_int_equal(reply.verdict, FM_WIRE_MALFORMED);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ssl_request),
        cmocka_unit_test(test_startup),
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_judge_used),
        cmocka_unit_test(test_judge_after),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
