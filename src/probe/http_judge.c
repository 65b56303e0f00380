/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the verdict on an HTTP reply, from the bytes read so far.
 *
 * Pure: no socket, no clock.  The probe (http.c) calls it after every read
 * and passes the regex match in, which it runs under the deadline; unit
 * tests call it with bytes and a plain match.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include <faultmon/http.h>
#include <faultmon/status_set.h>

/* Record the reason (the detail is written first); returns true, so that a
 * judging step can end with `return verdict(...)`. */
static bool
verdict(struct fm_http_verdict *v, enum fm_reason reason)
{
    v->reason = reason;
    return true;
}

/* Server bytes in a detail string: printable ASCII only, so that logs and
 * JSON stay clean whatever a hostile server sends. */
static void
sanitize_into(char *dst, size_t dst_len, const char *src, size_t src_len)
{
    size_t j = 0;

    for (size_t i = 0; i < src_len && j + 4 < dst_len; i++) {
        unsigned char ch = (unsigned char) src[i];

        if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
            dst[j++] = (char) ch;
        } else {
            j += (size_t) snprintf(dst + j, dst_len - j, "\\x%02x", ch);
        }
    }
    dst[(j < dst_len)? j : dst_len - 1] = '\0';
}

static bool
judge_malformed(struct fm_http_verdict *v, const char *why, const char *at, size_t len)
{
    char shown[96];

    sanitize_into(shown, sizeof(shown), at, (len < 24)? len : 24);
    snprintf(v->detail, sizeof(v->detail), "malformed reply (%s): \"%s\"", why, shown);
    return verdict(v, FM_REASON_READ_MALFORMED);
}

/* Headers still incomplete: only the end of the stream or the read cap
 * decides now.  Returns true once the reply has its verdict. */
static bool
judge_incomplete(const struct fm_http_check *check, const struct fm_http_rx *rx, bool eof,
                 struct fm_http_verdict *v)
{
    if (eof) {
        if (rx->interim > 0) {
            snprintf(v->detail, sizeof(v->detail),
                     "connection closed after %u interim (1xx) replies, before a final one",
                     rx->interim);
            return verdict(v, FM_REASON_READ_FAILED);
        }
        snprintf(v->detail, sizeof(v->detail),
                 "connection closed after %zu bytes, before a complete reply", rx->len);
        return verdict(v, FM_REASON_READ_FAILED);
    }
    if (rx->len >= check->max_reply_bytes) {
        if (rx->interim > 0) {
            snprintf(v->detail, sizeof(v->detail),
                     "%u interim (1xx) replies and no final one within %zu bytes",
                     rx->interim, check->max_reply_bytes);
            return verdict(v, FM_REASON_READ_TOO_LARGE);
        }
        snprintf(v->detail, sizeof(v->detail), "reply headers exceed %zu bytes",
                 check->max_reply_bytes);
        return verdict(v, FM_REASON_READ_TOO_LARGE);
    }
    return false;
}

/* The body as the regex is to see it. */
struct judge_body {
    const char *data;
    size_t len;
    bool truncated;     /* the server closed before it sent what it announced */
    const char *why;    /* set instead when the body is malformed */
};

/*
 * The body bytes the receive regex is to see, once enough has arrived: the
 * whole body or the first receive_window_bytes of it, whichever is shorter
 * (a chunked body is decoded in place first).  Returns false to wait for
 * more.
 */
static bool
body_ready(const struct fm_http_check *check, struct fm_http_rx *rx,
           const struct fm_http_reply *reply, bool eof, struct judge_body *out)
{
    char *body = rx->buf + rx->final_at + reply->header_len;
    size_t body_len = rx->len - rx->final_at - reply->header_len;
    enum fm_http_framing framing = fm_http_reply_framing(reply, check->head_request);
    bool complete = false;
    size_t have = 0;

    out->why = NULL;
    out->truncated = false;
    switch (framing) {
        case FM_HTTP_BODY_NONE:
            complete = true;
            break;
        case FM_HTTP_BODY_LENGTH:
            have = (body_len < reply->content_length)? body_len : reply->content_length;
            complete = (have == reply->content_length);
            break;
        case FM_HTTP_BODY_CHUNKED:
            switch (fm_http_chunked(body, body_len, false, &have, &out->why)) {
                case FM_HTTP_MALFORMED:
                    return true;
                case FM_HTTP_BODY_DONE:
                    complete = true;
                    break;
                default:
                    break;
            }
            break;
        case FM_HTTP_BODY_CLOSE:
            have = body_len;
            complete = eof;
            break;
    }
    if (!complete && have < check->receive_window_bytes && !eof
        && rx->len < check->max_reply_bytes) {
        return false;
    }
    /* A body cut short by the server is not the page; one cut by our own
     * read cap is judged on what was read, as the cap is ours to choose. */
    out->truncated = (!complete && have < check->receive_window_bytes && eof);
    if (framing == FM_HTTP_BODY_CHUNKED) {
        fm_http_chunked(body, body_len, true, &have, &out->why);
        out->why = NULL;    /* a malformed end was caught above or lies beyond */
    }
    out->data = body;
    out->len = (have < check->receive_window_bytes)? have : check->receive_window_bytes;
    return true;
}

/* The receive regex, in normal or reverse mode; returns true on a verdict
 * (a failure: a success goes on to the truncation check). */
static bool
judge_content(const struct fm_http_check *check, const struct judge_body *body,
              struct fm_http_verdict *v)
{
    size_t len = (body->len > check->receive_window_bytes)? check->receive_window_bytes
                                                          : body->len;
    int rc = check->match(check->match_ctx, check->receive, body->data, len);

    if (rc < 0) {
        snprintf(v->detail, sizeof(v->detail),
                 "matching '%s' against the reply did not end by the deadline", check->receive_text);
        return verdict(v, FM_REASON_READ_TIMEOUT);
    }
    if (rc == 1 && check->reverse) {
        snprintf(v->detail, sizeof(v->detail), "reply matches '%s' (reverse mode)",
                 check->receive_text);
        return verdict(v, FM_REASON_CONTENT_REVERSE);
    }
    if (rc != 1 && !check->reverse) {
        snprintf(v->detail, sizeof(v->detail), "reply does not match '%s'",
                 check->receive_text);
        return verdict(v, FM_REASON_CONTENT_MISMATCH);
    }
    return false;
}

/* A healthy reply that asks to be drained: the maintenance regex matched
 * in the window the receive regex sees.  Returns true on a verdict. */
static bool
judge_maintenance_content(const struct fm_http_check *check, const struct judge_body *body,
                          struct fm_http_verdict *v)
{
    size_t len = (body->len > check->receive_window_bytes)? check->receive_window_bytes
                                                          : body->len;
    int rc = check->match(check->match_ctx, check->maintenance_re, body->data, len);

    if (rc < 0) {
        snprintf(v->detail, sizeof(v->detail),
                 "matching '%s' against the reply did not end by the deadline",
                 check->maintenance_text);
        return verdict(v, FM_REASON_READ_TIMEOUT);
    }
    if (rc == 1) {
        snprintf(v->detail, sizeof(v->detail),
                 "maintenance: the reply matches '%s' (maintenance_regex)", check->maintenance_text);
        return verdict(v, FM_REASON_MAINTENANCE);
    }
    return false;
}

/*
 * What frames the body, once the status passed.  A framing doubt is
 * malformed only where a body follows (curl and HAProxy refuse it on a GET,
 * and accept it on a HEAD).  Bytes where no body may be (after a HEAD, a
 * 204 or a 304) are a deviation that curl -I, wget --spider and HAProxy
 * accept: they are never read as the page, and never matched by the
 * receive regex (a HEAD's regex sees the headers).  Returns true on a
 * verdict.
 */
static bool
judge_framing(const struct fm_http_check *check, const struct fm_http_rx *rx,
              const struct fm_http_reply *reply, struct fm_http_verdict *v)
{
    const char *after_headers = rx->buf + rx->final_at + reply->header_len;
    size_t after_len = rx->len - rx->final_at - reply->header_len;

    if (fm_http_reply_framing(reply, check->head_request) != FM_HTTP_BODY_NONE) {
        return (reply->framing_doubt != NULL)
               && judge_malformed(v, reply->framing_doubt, after_headers, after_len);
    }
    if (v->deviation == NULL) {
        v->deviation = reply->framing_doubt;
    }
    if (v->deviation == NULL && after_len > 0) {
        v->deviation = "a body where the reply may have none (HEAD, 204, 304)";
    }
    return false;
}

/* Skip interim replies (100 Continue, 103 Early Hints...), which say
 * nothing about the outcome: the final one is read on to, within the read
 * cap and the deadline like any other bytes. */
static enum fm_http_parse
parse_final(struct fm_http_rx *rx, struct fm_http_reply *reply)
{
    for (;;) {
        enum fm_http_parse parse = fm_http_parse_reply(rx->buf + rx->final_at,
                                                       rx->len - rx->final_at, reply);

        if (parse != FM_HTTP_INTERIM) {
            return parse;
        }
        rx->final_at += reply->header_len;
        rx->interim++;
    }
}

bool
fm_http_judge(const struct fm_http_check *check, struct fm_http_rx *rx, bool eof,
              struct fm_http_verdict *v)
{
    struct fm_http_reply reply;
    enum fm_http_parse parse = parse_final(rx, &reply);
    const char *after_headers = NULL;
    struct judge_body body = { .data = NULL };

    v->http_status = 0;
    v->deviation = NULL;
    if (parse == FM_HTTP_MALFORMED) {
        return judge_malformed(v, reply.why, rx->buf + rx->final_at + reply.why_offset,
                               rx->len - rx->final_at - reply.why_offset);
    }
    if (parse == FM_HTTP_NEED_MORE) {
        return judge_incomplete(check, rx, eof, v);
    }
    v->http_status = reply.status;
    v->deviation = reply.deviation;
    /* A status the administrator chose to mean "drain me" (HAProxy's
     * disable-on-404) before the expected set, which it would fail. */
    if (check->maintenance_status != NULL
        && fm_status_set_has(check->maintenance_status, reply.status)) {
        snprintf(v->detail, sizeof(v->detail),
                 "maintenance: HTTP %d (maintenance_status)", reply.status);
        return verdict(v, FM_REASON_MAINTENANCE);
    }
    /* The status is final once the headers are: a failing one needs no body. */
    if (!fm_status_set_has(check->expect, reply.status)) {
        snprintf(v->detail, sizeof(v->detail), "HTTP status %d is not an expected status",
                 reply.status);
        return verdict(v, FM_REASON_STATUS);
    }
    after_headers = rx->buf + rx->final_at + reply.header_len;
    if (judge_framing(check, rx, &reply, v)) {
        return true;
    }
    if (check->maintenance_header != NULL
        && fm_http_has_header(rx->buf + rx->final_at, reply.header_len, check->maintenance_header)) {
        /* Envoy's x-envoy-degraded: healthy, but take no new work. */
        snprintf(v->detail, sizeof(v->detail), "maintenance: HTTP %d with header %s",
                 reply.status, check->maintenance_header);
        return verdict(v, FM_REASON_MAINTENANCE);
    }
    if (check->want_body) {
        if (!body_ready(check, rx, &reply, eof, &body)) {
            return false;
        }
        if (body.why != NULL) {
            return judge_malformed(v, body.why, after_headers,
                                   rx->len - rx->final_at - reply.header_len);
        }
    } else {
        body.data = rx->buf + rx->final_at;
        body.len = reply.header_len;
    }
    if (check->maintenance_re != NULL && !body.truncated
        && judge_maintenance_content(check, &body, v)) {
        return true;
    }
    if (check->receive != NULL && judge_content(check, &body, v)) {
        return true;
    }
    if (body.truncated) {
        snprintf(v->detail, sizeof(v->detail),
                 "connection closed after %zu body bytes, before the end of the body", body.len);
        return verdict(v, FM_REASON_READ_FAILED);
    }
    snprintf(v->detail, sizeof(v->detail), "HTTP %d", reply.status);
    return verdict(v, FM_REASON_OK);
}
