/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the settings shared by every target of one probe run (struct
 * fm_probe_opts), their defaults, and the checks that set them once, at
 * load time (src/core/probe_opts.c; its TLS, maintenance and access-log
 * settings in probe_opts_tls.c, probe_opts_maint.c, probe_opts_accesslog.c).
 */
#ifndef FAULTMON_PROBE_OPTS_H
#define FAULTMON_PROBE_OPTS_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/accesslog.h>
#include <faultmon/regex_linear.h>
#include <faultmon/result.h>        /* enum fm_probe_kind */
#include <faultmon/status_set.h>

#define FM_HEADER_MAX 16

/* Settings shared by every target of one probe run. */
struct fm_probe_opts {
    uint64_t timeout_ms;            /* Probe_timeout: bounds the whole run */
    /* Statuses that pass, per probe kind: a GET asks for a page, a HEAD to
     * a Port_list address only whether the server answers.  Set both with
     * fm_probe_opts_set_expect(); the defaults are FM_DEFAULT_EXPECT_*. */
    struct fm_status_set expect_get;
    struct fm_status_set expect_head;
    bool have_receive;
    regex_t receive;                /* matched against the start of the body */
    char *receive_text;
    /* The receive regex when an automaton decides it, searched in linear
     * time here, without the child process regexec() needs (see
     * regex_linear.h); set with it by fm_probe_opts_set_receive(). */
    bool have_receive_linear;
    struct fm_regex_linear receive_linear;
    bool reverse;                   /* a receive match means failure */
    char *method;                   /* NULL: HEAD for targets, GET for URIs */
    char *headers[FM_HEADER_MAX];   /* "Name: value", validated */
    size_t n_headers;
    bool tls_request;               /* https targets: send the request too */
    bool tls_verify;
    char *ca_file;
    char *sni;                      /* NULL: the target's host name */
    char *cert_file;                /* client certificate (chain), PEM; NULL: none */
    char *key_file;                 /* its private key, PEM; NULL: in cert_file */
    int tls_min_version;            /* FM_TLS_MIN_1_2 or FM_TLS_MIN_1_3 */
    char *alpn_text;                /* ALPN protocols offered, "h2,http/1.1" */
    unsigned char *alpn_wire;       /* the same, as the ClientHello carries it */
    size_t alpn_wire_len;
    /* ALPN protocols of which the server must select one (offered too);
     * NULL: the offer is an offer, and a server may ignore it (RFC 7301). */
    char *alpn_require_text;
    unsigned char *alpn_require_wire;
    size_t alpn_require_wire_len;
    /* Service-signalled maintenance: a reply that passes (or has one of
     * these statuses) and says "drain me" is FM_REASON_MAINTENANCE. */
    bool have_maintenance_status;
    struct fm_status_set maintenance_status;
    char *maintenance_header;       /* a header name; NULL: none */
    bool have_maintenance_regex;
    regex_t maintenance_regex;
    char *maintenance_text;
    size_t max_reply_bytes;         /* cap on bytes read per probe */
    size_t receive_window_bytes;    /* body bytes the regex sees */
    bool spread;                    /* start the targets spread over the
                                     * interval, not all at once */
    char *send;                     /* send_string, escapes decoded; NULL: none */
    size_t send_len;
    bool have_expect;
    regex_t expect;                 /* expect_regex: tcp:// and udp:// replies */
    char *expect_text;
    /* The expect regex searched here as receive_linear is: a read
     * of a tcp:// reply is matched after every read, a fork each before;
     * set with it by fm_probe_opts_set_expect_regex(). */
    bool have_expect_linear;
    struct fm_regex_linear expect_linear;
    /* The maintenance regex, as the two above: asked of every reply that
     * passed, so a fork per cycle when regexec() needed its child. */
    bool have_maintenance_linear;
    struct fm_regex_linear maintenance_linear;
    /* access_log*: the passive signal of the server's own traffic (a
     * parameter of `faultmon run` only; faultmon/accesslog.h) */
    struct fm_accesslog_opts access_log;
    /* Overload is not a hang (faultmon/overload.h): the server's status
     * page (mod_status ?auto, stub_status), read after a slow or failed
     * cycle; NULL: none.  overload_capacity: nginx's connections
     * (worker_connections x worker_processes); 0: unknown. */
    char *overload_status_url;
    size_t overload_capacity;
    /* Not a parameter: a run that reads a page gets each HTTP body window
     * its receive regex is run on (the overload status page's run). */
    void (*body_sink)(void *ctx, const char *body, size_t len);
    void *body_sink_ctx;
};

/* tls_min_version: the oldest TLS version a handshake may settle on. */
#define FM_TLS_MIN_1_2 12
#define FM_TLS_MIN_1_3 13

#define FM_DEFAULT_TIMEOUT_MS 5000
#define FM_DEFAULT_MAX_REPLY_BYTES (64 * 1024)
#define FM_DEFAULT_RECEIVE_WINDOW_BYTES 4096
/* A page is there when wget, HAProxy's httpchk and Kubernetes say so: 2xx or
 * 3xx (a 500 fails, as the Sun rule says, and so do 403 and 404). */
#define FM_DEFAULT_EXPECT_GET "200-399"
/* Any answer but a server error: the Sun Cluster Port_list probe. */
#define FM_DEFAULT_EXPECT_HEAD "100-499"

void fm_probe_opts_init(struct fm_probe_opts *opts);
void fm_probe_opts_clear(struct fm_probe_opts *opts);
/*!
 * \brief Set the statuses that pass for every probe kind (expect_status).
 * \return 0 or EINVAL (err says why)
 */
int fm_probe_opts_set_expect(struct fm_probe_opts *opts, const char *list,
                             char *err, size_t err_len);
/*!
 * \brief The statuses that pass for one kind of probe.
 * \param[in] opts  the options
 * \param[in] kind  FM_PROBE_GET (a Monitor_Uri_List entry) or another kind
 * \return the set: expect_get for GET probes, expect_head otherwise
 */
const struct fm_status_set *fm_probe_opts_expect(const struct fm_probe_opts *opts,
                                                 enum fm_probe_kind kind);
/*!
 * \brief Compile a user's regex (POSIX ERE, REG_NEWLINE) after the guard
 *        has let it through.
 * \param[out] out       the compiled regex; regfree() it
 * \param[out] text_out  a copy of \p regex; free() it
 * \return 0, EINVAL (err says why) or ENOMEM
 */
int fm_probe_regex_compile(const char *regex, regex_t *out, char **text_out, char *err,
                           size_t err_len);
/*! \brief maintenance_status: statuses that mean "drain me". \return 0 or EINVAL */
int fm_probe_opts_set_maintenance_status(struct fm_probe_opts *opts, const char *list,
                                         char *err, size_t err_len);
/*! \brief maintenance_header: a header name whose presence means "drain me".
 *  \return 0, EINVAL or ENOMEM */
int fm_probe_opts_set_maintenance_header(struct fm_probe_opts *opts, const char *name,
                                         char *err, size_t err_len);
/*! \brief maintenance_regex: a match in the reply means "drain me".
 *  \return 0, EINVAL or ENOMEM */
int fm_probe_opts_set_maintenance_regex(struct fm_probe_opts *opts, const char *regex,
                                        char *err, size_t err_len);
/*! \brief Free the maintenance settings (fm_probe_opts_clear() calls it). */
void fm_probe_opts_clear_maintenance(struct fm_probe_opts *opts);
/*! \brief Compile and set the receive regex. \return 0 or EINVAL (err says why) */
int fm_probe_opts_set_receive(struct fm_probe_opts *opts, const char *regex,
                              char *err, size_t err_len);
/*! \brief Set the bytes tcp:// and udp:// targets send (C escapes, \\xHH).
 *  \return 0, EINVAL (err says why) or ENOMEM */
int fm_probe_opts_set_send(struct fm_probe_opts *opts, const char *text,
                           char *err, size_t err_len);
/*! \brief Compile and set the regex a tcp:// or udp:// reply must match.
 *  \return 0 or EINVAL (err says why) */
int fm_probe_opts_set_expect_regex(struct fm_probe_opts *opts, const char *regex,
                                   char *err, size_t err_len);
/*! \brief access_log_window: a duration 1 s to 24 h; access_log_slow: one
 *  up to 24 h, or 0 for off. \return 0 or EINVAL (err says why) */
int fm_probe_opts_set_accesslog_window(struct fm_probe_opts *opts, const char *text,
                                       char *err, size_t err_len);
int fm_probe_opts_set_accesslog_slow(struct fm_probe_opts *opts, const char *text,
                                     char *err, size_t err_len);
/*! \brief access_log_5xx_pct and access_log_slow_pct: a percentage 1..100.
 *  \return 0 or EINVAL (err says why) */
int fm_probe_opts_set_accesslog_5xx_pct(struct fm_probe_opts *opts, const char *text,
                                        char *err, size_t err_len);
int fm_probe_opts_set_accesslog_slow_pct(struct fm_probe_opts *opts, const char *text,
                                         char *err, size_t err_len);
/*! \brief access_log_min_requests: a count 1..1000000. \return 0 or EINVAL */
int fm_probe_opts_set_accesslog_min_requests(struct fm_probe_opts *opts, const char *text,
                                             char *err, size_t err_len);
/*! \brief Add a "Name: value" header after checking it. \return 0, EINVAL, E2BIG */
int fm_probe_opts_add_header(struct fm_probe_opts *opts, const char *header,
                             char *err, size_t err_len);
/*! \brief Set tls_min_version from "1.2" or "1.3" (also "TLSv1.2", "TLSv1.3").
 *  \return 0 or EINVAL (err says why) */
int fm_probe_opts_set_tls_min_version(struct fm_probe_opts *opts, const char *text,
                                      char *err, size_t err_len);
/*!
 * \brief Set the ALPN protocols offered in every TLS handshake.
 * \param[in] text  protocol names separated by commas, such as "h2,http/1.1"
 *                  (each 1-255 printable characters, no blanks)
 * \return 0, EINVAL (err says why) or ENOMEM
 */
int fm_probe_opts_set_alpn(struct fm_probe_opts *opts, const char *text,
                           char *err, size_t err_len);

/*!
 * \brief Set the ALPN protocols of which the server must select one
 *        (tls_alpn_require): they are offered (after tls_alpn's), and a
 *        handshake that selects none of them fails.  Same syntax as
 *        fm_probe_opts_set_alpn().
 */
int fm_probe_opts_set_alpn_require(struct fm_probe_opts *opts, const char *text,
                                   char *err, size_t err_len);
/*! \brief Check a method token. \return 0 or EINVAL */
int fm_probe_opts_set_method(struct fm_probe_opts *opts, const char *method,
                             char *err, size_t err_len);

#endif
