/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the gRPC health probe, grpc://HOST:PORT/SERVICE (h2c) and
 * grpcs:// (TLS, ALPN h2): the standard grpc.health.v1.Health/Check of
 * SERVICE ("" asks for the server as a whole), over h2_session.c, judged
 * by fm_grpc_judge() (grpc_reply.c) once the stream ends.
 */
#include <config.h>

#include <faultmon/grpc.h>
#include <faultmon/probe_opts.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_int.h"

#define FM_GRPC_USER_AGENT "grpc-faultmon/" PACKAGE_VERSION

static int
grpc_build(struct fm_h2_request *req, const struct fm_target *target)
{
    char *authority = NULL;
    size_t cap = 11 + strlen(req->service);
    int rc = fm_h2_authority(target, 0, &authority);

    rc = (rc != 0)? rc : fm_h2_request_add(req, ":method", "POST");
    rc = (rc != 0)? rc : fm_h2_request_add(req, ":scheme", target->use_tls? "https" : "http");
    rc = (rc != 0)? rc : fm_h2_request_add(req, ":authority", authority);
    rc = (rc != 0)? rc : fm_h2_request_add(req, ":path", FM_GRPC_HEALTH_PATH);
    rc = (rc != 0)? rc : fm_h2_request_add(req, "content-type", "application/grpc");
    /* gRPC requires it: the client understands trailers (grpc-status). */
    rc = (rc != 0)? rc : fm_h2_request_add(req, "te", "trailers");
    rc = (rc != 0)? rc : fm_h2_request_add(req, "user-agent", FM_GRPC_USER_AGENT);
    free(authority);
    if (rc != 0) {
        return rc;
    }
    req->body = malloc(cap);
    if (req->body == NULL) {
        return ENOMEM;
    }
    req->body_len = fm_grpc_health_request(req->service, req->body, cap);
    return 0;
}

static const struct fm_h2_handler grpc_handler;

static int
grpc_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct fm_h2_request *req = calloc(1, sizeof(*req));

    (void) opts;
    if (req == NULL) {
        return ENOMEM;
    }
    req->service = strdup(target->path + (target->path[0] == '/'));
    if (req->service == NULL || grpc_build(req, target) != 0) {
        fm_h2_request_free(req);
        return ENOMEM;
    }
    fm_h2_request_attach(target, req, &grpc_handler);
    return 0;
}

static void
grpc_on_header(struct fm_conn *conn, struct fm_h2 *h2, const nghttp2_headers *frame,
               const uint8_t *name, size_t name_len, const uint8_t *value, size_t value_len)
{
    (void) conn;
    (void) frame;
    fm_grpc_reply_header(&h2->grpc, name, name_len, value, value_len);
}

static void
grpc_on_headers_end(struct fm_conn *conn, struct fm_h2 *h2, const nghttp2_headers *frame)
{
    (void) conn;
    (void) frame;
    h2->grpc.headers_done = true;
}

static void
grpc_on_data(struct fm_conn *conn, struct fm_h2 *h2, const uint8_t *data, size_t len)
{
    (void) conn;
    fm_grpc_reply_data(&h2->grpc, data, len);
}

static void
grpc_judge(struct fm_conn *conn, struct fm_h2 *h2)
{
    const struct fm_h2_request *req = h2->request;
    char detail[sizeof(conn->result->detail)];
    enum fm_reason reason = FM_REASON_OK;

    if (fm_conn_judged(conn)) {
        return;
    }
    if (h2->stream_closed && h2->error_code != NGHTTP2_NO_ERROR) {
        /* As a connection reset in the middle of a reply. */
        snprintf(detail, sizeof(detail), "the server reset the HTTP/2 stream (%s) before a "
                 "gRPC reply", fm_h2_error_name(h2->error_code));
        fm_conn_finish(conn, FM_REASON_READ_FAILED, 0, detail);
        return;
    }
    if (!fm_grpc_judge(&h2->grpc, h2->stream_closed, req->service, &reason, detail,
                       sizeof(detail))) {
        return;
    }
    fm_conn_finish(conn, reason, 0, detail);
}

static const struct fm_h2_handler grpc_handler = {
    .on_header = grpc_on_header,
    .on_headers_end = grpc_on_headers_end,
    .on_data = grpc_on_data,
    .judge = grpc_judge,
};

const struct fm_probe_proto fm_probe_proto_grpc = {
    .name = "grpc",
    .prepare = grpc_prepare,
    FM_H2_PROTO_SESSION,
};
