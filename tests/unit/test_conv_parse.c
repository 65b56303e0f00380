/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the replies of line protocols (src/probe/conv_parse.c):
 * where a reply ends, its code, its judgement, its first line.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conv.h"

/* A string literal and its length. */
#define S(lit) lit, sizeof(lit) - 1

struct end_case {
    fm_conv_end_fn end;
    const char *tag;
    const char *buf;
    ssize_t want;       /* -1 malformed, 0 more needed, else the length */
};

static const struct end_case end_cases[] = {
    { fm_conv_end_line, NULL, "", 0 },
    { fm_conv_end_line, NULL, "+PONG", 0 },
    { fm_conv_end_line, NULL, "+PONG\r\n", 7 },
    { fm_conv_end_line, NULL, "+OK\nrest", 4 },
    /* Coded replies: single, multi-line, same code required at the end. */
    { fm_conv_end_coded, NULL, "220 ready\r\n", 11 },
    { fm_conv_end_coded, NULL, "220", 0 },
    { fm_conv_end_coded, NULL, "220\r\n", 5 },
    { fm_conv_end_coded, NULL, "250-a\r\n250-b\r\n", 0 },
    { fm_conv_end_coded, NULL, "250-a\r\n250-b\r\n250 c\r\n", 21 },
    { fm_conv_end_coded, NULL, "250-a\r\n250-b\r\n250 c\r\nnext", 21 },
    /* FTP (RFC 959 4.2): middle lines of any text; "220 " ends it. */
    { fm_conv_end_coded, NULL, "220-hi\r\n welcome\r\n 220 not yet\r\n220 go\r\n", 40 },
    { fm_conv_end_coded, NULL, "250-a\r\n251 other code\r\n", 0 },
    { fm_conv_end_coded, NULL, "HTTP/1.1 200 OK\r\n", -1 },
    { fm_conv_end_coded, NULL, "22x ", -1 },
    { fm_conv_end_coded, NULL, "2200 four digits\r\n", -1 },
    { fm_conv_end_coded, NULL, "\x00\xff\r\n", -1 },
    { fm_conv_end_coded, NULL, "22", 0 },
    /* IMAP: untagged lines up to the tagged one. */
    { fm_conv_end_tagged, "a1", "* CAPABILITY IMAP4rev1\r\n", 0 },
    { fm_conv_end_tagged, "a1", "* CAPABILITY IMAP4rev1\r\na1 OK done\r\n", 36 },
    { fm_conv_end_tagged, "a1", "a1 NO\r\n", 7 },
    { fm_conv_end_tagged, "a1", "a10 OK\r\n", -1 },
    { fm_conv_end_tagged, "a1", "junk\r\n", -1 },
    /* POP3: -ERR is one line; +OK of CAPA runs to the line ".". */
    { fm_conv_end_dotted, NULL, "-ERR no\r\n", 9 },
    { fm_conv_end_dotted, NULL, "+OK\r\nTOP\r\nUSER\r\n", 0 },
    { fm_conv_end_dotted, NULL, "+OK\r\nTOP\r\n..x\r\n.\r\n", 18 },
    { fm_conv_end_dotted, NULL, "+OK\n.\n", 6 },
    /* A bare CR never ends a line, and makes no line of these protocols
     * (doc/reference/protocol-replies.md). */
    { fm_conv_end_line, NULL, "+PONG\rGARBAGE\n", -1 },
    { fm_conv_end_line, NULL, "* OK\rGARBAGE", -1 },
    { fm_conv_end_line, NULL, "+OK\r", 0 },
    { fm_conv_end_line, NULL, "+OK\r\n", 5 },
    { fm_conv_end_coded, NULL, "220\rGARBAGE", -1 },
    { fm_conv_end_coded, NULL, "220\rGARBAGE\r\n", -1 },
    { fm_conv_end_coded, NULL, "250\rjunk\r\n", -1 },
    { fm_conv_end_coded, NULL, "250-a\r\n250\rjunk\r\n", -1 },
    { fm_conv_end_coded, NULL, "250-a\r\n250 b\rc\n", -1 },
    { fm_conv_end_coded, NULL, "220 ok\r", 0 },
    { fm_conv_end_coded, NULL, "220 ok\n", 7 },
    { fm_conv_end_tagged, "A1", "A1 OK\rjunk\r\n", -1 },
    { fm_conv_end_tagged, "A1", "* CAP\rX\r\nA1 OK\r\n", -1 },
    { fm_conv_end_dotted, NULL, "+OK\rX\r\n.\r\n", -1 },
    { fm_conv_end_dotted, NULL, "+OK\r\nTOP\rX\r\n.\r\n", -1 },
};

static void
test_reply_ends(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(end_cases) / sizeof(end_cases[0]); i++) {
        const struct end_case *c = &end_cases[i];
        /* The one case that starts with a NUL is 4 bytes long. */
        size_t len = (c->buf[0] == '\0' && c->end == fm_conv_end_coded)? 4 : strlen(c->buf);

        print_message("# case %zu: %s\n", i, c->buf);
        assert_int_equal(c->end(c->buf, len, c->tag), c->want);
    }
}

static void
test_codes_and_judgement(void **state)
{
    (void) state;
    assert_int_equal(fm_conv_reply_code("220 x", 5), 220);
    assert_int_equal(fm_conv_reply_code("554-x", 5), 554);
    assert_int_equal(fm_conv_reply_code("220\r\n", 5), 220);
    assert_int_equal(fm_conv_reply_code("22", 2), -1);
    assert_int_equal(fm_conv_reply_code("2a0 x", 5), -1);
    assert_int_equal(fm_conv_reply_code("2200", 4), -1);
    assert_int_equal(fm_conv_judge_2xx("220 ok\r\n", 8), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_2xx("250 ok\r\n", 8), FM_CONV_OK);
    /* A refusing service is complete; no code at all is malformed. */
    assert_int_equal(fm_conv_judge_2xx("554 no\r\n", 8), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_judge_2xx("421 busy\r\n", 10), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_judge_2xx("120 wait\r\n", 10), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_judge_2xx("+OK\r\n", 5), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_2xx("099 x\r\n", 7), FM_CONV_MALFORMED);
}

static void
test_pop3_imap_judgement(void **state)
{
    (void) state;
    assert_int_equal(fm_conv_judge_pop3("+OK ready\r\n", 11), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_pop3("-ERR busy\r\n", 11), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_judge_pop3("* OK\r\n", 6), FM_CONV_MALFORMED);
    /* RFC 1939 3: the whole status line, not its first three bytes. */
    assert_int_equal(fm_conv_judge_pop3(S("+OK\r\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_pop3(S("+OK\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_pop3(S("+OK Dovecot ready.\r\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_pop3(S("+OK caf\xc3\xa9\r\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_pop3(S("+OKGARBAGE\x00\xff\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_pop3(S("+OKGARBAGE\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_pop3(S("+OK a\x00b\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_pop3(S("+OK a\x1b[2Jb\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_pop3(S("+OK")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_pop3(S("+OK\r\nTOP\r\n.\r\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_pop3(S("-ERRx\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_pop3(S("-ERR\r\n")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_judge_imap_greeting(S("* OK [CAPABILITY IMAP4rev1] hi\r\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_imap_greeting(S("* PREAUTH hi\r\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_imap_greeting(S("* BYE busy\r\n")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_judge_imap_greeting(S("* OKAY\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_imap_greeting(S("+OK\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_imap_tagged(S("* CAPABILITY X\r\na1 OK done\r\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_imap_tagged(S("a1 ok\r\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_judge_imap_tagged(S("a2 NO nope\r\n")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_judge_imap_tagged(S("a2 BAD what\r\n")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_judge_imap_tagged(S("a2 MAYBE\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_judge_imap_tagged(S("a2\r\n")), FM_CONV_MALFORMED);
    /* A BYE before the tagged OK: the server is closing. */
    assert_int_equal(fm_conv_judge_imap_tagged(S("* BYE shutting down\r\na1 OK done\r\n")),
                     FM_CONV_REFUSED);
    assert_int_equal(fm_conv_judge_imap_tagged(S("* OK still here\r\na1 OK done\r\n")),
                     FM_CONV_OK);
}

/* What may follow a complete reply at once, per protocol
 * (doc/reference/protocol-replies.md). */
static void
test_after_reply(void **state)
{
    (void) state;
    /* SMTP, FTP: a 421 (any 4xx, 5xx) notice refuses; other bytes are none
     * of the conversation. */
    assert_int_equal(fm_conv_after_coded(S("421 4.3.2 shutting down\r\n")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_after_coded(S("554 go away\r\n")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_after_coded(S("250 extra\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_after_coded(S("junk")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_after_pop3(S("-ERR shutting down\r\n")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_after_pop3(S("+OK\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_after_redis(S("-ERR shutting down\r\n")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_after_redis(S("+PONG\r\n")), FM_CONV_MALFORMED);
    /* IMAP: untagged data may come at any time (RFC 3501 5.3). */
    assert_int_equal(fm_conv_after_imap(S("* OK still here\r\n")), FM_CONV_OK);
    assert_int_equal(fm_conv_after_imap(S("* 3 EXISTS\r\n* OK")), FM_CONV_OK);
    assert_int_equal(fm_conv_after_imap(S("* BYE shutting down\r\n")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_after_imap(S("* OK x\r\n* BYE")), FM_CONV_REFUSED);
    assert_int_equal(fm_conv_after_imap(S("a1 OK forged\r\n")), FM_CONV_MALFORMED);
    assert_int_equal(fm_conv_after_imap(S("*X\r\n")), FM_CONV_MALFORMED);
}

/* RESP lines end with CRLF only. */
static void
test_end_crlf(void **state)
{
    (void) state;
    assert_int_equal(fm_conv_end_crlf(S("+PONG\r\n"), NULL), 7);
    assert_int_equal(fm_conv_end_crlf(S("+PONG\r\n-ERR x\r\n"), NULL), 7);
    assert_int_equal(fm_conv_end_crlf(S("+PONG\r"), NULL), 0);
    assert_int_equal(fm_conv_end_crlf(S("+PONG"), NULL), 0);
    assert_int_equal(fm_conv_end_crlf(S("+PONG\n"), NULL), -1);
    assert_int_equal(fm_conv_end_crlf(S("+PONG\rGARBAGE\n"), NULL), -1);
    assert_int_equal(fm_conv_end_crlf(S("\n"), NULL), -1);
}

static void
test_first_line(void **state)
{
    char out[512];
    char long_line[300];

    (void) state;
    fm_conv_first_line(S("554 5.7.1 no\r\n250 x\r\n"), out, sizeof(out));
    assert_string_equal(out, "554 5.7.1 no");
    /* Controls escaped, one line, bounded; no NUL terminator needed. */
    fm_conv_first_line("-ERR a\x01" "b\x00zz", 11, out, sizeof(out));
    assert_string_equal(out, "-ERR a\\x01b\\x00zz");
    memset(long_line, 'x', sizeof(long_line));
    fm_conv_first_line(long_line, sizeof(long_line), out, sizeof(out));
    assert_int_equal(strlen(out), FM_CONV_DETAIL_LINE);
    /* A secret in a URI the server echoes is hidden. */
    fm_conv_first_line(S("-ERR redis://:pw@h failed\r\n"), out, sizeof(out));
    assert_null(strstr(out, "pw"));
    fm_conv_first_line(S("x"), out, 4);
    assert_string_equal(out, "x");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reply_ends),
        cmocka_unit_test(test_codes_and_judgement),
        cmocka_unit_test(test_pop3_imap_judgement),
        cmocka_unit_test(test_first_line),
        cmocka_unit_test(test_after_reply),
        cmocka_unit_test(test_end_crlf),
    };

    return cmocka_run_group_tests_name("conv_parse", tests, NULL, NULL);
}
