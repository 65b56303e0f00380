/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the secrets a target holds, and hiding them in the text of its
 * replies (issue 30, defect 8).
 *
 * A server may echo what it got: a redis answering AUTH with the password,
 * an HTTP server writing the Authorization header back into its reply.
 * An exec target's program may print the password of a URI it was given.
 * Every probe verdict's detail goes through fm_target_redact_reply()
 * (fm_conn_finish() in src/probe/engine.c) before the probe's output, the
 * loop's logs and Pacemaker's attributes see it.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <faultmon/probe_opts.h>
#include <faultmon/target.h>
#include <faultmon/text.h>

/* The URI passwords of an exec target's arguments that are looked at. */
#define FM_EXEC_SECRETS_MAX 8

/* The most secrets a target holds: its password, its userinfo in base64,
 * a value and a credential token per secret header, and its arguments'. */
#define FM_TARGET_SECRETS_MAX (3 + 2 * FM_HEADER_MAX + FM_EXEC_SECRETS_MAX)

/* Request headers whose values are credentials (RFC 9110 section 11,
 * cookies, and the API keys and tokens of common services). */
static bool
secret_header(const char *header, size_t name_len)
{
    static const char *const words[] = { "auth", "cookie", "token", "key", "secret", "pass",
                                         "session" };

    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        size_t len = strlen(words[i]);

        for (size_t at = 0; at + len <= name_len; at++) {
            if (strncasecmp(header + at, words[i], len) == 0) {
                return true;
            }
        }
    }
    return false;
}

/* A secret header's value, and its credential without its scheme word
 * ("Basic dXNlcjpwdw==" also as "dXNlcjpwdw=="). */
static size_t
header_secrets(const struct fm_probe_opts *opts, const char **out)
{
    size_t n = 0;

    for (size_t i = 0; opts != NULL && i < opts->n_headers; i++) {
        const char *h = opts->headers[i];
        const char *colon = strchr(h, ':');
        const char *value = NULL;
        const char *space = NULL;

        if (colon == NULL || !secret_header(h, (size_t) (colon - h))) {
            continue;
        }
        value = colon + 1 + strspn(colon + 1, " \t");
        out[n++] = value;
        space = strchr(value, ' ');
        if (space != NULL) {
            out[n++] = space + 1 + strspn(space + 1, " ");
        }
    }
    return n;
}

/*
 * The passwords of URIs among an exec target's arguments, as the program
 * got them (not decoded): "scheme://user:PASSWORD@host".  Each is a copy in
 * owned[], which the caller wipes and frees.
 */
static size_t
exec_secrets(const struct fm_target *target, const char **out, char **owned)
{
    size_t n = 0;

    for (size_t i = 1; i < target->exec_argc && n < FM_EXEC_SECRETS_MAX; i++) {
        const char *word = target->exec_argv[i];
        const char *auth = strstr(word, "://");
        const char *at = NULL;
        const char *colon = NULL;

        if (auth == NULL) {
            continue;
        }
        auth += 3;
        at = strrchr(auth, '@');
        colon = (at != NULL)? memchr(auth, ':', (size_t) (at - auth)) : NULL;
        if (colon == NULL || colon + 1 == at) {
            continue;
        }
        owned[n] = strndup(colon + 1, (size_t) (at - colon - 1));
        if (owned[n] != NULL) {
            out[n] = owned[n];
            n++;
        }
    }
    return n;
}

size_t
fm_target_redact_reply(const struct fm_target *target, const struct fm_probe_opts *opts,
                       char *text, size_t text_len)
{
    const char *secrets[FM_TARGET_SECRETS_MAX];
    size_t n = 0;
    char *b64 = NULL;
    size_t b64_size = 0;
    char *copy = NULL;
    size_t len = (text != NULL)? strnlen(text, text_len) : 0;
    size_t out_len = 0;
    char *owned[FM_EXEC_SECRETS_MAX];
    size_t n_owned = 0;

    if (len == 0) {
        return 0;
    }
    if (target != NULL && target->userinfo != NULL) {
        const char *colon = strchr(target->userinfo, ':');
        size_t raw_len = strlen(target->userinfo);

        /* "user:password"; a lone word is a password to redis (redis://pw@)
         * and may be a token to an HTTP server (https://TOKEN@host/), but a
         * role's name to postgres, which a reason must be able to name. */
        if (colon != NULL) {
            secrets[n++] = colon + 1;
        } else if (target->scheme == FM_SCHEME_REDIS || target->scheme == FM_SCHEME_HTTP
                   || target->scheme == FM_SCHEME_HTTPS) {
            secrets[n++] = target->userinfo;
        }
        b64_size = FM_BASE64_SIZE(raw_len);
        b64 = calloc(b64_size, 1);
        if (b64 != NULL && fm_base64_encode(target->userinfo, raw_len, b64, b64_size) == 0) {
            secrets[n++] = b64;     /* what an HTTP server got in Authorization */
        }
    }
    n += header_secrets(opts, secrets + n);
    if (target != NULL && target->exec_argv != NULL) {
        n_owned = exec_secrets(target, secrets + n, owned);
        n += n_owned;
    }
    if (n > 0) {
        copy = strndup(text, len);
        if (copy == NULL) {
            text[0] = '\0';     /* better no text than one that might hold a secret */
        } else {
            out_len = fm_text_redact_secrets(text, text_len, copy, len, secrets, n);
            explicit_bzero(copy, len);
            free(copy);
        }
    }
    if (b64 != NULL) {
        explicit_bzero(b64, b64_size);
        free(b64);
    }
    for (size_t i = 0; i < n_owned; i++) {
        explicit_bzero(owned[i], strlen(owned[i]));
        free(owned[i]);
    }
    return (n > 0)? out_len : len;
}
