/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: target URIs, the requests built from them, and the
 * redaction of the passwords they carry.
 *
 * Input: one option byte, then a URI.  The URI is parsed as a probe target
 * and as a Monitor_Uri_List URI (fm_target_parse(), and through
 * fm_run_config_set() as Port_list and Monitor_Uri_List); a target that
 * parses gets its request built.  Then the same bytes are made into the
 * pieces of a URI with a password, in each of the forms a user can get
 * wrong, and every message that can quote that URI is checked for the
 * password.
 *
 * Properties:
 *  - errors are one terminated line; a parsed target has a host, a port
 *    and a path that starts with '/' or '?';
 *  - the request is one request line and headers, CRLF-terminated, ending
 *    at the only blank line: no URI can inject a header or a second request;
 *  - redaction: whatever lies between a scheme-like prefix and the last '@'
 *    before the host is a secret (issue 8, item 5); no message, target text,
 *    exit reason or log line ever shows any part of it, whole or cut short;
 *  - a secret a server echoes (fm_text_redact_secrets(), issue 30 item 8)
 *    put anywhere in the bytes, raw or as \xHH escapes, never shows whole
 *    in the redacted text, and the redaction terminates within its buffer.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/http.h>
#include <faultmon/probe_opts.h>
#include <faultmon/runconf.h>
#include <faultmon/scheme.h>
#include <faultmon/target.h>
#include <faultmon/text.h>

#include "fuzz_common.h"

#define FUZZ_URI_MAX 2048

/* The secret starts and ends with this, so that any piece of it shows. */
#define CANARY "Zq7S3cr"

static void
check_request(const struct fm_target *t)
{
    const char *req = t->request;
    size_t len = t->request_len;
    const char *blank = NULL;

    if (!t->send_request) {
        FM_FUZZ_CHECK(req == NULL, "a request for a target that sends none");
        return;
    }
    FM_FUZZ_CHECK(req != NULL && len >= 4, "no request");
    FM_FUZZ_CHECK(strlen(req) == len, "NUL inside the request");
    blank = strstr(req, "\r\n\r\n");
    FM_FUZZ_CHECK(blank != NULL && (size_t) (blank + 4 - req) == len,
                  "the request does not end at its only blank line: %s", req);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) req[i];

        if (c == '\n') {
            FM_FUZZ_CHECK(i > 0 && req[i - 1] == '\r', "bare LF in the request: %s", req);
        } else if (c == '\r') {
            FM_FUZZ_CHECK(i + 1 < len && req[i + 1] == '\n', "bare CR in the request: %s", req);
        } else {
            FM_FUZZ_CHECK(c >= 0x20 && c != 0x7f, "control byte 0x%02x in the request", c);
        }
    }
}

static void
parse_plain(const char *text, bool is_uri)
{
    struct fm_target t;
    struct fm_probe_opts opts;
    char err[512];

    memset(err, 'x', sizeof(err));
    if (fm_target_parse(text, is_uri, &t, err, sizeof(err)) != 0) {
        fm_fuzz_check_message(err, sizeof(err));
        return;
    }
    FM_FUZZ_CHECK(t.host != NULL && t.host[0] != '\0', "parsed without a host");
    /* Only a scheme without a port (icmp) parses with none. */
    FM_FUZZ_CHECK(t.port != 0 || (fm_scheme_get(t.scheme)->parts & FM_URI_NO_PORT) != 0,
                  "parsed with port 0");
    FM_FUZZ_CHECK(t.path != NULL && (t.path[0] == '/' || t.path[0] == '?'), "path '%s'",
                  (t.path != NULL)? t.path : "(null)");
    FM_FUZZ_CHECK(t.text != NULL, "no text");
    FM_FUZZ_CHECK(!is_uri || t.kind == FM_PROBE_GET, "a URI that is not a GET");
    fm_probe_opts_init(&opts);
    for (int tls_request = 0; tls_request <= 1; tls_request++) {
        opts.tls_request = (tls_request != 0);
        if (fm_http_build_request(&t, &opts) == 0) {
            check_request(&t);
        }
    }
    fm_probe_opts_clear(&opts);
    fm_target_clear(&t);
}

/* A message is one line with no control character. */
static void
check_one_line(const char *msg)
{
    for (const unsigned char *p = (const unsigned char *) msg; *p != '\0'; p++) {
        FM_FUZZ_CHECK(*p >= 0x20 && *p != 0x7f, "control byte 0x%02x in '%s'", *p, msg);
    }
}

/* How the agents and the logs clean a message (src/util/text.c). */
static void
clean_message(char *msg, size_t len)
{
    fm_text_clean(msg, len);
}

static void
check_secret(const char *where, const char *shown, const char *uri)
{
    FM_FUZZ_CHECK(strstr(shown, CANARY) == NULL, "%s shows the password of '%s': %s",
                  where, uri, shown);
}

/* Characters that set words apart in messages (blanks, quotes, ",", "(",
 * "<", "[", "{") may end a URI there, so a secret holding them followed by
 * another "scheme:" is ambiguous; they stay out of the user and the
 * password, so that where the URI ends is never in doubt.  (RFC 3986 has
 * them percent-encoded in a userinfo, but for "," and "(".) */
static char
uri_char(uint8_t b)
{
    if (b <= 0x20 || b >= 0x7f || strchr("'\"`\\,(<[{", b) != NULL) {
        return "abc@/?#:%]!)"[b % 12];
    }
    return (char) b;
}

/* scheme + separator + user + ':' + CANARY + middle + CANARY + '@' + host */
static void
redaction(struct fm_fuzz_input *in, uint8_t form)
{
    static const char *const schemes[] = { "http", "https", "tcp", "h", "x+y.z-w", "HTTP" };
    static const char *const seps[] = { "://", ":/", ":", ":///", "://:" };
    char uri[3 * FUZZ_URI_MAX];
    char user[64] = "";
    char middle[256] = "";
    char host[256] = "";
    size_t n = 0;
    char err[1024];
    char msg[4096];
    struct fm_target t;
    struct fm_run_config cfg;

    for (size_t i = 0; i < sizeof(user) - 1 && fm_fuzz_left(in) > 0; i++) {
        uint8_t b = fm_fuzz_byte(in);

        char c = uri_char(b);

        if (b == ',') {
            break;
        }
        /* A user name ends at the first ':' and may show: keep the canary
         * out of it. */
        user[n++] = (c == ':')? 'u' : (c == 'Z')? 'z' : c;
    }
    user[n] = '\0';
    n = 0;
    for (size_t i = 0; i < sizeof(middle) - 1 && fm_fuzz_left(in) > 0; i++) {
        uint8_t b = fm_fuzz_byte(in);

        if (b == ',') {
            break;
        }
        middle[n++] = uri_char(b);
    }
    middle[n] = '\0';
    n = 0;
    /* The host: anything but '@', which would move the secret's end (and
     * no canary: a host may show). */
    for (size_t i = 0; i < sizeof(host) - 1 && fm_fuzz_left(in) > 0; i++) {
        char c = uri_char(fm_fuzz_byte(in));

        host[n++] = (c == '@')? 'h' : (c == 'Z')? 'z' : c;
    }
    host[n] = '\0';
    snprintf(uri, sizeof(uri), "%s%s%s:" CANARY "%s" CANARY "@%s",
             schemes[form % 6], seps[(form / 6) % 5], user, middle, host);

    /* What the CLI and validate-all print for a bad target. */
    for (int is_uri = 0; is_uri <= 1; is_uri++) {
        memset(err, 0, sizeof(err));
        if (fm_target_parse(uri, is_uri != 0, &t, err, sizeof(err)) == 0) {
            check_secret("the target text", t.text, uri);
            fm_target_clear(&t);
        } else {
            check_secret("the target error", err, uri);
        }
    }
    fm_run_config_init(&cfg);
    memset(err, 0, sizeof(err));
    if (fm_run_config_set(&cfg, "Monitor_Uri_List", uri, err, sizeof(err)) != 0) {
        check_secret("the Monitor_Uri_List error", err, uri);
    }
    memset(err, 0, sizeof(err));
    if (fm_run_config_set(&cfg, "Port_list", uri, err, sizeof(err)) != 0) {
        check_secret("the Port_list error", err, uri);
    }
    for (size_t i = 0; i < cfg.n_targets; i++) {
        check_secret("a configured target's text", cfg.targets[i].text, uri);
    }
    fm_run_config_clear(&cfg);

    /* What the agents and the logs print: an exit reason quoting the value,
     * whole or cut short by its buffer. */
    fm_text_format(msg, sizeof(msg), "statusurl '%s' is not an http:// or https:// URL (see %s)",
                   uri, uri);
    check_secret("an exit reason", msg, uri);
    check_one_line(msg);
    fm_text_format(msg, 16 + (size_t) (form % 64), "bad URI %s", uri);
    check_secret("a truncated exit reason", msg, uri);
    snprintf(msg, sizeof(msg), "cannot probe \"%s\", %s", uri, uri);
    clean_message(msg, sizeof(msg));
    check_secret("a cleaned message", msg, uri);
    snprintf(msg, 16 + (size_t) (form % 64), "bad URI %s", uri);
    clean_message(msg, 16 + (size_t) (form % 64));
    check_secret("a cleaned truncated message", msg, uri);
}

/* The input as a reply, with the secret put in at a place the first byte
 * picks, raw or escaped byte by byte: redacted, it never shows whole. */
static void
echo_redaction(const char *text, uint8_t form)
{
    static const char secret[] = "Qz7k Wv4p";
    const char *secrets[] = { secret };
    size_t len = strlen(text);
    size_t at = (len > 0)? (size_t) form % (len + 1) : 0;
    char *reply = calloc(1, len + 4 * sizeof(secret) + 1);
    size_t out_len = 16 + (size_t) (form % 200);
    char *out = calloc(1, out_len);
    size_t o = 0;

    if (reply == NULL || out == NULL) {
        free(reply);
        free(out);
        return;
    }
    memcpy(reply, text, at);
    o = at;
    for (size_t i = 0; i + 1 < sizeof(secret); i++) {
        if ((form & 0x80) != 0) {
            o += (size_t) sprintf(reply + o, "\\x%02x", (unsigned char) secret[i]);
        } else {
            reply[o++] = secret[i];
        }
    }
    memcpy(reply + o, text + at, len - at);
    o += len - at;
    (void) fm_text_redact_secrets(out, out_len, reply, o, secrets, 1);
    FM_FUZZ_CHECK(strnlen(out, out_len) < out_len, "redacted text not terminated");
    FM_FUZZ_CHECK(strstr(out, secret) == NULL, "the secret shows: '%s'", out);
    free(reply);
    free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fm_fuzz_input in;
    uint8_t form = 0;
    char *text = NULL;

    if (size > FUZZ_URI_MAX) {
        return -1;
    }
    fm_fuzz_input_init(&in, data, size);
    form = fm_fuzz_byte(&in);
    text = fm_fuzz_rest(&in);
    parse_plain(text, false);
    parse_plain(text, true);
    echo_redaction(text, form);
    free(text);

    fm_fuzz_input_init(&in, data, size);
    (void) fm_fuzz_byte(&in);
    redaction(&in, form);
    return 0;
}
