/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the HTTP/2 probe, h2:// (TLS, ALPN h2) and h2c:// (cleartext,
 * prior knowledge), named for their ALPN protocols (RFC 9113 3.2, 3.3).
 *
 * A GET (or Http_method) of the target's path, judged by the same judge as
 * HTTP/1.1 (http_judge.c): the reply's header block is written out as an
 * HTTP/1.1 head ("HTTP/1.1 200", then "name: value" lines) into conn->rx,
 * and its DATA after it; the end of the stream is the end of the body, so
 * content-length and transfer-encoding are left out.  Status set, receive
 * regex, reverse mode and maintenance signals thus mean what they mean for
 * HTTP/1.1.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <faultmon/http.h>
#include <faultmon/probe_opts.h>
#include <faultmon/text.h>
#include "h2_int.h"

#define FM_H2_USER_AGENT "faultmon/" PACKAGE_VERSION

/* The Basic credentials of a URI's user:password. */
static int
add_authorization(struct fm_h2_request *req, const char *userinfo)
{
    size_t raw_len = strlen(userinfo);
    size_t b64_size = FM_BASE64_SIZE(raw_len);
    char *value = calloc(b64_size + 6, 1);
    int rc = 0;

    if (value == NULL) {
        return ENOMEM;
    }
    memcpy(value, "Basic ", 6);
    (void) fm_base64_encode(userinfo, raw_len, value + 6, b64_size);
    rc = fm_h2_request_add(req, "authorization", value);
    explicit_bzero(value, b64_size + 6);
    free(value);
    return rc;
}

/* Http_header lines as HTTP/2 fields: "Host" becomes the :authority. */
static int
add_user_headers(struct fm_h2_request *req, const struct fm_probe_opts *opts)
{
    for (size_t i = 0; i < opts->n_headers; i++) {
        const char *line = opts->headers[i];
        size_t name_len = strcspn(line, ":");
        const char *value = line + name_len + (line[name_len] == ':');
        char *name = strndup(line, name_len);
        int rc = 0;

        value += strspn(value, " \t");
        if (name == NULL) {
            return ENOMEM;
        }
        /* Connection-specific fields are forbidden in HTTP/2 (8.2.2). */
        if (strcasecmp(name, "host") != 0 && strcasecmp(name, "connection") != 0
            && strcasecmp(name, "keep-alive") != 0 && strcasecmp(name, "transfer-encoding") != 0
            && strcasecmp(name, "upgrade") != 0 && strcasecmp(name, "proxy-connection") != 0) {
            rc = fm_h2_request_add(req, name, value);
        }
        free(name);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

/* The Host of Http_header, else the target's authority. */
static int
add_authority(struct fm_h2_request *req, const struct fm_target *target,
              const struct fm_probe_opts *opts)
{
    char *authority = NULL;
    int rc = 0;

    for (size_t i = 0; i < opts->n_headers; i++) {
        if (strncasecmp(opts->headers[i], "host:", 5) == 0) {
            const char *value = opts->headers[i] + 5;

            return fm_h2_request_add(req, ":authority", value + strspn(value, " \t"));
        }
    }
    rc = fm_h2_authority(target, target->use_tls? 443 : 80, &authority);
    if (rc == 0) {
        rc = fm_h2_request_add(req, ":authority", authority);
    }
    free(authority);
    return rc;
}

static int
h2_build(struct fm_h2_request *req, const struct fm_target *target,
         const struct fm_probe_opts *opts)
{
    const char *method = (opts->method != NULL)? opts->method : "GET";
    bool has_ua = false;
    bool has_auth = false;
    int rc = 0;

    for (size_t i = 0; i < opts->n_headers; i++) {
        has_ua |= (strncasecmp(opts->headers[i], "user-agent:", 11) == 0);
        has_auth |= (strncasecmp(opts->headers[i], "authorization:", 14) == 0);
    }
    rc = fm_h2_request_add(req, ":method", method);
    rc = (rc != 0)? rc : fm_h2_request_add(req, ":scheme", target->use_tls? "https" : "http");
    rc = (rc != 0)? rc : add_authority(req, target, opts);
    rc = (rc != 0)? rc : fm_h2_request_add(req, ":path", target->path);
    if (rc == 0 && !has_ua) {
        rc = fm_h2_request_add(req, "user-agent", FM_H2_USER_AGENT);
    }
    if (rc == 0 && target->userinfo != NULL && !has_auth) {
        rc = add_authorization(req, target->userinfo);
    }
    return (rc != 0)? rc : add_user_headers(req, opts);
}

static const struct fm_h2_handler h2_handler;

static int
h2_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct fm_h2_request *req = calloc(1, sizeof(*req));

    if (req == NULL) {
        return ENOMEM;
    }
    if (h2_build(req, target, opts) != 0) {
        fm_h2_request_free(req);
        return ENOMEM;
    }
    fm_h2_request_attach(target, req, &h2_handler);
    return 0;
}

/* Room for more of the rendered reply, within max_reply_bytes.  Unlike
 * fm_conn_rx_room(), never a verdict: this runs inside nghttp2's
 * callbacks, and a verdict frees the session. */
static bool
rx_grow(struct fm_conn *conn, struct fm_h2 *h2)
{
    size_t cap = (conn->rx_cap == 0)? 1024 : conn->rx_cap * 2;
    char *grown = NULL;

    if (cap > conn->run->opts->max_reply_bytes) {
        cap = conn->run->opts->max_reply_bytes;
    }
    if (cap <= conn->rx_len) {
        h2->capped = true;
        return false;
    }
    grown = realloc(conn->rx, cap + 1);     /* + 1: kept NUL-terminated */
    if (grown == NULL) {
        h2->capped = h2->no_memory = true;
        return false;
    }
    conn->rx = grown;
    conn->rx_cap = cap;
    return true;
}

/* Append to the rendered reply, within max_reply_bytes (the judge then
 * says what a reply cut by the cap is worth). */
static void
rx_append(struct fm_conn *conn, struct fm_h2 *h2, const void *data, size_t len)
{
    while (len > 0 && !h2->capped) {
        size_t room = 0;

        if (conn->rx_len == conn->rx_cap && !rx_grow(conn, h2)) {
            return;
        }
        room = conn->rx_cap - conn->rx_len;
        room = (room < len)? room : len;
        memcpy(conn->rx + conn->rx_len, data, room);
        conn->rx_len += room;
        conn->rx[conn->rx_len] = '\0';
        data = (const char *) data + room;
        len -= room;
    }
}

/* A header block with a :status is a response head (interim or final),
 * rendered; one without is trailers, which the judge does not read. */
static void
h2_on_header(struct fm_conn *conn, struct fm_h2 *h2, const nghttp2_headers *frame,
             const uint8_t *name, size_t name_len, const uint8_t *value, size_t value_len)
{
    (void) frame;
    if (name_len == 7 && memcmp(name, ":status", 7) == 0) {
        h2->in_head = true;
        rx_append(conn, h2, "HTTP/1.1 ", 9);
        rx_append(conn, h2, value, value_len);
        rx_append(conn, h2, "\r\n", 2);
        return;
    }
    if (!h2->in_head || (name_len == 14 && memcmp(name, "content-length", 14) == 0)
        || (name_len == 17 && memcmp(name, "transfer-encoding", 17) == 0)) {
        return;     /* the stream's end frames the body */
    }
    rx_append(conn, h2, name, name_len);
    rx_append(conn, h2, ": ", 2);
    rx_append(conn, h2, value, value_len);
    rx_append(conn, h2, "\r\n", 2);
}

static void
h2_on_headers_end(struct fm_conn *conn, struct fm_h2 *h2, const nghttp2_headers *frame)
{
    (void) frame;
    if (h2->in_head) {
        rx_append(conn, h2, "\r\n", 2);
        h2->in_head = false;
    }
}

static void
h2_on_data(struct fm_conn *conn, struct fm_h2 *h2, const uint8_t *data, size_t len)
{
    rx_append(conn, h2, data, len);
}

static void
h2_judge(struct fm_conn *conn, struct fm_h2 *h2)
{
    char detail[sizeof(conn->result->detail)];

    if (fm_conn_judged(conn)) {
        return;
    }
    if (h2->no_memory) {
        fm_conn_finish(conn, FM_REASON_READ_FAILED, ENOMEM, NULL);
        return;
    }
    if (h2->stream_closed && h2->error_code != NGHTTP2_NO_ERROR) {
        snprintf(detail, sizeof(detail), "the server reset the HTTP/2 stream (%s) after %zu "
                 "bytes of reply", fm_h2_error_name(h2->error_code), conn->rx_len);
        fm_conn_finish(conn, FM_REASON_READ_FAILED, 0, detail);
        return;
    }
    if (conn->rx_len == 0) {
        /* No head yet (conn->rx not even made): nothing to judge. */
        if (h2->stream_closed || h2->eof) {
            fm_conn_finish(conn, FM_REASON_READ_FAILED, 0,
                           "the HTTP/2 stream or connection ended before a reply");
        }
        return;
    }
    if (fm_http_judge_conn(conn, h2->stream_closed || h2->eof)) {
        return;
    }
    if (h2->capped) {
        fm_conn_finish(conn, FM_REASON_READ_TOO_LARGE, 0, "reply exceeds the read cap");
    }
}

static const struct fm_h2_handler h2_handler = {
    .on_header = h2_on_header,
    .on_headers_end = h2_on_headers_end,
    .on_data = h2_on_data,
    .judge = h2_judge,
};

const struct fm_probe_proto fm_probe_proto_h2 = {
    .name = "h2",
    .prepare = h2_prepare,
    FM_H2_PROTO_SESSION,
};
