/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: an HTTP/2 client stream pumped over a probe's connection (see
 * h2_int.h).  nghttp2_session_mem_send() and _mem_recv() keep the library
 * away from the socket: the bytes go through fm_conn_io(), which waits on
 * the engine's epoll when the socket would block.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "h2_int.h"

#define FM_H2_READ_BYTES 16384

int
fm_h2_request_add(struct fm_h2_request *req, const char *name, const char *value)
{
    nghttp2_nv *nv = NULL;
    char *n = strdup(name);
    char *v = strdup(value);

    if (req->n_nv == req->cap_nv) {
        size_t cap = (req->cap_nv == 0)? 8 : req->cap_nv * 2;

        nv = realloc(req->nv, cap * sizeof(*nv));
        if (nv != NULL) {
            req->nv = nv;
            req->cap_nv = cap;
        }
    }
    if (n == NULL || v == NULL || req->n_nv == req->cap_nv) {
        free(n);
        free(v);
        return ENOMEM;
    }
    for (char *p = n; *p != '\0'; p++) {
        *p = (char) tolower((unsigned char) *p);    /* RFC 9113 8.2.1 */
    }
    req->nv[req->n_nv++] = (nghttp2_nv) {
        .name = (uint8_t *) n, .namelen = strlen(n), .value = (uint8_t *) v,
        .valuelen = strlen(v), .flags = NGHTTP2_NV_FLAG_NONE,
    };
    return 0;
}

void
fm_h2_request_free(void *ptr)
{
    struct fm_h2_request *req = ptr;

    if (req == NULL) {
        return;
    }
    for (size_t i = 0; i < req->n_nv; i++) {
        free(req->nv[i].name);
        /* Authorization's value is a secret. */
        explicit_bzero(req->nv[i].value, req->nv[i].valuelen);
        free(req->nv[i].value);
    }
    free(req->nv);
    free(req->body);
    free(req->service);
    free(req);
}

int
fm_h2_authority(const struct fm_target *target, uint16_t default_port, char **out)
{
    bool v6 = (strchr(target->host, ':') != NULL);
    int rc = 0;

    if (target->port == default_port) {
        rc = asprintf(out, "%s%s%s", v6? "[" : "", target->host, v6? "]" : "");
    } else {
        rc = asprintf(out, "%s%s%s:%u", v6? "[" : "", target->host, v6? "]" : "",
                      (unsigned) target->port);
    }
    if (rc < 0) {
        *out = NULL;
        return ENOMEM;
    }
    return 0;
}

const char *
fm_h2_error_name(uint32_t code)
{
    static const char *const names[] = {
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
        "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM",
        "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    };

    return (code < sizeof(names) / sizeof(names[0]))? names[code] : "unknown error code";
}

static int
on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
          size_t name_len, const uint8_t *value, size_t value_len, uint8_t flags, void *ud)
{
    struct fm_h2 *h2 = ud;

    (void) session;
    (void) flags;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->hd.stream_id == h2->stream_id) {
        h2->handler->on_header(h2->conn, h2, &frame->headers, name, name_len, value, value_len);
    }
    return 0;
}

static int
on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *ud)
{
    struct fm_h2 *h2 = ud;

    (void) session;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->hd.stream_id == h2->stream_id) {
        h2->handler->on_headers_end(h2->conn, h2, &frame->headers);
    }
    return 0;
}

static int
on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data,
              size_t len, void *ud)
{
    struct fm_h2 *h2 = ud;

    (void) session;
    (void) flags;
    if (stream_id == h2->stream_id) {
        h2->handler->on_data(h2->conn, h2, data, len);
    }
    return 0;
}

static int
on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *ud)
{
    struct fm_h2 *h2 = ud;

    (void) session;
    if (stream_id == h2->stream_id) {
        h2->stream_closed = true;
        h2->error_code = error_code;
    }
    return 0;
}

/* The server broke the protocol: nghttp2 answers with GOAWAY by itself;
 * the probe's verdict says what was wrong. */
static int
on_error(nghttp2_session *session, int lib_error_code, const char *msg, size_t len, void *ud)
{
    struct fm_h2 *h2 = ud;

    (void) session;
    (void) lib_error_code;
    if (h2->proto_error[0] == '\0') {
        snprintf(h2->proto_error, sizeof(h2->proto_error), "%.*s", (int) len, msg);
    }
    return 0;
}

/* The request's body, handed to nghttp2 as it asks. */
static ssize_t
read_body(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t len,
          uint32_t *data_flags, nghttp2_data_source *source, void *ud)
{
    struct fm_h2 *h2 = ud;
    size_t left = h2->request->body_len - h2->body_sent;
    size_t n = (left < len)? left : len;

    (void) session;
    (void) stream_id;
    (void) source;
    memcpy(buf, h2->request->body + h2->body_sent, n);
    h2->body_sent += n;
    if (h2->body_sent == h2->request->body_len) {
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    }
    return (ssize_t) n;
}

static int
session_new(struct fm_h2 *h2)
{
    nghttp2_session_callbacks *cbs = NULL;
    int rc = 0;

    if (nghttp2_session_callbacks_new(&cbs) != 0) {
        return ENOMEM;
    }
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    nghttp2_session_callbacks_set_error_callback2(cbs, on_error);
    rc = nghttp2_session_client_new(&h2->session, cbs, h2);
    nghttp2_session_callbacks_del(cbs);
    return (rc == 0)? 0 : ENOMEM;
}

/* The connection preface, SETTINGS and the request's stream. */
static const char *
submit_request(struct fm_h2 *h2)
{
    nghttp2_settings_entry settings[] = {
        { NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
        { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1 },
    };
    nghttp2_data_provider body = { .source.ptr = NULL, .read_callback = read_body };
    const struct fm_h2_request *req = h2->request;

    if (nghttp2_submit_settings(h2->session, NGHTTP2_FLAG_NONE, settings, 2) != 0) {
        return "cannot submit HTTP/2 SETTINGS";
    }
    h2->stream_id = nghttp2_submit_request(h2->session, NULL, req->nv, req->n_nv,
                                           (req->body != NULL)? &body : NULL, NULL);
    return (h2->stream_id < 0)? nghttp2_strerror(h2->stream_id) : NULL;
}

/* Whether TLS settled on HTTP/2: a server that did not choose "h2" would
 * read our frames as a broken HTTP/1.1 request. */
static bool
alpn_is_h2(struct fm_conn *conn)
{
    const unsigned char *proto = NULL;
    unsigned int len = 0;
    char detail[sizeof(conn->result->detail)];

    if (conn->ssl == NULL) {
        return true;    /* h2c: prior knowledge (RFC 9113 3.3) */
    }
    SSL_get0_alpn_selected(conn->ssl, &proto, &len);
    if (len == 2 && memcmp(proto, "h2", 2) == 0) {
        return true;
    }
    snprintf(detail, sizeof(detail), "TLS: the server selected %s%.*s%s, not HTTP/2 (h2)",
             (len == 0)? "no ALPN protocol" : "ALPN '", (int) len, (const char *) proto,
             (len == 0)? "" : "'");
    fm_conn_finish(conn, FM_REASON_TLS_FAILED, 0, detail);
    return false;
}

void
fm_h2_start(struct fm_conn *conn, const struct fm_h2_handler *handler,
            const struct fm_h2_request *req)
{
    struct fm_h2 *h2 = NULL;
    const char *why = NULL;

    if (!alpn_is_h2(conn)) {
        return;
    }
    h2 = calloc(1, sizeof(*h2));
    if (h2 == NULL || session_new(h2) != 0) {
        free(h2);
        fm_conn_finish(conn, FM_REASON_SEND_FAILED, ENOMEM, NULL);
        return;
    }
    h2->conn = conn;
    h2->handler = handler;
    h2->request = req;
    conn->proto_state = h2;
    why = submit_request(h2);
    if (why != NULL) {
        fm_conn_finish(conn, FM_REASON_SEND_FAILED, 0, why);
        return;
    }
    fm_conn_step(conn, FM_STEP_SEND);
    fm_h2_on_io(conn);
}

void
fm_h2_release(struct fm_conn *conn)
{
    struct fm_h2 *h2 = conn->proto_state;

    if (h2 != NULL) {
        nghttp2_session_del(h2->session);
        free(h2);
        conn->proto_state = NULL;
    }
}

/* Gather what nghttp2 has to send into h2->out.  Returns 0, or the
 * nghttp2 error. */
static int
h2_gather(struct fm_h2 *h2)
{
    while (h2->out_end < sizeof(h2->out)) {
        size_t take = 0;

        if (h2->spill_len == 0) {
            ssize_t n = nghttp2_session_mem_send(h2->session, &h2->spill);

            if (n <= 0) {
                return (int) n;
            }
            h2->spill_len = (size_t) n;
        }
        take = sizeof(h2->out) - h2->out_end;
        take = (take < h2->spill_len)? take : h2->spill_len;
        memcpy(h2->out + h2->out_end, h2->spill, take);
        h2->out_end += take;
        h2->spill += take;
        h2->spill_len -= take;
    }
    return 0;
}

/* Write what nghttp2 has to send.  Returns 0 when all is out, 1 when the
 * socket would block (its watch set), 2 once the verdict is given. */
static int
h2_flush(struct fm_conn *conn, struct fm_h2 *h2)
{
    char detail[sizeof(conn->result->detail)] = "";

    for (;;) {
        ssize_t n = 0;

        if (h2->out_start == h2->out_end) {
            int rc = 0;

            h2->out_start = h2->out_end = 0;
            rc = h2_gather(h2);
            if (rc != 0) {
                fm_conn_finish(conn, FM_REASON_SEND_FAILED, 0, nghttp2_strerror(rc));
                return 2;
            }
            if (h2->out_end == 0) {
                return 0;
            }
        }
        errno = 0;
        n = fm_conn_io(conn, true, h2->out + h2->out_start, h2->out_end - h2->out_start,
                       detail, sizeof(detail));
        if (n == -1) {
            return fm_conn_judged(conn)? 2 : 1;
        }
        if (n <= 0) {
            fm_conn_finish(conn, (conn->step == FM_STEP_SEND)? FM_REASON_SEND_FAILED
                                                              : FM_REASON_READ_FAILED,
                           errno, (detail[0] != '\0')? detail : "connection closed while sending");
            return 2;
        }
        h2->out_start += (size_t) n;
    }
}

/* Read once and hand the bytes to nghttp2.  Returns 0 when bytes were
 * taken, 1 when the socket would block, 2 once the verdict is given. */
static int
h2_read(struct fm_conn *conn, struct fm_h2 *h2)
{
    uint8_t buf[FM_H2_READ_BYTES];
    char detail[sizeof(conn->result->detail)] = "";
    ssize_t n = 0;
    ssize_t used = 0;

    errno = 0;
    n = fm_conn_io(conn, false, buf, sizeof(buf), detail, sizeof(detail));
    if (n == -1) {
        return fm_conn_judged(conn)? 2 : 1;
    }
    if (n == -2) {
        fm_conn_finish(conn, FM_REASON_READ_FAILED, errno, detail);
        return 2;
    }
    if (n == 0) {
        h2->eof = true;
        return 0;
    }
    used = nghttp2_session_mem_recv(h2->session, buf, (size_t) n);
    if (used < 0 || h2->proto_error[0] != '\0') {
        snprintf(detail, sizeof(detail), "malformed HTTP/2 reply: %s",
                 (h2->proto_error[0] != '\0')? h2->proto_error : nghttp2_strerror((int) used));
        fm_conn_finish(conn, FM_REASON_READ_MALFORMED, 0, detail);
        return 2;
    }
    return 0;
}

void
fm_h2_request_attach(struct fm_target *target, struct fm_h2_request *req,
                     const struct fm_h2_handler *handler)
{
    req->handler = handler;
    if (target->prepared_free != NULL) {
        target->prepared_free(target->prepared);
    }
    target->prepared = req;
    target->prepared_free = fm_h2_request_free;
    target->send_request = true;
}

void
fm_h2_on_ready(struct fm_conn *conn)
{
    const struct fm_h2_request *req = conn->target->prepared;

    fm_h2_start(conn, req->handler, req);
}

void
fm_h2_on_io(struct fm_conn *conn)
{
    struct fm_h2 *h2 = conn->proto_state;

    while (h2 != NULL && !fm_conn_judged(conn)) {
        int rc = h2_flush(conn, h2);

        if (rc != 0) {
            return;
        }
        /* The request is out once nghttp2 has nothing more to send for it;
         * what it sends later (WINDOW_UPDATE, SETTINGS ACK) is bookkeeping. */
        if (conn->step == FM_STEP_SEND
            && (h2->request->body == NULL || h2->body_sent == h2->request->body_len)) {
            fm_conn_step(conn, FM_STEP_READ);
        }
        rc = h2_read(conn, h2);
        if (rc == 2) {
            return;
        }
        h2->handler->judge(conn, h2);
        if (rc == 1 || fm_conn_judged(conn)) {
            return;
        }
        if (!h2->eof && !nghttp2_session_want_read(h2->session)
            && !nghttp2_session_want_write(h2->session)) {
            h2->eof = true;     /* a GOAWAY ended the session */
            h2->handler->judge(conn, h2);
        }
        if (h2->eof) {
            if (!fm_conn_judged(conn)) {
                fm_conn_finish(conn, FM_REASON_READ_FAILED, 0,
                               "the server ended the HTTP/2 connection before its reply");
            }
            return;
        }
    }
}

const char *
fm_h2_timeout_note(const struct fm_conn *conn)
{
    const struct fm_h2 *h2 = conn->proto_state;

    if (h2 == NULL || conn->step != FM_STEP_READ) {
        return "";
    }
    return (h2->stream_closed)? "" : " (no complete HTTP/2 reply)";
}
