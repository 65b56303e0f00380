/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the verdict on an HTTP reply (fm_http_judge()), every branch,
 * without a socket: bytes in, reason, status and detail out.
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

#include <faultmon/http.h>
#include <faultmon/status_set.h>

#define REPLY(s) s, sizeof(s) - 1

/* What the match saw last, and what it answers. */
static struct {
    regex_t regex;
    bool compiled;
    regex_t maint;          /* the maintenance regex */
    bool maint_compiled;
    int force;              /* -1: out of time; 0: use the regex */
    char seen[256];
    size_t seen_len;
    unsigned calls;
} matcher;

static int
test_match(void *ctx, const regex_t *re, const char *data, size_t len)
{
    regmatch_t m = { .rm_so = 0, .rm_eo = (regoff_t) len };

    (void) ctx;
    matcher.calls++;
    matcher.seen_len = len;
    memcpy(matcher.seen, data, (len < sizeof(matcher.seen))? len : sizeof(matcher.seen));
    if (matcher.force < 0) {
        return -1;
    }
    return (regexec(re, data, 1, &m, REG_STARTEND) == 0)? 1 : 0;
}

struct judge_case {
    const char *name;
    const char *bytes;
    size_t len;
    bool get;               /* a GET (the body is matched) rather than a HEAD */
    const char *expect;     /* NULL: 100-499 */
    const char *regex;      /* NULL: no receive check */
    bool reverse;
    bool eof;
    size_t max_bytes;       /* 0: 64 KiB */
    size_t window;          /* 0: 4096 */
    int force;              /* -1: the match runs out of time */
    bool done;
    enum fm_reason reason;
    int status;
    const char *detail;     /* a part of the detail */
    const char *maint_status;   /* maintenance_status, or NULL */
    const char *maint_header;   /* maintenance_header, or NULL */
    const char *maint_regex;    /* maintenance_regex, or NULL */
    const char *deviation;      /* a part of the accepted deviation, or NULL */
    bool no_deviation;          /* and there must be none */
};

static const struct judge_case cases[] = {
    { "status ok, no regex", REPLY("HTTP/1.1 200 OK\r\n\r\n"), .done = true,
      .reason = FM_REASON_OK, .status = 200, .detail = "HTTP 200" },
    { "status outside the set", REPLY("HTTP/1.1 500 Boom\r\n\r\n"), .done = true,
      .reason = FM_REASON_STATUS, .status = 500, .detail = "HTTP status 500 is not an expected status" },
    { "status outside an explicit set", REPLY("HTTP/1.1 404 No\r\n\r\n"), .expect = "200-399",
      .done = true, .reason = FM_REASON_STATUS, .status = 404 },
    { "a failing status needs no body", REPLY("HTTP/1.1 500 Boom\r\nContent-Length: 10\r\n\r\n"),
      .get = true, .regex = "x", .done = true, .reason = FM_REASON_STATUS, .status = 500 },
    { "headers incomplete: read on", REPLY("HTTP/1.1 200 OK\r\nServer: x\r\n"), .done = false },
    { "closed before the headers end", REPLY("HTTP/1.1 200 OK\r\n"), .eof = true, .done = true,
      .reason = FM_REASON_READ_FAILED,
      .detail = "connection closed after 17 bytes, before a complete reply" },
    { "closed after an interim reply", REPLY("HTTP/1.1 100 Continue\r\n\r\n"), .eof = true,
      .done = true, .reason = FM_REASON_READ_FAILED,
      .detail = "connection closed after 1 interim (1xx) replies, before a final one" },
    { "headers over the cap", REPLY("HTTP/1.1 200 OK\r\nServer: xxxxxxxx"), .max_bytes = 20,
      .done = true, .reason = FM_REASON_READ_TOO_LARGE, .detail = "reply headers exceed 20 bytes" },
    { "interim replies up to the cap", REPLY("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 1"),
      .max_bytes = 30, .done = true, .reason = FM_REASON_READ_TOO_LARGE,
      .detail = "1 interim (1xx) replies and no final one within 30 bytes" },
    { "interim then final", REPLY("HTTP/1.1 103 Hints\r\n\r\nHTTP/1.1 503 Busy\r\n\r\n"),
      .done = true, .reason = FM_REASON_STATUS, .status = 503 },
    { "not HTTP", REPLY("SSH-2.0-OpenSSH\x01\r\n"), .done = true, .reason = FM_REASON_READ_MALFORMED,
      .detail = "\"SSH-2.0-OpenSSH\\x01\\x0d\\x0a\"" },
    /* Issue 29, defect 2: curl -I, wget --spider and HAProxy accept a body
     * after HEAD (and after 204 or 304): judged by the status, noted. */
    { "a body after a HEAD reply: ok, noted", REPLY("HTTP/1.1 200 OK\r\n\r\nbody"), .done = true,
      .reason = FM_REASON_OK, .status = 200, .deviation = "a body where the reply may have none" },
    { "a body after a HEAD reply, status outside the set",
      REPLY("HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy"), .done = true,
      .reason = FM_REASON_STATUS, .status = 503 },
    { "a body after a HEAD reply is not what the regex sees",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nup"), .regex = "up", .done = true,
      .reason = FM_REASON_CONTENT_MISMATCH, .status = 200 },
    { "a body after a HEAD reply, reverse: the body is not matched",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nerror"), .regex = "error", .reverse = true,
      .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "a body after a HEAD reply, maintenance_status", REPLY("HTTP/1.1 404 No\r\n\r\nbody"),
      .maint_status = "404", .done = true, .reason = FM_REASON_MAINTENANCE, .status = 404 },
    { "a body after a 204: ok, noted, not matched", REPLY("HTTP/1.1 204 No\r\n\r\nup"), .get = true,
      .regex = "up", .done = true, .reason = FM_REASON_CONTENT_MISMATCH, .status = 204,
      .deviation = "a body where" },
    { "a body after a 304: ok, noted", REPLY("HTTP/1.1 304 Same\r\n\r\nx"), .get = true, .done = true,
      .reason = FM_REASON_OK, .status = 304, .deviation = "a body where" },
    { "no body after a HEAD reply: nothing noted", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"),
      .done = true, .reason = FM_REASON_OK, .status = 200, .no_deviation = true },
    { "two spaces before the status: ok, noted", REPLY("HTTP/1.1  200 OK\r\n\r\n"), .done = true,
      .reason = FM_REASON_OK, .status = 200, .deviation = "more than one space" },
    { "obs-fold: ok, noted", REPLY("HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n"), .done = true,
      .reason = FM_REASON_OK, .status = 200, .deviation = "obs-fold" },
    { "a control character in a header value: ok, noted", REPLY("HTTP/1.1 200 OK\r\nX: \x01\r\n\r\n"),
      .done = true, .reason = FM_REASON_OK, .status = 200, .deviation = "control character" },
    { "a control character in the status line: malformed", REPLY("HTTP/1.1 200 O\x01K\r\n\r\n"),
      .done = true, .reason = FM_REASON_READ_MALFORMED },
    { "Transfer-Encoding and Content-Length on a GET: malformed",
      REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n0\r\n\r\n"),
      .get = true, .done = true, .reason = FM_REASON_READ_MALFORMED, .status = 200,
      .detail = "both Transfer-Encoding and Content-Length" },
    { "Transfer-Encoding and Content-Length on a HEAD: ok, noted",
      REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n"), .done = true,
      .reason = FM_REASON_OK, .status = 200, .deviation = "both Transfer-Encoding" },
    { "Transfer-Encoding in HTTP/1.0 on a GET: malformed",
      REPLY("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), .get = true, .done = true,
      .reason = FM_REASON_READ_MALFORMED, .status = 200 },
    { "Transfer-Encoding in HTTP/1.0 on a HEAD: ok, noted",
      REPLY("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), .done = true,
      .reason = FM_REASON_OK, .status = 200, .deviation = "HTTP/1.0" },
    { "conflicting Content-Length on a HEAD: malformed",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n"), .done = true,
      .reason = FM_REASON_READ_MALFORMED },
    { "regex on the headers of a HEAD reply", REPLY("HTTP/1.1 200 OK\r\nStatus: up\r\n\r\n"),
      .regex = "^Status: up", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "regex misses the headers", REPLY("HTTP/1.1 200 OK\r\n\r\n"), .regex = "up", .done = true,
      .reason = FM_REASON_CONTENT_MISMATCH, .status = 200, .detail = "reply does not match 'up'" },
    { "reverse: a match fails", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nerror"),
      .get = true, .regex = "error", .reverse = true, .done = true,
      .reason = FM_REASON_CONTENT_REVERSE, .status = 200, .detail = "reply matches 'error' (reverse mode)" },
    { "reverse: no match passes", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
      .get = true, .regex = "error", .reverse = true, .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "the match runs out of time", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
      .get = true, .regex = "ok", .force = -1, .done = true, .reason = FM_REASON_READ_TIMEOUT,
      .status = 200, .detail = "matching 'ok' against the reply did not end by the deadline" },
    { "body by length, complete", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nup here"),
      .get = true, .regex = "^up", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "body by length, not yet", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nup"),
      .get = true, .regex = "^up", .done = false, .status = 200 },
    { "body by length, cut by the server", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nup"),
      .get = true, .regex = "^up", .eof = true, .done = true, .reason = FM_REASON_READ_FAILED,
      .status = 200, .detail = "connection closed after 2 body bytes, before the end of the body" },
    { "body cut by the server, and no match", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nup"),
      .get = true, .regex = "down", .eof = true, .done = true, .reason = FM_REASON_CONTENT_MISMATCH,
      .status = 200 },
    { "body cut by our cap: judged on what was read",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nup"), .max_bytes = 40, .get = true,
      .regex = "^up", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "the window is enough", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nup and more"),
      .window = 4, .get = true, .regex = "more", .done = true, .reason = FM_REASON_CONTENT_MISMATCH,
      .status = 200 },
    { "body to the close, not yet", REPLY("HTTP/1.0 200 OK\r\n\r\nup"), .get = true, .regex = "up",
      .done = false, .status = 200 },
    { "body to the close, closed", REPLY("HTTP/1.0 200 OK\r\n\r\nup"), .get = true, .regex = "up",
      .eof = true, .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "chunked body, decoded", REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                     "2\r\nup\r\n3\r\n he\r\n0\r\n\r\n"),
      .get = true, .regex = "^up he$", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "chunked body, not yet", REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nup\r\n"),
      .get = true, .regex = "up", .done = false, .status = 200 },
    { "chunked body, malformed", REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
      .get = true, .regex = "up", .done = true, .reason = FM_REASON_READ_MALFORMED, .status = 200 },
    { "a 204 to a GET: the regex sees an empty body", REPLY("HTTP/1.1 204 No\r\n\r\n"),
      .get = true, .regex = "x", .done = true, .reason = FM_REASON_CONTENT_MISMATCH, .status = 204 },
    { "the window cuts the headers a HEAD's regex sees", REPLY("HTTP/1.1 200 OK\r\nB: 1\r\n\r\n"),
      .regex = "B", .window = 10, .done = true, .reason = FM_REASON_CONTENT_MISMATCH, .status = 200 },
    { "a detail shows at most 24 server bytes, escaped",
      REPLY("\"\\\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
            "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\r\n"), .done = true,
      .reason = FM_REASON_READ_MALFORMED, .detail = "\"\\x22\\x5c\\x01\\x01" },
    /* Edges (mutants that moved them by one survived the cases above). */
    { "headers exactly at the cap: too large", REPLY("HTTP/1.1 200 OK\r\nServer: x"), .max_bytes = 26,
      .done = true, .reason = FM_REASON_READ_TOO_LARGE, .detail = "reply headers exceed 26 bytes" },
    { "a reply exactly at our cap: judged on what was read",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nup"), .max_bytes = 41, .get = true,
      .regex = "^up$", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "a body exactly the window: judged, not waited for",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nup and"), .window = 6, .get = true,
      .regex = "^up and$", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "a body exactly the window, then a close: the window is judged, not the cut",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nup and"), .window = 6, .get = true,
      .eof = true, .regex = "^up and$", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "a detail shows a space as itself and DEL escaped",
      REPLY("SSH 2\x7f\r\n"), .done = true, .reason = FM_REASON_READ_MALFORMED,
      .detail = "\"SSH 2\\x7f\\x0d\\x0a\"" },
    { "a detail of escaped bytes ends where its buffer does: 23 of them, not one more",
      REPLY("\"\\\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
            "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\r\n"), .done = true,
      .reason = FM_REASON_READ_MALFORMED,
      .detail = "\"\\x22\\x5c\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01"
                "\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\"" },
    /* After an interim reply every part is the final reply's. */
    { "after an interim reply: the final reply's maintenance header",
      REPLY("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-Envoy-Degraded: 1\r\n\r\n"),
      .maint_header = "x-envoy-degraded", .done = true, .reason = FM_REASON_MAINTENANCE, .status = 200 },
    { "after an interim reply: a HEAD's regex sees the final headers",
      REPLY("HTTP/1.1 103 Hints\r\n\r\nHTTP/1.1 200 OK\r\nStatus: up\r\n\r\n"),
      .regex = "^HTTP/1.1 200 OK\r\nStatus: up\r\n\r\n$", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "not HTTP: a detail shows 24 printable server bytes",
      REPLY("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123\r\n"), .done = true, .reason = FM_REASON_READ_MALFORMED,
      .detail = "\"ABCDEFGHIJKLMNOPQRSTUVWX\"" },
    { "after an interim reply: a body after a HEAD is noted from the final reply",
      REPLY("HTTP/1.1 103 Hints\r\n\r\nHTTP/1.1 200 OK\r\n\r\nbody"), .done = true,
      .reason = FM_REASON_OK, .status = 200, .deviation = "a body where the reply may have none" },
    { "after an interim reply: a GET's regex sees the final body",
      REPLY("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nup"),
      .get = true, .regex = "^up$", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "after an interim reply: a malformed final reply is shown from its fault",
      REPLY("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nno colon\r\n\r\n"), .done = true,
      .reason = FM_REASON_READ_MALFORMED,
      .detail = "malformed reply (header line without a colon): \"no colon\\x0d\\x0a\\x0d\\x0a\"" },
    { "a GET without a regex needs no body", REPLY("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"),
      .get = true, .done = true, .reason = FM_REASON_OK, .status = 200 },
    /* service-signalled maintenance */
    { "maintenance_status 404: a 404 is maintenance, not a failure",
      REPLY("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"), .get = true, .expect = "200-399",
      .maint_status = "404", .done = true, .reason = FM_REASON_MAINTENANCE, .status = 404,
      .detail = "maintenance: HTTP 404 (maintenance_status)" },
    { "maintenance_status 404: a 500 still fails",
      REPLY("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n"), .get = true, .expect = "200-399",
      .maint_status = "404", .done = true, .reason = FM_REASON_STATUS, .status = 500 },
    { "maintenance_status 404: a 200 is ok",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), .get = true, .expect = "200-399",
      .maint_status = "404", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "maintenance_header, any case, on a 200: maintenance",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Envoy-Degraded: 1\r\n\r\n"),
      .maint_header = "x-envoy-degraded", .done = true, .reason = FM_REASON_MAINTENANCE, .status = 200,
      .detail = "with header x-envoy-degraded" },
    { "maintenance_header on a 503: the failure rules",
      REPLY("HTTP/1.1 503 Busy\r\nx-envoy-degraded: 1\r\nContent-Length: 0\r\n\r\n"),
      .maint_header = "x-envoy-degraded", .done = true, .reason = FM_REASON_STATUS, .status = 503 },
    { "maintenance_header: a longer name or a value is not it",
      REPLY("HTTP/1.1 200 OK\r\nx-envoy-degraded-not: 1\r\nX-A: x-envoy-degraded:\r\n\r\n"),
      .maint_header = "x-envoy-degraded", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "maintenance_header: not in the body",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nx-envoy-degraded: 1\r\n"), .get = true,
      .maint_header = "x-envoy-degraded", .done = true, .reason = FM_REASON_OK, .status = 200 },
    { "maintenance_regex matches the body: maintenance, before the receive regex",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nstatus: off"), .get = true,
      .regex = "^status: on$", .maint_regex = "^status: off$", .done = true,
      .reason = FM_REASON_MAINTENANCE, .status = 200, .detail = "matches '^status: off$'" },
    { "maintenance_regex without a match: the receive regex judges",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nstatus: on"), .get = true,
      .regex = "^status: on$", .maint_regex = "^status: off$", .done = true,
      .reason = FM_REASON_OK, .status = 200 },
    { "maintenance_regex on a body cut short by the server: the cut rules",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\nstatus: off"), .get = true, .eof = true,
      .maint_regex = "off", .done = true, .reason = FM_REASON_READ_FAILED, .status = 200 },
    { "maintenance_regex out of time: partial",
      REPLY("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .get = true,
      .maint_regex = "off", .force = -1, .done = true, .reason = FM_REASON_READ_TIMEOUT, .status = 200 },
};

static void
run_case(const struct judge_case *c, struct fm_http_verdict *v, bool *done)
{
    struct fm_status_set expect;
    struct fm_status_set maint_status;
    struct fm_http_check check = {
        .expect = &expect,
        .head_request = !c->get,
        .want_body = c->get && (c->regex != NULL || c->maint_regex != NULL),
        .max_reply_bytes = (c->max_bytes != 0)? c->max_bytes : 65536,
        .receive_window_bytes = (c->window != 0)? c->window : 4096,
        .match = test_match,
        .receive = (c->regex != NULL)? &matcher.regex : NULL,
        .receive_text = c->regex,
        .maintenance_status = (c->maint_status != NULL)? &maint_status : NULL,
        .maintenance_header = c->maint_header,
        .maintenance_re = (c->maint_regex != NULL)? &matcher.maint : NULL,
        .maintenance_text = c->maint_regex,
        .reverse = c->reverse,
    };
    char *buf = malloc(c->len + 1);
    struct fm_http_rx rx = { .buf = buf, .len = c->len };

    assert_non_null(buf);
    memcpy(buf, c->bytes, c->len);
    buf[c->len] = '\0';
    assert_int_equal(fm_status_set_parse(&expect, (c->expect != NULL)? c->expect : "100-499",
                                         NULL, 0), 0);
    matcher.force = c->force;
    if (c->maint_status != NULL) {
        assert_int_equal(fm_status_set_parse(&maint_status, c->maint_status, NULL, 0), 0);
    }
    if (c->maint_regex != NULL) {
        assert_int_equal(regcomp(&matcher.maint, c->maint_regex, REG_EXTENDED | REG_NOSUB | REG_NEWLINE), 0);
        matcher.maint_compiled = true;
    }
    if (c->regex != NULL) {
        assert_int_equal(regcomp(&matcher.regex, c->regex, REG_EXTENDED | REG_NOSUB | REG_NEWLINE), 0);
        matcher.compiled = true;
    }
    memset(v, 0, sizeof(*v));
    *done = fm_http_judge(&check, &rx, c->eof, v);
    if (matcher.compiled) {
        regfree(&matcher.regex);
        matcher.compiled = false;
    }
    if (matcher.maint_compiled) {
        regfree(&matcher.maint);
        matcher.maint_compiled = false;
    }
    free(buf);
}

static void
test_judge_table(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct judge_case *c = &cases[i];
        struct fm_http_verdict v;
        bool done = false;

        run_case(c, &v, &done);
        if (done != c->done || (done && v.reason != c->reason) || v.http_status != c->status
            || (c->detail != NULL && strstr(v.detail, c->detail) == NULL)
            || (c->deviation != NULL && (v.deviation == NULL || strstr(v.deviation, c->deviation) == NULL))
            || (c->no_deviation && v.deviation != NULL)) {
            fail_msg("case '%s': done %d reason %s status %d detail '%s'", c->name, done,
                     fm_reason_name(v.reason), v.http_status, v.detail);
        }
    }
}

/* The regex sees the decoded body, cut to the window; a HEAD reply's regex
 * sees its headers. */
static void
test_match_subject(void **state)
{
    static const struct judge_case chunked = {
        "chunked", REPLY("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n"),
        .get = true, .regex = "x", .window = 5,
    };
    static const struct judge_case head = {
        "head", REPLY("HTTP/1.1 200 OK\r\nA: b\r\n\r\n"), .regex = "x",
    };
    struct fm_http_verdict v;
    bool done = false;

    (void) state;
    run_case(&chunked, &v, &done);
    assert_true(done);
    assert_int_equal(matcher.seen_len, 5);
    assert_memory_equal(matcher.seen, "abcde", 5);
    run_case(&head, &v, &done);
    assert_true(done);
    assert_int_equal(matcher.seen_len, strlen("HTTP/1.1 200 OK\r\nA: b\r\n\r\n"));
}

/* Called after each read on a growing buffer, as the probe does: interim
 * replies are skipped once, and the verdict comes with the last byte. */
static void
test_judge_incremental(void **state)
{
    static const char reply[] = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    struct fm_status_set expect;
    struct fm_http_check check = {
        .expect = &expect, .want_body = true, .max_reply_bytes = 65536,
        .receive_window_bytes = 4096, .match = test_match, .receive = &matcher.regex,
        .receive_text = "ok",
    };
    char buf[sizeof(reply)];
    struct fm_http_rx rx = { .buf = buf };
    struct fm_http_verdict v;

    (void) state;
    assert_int_equal(fm_status_set_parse(&expect, "200", NULL, 0), 0);
    assert_int_equal(regcomp(&matcher.regex, "^ok$", REG_EXTENDED | REG_NOSUB | REG_NEWLINE), 0);
    matcher.force = 0;
    matcher.calls = 0;
    for (size_t i = 1; i < sizeof(reply) - 1; i++) {
        memcpy(buf, reply, i);
        rx.len = i;
        assert_false(fm_http_judge(&check, &rx, false, &v));
    }
    assert_int_equal(rx.interim, 1);
    assert_int_equal(rx.final_at, strlen("HTTP/1.1 100 Continue\r\n\r\n"));
    assert_int_equal(matcher.calls, 0);
    memcpy(buf, reply, sizeof(reply));
    rx.len = sizeof(reply) - 1;
    assert_true(fm_http_judge(&check, &rx, false, &v));
    assert_int_equal(v.reason, FM_REASON_OK);
    assert_int_equal(v.http_status, 200);
    assert_int_equal(matcher.calls, 1);
    regfree(&matcher.regex);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judge_table),
        cmocka_unit_test(test_match_subject),
        cmocka_unit_test(test_judge_incremental),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
