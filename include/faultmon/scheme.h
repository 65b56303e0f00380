/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the table of target schemes and of the ?query keys they take
 * (libfmcore, libc only).
 *
 * One row per scheme says everything target.c checks about it: its default
 * port, whether TLS starts with the connection or may be started in the
 * conversation (?starttls), the kind of probe it makes, which parts of a URI
 * it accepts (credentials, a path) and which query keys.  A new protocol is
 * a row here, a kind in enum fm_probe_kind and a file in src/probe.
 */
#ifndef FAULTMON_SCHEME_H
#define FAULTMON_SCHEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/result.h>

enum fm_scheme {
    FM_SCHEME_HTTP = 0,
    FM_SCHEME_HTTPS,
    FM_SCHEME_TCP,
    FM_SCHEME_TLS,
    FM_SCHEME_UDP,
    FM_SCHEME_REDIS,
    FM_SCHEME_SMTP,
    FM_SCHEME_SMTPS,
    FM_SCHEME_POP3,
    FM_SCHEME_POP3S,
    FM_SCHEME_IMAP,
    FM_SCHEME_IMAPS,
    FM_SCHEME_FTP,
    FM_SCHEME_DNS,
    FM_SCHEME_POSTGRES,
    FM_SCHEME_MYSQL,
    FM_SCHEME_LDAP,
    FM_SCHEME_LDAPS,
    FM_SCHEME_ICMP,
    FM_SCHEME_EXEC,         /* a command (Probe_command, --exec), not a URI */
    FM_SCHEME_H2,           /* HTTP/2 over TLS (ALPN h2) */
    FM_SCHEME_H2C,          /* HTTP/2 in clear, prior knowledge */
    FM_SCHEME_GRPC,         /* gRPC health over h2c */
    FM_SCHEME_GRPCS,        /* gRPC health over TLS */
    FM_SCHEME__COUNT
};

/* The ?query keys a target may carry; each scheme row says which it takes. */
enum fm_query_key {
    FM_QUERY_FAMILY = 0,    /* inet | inet6: only addresses of that family */
    FM_QUERY_STARTTLS,      /* a flag: TLS started in the conversation */
    FM_QUERY_TYPE,          /* dns: the record type asked for */
    FM_QUERY_RCODE,         /* dns: the rcode that passes */
    FM_QUERY_ANSWER,        /* dns: a POSIX ERE an answer must match */
    FM_QUERY_SSLMODE,       /* postgres: disable | require */
    FM_QUERY_ROOTDSE,       /* ldap: a flag: a root DSE search, not a bind */
    FM_QUERY__COUNT
};

#define FM_QUERY_BIT(key) (1u << (key))

/* How a query key's value is checked. */
enum fm_query_type {
    FM_QUERY_FLAG,          /* no value ("?starttls"); "true"/"yes"/"1" too */
    FM_QUERY_CHOICE,        /* one of `choices`, case-insensitive */
    FM_QUERY_REGEX,         /* a POSIX ERE that fm_regex_check() and regcomp() take */
    FM_QUERY_TEXT,          /* any non-empty text */
};

struct fm_query_key_info {
    const char *name;
    enum fm_query_type type;
    const char *choices;    /* FM_QUERY_CHOICE: "a|b|c" */
};

/* Which parts of a URI a scheme accepts, beside the host and port. */
#define FM_URI_USERINFO 0x1u    /* credentials before '@' (secrets) */
#define FM_URI_PATH     0x2u    /* a path after the authority */
#define FM_URI_HTTP     0x4u    /* an HTTP URI: path and query go to the server */
#define FM_URI_NO_PORT  0x8u    /* no port (icmp) */
#define FM_URI_NONE     0x10u   /* not written as a URI at all (exec) */

struct fm_scheme_info {
    const char *name;
    enum fm_scheme scheme;
    enum fm_probe_kind kind;    /* the kind a target of this scheme probes */
    uint16_t default_port;      /* 0: a port is required */
    bool tls;                   /* TLS from the first byte */
    bool starttls;              /* ?starttls is allowed */
    unsigned parts;             /* FM_URI_* */
    unsigned keys;              /* FM_QUERY_BIT() of the keys it accepts */
};

/*! \brief The row of a scheme named by [name, name + len), any case; NULL: unknown */
const struct fm_scheme_info *fm_scheme_find(const char *name, size_t len);

/*! \brief The row of a scheme. */
const struct fm_scheme_info *fm_scheme_get(enum fm_scheme scheme);

/*! \brief The row of a query key. */
const struct fm_query_key_info *fm_query_key_get(enum fm_query_key key);

/*! \brief The key named by [name, name + len); FM_QUERY__COUNT if unknown */
enum fm_query_key fm_query_key_find(const char *name, size_t len);

/*!
 * \brief Check a query key's value.
 * \param[in] key    the key
 * \param[in] value  its text, "" for a bare flag
 * \param[out] why   what is wrong, on failure
 * \return 0 or EINVAL
 */
int fm_query_value_check(enum fm_query_key key, const char *value, char *why, size_t why_len);

/*! \brief The schemes' names, ", "-separated, for messages and help. */
const char *fm_scheme_names(void);

#endif
