/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what to probe, parsed and validated once at load time
 * (src/core/target.c).  The settings every target of a run shares are
 * faultmon/probe_opts.h's; exec targets are faultmon/target_exec.h's.
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/result.h>        /* enum fm_probe_kind */
#include <faultmon/scheme.h>
struct fm_probe_opts;              /* faultmon/probe_opts.h */

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

#endif
