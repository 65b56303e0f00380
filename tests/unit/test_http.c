/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: parsing HTTP replies as they arrive.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
    bool chunked;
    bool deviates;          /* a deviation that curl, wget and HAProxy accept,
                             * or a framing doubt (doc/reference/http-replies.md) */
};

#define REPLY(s) s, sizeof(s) - 1

static const struct reply_case reply_cases[] = {
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), FM_HTTP_HEADERS_DONE, 200, 38, 5 },
    { REPLY("HTTP/1.0 500 Internal Server Error\r\n\r\n"), FM_HTTP_HEADERS_DONE, 500, 38, -1 },
    { REPLY("HTTP/1.1 204\r\n\r\n"), FM_HTTP_HEADERS_DONE, 204, 16, -1 },
    { REPLY("HTTP/1.1 301 Moved\nLocation: /x\n\n"), FM_HTTP_HEADERS_DONE, 301, 33, -1 },
    { REPLY("HTTP/1.1 200 OK\r\ncontent-length:   12\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 41, 12 },
    /* Reason phrases may hold HTAB and obs-text (bytes 0x80-0xff). */
    { REPLY("HTTP/1.1 200 O\tK \xe9t\xe9\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 24, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nX-Empty:\r\nX-Tab:\tv\t\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 40, -1 },
    /* Repeated Content-Length values that agree (RFC 9110 section 8.6). */
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 57, 5 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 41, 5 },
    { REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked \r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 48, -1, true },
    /* 101 is a final reply (RFC 9110 section 15.2). */
    { REPLY("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n"), FM_HTTP_HEADERS_DONE, 101, 48, -1 },

    /* Interim replies: complete, to be skipped. */
    { REPLY("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"), FM_HTTP_INTERIM, 100, 25, -1 },
    { REPLY("HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\nHTTP/1.1 503 Busy\r\n\r\n"),
      FM_HTTP_INTERIM, 103, 57, -1 },
    { REPLY("HTTP/1.1 102 Processing\n\n"), FM_HTTP_INTERIM, 102, 25, -1 },

    /* Incomplete: wait for more. */
    { REPLY(""), FM_HTTP_NEED_MORE, 0, 0, -1 },
    { REPLY("HT"), FM_HTTP_NEED_MORE, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK"), FM_HTTP_NEED_MORE, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nServer: x\r\n"), FM_HTTP_NEED_MORE, 200, 0, -1 },
    { REPLY("HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n"), FM_HTTP_NEED_MORE, 0, 0, -1 },

    /* Not HTTP, or not a status line we can read. */
    { REPLY("\x16\x03\x01\x00\x02"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("SSH-2.0-OpenSSH_9.2\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("<html><body>HTTP/0.9 has no status line</body></html>\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 abc OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 20 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 20\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 2000 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 099 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/2.0 200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.2 200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.10 200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1  200 OK\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 20, -1, .deviates = true },
    { REPLY("HTTP/1.1 \t200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1   \r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("http/1.1 200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },

    /* Control characters: NUL, other controls and bare CR in the status
     * line and the headers (issue 8, defect 2). */
    { REPLY("HTTP/1.1 200 O\0K\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 \0\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 O\x01K\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 O\x7fK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 O\x1bK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 O\rK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nX\0: a\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\n\0X: a\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nX: a\x08\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 26, -1, .deviates = true },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5\x01\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nX: a\r\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\n\r\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 103 Hints\0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },

    /* obs-fold continues the value above (curl, wget and HAProxy join the
     * lines): a deviation, unless it follows the status line or a header
     * that frames the body. */
    { REPLY("HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 29, -1, .deviates = true },
    { REPLY("HTTP/1.1 200 OK\r\nX: a\r\n\tContent-Length: 0\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 45, -1,
      .deviates = true },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n 6\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n x\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nX: a\r\n b\0\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    /* Header lines that curl or HAProxy refuse. */
    { REPLY("HTTP/1.1 200 OK\r\n Server: x\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nJunk without colon\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nJunk\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\n: no name\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nX(y): a\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },

    /* Content-Length that cannot be trusted. */
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5,\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5 6\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },

    /* Transfer-Encoding we cannot follow, or beside Content-Length. */
    /* Beside Content-Length, or in HTTP/1.0: a framing doubt, which the
     * judge calls malformed only where a body follows. */
    { REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"), FM_HTTP_HEADERS_DONE,
      200, 66, 5, true, true },
    { REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"), FM_HTTP_HEADERS_DONE,
      200, 66, 5, true, true },
    { REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
      FM_HTTP_MALFORMED, 0, 0, -1 },
    { REPLY("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), FM_HTTP_HEADERS_DONE, 200, 47, -1, true, true },
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
        if (got == FM_HTTP_HEADERS_DONE || got == FM_HTTP_INTERIM) {
            assert_int_equal(reply.status, c->status);
            assert_int_equal(reply.header_len, c->header_len);
        }
        if (got == FM_HTTP_HEADERS_DONE) {
            assert_int_equal(reply.have_length, c->content_length >= 0);
            if (c->content_length >= 0) {
                assert_int_equal(reply.content_length, (size_t) c->content_length);
            }
            assert_int_equal(reply.chunked, c->chunked);
            assert_int_equal(reply.deviation != NULL || reply.framing_doubt != NULL, c->deviates);
        }
        if (got == FM_HTTP_MALFORMED) {
            assert_non_null(reply.why);
        }
    }
}

/* Every prefix of a reply: never a verdict the whole would not give.  A
 * prefix of a good reply needs more; a prefix of a bad one needs more or
 * is already malformed. */
static void
test_reply_prefixes(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(reply_cases) / sizeof(reply_cases[0]); i++) {
        const struct reply_case *c = &reply_cases[i];

        for (size_t len = 0; len < c->len; len++) {
            struct fm_http_reply reply;
            enum fm_http_parse got = fm_http_parse_reply(c->bytes, len, &reply);

            print_message("# case %zu, %zu bytes\n", i, len);
            if (c->expect == FM_HTTP_MALFORMED) {
                assert_true(got == FM_HTTP_NEED_MORE || got == FM_HTTP_MALFORMED);
            } else if (len < c->header_len || c->expect == FM_HTTP_NEED_MORE) {
                assert_int_equal(got, FM_HTTP_NEED_MORE);
            }
        }
    }
}

/* Parse as the probe does: skip interim replies, return the final one. */
static enum fm_http_parse
parse_final(const char *buf, size_t len, struct fm_http_reply *reply, size_t *start,
            unsigned *interim)
{
    enum fm_http_parse rc = FM_HTTP_NEED_MORE;

    *start = 0;
    *interim = 0;
    for (;;) {
        rc = fm_http_parse_reply(buf + *start, len - *start, reply);
        if (rc != FM_HTTP_INTERIM) {
            return rc;
        }
        *start += reply->header_len;
        (*interim)++;
    }
}

/* Issue 8, defect 1: an interim reply is not the final status. */
static void
test_interim_then_final(void **state)
{
    static const char early_hints[] = "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                                      "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
    static const char continues[] = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"
                                    "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.0 404 Not Found\r\n\r\n";
    static const char then_close[] = "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n";
    struct fm_http_reply reply;
    size_t start = 0;
    unsigned interim = 0;

    (void) state;
    assert_int_equal(parse_final(early_hints, sizeof(early_hints) - 1, &reply, &start, &interim),
                     FM_HTTP_HEADERS_DONE);
    assert_int_equal(reply.status, 503);
    assert_int_equal(interim, 1);
    assert_int_equal(start + reply.header_len, sizeof(early_hints) - 1);

    assert_int_equal(parse_final(continues, sizeof(continues) - 1, &reply, &start, &interim),
                     FM_HTTP_HEADERS_DONE);
    assert_int_equal(reply.status, 404);
    assert_int_equal(interim, 3);

    /* Only interim replies: never a final status. */
    assert_int_equal(parse_final(then_close, sizeof(then_close) - 1, &reply, &start, &interim),
                     FM_HTTP_NEED_MORE);
    assert_int_equal(interim, 1);

    /* An interim reply carries no body: what follows must be a reply. */
    assert_int_equal(parse_final(REPLY("HTTP/1.1 100 Continue\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n"),
                                 &reply, &start, &interim), FM_HTTP_MALFORMED);
}

/* Endless "100 Continue": the parser only ever asks for more; the probe's
 * read cap and deadline end it. */
static void
test_endless_interim(void **state)
{
    static const char one[] = "HTTP/1.1 100 Continue\r\n\r\n";
    size_t n = 2000;
    size_t len = n * (sizeof(one) - 1);
    char *buf = malloc(len);
    struct fm_http_reply reply;
    size_t start = 0;
    unsigned interim = 0;

    (void) state;
    assert_non_null(buf);
    for (size_t i = 0; i < n; i++) {
        memcpy(buf + i * (sizeof(one) - 1), one, sizeof(one) - 1);
    }
    assert_int_equal(parse_final(buf, len, &reply, &start, &interim), FM_HTTP_NEED_MORE);
    assert_int_equal(interim, n);
    assert_int_equal(start, len);
    free(buf);
}

static void
test_framing(void **state)
{
    struct fm_http_reply reply;

    (void) state;
    memset(&reply, 0, sizeof(reply));
    reply.status = 200;
    assert_int_equal(fm_http_reply_framing(&reply, false), FM_HTTP_BODY_CLOSE);
    assert_int_equal(fm_http_reply_framing(&reply, true), FM_HTTP_BODY_NONE);
    reply.have_length = true;
    reply.content_length = 5;
    assert_int_equal(fm_http_reply_framing(&reply, false), FM_HTTP_BODY_LENGTH);
    assert_int_equal(fm_http_reply_framing(&reply, true), FM_HTTP_BODY_NONE);
    reply.have_length = false;
    reply.chunked = true;
    assert_int_equal(fm_http_reply_framing(&reply, false), FM_HTTP_BODY_CHUNKED);
    /* 204, 304 and 1xx never have a body, whatever the headers say. */
    reply.status = 204;
    assert_int_equal(fm_http_reply_framing(&reply, false), FM_HTTP_BODY_NONE);
    reply.status = 304;
    assert_int_equal(fm_http_reply_framing(&reply, false), FM_HTTP_BODY_NONE);
    reply.status = 101;
    assert_int_equal(fm_http_reply_framing(&reply, false), FM_HTTP_BODY_NONE);
}

struct chunked_case {
    const char *bytes;
    size_t len;
    enum fm_http_parse expect;
    const char *data;       /* decoded data (so far) */
};

static const struct chunked_case chunked_cases[] = {
    { REPLY("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"), FM_HTTP_BODY_DONE, "hello world" },
    { REPLY("5\nhello\n0\n\n"), FM_HTTP_BODY_DONE, "hello" },
    { REPLY("A;name=value\r\n0123456789\r\n000\r\nX-Trailer: yes\r\n\r\n"), FM_HTTP_BODY_DONE, "0123456789" },
    { REPLY("0\r\n\r\n"), FM_HTTP_BODY_DONE, "" },
    /* Shorter than announced: the data so far, and a wish for more. */
    { REPLY("10\r\nonly five"), FM_HTTP_NEED_MORE, "only five" },
    { REPLY("5\r\nhello\r\n"), FM_HTTP_NEED_MORE, "hello" },
    { REPLY("5\r\nhello\r"), FM_HTTP_NEED_MORE, "hello" },
    { REPLY("5\r\nhello\r\n0\r\n"), FM_HTTP_NEED_MORE, "hello" },
    { REPLY(""), FM_HTTP_NEED_MORE, "" },
    /* Broken. */
    { REPLY("5\r\nhelloXX\r\n0\r\n\r\n"), FM_HTTP_MALFORMED, NULL },
    { REPLY("zz\r\nhello\r\n"), FM_HTTP_MALFORMED, NULL },
    { REPLY("-5\r\nhello\r\n"), FM_HTTP_MALFORMED, NULL },
    { REPLY("\r\nhello\r\n"), FM_HTTP_MALFORMED, NULL },
    { REPLY("5 x\r\nhello\r\n"), FM_HTTP_MALFORMED, NULL },
    { REPLY("5;a\0b\r\nhello\r\n"), FM_HTTP_MALFORMED, NULL },
    { REPLY("fffffffffffffffffff\r\n"), FM_HTTP_MALFORMED, NULL },
    { REPLY("0\r\nno colon\r\n\r\n"), FM_HTTP_MALFORMED, NULL },
};

static void
test_chunked(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(chunked_cases) / sizeof(chunked_cases[0]); i++) {
        const struct chunked_case *c = &chunked_cases[i];
        char *copy = malloc(c->len + 1);
        size_t counted = 0;
        size_t decoded = 0;
        const char *why = NULL;

        print_message("# chunked case %zu\n", i);
        assert_non_null(copy);
        memcpy(copy, c->bytes, c->len);
        assert_int_equal(fm_http_chunked(copy, c->len, false, &counted, &why), c->expect);
        assert_memory_equal(copy, c->bytes, c->len);     /* untouched without decode */
        if (c->expect == FM_HTTP_MALFORMED) {
            assert_non_null(why);
        } else {
            assert_int_equal(fm_http_chunked(copy, c->len, true, &decoded, &why), c->expect);
            assert_int_equal(decoded, counted);
            assert_int_equal(decoded, strlen(c->data));
            assert_memory_equal(copy, c->data, decoded);
        }
        free(copy);
    }
}

/* Every prefix of a good chunked body asks for more, with no more data
 * than the whole. */
static void
test_chunked_prefixes(void **state)
{
    static const char body[] = "5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nT: v\r\n\r\n";

    (void) state;
    for (size_t len = 0; len < sizeof(body) - 1; len++) {
        char copy[sizeof(body)];
        size_t data_len = 0;
        const char *why = NULL;

        memcpy(copy, body, sizeof(body));
        assert_int_equal(fm_http_chunked(copy, len, false, &data_len, &why), FM_HTTP_NEED_MORE);
        assert_true(data_len <= 11);
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
    /* A long reason phrase is no fault (curl and HAProxy take what fits
     * their header buffers): the read cap ends it (read-too-large). */
    assert_int_equal(fm_http_parse_reply(buf, 1000, &reply), FM_HTTP_NEED_MORE);
    assert_int_equal(fm_http_parse_reply(buf, sizeof(buf), &reply), FM_HTTP_NEED_MORE);
    memcpy(buf + 1500, "\r\n\r\n", 4);
    assert_int_equal(fm_http_parse_reply(buf, sizeof(buf), &reply), FM_HTTP_HEADERS_DONE);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reply_table),
        cmocka_unit_test(test_reply_prefixes),
        cmocka_unit_test(test_interim_then_final),
        cmocka_unit_test(test_endless_interim),
        cmocka_unit_test(test_framing),
        cmocka_unit_test(test_chunked),
        cmocka_unit_test(test_chunked_prefixes),
        cmocka_unit_test(test_reply_byte_by_byte),
        cmocka_unit_test(test_endless_status_line),
    };

    return cmocka_run_group_tests_name("http", tests, NULL, NULL);
}
