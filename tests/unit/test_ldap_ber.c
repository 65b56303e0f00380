/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the LDAP codec (src/probe/ldap_ber.c): the request bytes, and
 * the verdict on a BindResponse or an ExtendedResponse, read whole and cut
 * at every byte.
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

static void
test_requests(void **state)
{
    unsigned char out[64];
    const unsigned char bind[] = {
        0x30, 0x0c, 0x02, 0x01, 0x07, 0x60, 0x07, 0x02, 0x01, 0x03, 0x04, 0x00, 0x80, 0x00,
    };
    const unsigned char unbind[] = { 0x30, 0x05, 0x02, 0x01, 0x02, 0x42, 0x00 };
    const char starttls[] = "\x30\x1d\x02\x01\x01\x77\x18\x80\x16" "1.3.6.1.4.1.1466.20037";
    const char rootdse[] = "\x30\x2a\x02\x01\x02\x63\x25\x04\x00\x0a\x01\x00\x0a\x01\x00"
                           "\x02\x01\x00\x02\x01\x00\x01\x01\xff\x87\x0b" "objectClass"
                           "\x30\x05\x04\x03" "1.1";

    (void) state;
    assert_int_equal(fm_ldap_bind_request(out, sizeof(out), 7), sizeof(bind));
    assert_memory_equal(out, bind, sizeof(bind));
    assert_int_equal(fm_ldap_unbind_request(out, sizeof(out), 2), sizeof(unbind));
    assert_memory_equal(out, unbind, sizeof(unbind));
    assert_int_equal(fm_ldap_starttls_request(out, sizeof(out), 1), sizeof(starttls) - 1);
    assert_memory_equal(out, starttls, sizeof(starttls) - 1);
    assert_int_equal(fm_ldap_bind_request(out, sizeof(bind) - 1, 1), 0);
    assert_int_equal(fm_ldap_starttls_request(out, sizeof(starttls) - 2, 1), 0);
    assert_int_equal(fm_ldap_unbind_request(out, sizeof(unbind) - 1, 1), 0);
    assert_int_equal(fm_ldap_rootdse_request(out, sizeof(out), 2), sizeof(rootdse) - 1);
    assert_memory_equal(out, rootdse, sizeof(rootdse) - 1);
    assert_int_equal(fm_ldap_rootdse_request(out, sizeof(rootdse) - 2, 2), 0);
    assert_int_equal(fm_ldap_bind_request(out, sizeof(out), 0), 0);
    assert_int_equal(fm_ldap_bind_request(out, sizeof(out), 128), 0);
}

struct judge_case {
    const char *name;
    const char *bytes;
    size_t len;
    unsigned op;
    enum fm_wire_verdict verdict;
    const char *code;
    const char *text;
};

#define BIND FM_LDAP_BIND_RESPONSE
#define EXT FM_LDAP_EXTENDED_RESPONSE
#define DONE FM_LDAP_SEARCH_DONE
#define ENTRY "\x30\x09\x02\x01\x01\x64\x04\x04\x00\x30\x00"
#define SEARCH_OK "\x30\x0c\x02\x01\x01\x65\x07\x0a\x01\x00\x04\x00\x04\x00"
#define CASE(name, s, op, v, code, text) { name, s, sizeof(s) - 1, op, v, code, text }

static const struct judge_case cases[] = {
    CASE("bind ok", "\x30\x0c\x02\x01\x01\x61\x07\x0a\x01\x00\x04\x00\x04\x00",
         BIND, FM_WIRE_OK, "0", "success"),
    CASE("bind ok, long lengths", "\x30\x84\0\0\0\x0f\x02\x01\x01\x61\x81\x09\x0a\x01\x00"
         "\x04\x00\x04\x82\0\0", BIND, FM_WIRE_OK, "0", "success"),
    CASE("bind ok, referral after", "\x30\x0e\x02\x01\x01\x61\x09\x0a\x01\x00\x04\x00\x04\x00"
         "\xa3\x00", BIND, FM_WIRE_OK, "0", "success"),
    CASE("unwilling", "\x30\x1e\x02\x01\x01\x61\x19\x0a\x01\x35\x04\x00\x04\x12"
         "unauthenticated bi", BIND, FM_WIRE_REFUSED, "53",
         "unwillingToPerform: unauthenticated bi"),
    CASE("code 4 bytes", "\x30\x0f\x02\x01\x01\x61\x0a\x0a\x04\x00\x00\x01\x00\x04\x00\x04\x00",
         BIND, FM_WIRE_REFUSED, "256", ""),
    CASE("starttls ok", "\x30\x0c\x02\x01\x01\x78\x07\x0a\x01\x00\x04\x00\x04\x00",
         EXT, FM_WIRE_OK, "0", "success"),
    CASE("starttls refused", "\x30\x0c\x02\x01\x01\x78\x07\x0a\x01\x02\x04\x00\x04\x00",
         EXT, FM_WIRE_REFUSED, "2", "protocolError"),
    CASE("notice of disconnection", "\x30\x0c\x02\x01\x00\x78\x07\x0a\x01\x34\x04\x00\x04\x00",
         BIND, FM_WIRE_REFUSED, "52", "unavailable"),
    CASE("notice with success", "\x30\x0c\x02\x01\x00\x78\x07\x0a\x01\x00\x04\x00\x04\x00",
         BIND, FM_WIRE_REFUSED, "0", "success"),
    CASE("other message id", "\x30\x0c\x02\x01\x02\x61\x07\x0a\x01\x00\x04\x00\x04\x00",
         BIND, FM_WIRE_MALFORMED, "", ""),
    CASE("other operation", "\x30\x0c\x02\x01\x01\x65\x07\x0a\x01\x00\x04\x00\x04\x00",
         BIND, FM_WIRE_MALFORMED, "", ""),
    CASE("indefinite length", "\x30\x80\x02\x01\x01", BIND, FM_WIRE_MALFORMED, "", ""),
    CASE("5-byte length", "\x30\x85\0\0\0\0\x0c", BIND, FM_WIRE_MALFORMED, "", ""),
    CASE("too long", "\x30\x84\x7f\0\0\0", BIND, FM_WIRE_MALFORMED, "", ""),
    CASE("not a sequence", "HTTP/1.0 400", BIND, FM_WIRE_MALFORMED, "", ""),
    CASE("op past the message", "\x30\x0c\x02\x01\x01\x61\x08\x0a\x01\x00\x04\x00\x04\x00"
         "\x00", BIND, FM_WIRE_MALFORMED, "", ""),
    CASE("no diagnostic", "\x30\x0a\x02\x01\x01\x61\x05\x0a\x01\x00\x04\x00", BIND,
         FM_WIRE_MALFORMED, "", ""),
    CASE("negative code", "\x30\x0c\x02\x01\x01\x61\x07\x0a\x01\x80\x04\x00\x04\x00",
         BIND, FM_WIRE_MALFORMED, "", ""),
    CASE("empty id", "\x30\x0b\x02\x00\x61\x07\x0a\x01\x00\x04\x00\x04\x00",
         BIND, FM_WIRE_MALFORMED, "", ""),
    CASE("cut", "\x30\x0c\x02\x01\x01\x61\x07\x0a", BIND, FM_WIRE_MORE, "", ""),
    /* The root DSE search: its entry (and any reference) read past, the
     * done's resultCode judged. */
    CASE("search: the entry, then done", ENTRY SEARCH_OK, DONE, FM_WIRE_OK, "0", "success"),
    CASE("search: done alone", SEARCH_OK, DONE, FM_WIRE_OK, "0", "success"),
    CASE("search: a reference, then done", "\x30\x0a\x02\x01\x01\x73\x05\x04\x03uri" SEARCH_OK,
         DONE, FM_WIRE_OK, "0", "success"),
    CASE("search: noSuchObject", ENTRY "\x30\x0c\x02\x01\x01\x65\x07\x0a\x01\x20\x04\x00\x04\x00",
         DONE, FM_WIRE_REFUSED, "32", "noSuchObject"),
    CASE("search: an entry of another message", "\x30\x09\x02\x01\x02\x64\x04\x04\x00\x30\x00"
         SEARCH_OK, DONE, FM_WIRE_MALFORMED, "", ""),
    CASE("search: a bind response instead", "\x30\x0c\x02\x01\x01\x61\x07\x0a\x01\x00\x04\x00"
         "\x04\x00", DONE, FM_WIRE_MALFORMED, "", ""),
    CASE("search: nine entries", ENTRY ENTRY ENTRY ENTRY ENTRY ENTRY ENTRY ENTRY ENTRY SEARCH_OK,
         DONE, FM_WIRE_MALFORMED, "", ""),
    CASE("search: the entry, no done yet", ENTRY, DONE, FM_WIRE_MORE, "", ""),
    CASE("empty", "", BIND, FM_WIRE_MORE, "", ""),
};

static void
test_judge(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct judge_case *c = &cases[i];
        const unsigned char *bytes = (const unsigned char *) c->bytes;
        struct fm_wire_reply reply;

        fm_ldap_judge(bytes, c->len, 1, c->op, &reply);
        if (reply.verdict != c->verdict) {
            fail_msg("%s: verdict %d, want %d", c->name, reply.verdict, c->verdict);
        }
        assert_string_equal(reply.code, c->code);
        assert_string_equal(reply.text, c->text);
        assert_true(reply.used <= c->len);
        if (c->verdict == FM_WIRE_OK || c->verdict == FM_WIRE_REFUSED) {
            assert_int_equal(reply.used, c->len);   /* every message of it, entries too */
        }
        for (size_t cut = 0; cut < c->len; cut++) {
            struct fm_wire_reply part;

            fm_ldap_judge(bytes, cut, 1, c->op, &part);
            if (part.verdict != FM_WIRE_MORE && part.verdict != c->verdict) {
                fail_msg("%s: the first %zu bytes give %d", c->name, cut, part.verdict);
            }
            if (c->verdict == FM_WIRE_OK) {
                assert_int_equal(part.verdict, FM_WIRE_MORE);
            }
        }
    }
}

static void
test_names(void **state)
{
    (void) state;
    assert_string_equal(fm_ldap_result_name(0), "success");
    assert_string_equal(fm_ldap_result_name(49), "invalidCredentials");
    assert_string_equal(fm_ldap_result_name(53), "unwillingToPerform");
    assert_string_equal(fm_ldap_result_name(9999), "");
}

/* What may follow a result at once: messages of other ids (libldap drops
 * them), not a Notice of Disconnection, not garbage. */
static void
test_after(void **state)
{
    static const unsigned char notice[] = "\x30\x0c\x02\x01\x00\x78\x07\x0a\x01\x34\x04\x00\x04\x00";
    static const unsigned char other[] = "\x30\x0c\x02\x01\x07\x61\x07\x0a\x01\x00\x04\x00\x04\x00";
    unsigned char both[64];
    struct fm_wire_reply reply;

    (void) state;
    fm_ldap_judge_after(other, 0, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_OK);
    fm_ldap_judge_after(other, sizeof(other) - 1, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_OK);
    fm_ldap_judge_after(other, 5, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_OK);
    fm_ldap_judge_after(notice, sizeof(notice) - 1, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_REFUSED);
    assert_string_equal(reply.code, "52");
    memcpy(both, other, sizeof(other) - 1);
    memcpy(both + sizeof(other) - 1, notice, sizeof(notice) - 1);
    fm_ldap_judge_after(both, sizeof(other) + sizeof(notice) - 2, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_REFUSED);
    fm_ldap_judge_after((const unsigned char *) "junk", 4, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_MALFORMED);
    /* Message 0 is only ever a notice. */
    fm_ldap_judge_after((const unsigned char *) "\x30\x0c\x02\x01\x00\x61\x07\x0a\x01\x00\x04\x00\x04\x00",
                        14, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_MALFORMED);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_after),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
