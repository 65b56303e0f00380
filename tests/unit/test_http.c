/*
 * Unit tests: parsing HTTP replies as they arrive.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/http.h>

struct reply_case {
    const char *bytes;
    size_t len;             /* 0: strlen(bytes) */
    enum fm_http_parse expect;
    int status;
    size_t header_len;
    long content_length;    /* -1: none */
};

#define REPLY(s) s, sizeof(s) - 1

static const struct reply_case reply_cases[] = {
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), FM_HTTP_HEADERS_DONE, 200, 38, 5 },
    { REPLY("HTTP/1.0 500 Internal Server Error\r\n\r\n"), FM_HTTP_HEADERS_DONE, 500, 38, -1 },
    { REPLY("HTTP/1.1 204\r\n\r\n"), FM_HTTP_HEADERS_DONE, 204, 16, -1 },
    { REPLY("HTTP/1.1 301 Moved\nLocation: /x\n\n"), FM_HTTP_HEADERS_DONE, 301, 33, -1 },
    { REPLY("HTTP/1.1 200 OK\r\ncontent-length:   12\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 41, 12 },
    /* Incomplete: wait for more. */
    { REPLY(""), FM_HTTP_NEED_MORE, 0, 0, -1 },
    { REPLY("HT"), FM_HTTP_NEED_MORE, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK"), FM_HTTP_NEED_MORE, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nServer: x\r\n"), FM_HTTP_NEED_MORE, 200, 0, -1 },
    /* Hostile or broken. */
    { REPLY("\x16\x03\x01\x00\x02"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("SSH-2.0-OpenSSH_9.2\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 abc OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 20 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 2000 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 099 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/2.0 200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("http/1.1 200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
};

static void
test_reply_table(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(reply_cases) / sizeof(reply_cases[0]); i++) {
        const struct reply_case *c = &reply_cases[i];
        struct fm_http_reply reply;
        enum fm_http_parse got = fm_http_parse_reply(c->bytes, c->len, &reply);

        print_message("# case %zu\n", i);
        assert_int_equal(got, c->expect);
        if (got == FM_HTTP_HEADERS_DONE) {
            assert_int_equal(reply.status, c->status);
            assert_int_equal(reply.header_len, c->header_len);
            assert_int_equal(reply.have_length, c->content_length >= 0);
            if (c->content_length >= 0) {
                assert_int_equal(reply.content_length, (size_t) c->content_length);
            }
        }
    }
}

/* A reply that arrives a byte at a time gives the same answer at the end,
 * and never a wrong one on the way. */
static void
test_reply_byte_by_byte(void **state)
{
    static const char full[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
    struct fm_http_reply reply;

    (void) state;
    for (size_t len = 0; len < sizeof(full) - 1; len++) {
        assert_int_equal(fm_http_parse_reply(full, len, &reply), FM_HTTP_NEED_MORE);
    }
    assert_int_equal(fm_http_parse_reply(full, sizeof(full) - 1, &reply), FM_HTTP_HEADERS_DONE);
    assert_int_equal(reply.status, 404);
}

/* A status line that never ends is malformed once it is longer than any
 * real one, so that a slow stream of junk cannot hold the parser. */
static void
test_endless_status_line(void **state)
{
    static char buf[2048];
    struct fm_http_reply reply;

    (void) state;
    memcpy(buf, "HTTP/1.1 200 ", 13);
    memset(buf + 13, 'x', sizeof(buf) - 13);
    assert_int_equal(fm_http_parse_reply(buf, 1000, &reply), FM_HTTP_NEED_MORE);
    assert_int_equal(fm_http_parse_reply(buf, sizeof(buf), &reply), FM_HTTP_MALFORMED);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reply_table),
        cmocka_unit_test(test_reply_byte_by_byte),
        cmocka_unit_test(test_endless_status_line),
    };

    return cmocka_run_group_tests_name("http", tests, NULL, NULL);
}
