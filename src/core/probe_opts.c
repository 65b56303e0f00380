/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the options shared by every target of a probe run (struct
 * fm_probe_opts, faultmon/probe_opts.h): the statuses that pass, the receive
 * regex, the method and headers, each checked once, at load time.  The
 * probe-parameter table (probe_params.c) sets them through these checks.
 */
#include <config.h>

#include <faultmon/probe_opts.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/accesslog.h>
#include <faultmon/parse.h>
#include <faultmon/regex_guard.h>
#include <faultmon/regex_linear.h>
#include <faultmon/status_set.h>
#include <faultmon/text.h>

void
fm_probe_opts_init(struct fm_probe_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->timeout_ms = FM_DEFAULT_TIMEOUT_MS;
    fm_status_set_parse(&opts->expect_get, FM_DEFAULT_EXPECT_GET, NULL, 0);
    fm_status_set_parse(&opts->expect_head, FM_DEFAULT_EXPECT_HEAD, NULL, 0);
    opts->tls_verify = true;
    opts->tls_min_version = FM_TLS_MIN_1_2;
    opts->max_reply_bytes = FM_DEFAULT_MAX_REPLY_BYTES;
    opts->receive_window_bytes = FM_DEFAULT_RECEIVE_WINDOW_BYTES;
    opts->access_log.window_ms = FM_ACCESSLOG_DEFAULT_WINDOW_MS;
    opts->access_log.pct_5xx = FM_ACCESSLOG_DEFAULT_5XX_PCT;
    opts->access_log.min_requests = FM_ACCESSLOG_DEFAULT_MIN_REQUESTS;
    opts->access_log.slow_pct = FM_ACCESSLOG_DEFAULT_SLOW_PCT;
}

void
fm_probe_opts_clear(struct fm_probe_opts *opts)
{
    if (opts->have_receive) {
        regfree(&opts->receive);
    }
    free(opts->receive_text);
    fm_regex_linear_free(&opts->receive_linear);
    opts->have_receive_linear = false;
    fm_probe_opts_clear_maintenance(opts);
    if (opts->have_expect) {
        regfree(&opts->expect);
    }
    fm_regex_linear_free(&opts->expect_linear);
    opts->have_expect_linear = false;
    free(opts->expect_text);
    free(opts->send);
    free(opts->method);
    free(opts->ca_file);
    free(opts->sni);
    free(opts->overload_status_url);
    free(opts->cert_file);
    free(opts->key_file);
    free(opts->access_log.path);
    free(opts->alpn_text);
    free(opts->alpn_wire);
    free(opts->alpn_require_text);
    free(opts->alpn_require_wire);
    for (size_t i = 0; i < opts->n_headers; i++) {
        free(opts->headers[i]);
    }
    memset(opts, 0, sizeof(*opts));
}

int
fm_probe_opts_set_expect(struct fm_probe_opts *opts, const char *list, char *err, size_t err_len)
{
    struct fm_status_set set;
    int rc = fm_status_set_parse(&set, list, err, err_len);

    if (rc != 0) {
        return rc;
    }
    /* An explicit list is meant for every request, whatever it asks for. */
    opts->expect_get = set;
    opts->expect_head = set;
    return 0;
}

const struct fm_status_set *
fm_probe_opts_expect(const struct fm_probe_opts *opts, enum fm_probe_kind kind)
{
    return (kind == FM_PROBE_GET || kind == FM_PROBE_H2)? &opts->expect_get : &opts->expect_head;
}

int
fm_probe_regex_compile(const char *regex, regex_t *out, char **text_out, char *err, size_t err_len)
{
    char why_guard[160];
    int rc = 0;

    /* Every user pattern passes the guard before regcomp(), which a
     * pathological one can keep busy for gigabytes. */
    if (fm_regex_check(regex, why_guard, sizeof(why_guard)) != 0) {
        return fm_errf(err, err_len, EINVAL, "invalid regex '%.64s%s': %s", regex,
                       (strlen(regex) > 64)? "..." : "", why_guard);
    }
    /* REG_NEWLINE: ^ and $ match at each line, as a receive string for a
     * header or a body line is usually written. */
    rc = regcomp(out, regex, REG_EXTENDED | REG_NOSUB | REG_NEWLINE);
    if (rc != 0) {
        char why[128];

        regerror(rc, out, why, sizeof(why));
        return fm_errf(err, err_len, EINVAL, "invalid regex '%s': %s", regex, why);
    }
    *text_out = strdup(regex);
    if (*text_out == NULL) {
        regfree(out);
        return ENOMEM;
    }
    return 0;
}

/*
 * Compile \p regex and put it in place of the regex a setter owns (\p re,
 * valid while *\p have, and its text): the old one is freed only once the
 * new one compiled, so that a refused pattern keeps the last good one.
 * With \p linear, also the linear-time search of the pattern when an automaton decides it
 * (regex_linear.h), *\p have_linear saying whether there is one.
 */
static int
swap_regex(bool *have, regex_t *re, char **text, bool *have_linear,
           struct fm_regex_linear *linear, const char *regex, char *err, size_t err_len)
{
    regex_t compiled;
    char *compiled_text = NULL;
    int rc = fm_probe_regex_compile(regex, &compiled, &compiled_text, err, err_len);

    if (rc != 0) {
        return rc;
    }
    if (*have) {
        regfree(re);
    }
    free(*text);
    *re = compiled;
    *have = true;
    *text = compiled_text;
    if (linear != NULL) {
        fm_regex_linear_free(linear);
        *have_linear = fm_regex_linear_compile(regex, linear);
    }
    return 0;
}

int
fm_probe_opts_set_receive(struct fm_probe_opts *opts, const char *regex,
                          char *err, size_t err_len)
{
    return swap_regex(&opts->have_receive, &opts->receive, &opts->receive_text,
                      &opts->have_receive_linear, &opts->receive_linear, regex, err, err_len);
}

int
fm_probe_opts_set_expect_regex(struct fm_probe_opts *opts, const char *regex,
                               char *err, size_t err_len)
{
    return swap_regex(&opts->have_expect, &opts->expect, &opts->expect_text,
                      &opts->have_expect_linear, &opts->expect_linear, regex, err, err_len);
}

/* Here rather than in probe_opts_maint.c: every regex setter goes through
 * swap_regex(). */
int
fm_probe_opts_set_maintenance_regex(struct fm_probe_opts *opts, const char *regex,
                                    char *err, size_t err_len)
{
    return swap_regex(&opts->have_maintenance_regex, &opts->maintenance_regex, &opts->maintenance_text,
                      &opts->have_maintenance_linear, &opts->maintenance_linear, regex, err, err_len);
}

int
fm_probe_opts_set_send(struct fm_probe_opts *opts, const char *text, char *err, size_t err_len)
{
    char *bytes = malloc(strlen(text) + 1);
    size_t len = 0;
    char why[160];

    if (bytes == NULL) {
        return ENOMEM;
    }
    if (fm_parse_escapes(text, bytes, &len, why, sizeof(why)) != 0) {
        free(bytes);
        return fm_errf(err, err_len, EINVAL, "invalid send string '%s': %s", text, why);
    }
    free(opts->send);
    opts->send = bytes;
    opts->send_len = len;
    return 0;
}

static bool
is_token(const char *start, size_t len)
{
    static const char specials[] = "!#$%&'*+-.^_`|~";

    if (len == 0) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char) start[i]) && strchr(specials, start[i]) == NULL) {
            return false;
        }
    }
    return true;
}

int
fm_probe_opts_add_header(struct fm_probe_opts *opts, const char *header,
                         char *err, size_t err_len)
{
    const char *colon = strchr(header, ':');

    if (colon == NULL || !is_token(header, (size_t) (colon - header))) {
        return fm_errf(err, err_len, EINVAL, "invalid header '%s': expected 'Name: value'", header);
    }
    for (const unsigned char *p = (const unsigned char *) colon; *p != '\0'; p++) {
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f) {
            return fm_errf(err, err_len, EINVAL, "invalid header '%s': control characters in value", header);
        }
    }
    if (opts->n_headers >= FM_HEADER_MAX) {
        fm_errf(err, err_len, EINVAL, "too many headers (at most %d)", FM_HEADER_MAX);
        return E2BIG;
    }
    opts->headers[opts->n_headers] = strdup(header);
    if (opts->headers[opts->n_headers] == NULL) {
        return ENOMEM;
    }
    opts->n_headers++;
    return 0;
}

int
fm_probe_opts_set_method(struct fm_probe_opts *opts, const char *method,
                         char *err, size_t err_len)
{
    char *copy = NULL;

    if (method == NULL || !is_token(method, strlen(method)) || strlen(method) > 32) {
        return fm_errf(err, err_len, EINVAL, "invalid method '%s': expected a token such as GET or HEAD",
                       (method != NULL)? method : "");
    }
    copy = strdup(method);
    if (copy == NULL) {
        return ENOMEM;
    }
    free(opts->method);
    opts->method = copy;
    return 0;
}
