/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the classification table.
 *
 * This table *is* the Sun Cluster rule set (see the seed document): a
 * failure to connect, a timeout while connecting and a failure to send are
 * complete failures; a timeout while reading and a failure to read are
 * partial failures; a Monitor_Uri_List GET answered 500 is a complete
 * failure.  Our additions follow the same logic: resolution and the TLS
 * handshake are part of connecting (the seed's secure-server probe *is* a
 * connect), and a reply that is read but rejected (status, content) is as
 * bad as no service at all.
 */
#include <config.h>

#include <faultmon/result.h>

struct fm_reason_info {
    enum fm_layer layer;
    enum fm_class cls;
    const char *name;
};

static const struct fm_reason_info fm_reason_table[FM_REASON__COUNT] = {
    [FM_REASON_OK]               = { FM_LAYER_NONE,    FM_CLASS_OK,       "ok" },
    [FM_REASON_RESOLVE_FAILED]   = { FM_LAYER_RESOLVE, FM_CLASS_COMPLETE, "resolve-failed" },
    [FM_REASON_RESOLVE_TIMEOUT]  = { FM_LAYER_RESOLVE, FM_CLASS_COMPLETE, "resolve-timeout" },
    [FM_REASON_CONNECT_FAILED]   = { FM_LAYER_CONNECT, FM_CLASS_COMPLETE, "connect-failed" },
    [FM_REASON_CONNECT_TIMEOUT]  = { FM_LAYER_CONNECT, FM_CLASS_COMPLETE, "connect-timeout" },
    [FM_REASON_TLS_FAILED]       = { FM_LAYER_TLS,     FM_CLASS_COMPLETE, "tls-failed" },
    [FM_REASON_TLS_TIMEOUT]      = { FM_LAYER_TLS,     FM_CLASS_COMPLETE, "tls-timeout" },
    [FM_REASON_TLS_VERIFY]       = { FM_LAYER_TLS,     FM_CLASS_COMPLETE, "tls-verify" },
    [FM_REASON_SEND_FAILED]      = { FM_LAYER_SEND,    FM_CLASS_COMPLETE, "send-failed" },
    [FM_REASON_SEND_TIMEOUT]     = { FM_LAYER_SEND,    FM_CLASS_COMPLETE, "send-timeout" },
    [FM_REASON_READ_FAILED]      = { FM_LAYER_READ,    FM_CLASS_PARTIAL,  "read-failed" },
    [FM_REASON_READ_TIMEOUT]     = { FM_LAYER_READ,    FM_CLASS_PARTIAL,  "read-timeout" },
    [FM_REASON_READ_MALFORMED]   = { FM_LAYER_READ,    FM_CLASS_PARTIAL,  "read-malformed" },
    [FM_REASON_READ_TOO_LARGE]   = { FM_LAYER_READ,    FM_CLASS_PARTIAL,  "read-too-large" },
    [FM_REASON_STATUS]           = { FM_LAYER_STATUS,  FM_CLASS_COMPLETE, "status" },
    [FM_REASON_CONTENT_MISMATCH] = { FM_LAYER_CONTENT, FM_CLASS_COMPLETE, "content-mismatch" },
    [FM_REASON_CONTENT_REVERSE]  = { FM_LAYER_CONTENT, FM_CLASS_COMPLETE, "content-reverse" },
    /* The service answers and asks to be drained (HAProxy's disable-on-404,
     * F5's receive-disable string, Envoy's x-envoy-degraded): no failure. */
    [FM_REASON_MAINTENANCE]      = { FM_LAYER_NONE,    FM_CLASS_OK,       "maintenance" },
    /* Like a 500: the service is there and says it cannot serve. */
    [FM_REASON_REFUSED]          = { FM_LAYER_STATUS,  FM_CLASS_COMPLETE, "refused" },
    /* An external program's own verdict (Kubernetes' exec, keepalived's
     * MISC_CHECK): 1 says partial, 2 complete; any other status or a
     * signal is complete, since a check that crashed vouches for nothing. */
    [FM_REASON_EXEC_PARTIAL]     = { FM_LAYER_STATUS,  FM_CLASS_PARTIAL,  "exec-partial" },
    [FM_REASON_EXEC_FAILED]      = { FM_LAYER_STATUS,  FM_CLASS_COMPLETE, "exec-failed" },
};

static const char *const fm_class_names[] = {
    [FM_CLASS_OK] = "ok",
    [FM_CLASS_PARTIAL] = "partial",
    [FM_CLASS_COMPLETE] = "complete",
};

static const char *const fm_layer_names[] = {
    [FM_LAYER_NONE] = "none",
    [FM_LAYER_RESOLVE] = "resolve",
    [FM_LAYER_CONNECT] = "connect",
    [FM_LAYER_TLS] = "tls",
    [FM_LAYER_SEND] = "send",
    [FM_LAYER_READ] = "read",
    [FM_LAYER_STATUS] = "status",
    [FM_LAYER_CONTENT] = "content",
};

static const char *const fm_phase_names[FM_PHASE__COUNT] = {
    [FM_PHASE_RESOLVE] = "resolve",
    [FM_PHASE_CONNECT] = "connect",
    [FM_PHASE_TLS] = "tls",
    [FM_PHASE_REQUEST] = "request",
    [FM_PHASE_REPLY] = "reply",
};

static const char *const fm_kind_names[FM_PROBE__COUNT] = {
    [FM_PROBE_HEAD] = "http-head",
    [FM_PROBE_GET] = "http-get",
    [FM_PROBE_TLS_CONNECT] = "tls-connect",
    [FM_PROBE_TCP_CONNECT] = "tcp-connect",
    [FM_PROBE_TCP_SEND] = "tcp-send",
    [FM_PROBE_UDP] = "udp",
    [FM_PROBE_REDIS] = "redis",
    [FM_PROBE_SMTP] = "smtp",
    [FM_PROBE_POP3] = "pop3",
    [FM_PROBE_IMAP] = "imap",
    [FM_PROBE_FTP] = "ftp",
    [FM_PROBE_DNS] = "dns",
    [FM_PROBE_POSTGRES] = "postgres",
    [FM_PROBE_MYSQL] = "mysql",
    [FM_PROBE_LDAP] = "ldap",
    [FM_PROBE_ICMP] = "icmp",
    [FM_PROBE_EXEC] = "exec",
    [FM_PROBE_H2] = "h2",
    [FM_PROBE_GRPC] = "grpc",
};

static const struct fm_reason_info *
reason_info(enum fm_reason reason)
{
    if ((unsigned) reason >= FM_REASON__COUNT) {
        /* An out-of-range value is a bug; treat it as the worst case so
         * that it can never hide a failure. */
        return &fm_reason_table[FM_REASON_CONNECT_FAILED];
    }
    return &fm_reason_table[reason];
}

enum fm_class
fm_reason_class(enum fm_reason reason)
{
    return reason_info(reason)->cls;
}

enum fm_layer
fm_reason_layer(enum fm_reason reason)
{
    return reason_info(reason)->layer;
}

const char *
fm_reason_name(enum fm_reason reason)
{
    if ((unsigned) reason >= FM_REASON__COUNT) {
        return "invalid";
    }
    return fm_reason_table[reason].name;
}

const char *
fm_class_name(enum fm_class cls)
{
    if ((unsigned) cls > FM_CLASS_COMPLETE) {
        return "invalid";
    }
    return fm_class_names[cls];
}

const char *
fm_probe_phase_name(enum fm_probe_phase phase)
{
    if ((unsigned) phase >= FM_PHASE__COUNT) {
        return "invalid";
    }
    return fm_phase_names[phase];
}

const char *
fm_layer_name(enum fm_layer layer)
{
    if ((unsigned) layer > FM_LAYER_CONTENT) {
        return "invalid";
    }
    return fm_layer_names[layer];
}

const char *
fm_probe_kind_name(enum fm_probe_kind kind)
{
    if ((unsigned) kind >= FM_PROBE__COUNT) {
        return "invalid";
    }
    return fm_kind_names[kind];
}

enum fm_reason
fm_reason_for_timeout(enum fm_layer step_layer)
{
    switch (step_layer) {
        case FM_LAYER_RESOLVE:
            return FM_REASON_RESOLVE_TIMEOUT;
        case FM_LAYER_CONNECT:
            return FM_REASON_CONNECT_TIMEOUT;
        case FM_LAYER_TLS:
            return FM_REASON_TLS_TIMEOUT;
        case FM_LAYER_SEND:
            return FM_REASON_SEND_TIMEOUT;
        default:
            /* Anything after the request went out is "reading the reply". */
            return FM_REASON_READ_TIMEOUT;
    }
}
