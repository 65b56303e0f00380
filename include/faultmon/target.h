/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what to probe, parsed and validated once at load time.
 *
 * Targets are written as URIs:
 *   http://HOST[:PORT]/PATH    HTTP HEAD (HTTP/1.0), or GET (HTTP/1.1) for a URI
 *   https://HOST[:PORT]/PATH   TLS handshake; with tls_request also the HTTP request
 *   tcp://HOST:PORT            TCP connect
 *   tls://HOST:PORT            TLS handshake
 *   SCHEME://[USERINFO@]HOST[:PORT][/PATH][?KEY=VALUE&FLAG]
 *                              every other protocol (include/faultmon/scheme.h
 *                              has the table of schemes and query keys)
 * HOST is a name, an IPv4 literal or a bracketed IPv6 literal.
 */
#ifndef FAULTMON_TARGET_H
#define FAULTMON_TARGET_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/accesslog.h>
#include <faultmon/parse.h>   /* durations and sizes, for the callers of old */
#include <faultmon/regex_linear.h>
#include <faultmon/result.h>
#include <faultmon/scheme.h>
#include <faultmon/text.h>


/* Status codes 0..999 as a bitmap: "200-399,401" and the like. */
struct fm_status_set {
    uint8_t bits[125];
};

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
    /* The receive regex when it is plain enough to be searched in linear
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
    /* The expect regex searched here when plain, as receive_linear: a read
     * of a tcp:// reply is matched after every read, a fork each before;
     * set with it by fm_probe_opts_set_expect_regex(). */
    bool have_expect_linear;
    struct fm_regex_linear expect_linear;
    /* The maintenance regex, as the two above: asked of every reply that
     * passed, so a fork per cycle when it was not plain. */
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

struct fm_target {
    char *text;                     /* the URI as given, for output */
    enum fm_scheme scheme;
    enum fm_probe_kind kind;
    char *host;                     /* without brackets */
    uint16_t port;
    char *path;                     /* path and query, "/" at least */
    bool use_tls;
    bool send_request;
    char *userinfo;                 /* "user:password" from the URI, never printed */
    char *request;                  /* request bytes, built at load time */
    size_t request_len;
    int family;                     /* ?family: AF_INET, AF_INET6; AF_UNSPEC: any */
    bool starttls;                  /* ?starttls: TLS begun in the conversation */
    char *query[FM_QUERY__COUNT];   /* other ?key=value, checked; "" for a flag */
    /* An exec target's command: the program (an absolute path) and its
     * arguments, NULL-terminated; NULL for every other kind. */
    char **exec_argv;
    size_t exec_argc;
    /* A dependency of the service (Dependency_list), not the service: probed
     * in the same cycle, judged apart (faultmon/deps.h). */
    bool dependency;
    /* What a protocol prepared at load time (its conversation), freed with
     * the target. */
    void *prepared;
    void (*prepared_free)(void *prepared);
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
#define FM_DEFAULT_TARGET "http://127.0.0.1/"

/*! \brief A ?key's value, NULL when the target does not give it. */
static inline const char *
fm_target_query(const struct fm_target *target, enum fm_query_key key)
{
    return ((unsigned) key < FM_QUERY__COUNT)? target->query[key] : NULL;
}

/*!
 * \brief Parse a target URI.
 *
 * \param[in]  text    the URI
 * \param[in]  is_uri  true for a Monitor_Uri_List entry (HTTP GET), false for
 *                     a probe target (HEAD, or connect for tcp/tls)
 * \param[out] target  filled on success; free with fm_target_clear()
 * \param[out] err     on failure, a message naming the bad value
 * \param[in]  err_len size of err
 * \return 0 on success, EINVAL on a malformed URI
 */
int fm_target_parse(const char *text, bool is_uri, struct fm_target *target,
                    char *err, size_t err_len);

void fm_target_clear(struct fm_target *target);

/*!
 * \brief Hide every secret of a target in a text made of its server's reply
 *        (src/core/target_secrets.c): its URI's password (as sent, and the
 *        base64 of its user:password an HTTP server gets), the values of
 *        request headers that carry credentials (Authorization, Cookie,
 *        names with "token", "key", "secret", "pass"...), and the passwords
 *        of URIs among an exec target's arguments.
 *
 * \param[in]     target    the target (NULL: none)
 * \param[in]     opts      the probe options, for their headers (NULL: none)
 * \param[in,out] text      a NUL-terminated text, redacted in place
 * \param[in]     text_len  size of \p text
 * \return the length of the redacted text before any cut
 */
size_t fm_target_redact_reply(const struct fm_target *target, const struct fm_probe_opts *opts,
                              char *text, size_t text_len);

/* Where a bare program name of an exec target is looked up, at load time:
 * the loop's own PATH is not the administrator's shell's. */
#define FM_EXEC_SEARCH_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*!
 * \brief Parse an exec target: a command split into words as a shell would
 *        split it, but never given to a shell (target_exec.c).
 *
 * The program is an absolute path, or a bare name looked up in
 * FM_EXEC_SEARCH_PATH now (kept bare when it is not there); shell syntax outside quotes (a pipe, a
 * redirection, $, backquotes, ';', '&', parentheses) is refused, since
 * whoever wrote it expected a shell.  Whether the program can be run is
 * fm_exec_program_check()'s question, asked by validate-all.
 *
 * \param[in]  command  the command
 * \param[out] target   filled on success; free with fm_target_clear()
 * \return 0, EINVAL (err says why) or ENOMEM
 */
int fm_target_parse_exec(const char *command, struct fm_target *target, char *err,
                         size_t err_len);

/*!
 * \brief Find a bare program name in FM_EXEC_SEARCH_PATH.
 * \param[out] path_out  the absolute path (free() it), NULL when not found
 * \return 0, ENOENT or ENOMEM
 */
int fm_exec_program_find(const char *name, char **path_out);

/*!
 * \brief Whether an exec target's program can be run by this process now.
 * \return 0, or the errno of the check (err says what and why)
 */
int fm_exec_program_check(const struct fm_target *target, char *err, size_t err_len);

/*! \brief Parse "200-399,401,5xx"-style lists. \return 0 or EINVAL */
int fm_status_set_parse(struct fm_status_set *set, const char *text,
                        char *err, size_t err_len);
bool fm_status_set_has(const struct fm_status_set *set, int status);

/*!
 * \brief Redact and escape a message in place: fm_text_clean() under the name
 *        its older callers use.
 */
static inline void
fm_escape_controls(char *buf, size_t buf_len)
{
    fm_text_clean(buf, buf_len);
}

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
