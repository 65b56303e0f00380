/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the gRPC health check's request and the verdict on its reply
 * (grpc.health.v1.Health/Check), pure: no socket, no nghttp2.  The probe
 * (src/probe/grpc.c) records the reply's header fields and message bytes
 * here as HTTP/2 delivers them; unit tests and the fuzz harness do the same
 * with bytes of their own.
 */
#ifndef FAULTMON_GRPC_H
#define FAULTMON_GRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/result.h>

/* The path of the standard health check's method. */
#define FM_GRPC_HEALTH_PATH "/grpc.health.v1.Health/Check"
/* A HealthCheckResponse is a few bytes; more is not one. */
#define FM_GRPC_MSG_MAX 512

/* The reply as it arrived: the response's headers, its trailers (or the
 * headers of a trailers-only reply) and its message bytes. */
struct fm_grpc_reply {
    int http_status;            /* :status of the response, 0: none yet */
    bool headers_done;          /* the response's header block is complete */
    bool content_type_seen;
    bool content_type_grpc;     /* application/grpc, +proto or ;params */
    char content_type[48];      /* as sent (cut), for the detail */
    bool have_grpc_status;
    char grpc_status[12];       /* as sent (cut) */
    char grpc_message[96];      /* as sent (cut, percent-encoded) */
    uint8_t msg[FM_GRPC_MSG_MAX];
    size_t msg_len;
    bool msg_over;              /* more than FM_GRPC_MSG_MAX bytes came */
};

/*!
 * \brief Record a header field of the response or its trailers.
 * \param[in] name, value  as received (not NUL-terminated)
 */
void fm_grpc_reply_header(struct fm_grpc_reply *reply, const uint8_t *name, size_t name_len,
                          const uint8_t *value, size_t value_len);

/*! \brief Record message bytes (the DATA frames' payload). */
void fm_grpc_reply_data(struct fm_grpc_reply *reply, const uint8_t *data, size_t len);

/*!
 * \brief The framed HealthCheckRequest{service}: the 5-byte gRPC message
 *        header and the protobuf field 1.
 * \param[out] out  at least 5 + 1 + 5 + strlen(service) bytes
 * \return its length
 */
size_t fm_grpc_health_request(const char *service, uint8_t *out, size_t out_len);

/*!
 * \brief The ServingStatus of a framed HealthCheckResponse.
 * \param[out] status  0 UNKNOWN, 1 SERVING, 2 NOT_SERVING, 3 SERVICE_UNKNOWN,
 *                     or another value a newer server may send
 * \param[out] why     what is wrong, on failure (static text)
 * \return 0, or EINVAL for bytes that are not one uncompressed message
 */
int fm_grpc_health_status(const uint8_t *msg, size_t len, uint64_t *status, const char **why);

/*! \brief A gRPC status code's name ("UNIMPLEMENTED"), "?" when unknown. */
const char *fm_grpc_status_name(unsigned long code);

/*!
 * \brief Judge a reply.
 * \param[in] complete  the stream ended (END_STREAM): trailers are all in
 * \param[in] service   the service asked about, for the detail
 * \param[out] reason   the verdict, when one is given
 * \return true once judged; false to read on
 */
bool fm_grpc_judge(const struct fm_grpc_reply *reply, bool complete, const char *service,
                   enum fm_reason *reason, char *detail, size_t detail_len);

#endif
