/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: parsing and validating target URIs, once, at load time, so that
 * the probe path only copies prepared bytes (the options every target
 * shares are probe_opts.c's).
 */
#include <config.h>

#include <faultmon/target.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <faultmon/scheme.h>
#include <faultmon/text.h>
#include <faultmon/words.h>


/* Every message (fm_errf()) names the bad value, redacted and escaped as a
 * whole before it is cut to err_len (so a password cut in two still does not
 * show). */

static bool
valid_host_name(const char *host)
{
    if (host[0] == '\0' || strlen(host) > 253) {
        return false;
    }
    for (const char *p = host; *p != '\0'; p++) {
        if (!isalnum((unsigned char) *p) && *p != '-' && *p != '.' && *p != '_') {
            return false;
        }
    }
    return true;
}

/* Parse a decimal port 1..65535 from [start, end). */
static bool
parse_port(const char *start, const char *end, uint16_t *port)
{
    unsigned long value = 0;

    if (start == end || end - start > 5) {
        return false;
    }
    for (const char *p = start; p < end; p++) {
        if (!isdigit((unsigned char) *p)) {
            return false;
        }
        value = value * 10 + (unsigned long) (*p - '0');
    }
    if (value == 0 || value > 65535) {
        return false;
    }
    *port = (uint16_t) value;
    return true;
}

static bool
valid_path(const char *path)
{
    for (const unsigned char *p = (const unsigned char *) path; *p != '\0'; p++) {
        /* Raw spaces and controls would break the request line; such
         * characters must be percent-encoded in a URI anyway. */
        if (*p <= 0x20 || *p >= 0x7f) {
            return false;
        }
    }
    return true;
}

/* The text of a target as logs, output and the state directory show it. */
static char *
redacted_text(const char *text)
{
    size_t len = strlen(text);
    size_t need = fm_text_redact(NULL, 0, text, len, false);
    char *out = calloc(1, need + 1);

    if (out != NULL) {
        fm_text_redact(out, need + 1, text, len, false);
    }
    return out;
}

static int
hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* [start, end) with %HH decoded (RFC 3986 3.2.1: a '@', ':' or '/' in a
 * user name or password is written percent-encoded, and a '&' or '=' in a
 * query value); a '%' not followed by two hex digits stays as it is. */
static char *
percent_decoded(const char *start, const char *end)
{
    char *out = calloc(1, (size_t) (end - start) + 1);
    size_t o = 0;

    if (out == NULL) {
        return NULL;
    }
    for (const char *p = start; p < end; p++) {
        int hi = (*p == '%' && end - p > 2)? hex_value((unsigned char) p[1]) : -1;
        int lo = (hi >= 0)? hex_value((unsigned char) p[2]) : -1;

        if (lo >= 0) {
            out[o++] = (char) ((hi << 4) | lo);
            p += 2;
        } else {
            out[o++] = *p;
        }
    }
    return out;
}

/* The parts of a target URI, as pointers into its text, found one step at
 * a time by the parse_* functions below. */
struct uri_parts {
    const char *shown;                  /* the text redacted, for messages */
    const struct fm_scheme_info *info;
    const char *auth;                   /* the authority: after "://" */
    const char *auth_end;               /* its end: the first '/', '?' or '#' */
    const char *host_start;             /* after the credentials' '@', or auth */
    const char *host_end;               /* after the host (and an IPv6 ']') */
    char host[256];                     /* without brackets */
};

/* SCHEME:// and whether it may be this kind of target. */
static int
parse_scheme(const char *text, bool is_uri, struct uri_parts *u, char *err, size_t err_len)
{
    const char *sep = strstr(text, "://");

    if (sep == NULL) {
        return fm_errf(err, err_len, EINVAL,
                       "invalid target '%s': expected SCHEME://HOST[:PORT][/PATH]", u->shown);
    }
    u->info = fm_scheme_find(text, (size_t) (sep - text));
    if (u->info == NULL) {
        /* Named only when it reads as a scheme (RFC 3986 3.1): in a
         * malformed URI the text before "://" may hold a password, and it
         * would follow the last '@' of the message, which redaction stops at. */
        size_t len = (size_t) (sep - text);
        bool token = len > 0 && len <= 16 && isalpha((unsigned char) text[0])
                     && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
                        >= len;

        return fm_errf(err, err_len, EINVAL, "invalid target '%s': unknown scheme%s%.*s%s (known: %s)",
                       u->shown, token? " '" : "", token? (int) len : 0, text, token? "'" : "",
                       fm_scheme_names());
    }
    if ((u->info->parts & FM_URI_NONE) != 0) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': an %s probe is a command, given"
                       " with Probe_command (faultmon probe --exec), not as a URI", u->shown,
                       u->info->name);
    }
    if (is_uri && (u->info->parts & FM_URI_HTTP) == 0) {
        return fm_errf(err, err_len, EINVAL,
                       "invalid URI '%s': a URI must be http://, https://, h2:// or h2c://", u->shown);
    }
    u->auth = sep + 3;
    u->auth_end = u->auth + strcspn(u->auth, "/?#");
    return 0;
}

/* Credentials before the host: where the host starts. */
static int
parse_userinfo(struct uri_parts *u, char *err, size_t err_len)
{
    const char *at = NULL;

    u->host_start = u->auth;
    if (strchr(u->auth_end, '@') != NULL) {
        /* RFC 3986 makes "http://user:ab/cd@h/" host "user", port "ab": the
         * password would be taken for a host and shown.  Messages hide
         * everything before the last '@' (fm_text_redact()), so no URI may
         * have one past its host (and the message names no '@' after the
         * URI, which would hide this one's host). */
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': an at sign follows the host;"
                       " percent-encode '/', '?' and '#' in a password (%%2F, %%3F, %%23)"
                       " and an at sign in a path (%%40)", u->shown);
    }
    /* The last '@', as browsers do (WHATWG URL): "http://u:p@ss@h/" is
     * user "u", password "p@ss", host "h". */
    at = memrchr(u->auth, '@', (size_t) (u->auth_end - u->auth));
    if (at != NULL) {
        if ((u->info->parts & FM_URI_USERINFO) == 0) {
            return fm_errf(err, err_len, EINVAL, "invalid target '%s': %s:// takes no credentials",
                           u->shown, u->info->name);
        }
        u->host_start = at + 1;
    }
    return 0;
}

/* "[ADDRESS]", then the end of the authority or ':'. */
static int
parse_ipv6_host(struct uri_parts *u, char *err, size_t err_len)
{
    struct in6_addr addr6;
    size_t host_len = 0;

    u->host_end = memchr(u->host_start, ']', (size_t) (u->auth_end - u->host_start));
    if (u->host_end == NULL) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': unterminated IPv6 literal", u->shown);
    }
    host_len = (size_t) (u->host_end - u->host_start - 1);
    if (host_len == 0 || host_len >= sizeof(u->host)) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': bad IPv6 literal", u->shown);
    }
    memcpy(u->host, u->host_start + 1, host_len);
    u->host[host_len] = '\0';
    if (inet_pton(AF_INET6, u->host, &addr6) != 1) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': '%s' is not an IPv6 address",
                       u->shown, u->host);
    }
    u->host_end++;
    if (u->host_end < u->auth_end && *u->host_end != ':') {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': junk after IPv6 literal", u->shown);
    }
    return 0;
}

/* A host name or IPv4 address, up to ':' or the end of the authority. */
static int
parse_name_host(struct uri_parts *u, char *err, size_t err_len)
{
    size_t host_len = 0;

    u->host_end = memchr(u->host_start, ':', (size_t) (u->auth_end - u->host_start));
    if (u->host_end == NULL) {
        u->host_end = u->auth_end;
    }
    host_len = (size_t) (u->host_end - u->host_start);
    if (host_len == 0) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': no host", u->shown);
    }
    if (host_len >= sizeof(u->host)) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': host name too long", u->shown);
    }
    memcpy(u->host, u->host_start, host_len);
    u->host[host_len] = '\0';
    if (!valid_host_name(u->host)) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': bad host '%s'", u->shown, u->host);
    }
    return 0;
}

/* ":PORT" after the host, or the scheme's default port. */
static int
parse_target_port(const struct uri_parts *u, uint16_t *port, char *err, size_t err_len)
{
    if ((u->info->parts & FM_URI_NO_PORT) != 0) {
        *port = 0;
        if (u->host_end < u->auth_end) {
            return fm_errf(err, err_len, EINVAL, "invalid target '%s': %s:// takes no port",
                           u->shown, u->info->name);
        }
        return 0;
    }
    if (u->host_end < u->auth_end) {
        const char *port_start = u->host_end + 1;

        if (!parse_port(port_start, u->auth_end, port)) {
            return fm_errf(err, err_len, EINVAL, "invalid target '%s': port '%.*s' is not 1-65535",
                           u->shown, (int) (u->auth_end - port_start), port_start);
        }
        return 0;
    }
    if (u->info->default_port == 0) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': %s:// needs a port", u->shown,
                       u->info->name);
    }
    *port = u->info->default_port;
    return 0;
}

/* The path and query: what the request line will carry. */
static int
check_path(const struct uri_parts *u, char *err, size_t err_len)
{
    const char *rest = u->auth_end;
    size_t path_len = ((u->info->parts & FM_URI_HTTP) != 0)? strlen(rest) : strcspn(rest, "?");

    if (strchr(rest, '#') != NULL) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': fragments (#) are not sent to servers",
                       u->shown);
    }
    if ((u->info->parts & FM_URI_PATH) == 0 && path_len > 0
        && !(path_len == 1 && rest[0] == '/')) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': %s:// takes no path", u->shown,
                       u->info->name);
    }
    if (!valid_path(rest)) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': path has spaces or control characters",
                       u->shown);
    }
    return 0;
}

/* The target from its checked parts (its port is already set). */
static int
fill_target(const char *text, bool is_uri, const struct uri_parts *u, struct fm_target *target,
            char *err, size_t err_len)
{
    const char *rest = u->auth_end;
    /* Only an HTTP URI sends its query; another scheme's query is ours. */
    int rest_len = ((u->info->parts & FM_URI_HTTP) != 0)? (int) strlen(rest)
                                                        : (int) strcspn(rest, "?");

    target->scheme = u->info->scheme;
    target->use_tls = u->info->tls;
    /* https: the HTTP probe makes a HEAD a handshake only unless the
     * request is to go over TLS too (fm_http_build_request()). */
    target->kind = (is_uri && u->info->kind == FM_PROBE_HEAD)? FM_PROBE_GET : u->info->kind;
    target->host = strdup(u->host);
    target->path = NULL;
    if (asprintf(&target->path, "%s%.*s", (rest[0] == '/')? "" : "/", rest_len, rest) < 0) {
        target->path = NULL;
    }
    target->text = redacted_text(text);
    if (u->host_start != u->auth) {
        target->userinfo = percent_decoded(u->auth, u->host_start - 1);
    }
    if (target->host == NULL || target->path == NULL || target->text == NULL
        || (u->host_start != u->auth && target->userinfo == NULL)) {
        fm_target_clear(target);
        return fm_errf(err, err_len, EINVAL, "out of memory");
    }
    return 0;
}

/* One "key=value" or "flag" of a query, [item, end). */
static int
parse_query_item(const struct uri_parts *u, const char *item, const char *end,
                 struct fm_target *target, char *err, size_t err_len)
{
    const char *eq = memchr(item, '=', (size_t) (end - item));
    const char *name_end = (eq != NULL)? eq : end;
    enum fm_query_key key = fm_query_key_find(item, (size_t) (name_end - item));
    char why[160] = "";
    char *value = NULL;

    if (key == FM_QUERY__COUNT || (u->info->keys & FM_QUERY_BIT(key)) == 0) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': %s:// takes no key '%.*s'",
                       u->shown, u->info->name, (int) (name_end - item), item);
    }
    if (key == FM_QUERY_STARTTLS && !u->info->starttls) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': %s:// has no STARTTLS",
                       u->shown, u->info->name);
    }
    if (target->query[key] != NULL) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': key '%s' given twice",
                       u->shown, fm_query_key_get(key)->name);
    }
    value = (eq != NULL)? percent_decoded(eq + 1, end) : strdup("");
    if (value == NULL) {
        return fm_errf(err, err_len, ENOMEM, "out of memory");
    }
    target->query[key] = value;
    if (fm_query_value_check(key, value, why, sizeof(why)) != 0) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': %s=%s: %s", u->shown,
                       fm_query_key_get(key)->name, value, why);
    }
    return 0;
}

/* What the keys say that the probe engine reads from fields: the family
 * (an address literal must be of it) and STARTTLS. */
static int
apply_query(const struct uri_parts *u, struct fm_target *target, char *err, size_t err_len)
{
    const char *family = target->query[FM_QUERY_FAMILY];
    unsigned char addr[sizeof(struct in6_addr)];

    target->starttls = (target->query[FM_QUERY_STARTTLS] != NULL);
    if (family == NULL) {
        target->family = AF_UNSPEC;
        return 0;
    }
    target->family = (strcasecmp(family, "inet6") == 0)? AF_INET6 : AF_INET;
    if (inet_pton((target->family == AF_INET)? AF_INET6 : AF_INET, target->host, addr) == 1) {
        return fm_errf(err, err_len, EINVAL, "invalid target '%s': family=%s but '%s' is not an %s"
                       " address", u->shown, family, target->host,
                       (target->family == AF_INET)? "IPv4" : "IPv6");
    }
    return 0;
}

/* "?key=value&flag" of a scheme other than HTTP's, each key checked. */
static int
parse_query(const struct uri_parts *u, struct fm_target *target, char *err, size_t err_len)
{
    const char *query = strchr(u->auth_end, '?');

    if ((u->info->parts & FM_URI_HTTP) != 0) {
        return 0;
    }
    for (const char *item = (query != NULL)? query + 1 : NULL; item != NULL && *item != '\0';) {
        const char *end = item + strcspn(item, "&");
        int rc = (end > item)? parse_query_item(u, item, end, target, err, err_len) : 0;

        if (rc != 0) {
            return rc;
        }
        item = (*end == '&')? end + 1 : end;
    }
    return apply_query(u, target, err, err_len);
}

int
fm_target_parse(const char *text, bool is_uri, struct fm_target *target,
                char *err, size_t err_len)
{
    struct uri_parts u;
    char shown[512];
    int rc = 0;

    memset(target, 0, sizeof(*target));
    memset(&u, 0, sizeof(u));
    if (text == NULL || text[0] == '\0') {
        return fm_errf(err, err_len, EINVAL, "invalid target '': empty");
    }
    fm_text_redact(shown, sizeof(shown), text, strlen(text), false);
    u.shown = shown;
    rc = parse_scheme(text, is_uri, &u, err, err_len);
    if (rc == 0) {
        rc = parse_userinfo(&u, err, err_len);
    }
    if (rc == 0) {
        rc = (*u.host_start == '[')? parse_ipv6_host(&u, err, err_len)
                                   : parse_name_host(&u, err, err_len);
    }
    if (rc == 0) {
        rc = parse_target_port(&u, &target->port, err, err_len);
    }
    if (rc == 0) {
        rc = check_path(&u, err, err_len);
    }
    if (rc == 0) {
        rc = fill_target(text, is_uri, &u, target, err, err_len);
    }
    if (rc == 0) {
        rc = parse_query(&u, target, err, err_len);
        if (rc != 0) {
            fm_target_clear(target);
        }
    }
    return rc;
}

void
fm_target_clear(struct fm_target *target)
{
    free(target->text);
    free(target->host);
    free(target->path);
    if (target->userinfo != NULL) {
        explicit_bzero(target->userinfo, strlen(target->userinfo));
        free(target->userinfo);
    }
    if (target->request != NULL) {
        explicit_bzero(target->request, target->request_len);
        free(target->request);
    }
    for (size_t i = 0; i < FM_QUERY__COUNT; i++) {
        free(target->query[i]);
    }
    fm_words_free(target->exec_argv, target->exec_argc);
    if (target->prepared != NULL && target->prepared_free != NULL) {
        target->prepared_free(target->prepared);
    }
    memset(target, 0, sizeof(*target));
}
