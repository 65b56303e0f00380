/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: grpc.health.v1.Health/Check by hand: the request's few bytes,
 * and the verdict on a reply as grpc-health-probe (Kubernetes) gives it:
 * only SERVING passes; a grpc-status other than OK fails with its name; a
 * reply that is not gRPC (content type, framing, protobuf) is malformed.
 * Pure (see include/faultmon/grpc.h).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <faultmon/grpc.h>

/* The names of grpc/status.h's codes, by value. */
static const char *const grpc_codes[] = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
};

const char *
fm_grpc_status_name(unsigned long code)
{
    return (code < sizeof(grpc_codes) / sizeof(grpc_codes[0]))? grpc_codes[code] : "?";
}

/* Copy at most dst_len - 1 bytes, NUL-terminated. */
static void
copy_cut(char *dst, size_t dst_len, const uint8_t *src, size_t len)
{
    size_t n = (len < dst_len - 1)? len : dst_len - 1;

    memcpy(dst, src, n);
    dst[n] = '\0';
}

static bool
name_is(const uint8_t *name, size_t len, const char *want)
{
    return len == strlen(want) && memcmp(name, want, len) == 0;
}

void
fm_grpc_reply_header(struct fm_grpc_reply *reply, const uint8_t *name, size_t name_len,
                     const uint8_t *value, size_t value_len)
{
    if (name_is(name, name_len, ":status")) {
        int status = 0;

        for (size_t i = 0; i < value_len && i < 3; i++) {
            status = (value[i] >= '0' && value[i] <= '9')? status * 10 + (value[i] - '0') : -1000;
        }
        reply->http_status = (value_len == 3 && status >= 100)? status : 999;
    } else if (name_is(name, name_len, "content-type")) {
        /* application/grpc, application/grpc+proto, application/grpc;... */
        static const char base[] = "application/grpc";
        size_t n = sizeof(base) - 1;

        reply->content_type_seen = true;
        reply->content_type_grpc = value_len >= n && strncasecmp((const char *) value, base, n) == 0
                                   && (value_len == n || value[n] == '+' || value[n] == ';');
        copy_cut(reply->content_type, sizeof(reply->content_type), value, value_len);
    } else if (name_is(name, name_len, "grpc-status")) {
        reply->have_grpc_status = true;
        copy_cut(reply->grpc_status, sizeof(reply->grpc_status), value, value_len);
    } else if (name_is(name, name_len, "grpc-message")) {
        copy_cut(reply->grpc_message, sizeof(reply->grpc_message), value, value_len);
    }
}

void
fm_grpc_reply_data(struct fm_grpc_reply *reply, const uint8_t *data, size_t len)
{
    size_t room = sizeof(reply->msg) - reply->msg_len;

    if (len > room) {
        reply->msg_over = true;
        len = room;
    }
    memcpy(reply->msg + reply->msg_len, data, len);
    reply->msg_len += len;
}

size_t
fm_grpc_health_request(const char *service, uint8_t *out, size_t out_len)
{
    size_t svc_len = strlen(service);
    size_t at = 5;
    size_t body_len = 0;

    if (out_len < 5 + 1 + 5 + svc_len) {
        return 0;
    }
    /* Field 1 (service), wire type 2; proto3 leaves an empty string out. */
    if (svc_len > 0) {
        out[at++] = 0x0a;
        for (size_t v = svc_len; ; v >>= 7) {
            out[at++] = (uint8_t) ((v & 0x7f) | ((v > 0x7f)? 0x80 : 0));
            if (v <= 0x7f) {
                break;
            }
        }
        memcpy(out + at, service, svc_len);
        at += svc_len;
    }
    body_len = at - 5;
    out[0] = 0;     /* not compressed */
    out[1] = (uint8_t) (body_len >> 24);
    out[2] = (uint8_t) (body_len >> 16);
    out[3] = (uint8_t) (body_len >> 8);
    out[4] = (uint8_t) body_len;
    return at;
}

/* A base-128 varint at p[*at]; returns false when cut short or over 64 bits. */
static bool
read_varint(const uint8_t *p, size_t len, size_t *at, uint64_t *value)
{
    *value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t byte = 0;

        if (*at >= len) {
            return false;
        }
        byte = p[(*at)++];
        *value |= (uint64_t) (byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) {
            return shift < 63 || byte <= 1;
        }
    }
    return false;
}

/* Skip a field of wire type `type`; returns false on a type or length
 * the message cannot hold. */
static bool
skip_field(const uint8_t *p, size_t len, size_t *at, uint64_t type)
{
    uint64_t n = 0;

    switch (type) {
        case 0:
            return read_varint(p, len, at, &n);
        case 1:
            n = 8;
            break;
        case 2:
            if (!read_varint(p, len, at, &n)) {
                return false;
            }
            break;
        case 5:
            n = 4;
            break;
        default:
            return false;   /* groups (3, 4) and the undefined 6, 7 */
    }
    if (n > len - *at) {
        return false;
    }
    *at += (size_t) n;
    return true;
}

int
fm_grpc_health_status(const uint8_t *msg, size_t len, uint64_t *status, const char **why)
{
    const uint8_t *pb = msg + 5;
    size_t pb_len = 0;
    size_t at = 0;

    *status = 0;    /* proto3: an absent enum is its zero, UNKNOWN */
    if (len < 5) {
        *why = (len == 0)? "no message in the reply" : "message header cut short";
        return EINVAL;
    }
    if (msg[0] != 0) {
        *why = (msg[0] == 1)? "a compressed message (none was asked for)" : "bad message flags";
        return EINVAL;
    }
    pb_len = ((size_t) msg[1] << 24) | ((size_t) msg[2] << 16) | ((size_t) msg[3] << 8) | msg[4];
    if (pb_len != len - 5) {
        *why = (pb_len > len - 5)? "message cut short" : "bytes after the message";
        return EINVAL;
    }
    while (at < pb_len) {
        uint64_t key = 0;

        if (!read_varint(pb, pb_len, &at, &key) || (key >> 3) == 0) {
            *why = "not a protobuf message";
            return EINVAL;
        }
        if ((key >> 3) == 1) {
            if ((key & 7) != 0 || !read_varint(pb, pb_len, &at, status)) {
                *why = "a status that is not a protobuf enum";
                return EINVAL;
            }
        } else if (!skip_field(pb, pb_len, &at, key & 7)) {
            *why = "not a protobuf message";
            return EINVAL;
        }
    }
    return 0;
}

/* Bytes from the server or the configuration, printable in a detail. */
static void
printable(char *dst, size_t dst_len, const char *src)
{
    size_t j = 0;

    for (size_t i = 0; src[i] != '\0' && j + 1 < dst_len; i++) {
        unsigned char ch = (unsigned char) src[i];

        dst[j++] = (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')? (char) ch : '?';
    }
    dst[j] = '\0';
}

/* A reply that HTTP/2 carried but that is no gRPC reply. */
static bool
judge_transport(const struct fm_grpc_reply *reply, enum fm_reason *reason, char *detail,
                size_t detail_len)
{
    char shown[sizeof(reply->content_type)];

    if (reply->http_status != 200) {
        /* gRPC's own mapping (doc/http-grpc-status-mapping.md): what a
         * proxy in front of the service says about it. */
        snprintf(detail, detail_len, "HTTP status %d, not a gRPC reply", reply->http_status);
        *reason = FM_REASON_STATUS;
        return true;
    }
    if (!reply->content_type_grpc) {
        printable(shown, sizeof(shown), reply->content_type);
        snprintf(detail, detail_len, "malformed gRPC reply: content-type %s%s%s, not "
                 "application/grpc", reply->content_type_seen? "'" : "",
                 reply->content_type_seen? shown : "missing", reply->content_type_seen? "'" : "");
        *reason = FM_REASON_READ_MALFORMED;
        return true;
    }
    return false;
}

/* A grpc-status other than OK, or none. */
static bool
judge_grpc_status(const struct fm_grpc_reply *reply, const char *svc, enum fm_reason *reason,
                  char *detail, size_t detail_len)
{
    char msg[sizeof(reply->grpc_message)];
    char shown[sizeof(reply->grpc_status)];
    size_t len = strlen(reply->grpc_status);
    unsigned long code = 0;

    printable(shown, sizeof(shown), reply->grpc_status);
    if (!reply->have_grpc_status || len == 0 || len > 3
        || strspn(reply->grpc_status, "0123456789") != len) {
        snprintf(detail, detail_len, "malformed gRPC reply: %s%s%s", reply->have_grpc_status?
                 "grpc-status '" : "no grpc-status", reply->have_grpc_status? shown : "",
                 reply->have_grpc_status? "' is not a status code" : "");
        *reason = FM_REASON_READ_MALFORMED;
        return true;
    }
    code = strtoul(reply->grpc_status, NULL, 10);
    if (code == 0) {
        return false;
    }
    printable(msg, sizeof(msg), reply->grpc_message);
    *reason = FM_REASON_STATUS;
    if (code == 5) {
        /* Health/Check's answer for a service it does not know. */
        snprintf(detail, detail_len, "gRPC health: service '%s' unknown to the server "
                 "(grpc-status 5 NOT_FOUND)", svc);
        return true;
    }
    snprintf(detail, detail_len, "grpc-status %lu %s%s%s", code, fm_grpc_status_name(code),
             (msg[0] != '\0')? ": " : "", msg);
    return true;
}

bool
fm_grpc_judge(const struct fm_grpc_reply *reply, bool complete, const char *service,
              enum fm_reason *reason, char *detail, size_t detail_len)
{
    static const char *const serving[] = { "UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN" };
    char svc[64];
    uint64_t status = 0;
    const char *why = NULL;

    printable(svc, sizeof(svc), service);
    if ((reply->headers_done || complete) && judge_transport(reply, reason, detail, detail_len)) {
        return true;
    }
    if (reply->msg_over) {
        /* Judged at once: a server streaming without end is not waited for. */
        snprintf(detail, detail_len, "malformed gRPC reply: a message too long for a "
                 "HealthCheckResponse");
        *reason = FM_REASON_READ_MALFORMED;
        return true;
    }
    if (!complete) {
        return false;
    }
    if (judge_grpc_status(reply, svc, reason, detail, detail_len)) {
        return true;
    }
    if (fm_grpc_health_status(reply->msg, reply->msg_len, &status, &why) != 0) {
        snprintf(detail, detail_len, "malformed gRPC reply: %s", why);
        *reason = FM_REASON_READ_MALFORMED;
        return true;
    }
    if (status < 4) {
        snprintf(detail, detail_len, "gRPC health%s%s%s: %s", (svc[0] != '\0')? " of '" : "",
                 svc, (svc[0] != '\0')? "'" : "", serving[status]);
    } else {
        snprintf(detail, detail_len, "gRPC health: ServingStatus %llu, not SERVING",
                 (unsigned long long) status);
    }
    /* Only SERVING passes, as with grpc-health-probe; SERVICE_UNKNOWN (a
     * Watch answer some servers give to Check too) is told apart from a
     * service that says it is down. */
    *reason = (status == 1)? FM_REASON_OK : (status == 3)? FM_REASON_STATUS : FM_REASON_REFUSED;
    return true;
}
