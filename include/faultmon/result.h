/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the result of one probe and how it is classified.
 *
 * A result has two axes: the reason (which layer failed and how) and the
 * class (ok / partial / complete) that the Sun Cluster fault monitor assigns
 * to it.  The class is never stored on its own: it is derived from the reason
 * through one table (fm_reason_table in src/core/result.c), so the rules live in
 * exactly one place.
 */
#ifndef FAULTMON_RESULT_H
#define FAULTMON_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Ordered by severity, and equal to `faultmon probe`'s exit status. */
enum fm_class {
    FM_CLASS_OK = 0,
    FM_CLASS_PARTIAL = 1,
    FM_CLASS_COMPLETE = 2,
};

enum fm_layer {
    FM_LAYER_NONE = 0,
    FM_LAYER_RESOLVE,
    FM_LAYER_CONNECT,
    FM_LAYER_TLS,
    FM_LAYER_SEND,
    FM_LAYER_READ,
    FM_LAYER_STATUS,
    FM_LAYER_CONTENT,
};

enum fm_reason {
    FM_REASON_OK = 0,
    FM_REASON_RESOLVE_FAILED,   /* name does not resolve */
    FM_REASON_RESOLVE_TIMEOUT,  /* Probe_timeout ran out while resolving */
    FM_REASON_CONNECT_FAILED,   /* refused, unreachable, reset during connect */
    FM_REASON_CONNECT_TIMEOUT,  /* Probe_timeout ran out while connecting */
    FM_REASON_TLS_FAILED,       /* handshake failed: alert, reset, not TLS */
    FM_REASON_TLS_TIMEOUT,      /* Probe_timeout ran out during the handshake */
    FM_REASON_TLS_VERIFY,       /* the certificate did not verify */
    FM_REASON_SEND_FAILED,      /* the request could not be written */
    FM_REASON_SEND_TIMEOUT,     /* Probe_timeout ran out while writing */
    FM_REASON_READ_FAILED,      /* reset or closed before a full reply */
    FM_REASON_READ_TIMEOUT,     /* Probe_timeout ran out while reading */
    FM_REASON_READ_MALFORMED,   /* the reply is not HTTP */
    FM_REASON_READ_TOO_LARGE,   /* the headers exceed the read cap */
    FM_REASON_STATUS,           /* status code outside the expected set */
    FM_REASON_CONTENT_MISMATCH, /* receive regex did not match */
    FM_REASON_CONTENT_REVERSE,  /* reverse mode: receive regex matched */
    FM_REASON_MAINTENANCE,      /* a healthy reply that signals maintenance
                                   (maintenance_status, _header, _regex): ok,
                                   no failure weight, the state degraded */
    FM_REASON_REFUSED,          /* the service answered that it refuses (a 5xx
                                 * banner, -ERR, an error packet or rcode) */
    FM_REASON_EXEC_PARTIAL,     /* an exec probe's program exited 1 */
    FM_REASON_EXEC_FAILED,      /* it exited 2 or another non-zero status, was
                                 * killed by a signal, or could not be run */
    FM_REASON__COUNT
};

enum fm_probe_kind {
    FM_PROBE_HEAD = 0,   /* HTTP/1.0 HEAD to an IP:port (Sun step 2) */
    FM_PROBE_GET,        /* HTTP/1.1 GET of a Monitor_Uri_List URI (step 3) */
    FM_PROBE_TLS_CONNECT,/* TLS handshake only (step 4, secure server) */
    FM_PROBE_TCP_CONNECT,/* plain TCP connect */
    /* One kind per protocol of issue 12 (src/probe/<name>.c each). */
    FM_PROBE_TCP_SEND,   /* tcp:// with send and/or expect */
    FM_PROBE_UDP,        /* udp:// send, expect a datagram */
    FM_PROBE_REDIS,      /* (AUTH,) PING */
    FM_PROBE_SMTP,       /* banner, EHLO, (STARTTLS, EHLO), QUIT */
    FM_PROBE_POP3,       /* greeting, CAPA, (STLS,) QUIT */
    FM_PROBE_IMAP,       /* greeting, CAPABILITY, (STARTTLS,) LOGOUT */
    FM_PROBE_FTP,        /* greeting, (AUTH TLS,) QUIT */
    FM_PROBE_DNS,        /* a query over UDP, TCP when truncated */
    FM_PROBE_POSTGRES,   /* startup message (SSLRequest first when asked) */
    FM_PROBE_MYSQL,      /* the server greeting */
    FM_PROBE_LDAP,       /* anonymous bind or a root DSE search */
    FM_PROBE_ICMP,       /* echo request and reply */
    FM_PROBE_EXEC,       /* an external program */
    FM_PROBE_H2,         /* HTTP/2 GET (h2://, h2c://) */
    FM_PROBE_GRPC,       /* grpc.health.v1.Health/Check */
    FM_PROBE__COUNT
};

/*
 * The phases of a probe, in the order they happen, as blackbox_exporter's
 * probe_http_duration_seconds names them: the time the probe spent in the
 * engine's steps (RESOLVE, CONNECT, TLS, SEND, READ), for the metrics.
 * A conversation (SMTP, STARTTLS) goes through request and reply, and a
 * STARTTLS through tls, more than once: each phase is the sum.
 */
enum fm_probe_phase {
    FM_PHASE_RESOLVE = 0,       /* the name's lookup (a cached answer: ~0) */
    FM_PHASE_CONNECT,           /* connect() until the socket is up */
    FM_PHASE_TLS,               /* the handshake */
    FM_PHASE_REQUEST,           /* writing what the protocol sends */
    FM_PHASE_REPLY,             /* from the request written to the verdict */
    FM_PHASE__COUNT
};

struct fm_target;

/* One probe's outcome. */
struct fm_result {
    const struct fm_target *target;
    enum fm_reason reason;
    int http_status;            /* 0 when no status line was read */
    int sys_errno;              /* errno behind a resolve/connect/read failure */
    uint64_t latency_us;        /* from the start of the run to the verdict */
    int64_t cert_not_after;     /* peer certificate expiry (UNIX time), 0 if none */
    uint64_t phase_us[FM_PHASE__COUNT]; /* time in each phase; their sum is
                                         * at most latency_us */
    unsigned int phases;        /* bit (1 << phase) for each phase the
                                 * probe went through */
    char detail[160];           /* human-readable detail for logs and output */
};

enum fm_class fm_reason_class(enum fm_reason reason);
enum fm_layer fm_reason_layer(enum fm_reason reason);
const char *fm_reason_name(enum fm_reason reason);
const char *fm_class_name(enum fm_class cls);
const char *fm_layer_name(enum fm_layer layer);
const char *fm_probe_kind_name(enum fm_probe_kind kind);
/*! \brief "resolve", "connect", "tls", "request", "reply"; "invalid" else. */
const char *fm_probe_phase_name(enum fm_probe_phase phase);

/*!
 * \brief Map the reason for a timeout to the step the probe was in.
 *
 * \param[in] step_layer  layer of the step that was running at the deadline
 * \return the *_TIMEOUT reason for that layer
 */
enum fm_reason fm_reason_for_timeout(enum fm_layer step_layer);

static inline enum fm_class
fm_result_class(const struct fm_result *result)
{
    return fm_reason_class(result->reason);
}

#endif
