/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the MySQL/MariaDB greeting codec (src/probe/mysql_wire.c):
 * a protocol 10 greeting passes, an error packet refuses with its number,
 * anything else is malformed; read whole and cut at every byte.
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

struct greeting_case {
    const char *name;
    const char *bytes;
    size_t len;
    enum fm_wire_verdict verdict;
    const char *code;
    const char *text;
};

#define CASE(name, s, v, code, text) { name, s, sizeof(s) - 1, v, code, text }

/* A MariaDB 10.11 greeting, as the server sends it (payload 0x63 bytes: the
 * version, connection id, scramble, capabilities, charset, status, plugin). */
#define GREETING_VERSION "5.5.5-10.11.6-MariaDB-0+deb12u1"
#define GREETING \
    "\x63\0\0\0" "\x0a" GREETING_VERSION "\0" "\x07\0\0\0" "abcdefgh" "\0" "\xfe\xf7" \
    "\x2d" "\x02\0" "\xff\x81" "\x15" "\0\0\0\0\0\0" "\x1d\0\0\0" "ijklmnopqrst" "\0" \
    "mysql_native_password\0"
/* The shortest greeting we take: a one-byte version, then the 15 bytes up to
 * the capability flags. */
#define GREETING_MIN "\x12\0\0\0\x0a" "9\0" "\1\0\0\0" "12345678" "\0" "\0\0"

static const struct greeting_case cases[] = {
    CASE("MariaDB greeting", GREETING, FM_WIRE_OK, "", GREETING_VERSION),
    CASE("shortest greeting", GREETING_MIN, FM_WIRE_OK, "", "9"),
    CASE("too many connections", "\x17\0\0\0\xff\x10\x04Too many connections",
         FM_WIRE_REFUSED, "1040", "Too many connections"),
    CASE("host blocked, with SQLSTATE", "\x1c\0\0\0\xff\x69\x04#HY000Host 'x' is blocked",
         FM_WIRE_REFUSED, "1129", "Host 'x' is blocked"),
    CASE("error without words", "\x03\0\0\0\xff\x10\x04", FM_WIRE_REFUSED, "1040", ""),
    CASE("error too short", "\x02\0\0\0\xff\x10", FM_WIRE_MALFORMED, "", ""),
    CASE("greeting without a NUL", "\x05\0\0\0\x0a" "5.5.5", FM_WIRE_MALFORMED, "", ""),
    CASE("greeting cut after its version", "\x08\0\0\0\x0a" "5.5.5\0\1\0", FM_WIRE_MALFORMED,
         "", ""),
    CASE("empty version", "\x11\0\0\0\x0a\0" "\1\0\0\0" "12345678" "\0" "\0\0",
         FM_WIRE_MALFORMED, "", ""),
    CASE("protocol 9", "\x05\0\0\0\x09" "3.2\0", FM_WIRE_MALFORMED, "", ""),
    CASE("sequence 1", "\x05\0\0\1\x0a" "3.2\0", FM_WIRE_MALFORMED, "", ""),
    CASE("empty packet", "\0\0\0\0\x0a", FM_WIRE_MALFORMED, "", ""),
    CASE("huge packet", "\xff\xff\xff\0\x0a", FM_WIRE_MALFORMED, "", ""),
    CASE("HTTP", "HTTP/1.1 400 Bad Request", FM_WIRE_MALFORMED, "", ""),
    CASE("header only", "\x5e\0\0\0", FM_WIRE_MORE, "", ""),
    CASE("greeting cut", "\x5e\0\0\0\x0a" "5.5.5", FM_WIRE_MORE, "", ""),
};

static void
test_greeting(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct greeting_case *c = &cases[i];
        const unsigned char *bytes = (const unsigned char *) c->bytes;
        struct fm_wire_reply reply;

        fm_mysql_judge_greeting(bytes, c->len, &reply);
        if (reply.verdict != c->verdict) {
            fail_msg("%s: verdict %d, want %d", c->name, reply.verdict, c->verdict);
        }
        assert_string_equal(reply.code, c->code);
        assert_string_equal(reply.text, c->text);
        assert_true(reply.used <= c->len);
        if (c->verdict == FM_WIRE_OK || c->verdict == FM_WIRE_REFUSED) {
            assert_int_equal(reply.used, c->len);
        }
        for (size_t cut = 0; cut < c->len; cut++) {
            struct fm_wire_reply part;

            fm_mysql_judge_greeting(bytes, cut, &part);
            if (part.verdict != FM_WIRE_MORE && part.verdict != c->verdict) {
                fail_msg("%s: the first %zu bytes give %d", c->name, cut, part.verdict);
            }
            if (c->verdict == FM_WIRE_OK) {
                assert_int_equal(part.verdict, FM_WIRE_MORE);
            }
        }
    }
}

/* What may follow the greeting at once: nothing but an error packet. */
static void
test_after(void **state)
{
    static const unsigned char err[] = "\x24\0\0\1\xff\x5b\x04#08S01Server shutdown in progress";
    struct fm_wire_reply reply;

    (void) state;
    fm_mysql_judge_after((const unsigned char *) "", 0, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_OK);
    fm_mysql_judge_after(err, sizeof(err) - 1, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_REFUSED);
    assert_string_equal(reply.code, "1115");
    fm_mysql_judge_after(err, 6, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_REFUSED);
    fm_mysql_judge_after((const unsigned char *) GREETING, sizeof(GREETING) - 1, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_MALFORMED);
    fm_mysql_judge_after((const unsigned char *) "junk\r\n", 6, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_MALFORMED);
    fm_mysql_judge_after((const unsigned char *) "\0\0\0\1\xff", 5, &reply);
    assert_int_equal(reply.verdict, FM_WIRE_MALFORMED);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_greeting),
        cmocka_unit_test(test_after),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
