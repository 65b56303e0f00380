/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the table of target schemes and query keys (see
 * include/faultmon/scheme.h), read by target.c, `faultmon probe --help`
 * and the documentation's checks; nothing else decides what a scheme takes.
 */
#include <config.h>

#include <faultmon/scheme.h>

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <faultmon/regex_guard.h>

#define Q(key) FM_QUERY_BIT(FM_QUERY_ ## key)

/* Every target may pin its address family; the HTTP schemes take no key,
 * because their query belongs to the server (it is sent in the request). */
static const struct fm_scheme_info fm_scheme_table[FM_SCHEME__COUNT] = {
    [FM_SCHEME_HTTP]     = { "http",     FM_SCHEME_HTTP,     FM_PROBE_HEAD,        80,  false, false,
                             FM_URI_HTTP | FM_URI_USERINFO | FM_URI_PATH, 0 },
    [FM_SCHEME_HTTPS]    = { "https",    FM_SCHEME_HTTPS,    FM_PROBE_HEAD,        443, true,  false,
                             FM_URI_HTTP | FM_URI_USERINFO | FM_URI_PATH, 0 },
    [FM_SCHEME_TCP]      = { "tcp",      FM_SCHEME_TCP,      FM_PROBE_TCP_CONNECT, 0,   false, false,
                             0, Q(FAMILY) },
    [FM_SCHEME_TLS]      = { "tls",      FM_SCHEME_TLS,      FM_PROBE_TLS_CONNECT, 0,   true,  false,
                             0, Q(FAMILY) },
    [FM_SCHEME_UDP]      = { "udp",      FM_SCHEME_UDP,      FM_PROBE_UDP,         0,   false, false,
                             0, Q(FAMILY) },
    [FM_SCHEME_REDIS]    = { "redis",    FM_SCHEME_REDIS,    FM_PROBE_REDIS,       6379, false, false,
                             FM_URI_USERINFO, Q(FAMILY) },
    [FM_SCHEME_SMTP]     = { "smtp",     FM_SCHEME_SMTP,     FM_PROBE_SMTP,        25,  false, true,
                             0, Q(FAMILY) | Q(STARTTLS) },
    [FM_SCHEME_SMTPS]    = { "smtps",    FM_SCHEME_SMTPS,    FM_PROBE_SMTP,        465, true,  false,
                             0, Q(FAMILY) },
    [FM_SCHEME_POP3]     = { "pop3",     FM_SCHEME_POP3,     FM_PROBE_POP3,        110, false, true,
                             0, Q(FAMILY) | Q(STARTTLS) },
    [FM_SCHEME_POP3S]    = { "pop3s",    FM_SCHEME_POP3S,    FM_PROBE_POP3,        995, true,  false,
                             0, Q(FAMILY) },
    [FM_SCHEME_IMAP]     = { "imap",     FM_SCHEME_IMAP,     FM_PROBE_IMAP,        143, false, true,
                             0, Q(FAMILY) | Q(STARTTLS) },
    [FM_SCHEME_IMAPS]    = { "imaps",    FM_SCHEME_IMAPS,    FM_PROBE_IMAP,        993, true,  false,
                             0, Q(FAMILY) },
    [FM_SCHEME_FTP]      = { "ftp",      FM_SCHEME_FTP,      FM_PROBE_FTP,         21,  false, true,
                             0, Q(FAMILY) | Q(STARTTLS) },
    [FM_SCHEME_DNS]      = { "dns",      FM_SCHEME_DNS,      FM_PROBE_DNS,         53,  false, false,
                             FM_URI_PATH, Q(FAMILY) | Q(TYPE) | Q(RCODE) | Q(ANSWER) },
    [FM_SCHEME_POSTGRES] = { "postgres", FM_SCHEME_POSTGRES, FM_PROBE_POSTGRES,    5432, false, false,
                             FM_URI_USERINFO | FM_URI_PATH, Q(FAMILY) | Q(SSLMODE) },
    [FM_SCHEME_MYSQL]    = { "mysql",    FM_SCHEME_MYSQL,    FM_PROBE_MYSQL,       3306, false, false,
                             0, Q(FAMILY) },
    [FM_SCHEME_LDAP]     = { "ldap",     FM_SCHEME_LDAP,     FM_PROBE_LDAP,        389, false, true,
                             FM_URI_PATH, Q(FAMILY) | Q(STARTTLS) | Q(ROOTDSE) },
    [FM_SCHEME_LDAPS]    = { "ldaps",    FM_SCHEME_LDAPS,    FM_PROBE_LDAP,        636, true,  false,
                             FM_URI_PATH, Q(FAMILY) | Q(ROOTDSE) },
    [FM_SCHEME_ICMP]     = { "icmp",     FM_SCHEME_ICMP,     FM_PROBE_ICMP,        0,   false, false,
                             FM_URI_NO_PORT, Q(FAMILY) },
    /* A command, given with Probe_command or --exec (target_exec.c). */
    [FM_SCHEME_EXEC]     = { "exec",     FM_SCHEME_EXEC,     FM_PROBE_EXEC,        0,   false, false,
                             FM_URI_NONE, 0 },
    /* HTTP/2, named for its ALPN protocols: the same URIs as HTTP/1.1. */
    [FM_SCHEME_H2]       = { "h2",       FM_SCHEME_H2,       FM_PROBE_H2,          443, true,  false,
                             FM_URI_HTTP | FM_URI_USERINFO | FM_URI_PATH, 0 },
    [FM_SCHEME_H2C]      = { "h2c",      FM_SCHEME_H2C,      FM_PROBE_H2,          80,  false, false,
                             FM_URI_HTTP | FM_URI_USERINFO | FM_URI_PATH, 0 },
    /* gRPC has no port of its own; the path is the service asked about. */
    [FM_SCHEME_GRPC]     = { "grpc",     FM_SCHEME_GRPC,     FM_PROBE_GRPC,        0,   false, false,
                             FM_URI_PATH, Q(FAMILY) },
    [FM_SCHEME_GRPCS]    = { "grpcs",    FM_SCHEME_GRPCS,    FM_PROBE_GRPC,        0,   true,  false,
                             FM_URI_PATH, Q(FAMILY) },
};

static const struct fm_query_key_info fm_query_table[FM_QUERY__COUNT] = {
    [FM_QUERY_FAMILY]   = { "family",   FM_QUERY_CHOICE, "inet|inet6" },
    [FM_QUERY_STARTTLS] = { "starttls", FM_QUERY_FLAG,   NULL },
    [FM_QUERY_TYPE]     = { "type",     FM_QUERY_CHOICE,
                            "A|AAAA|MX|SOA|NS|CNAME|PTR|TXT|SRV|CAA" },
    [FM_QUERY_RCODE]    = { "rcode",    FM_QUERY_CHOICE,
                            "NOERROR|FORMERR|SERVFAIL|NXDOMAIN|NOTIMP|REFUSED" },
    [FM_QUERY_ANSWER]   = { "answer",   FM_QUERY_REGEX,  NULL },
    [FM_QUERY_SSLMODE]  = { "sslmode",  FM_QUERY_CHOICE, "disable|prefer|require" },
    [FM_QUERY_ROOTDSE]  = { "rootdse",  FM_QUERY_FLAG,   NULL },
};

const struct fm_scheme_info *
fm_scheme_find(const char *name, size_t len)
{
    for (size_t i = 0; i < FM_SCHEME__COUNT; i++) {
        if (strlen(fm_scheme_table[i].name) == len
            && strncasecmp(name, fm_scheme_table[i].name, len) == 0) {
            return &fm_scheme_table[i];
        }
    }
    return NULL;
}

const struct fm_scheme_info *
fm_scheme_get(enum fm_scheme scheme)
{
    return ((unsigned) scheme < FM_SCHEME__COUNT)? &fm_scheme_table[scheme]
                                                 : &fm_scheme_table[FM_SCHEME_TCP];
}

const struct fm_query_key_info *
fm_query_key_get(enum fm_query_key key)
{
    return ((unsigned) key < FM_QUERY__COUNT)? &fm_query_table[key] : NULL;
}

enum fm_query_key
fm_query_key_find(const char *name, size_t len)
{
    for (size_t i = 0; i < FM_QUERY__COUNT; i++) {
        if (strlen(fm_query_table[i].name) == len && strncmp(name, fm_query_table[i].name, len) == 0) {
            return (enum fm_query_key) i;
        }
    }
    return FM_QUERY__COUNT;
}

/* Whether `value` is one of the '|'-separated `choices`, in any case. */
static bool
is_choice(const char *choices, const char *value)
{
    size_t len = strlen(value);

    for (const char *p = choices; *p != '\0';) {
        size_t n = strcspn(p, "|");

        if (n == len && len > 0 && strncasecmp(p, value, len) == 0) {
            return true;
        }
        p += n + (p[n] == '|');
    }
    return false;
}

static int
check_regex(const char *value, char *why, size_t why_len)
{
    regex_t re;
    int rc = 0;

    if (fm_regex_check(value, why, why_len) != 0) {
        return EINVAL;
    }
    rc = regcomp(&re, value, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        regerror(rc, &re, why, why_len);
        return EINVAL;
    }
    regfree(&re);
    return 0;
}

int
fm_query_value_check(enum fm_query_key key, const char *value, char *why, size_t why_len)
{
    const struct fm_query_key_info *info = fm_query_key_get(key);

    if (info == NULL) {
        snprintf(why, why_len, "unknown key");
        return EINVAL;
    }
    switch (info->type) {
        case FM_QUERY_FLAG:
            if (value[0] != '\0' && !is_choice("1|true|yes|on", value)) {
                snprintf(why, why_len, "a flag takes no value");
                return EINVAL;
            }
            return 0;
        case FM_QUERY_CHOICE:
            if (!is_choice(info->choices, value)) {
                snprintf(why, why_len, "expected %s", info->choices);
                return EINVAL;
            }
            return 0;
        case FM_QUERY_REGEX:
            return check_regex(value, why, why_len);
        default:
            if (value[0] == '\0') {
                snprintf(why, why_len, "expected a value");
                return EINVAL;
            }
            return 0;
    }
}

const char *
fm_scheme_names(void)
{
    static char names[256];

    if (names[0] == '\0') {
        size_t used = 0;

        for (size_t i = 0; i < FM_SCHEME__COUNT && used < sizeof(names); i++) {
            used += (size_t) snprintf(names + used, sizeof(names) - used, "%s%s",
                                      (i > 0)? ", " : "", fm_scheme_table[i].name);
        }
    }
    return names;
}
