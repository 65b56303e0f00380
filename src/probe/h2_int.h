/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: an HTTP/2 client stream over a probe's connection (not
 * installed), shared by the h2/h2c probe (h2.c) and the gRPC health probe
 * (grpc.c).
 *
 * libnghttp2 frames and parses; it never touches the socket.  Its session
 * is pumped by h2_session.c over fm_conn_io() (plain TCP or the TLS layer),
 * on the engine's epoll, so a probe never blocks.  nghttp2's callbacks only
 * record what arrived; the protocol's judge runs after each batch of bytes,
 * outside the library, since a verdict closes the connection and frees the
 * session.
 *
 * No .c of its name: the interface of h2_session.c, shared by h2.c and
 * grpc.c.
 */
#ifndef FAULTMON_H2_INT_H
#define FAULTMON_H2_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>

#include <faultmon/grpc.h>
#include "probe_int.h"

struct fm_h2;

#define FM_H2_OUT_BYTES 16384

/* What a protocol does with its stream's reply. */
struct fm_h2_handler {
    /* A header field of a header block of the stream (cat: nghttp2's
     * NGHTTP2_HCAT_*; the final response, an interim one or trailers). */
    void (*on_header)(struct fm_conn *conn, struct fm_h2 *h2, const nghttp2_headers *frame,
                      const uint8_t *name, size_t name_len, const uint8_t *value,
                      size_t value_len);
    /* A header block of the stream is complete. */
    void (*on_headers_end)(struct fm_conn *conn, struct fm_h2 *h2, const nghttp2_headers *frame);
    void (*on_data)(struct fm_conn *conn, struct fm_h2 *h2, const uint8_t *data, size_t len);
    /* After each batch of bytes read, and when the stream or the
     * connection ended: give the verdict, or none to read on. */
    void (*judge)(struct fm_conn *conn, struct fm_h2 *h2);
};

/* A request: its header fields and body, made once at load time. */
struct fm_h2_request {
    nghttp2_nv *nv;
    size_t n_nv;
    size_t cap_nv;
    uint8_t *body;              /* NULL: no body (END_STREAM on HEADERS) */
    size_t body_len;
    char *service;              /* grpc: the service asked about */
    const struct fm_h2_handler *handler;    /* the protocol's judge */
};

/* One probe's HTTP/2 connection, made when the transport is up. */
struct fm_h2 {
    nghttp2_session *session;
    const struct fm_h2_handler *handler;
    const struct fm_h2_request *request;
    struct fm_conn *conn;
    int32_t stream_id;
    /* Frames are gathered into one write (no Nagle wait between small
     * frames); what does not fit waits in nghttp2's own buffer. */
    uint8_t out[FM_H2_OUT_BYTES];
    size_t out_start;
    size_t out_end;
    const uint8_t *spill;       /* from nghttp2, not yet copied to out */
    size_t spill_len;
    size_t body_sent;
    bool stream_closed;         /* the server ended the stream */
    uint32_t error_code;        /* its RST_STREAM code (0: a normal end) */
    bool eof;                   /* the connection ended */
    bool in_head;               /* in a response head's header block (h2.c) */
    char proto_error[96];       /* what nghttp2 found wrong in the server's bytes */
    bool no_memory;             /* the reply could not be kept */
    bool capped;                /* a reply over max_reply_bytes was cut */
    struct fm_grpc_reply grpc;  /* grpc.c's reply, as it arrives */
};

/*! \brief Add a header field (name lower-cased). \return 0 or ENOMEM */
int fm_h2_request_add(struct fm_h2_request *req, const char *name, const char *value);
/*! \brief Free a request (a target's prepared_free). */
void fm_h2_request_free(void *req);
/*! \brief ":authority": host (bracketed when IPv6) and the port unless it is \p default_port. */
int fm_h2_authority(const struct fm_target *target, uint16_t default_port, char **out);

/*!
 * \brief Start the stream of \p req on a connected conn (after the TLS
 *        handshake, which must have selected ALPN h2), and pump it.
 */
void fm_h2_start(struct fm_conn *conn, const struct fm_h2_handler *handler,
                 const struct fm_h2_request *req);
/*!
 * \brief Make \p req, judged by \p handler, the prepared request of
 *        \p target (in place of one it had): the end of every protocol's
 *        prepare over HTTP/2.
 */
void fm_h2_request_attach(struct fm_target *target, struct fm_h2_request *req,
                          const struct fm_h2_handler *handler);
/*! \brief The transport is up: fm_h2_start() with the prepared request's handler. */
void fm_h2_on_ready(struct fm_conn *conn);
/*! \brief The socket is ready: write what is due, read what came, judge. */
void fm_h2_on_io(struct fm_conn *conn);

/* The members every protocol over HTTP/2 shares in its struct
 * fm_probe_proto: all but its name and prepare are the session's. */
#define FM_H2_PROTO_SESSION .on_ready = fm_h2_on_ready, .on_io = fm_h2_on_io, \
    .timeout_note = fm_h2_timeout_note, .release = fm_h2_release, .alpn_wire = "\x02h2"
/*! \brief Free the session (the protocol's release). */
void fm_h2_release(struct fm_conn *conn);
/*! \brief The timeout's note for an HTTP/2 stream. */
const char *fm_h2_timeout_note(const struct fm_conn *conn);
/*! \brief An RST_STREAM or GOAWAY code's name ("CANCEL", "REFUSED_STREAM"...). */
const char *fm_h2_error_name(uint32_t code);

#endif
