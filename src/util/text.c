/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what every message goes through before a user or Pacemaker
 * reads it: URI secrets hidden, then one line of valid UTF-8; and base64,
 * the one encoding of the text that a request carries.
 *
 * libc only (see include/faultmon/text.h).  The checks below are ASCII on
 * purpose: the agent never calls setlocale(), but a caller might, and a
 * locale must not change what counts as a secret.
 */
#include <config.h>

#include <faultmon/text.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FM_TEXT_MASK "***"

static bool
ascii_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
static bool
scheme_char(unsigned char c)
{
    return ascii_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

/* Whether the scheme-like word at start is set apart from what comes before
 * it, so that it starts a URI of its own: a password can hold nearly
 * anything, the quotes, commas and brackets around URIs in messages too
 * ("a,b:c" would end "http://u:a,b:c@h/" after "a,"), so only white space,
 * or white space and then one quote or opening bracket, sets URIs apart. */
static bool
set_apart(const unsigned char *in, size_t start)
{
    size_t k = start - 1;

    if (in[k] != '\0' && strchr("'\"`([{<", in[k]) != NULL && k > 0) {
        k--;
    }
    return in[k] == ' ' || in[k] == '\t' || in[k] == '\n' || in[k] == '\r';
}

/* What cannot start a user name: "reason: x@y" is a label, not a URI. */
static bool
not_userinfo_start(unsigned char c)
{
    return c <= 0x20 || c == 0x7f;
}

/* Whether in[colon] (a ':') ends a scheme-like word that starts at or after
 * floor: true with the word's start.  A word with a letter anywhere counts
 * ("%2Fuser:" is a user name after an encoded slash); one of digits and dots
 * only is an address or a time ("127.0.0.1:80", "12:30"). */
static bool
scheme_word(const unsigned char *in, size_t colon, size_t floor, size_t *start)
{
    size_t s = colon;
    bool letter = false;

    while (s > floor && scheme_char(in[s - 1])) {
        s--;
        letter = letter || ascii_alpha(in[s]);
    }
    if (!letter || (s > 0 && scheme_char(in[s - 1]))) {
        return false;
    }
    *start = s;
    return true;
}

/*
 * Whether in[colon] ends a scheme-like word followed by something that could
 * be a user name: true with the word's start and *body, the first byte after
 * the ':' and any slashes.
 */
static bool
prefix_at(const unsigned char *in, size_t len, size_t colon, size_t floor,
          size_t *start, size_t *body)
{
    size_t b = colon + 1;

    if (!scheme_word(in, colon, floor, start)) {
        return false;
    }
    /* "http://", "http:/" and "http:" all count, and a backslash too, as
     * browsers take "http:\\" for "http://". */
    while (b < len && (in[b] == '/' || in[b] == '\\')) {
        b++;
    }
    if (b >= len || not_userinfo_start(in[b])) {
        return false;
    }
    *body = b;
    return true;
}

/* The next URI-like prefix at or after from: true with its start and body. */
static bool
next_prefix(const unsigned char *in, size_t len, size_t from, size_t *start, size_t *body)
{
    for (size_t i = from; i < len; i++) {
        if (in[i] == ':' && prefix_at(in, len, i, from, start, body)) {
            return true;
        }
    }
    return false;
}

/* Where the URI whose userinfo starts at body ends: at the next scheme-like
 * word that a separator sets apart, else at the end of the text.  What
 * follows that word does not matter, so that redacting a text twice changes
 * nothing the second time. */
static size_t
uri_end(const unsigned char *in, size_t len, size_t body)
{
    size_t start = 0;

    for (size_t i = body; i < len; i++) {
        if (in[i] == ':' && scheme_word(in, i, body, &start)
            && start > body && set_apart(in, start)) {
            return start;
        }
    }
    return len;
}

/* Append [src, src + n) to out, counting what does not fit. */
static void
put(char *out, size_t out_len, size_t *o, const unsigned char *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (*o + 1 < out_len) {
            out[*o] = (char) src[i];
        }
        (*o)++;
    }
}

size_t
fm_text_redact(char *out, size_t out_len, const char *in_text, size_t in_len, bool cut)
{
    const unsigned char *in = (const unsigned char *) in_text;
    size_t o = 0;
    size_t copied = 0;   /* in[0, copied) is in out */
    size_t scan = 0;
    size_t start = 0;
    size_t body = 0;

    while (in != NULL && next_prefix(in, in_len, scan, &start, &body)) {
        size_t end = uri_end(in, in_len, body);
        size_t secret_end = end;
        const unsigned char *at = NULL;

        if (!(cut && end == in_len)) {
            /* The last '@': a password may hold '@' too. */
            for (size_t i = end; i > body; i--) {
                if (in[i - 1] == '@') {
                    at = in + i - 1;
                    break;
                }
            }
            if (at == NULL) {
                scan = end;
                continue;
            }
            secret_end = (size_t) (at - in);
        }
        if (secret_end == body) {
            scan = body + 1;
            continue;
        }
        put(out, out_len, &o, in + copied, body - copied);
        put(out, out_len, &o, (const unsigned char *) FM_TEXT_MASK, strlen(FM_TEXT_MASK));
        copied = secret_end;
        scan = secret_end;
    }
    if (in != NULL) {
        put(out, out_len, &o, in + copied, in_len - copied);
    }
    if (out_len > 0) {
        out[(o < out_len)? o : out_len - 1] = '\0';
    }
    return o;
}

/* The shortest piece of a secret hidden where a line break or the end of
 * the text cuts the secret: shorter ones say too little to be worth
 * hiding, and would hide common words. */
#define FM_SECRET_PIECE_MIN 4

/* in, read as the bytes a server sent: "\xHH" (as fm_text_escape() and the
 * probes' excerpts write a byte) counts as that byte.  dec[k] is the k-th
 * byte; at[k] is where it starts in in, and at[n] == in_len. */
static size_t
secret_decode(const unsigned char *in, size_t in_len, unsigned char *dec, size_t *at)
{
    static const char hex[] = "0123456789abcdef0123456789ABCDEF";
    size_t n = 0;

    for (size_t i = 0; i < in_len; n++) {
        const char *hi = (i + 3 < in_len && in[i] == '\\' && in[i + 1] == 'x'
                          && in[i + 2] != '\0')? strchr(hex, in[i + 2]) : NULL;
        const char *lo = (hi != NULL && in[i + 3] != '\0')? strchr(hex, in[i + 3]) : NULL;

        at[n] = i;
        if (lo != NULL) {
            dec[n] = (unsigned char) ((((hi - hex) & 15) << 4) | ((lo - hex) & 15));
            i += 4;
        } else {
            dec[n] = in[i++];
        }
    }
    at[n] = in_len;
    return n;
}

/* Where a secret may be cut: a line break, a quote closing an excerpt, or
 * the end of the text. */
static bool
secret_boundary(const unsigned char *dec, size_t n, size_t k)
{
    return k >= n || dec[k] == '\r' || dec[k] == '\n' || dec[k] == '"' || dec[k] == '\'';
}

/* Mark in hide[] the decoded bytes [from, to). */
static void
secret_hide(bool *hide, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++) {
        hide[k] = true;
    }
}

/* One secret: every whole occurrence, and its start before a boundary or
 * its end after one (a secret that a line break or a cut split in two).
 * Only the pieces that touch a boundary are compared, so the cost stays
 * linear in the text for each boundary. */
static void
secret_mark(const unsigned char *dec, size_t n, const char *secret, bool *hide)
{
    size_t len = strlen(secret);
    size_t next = 0;    /* the first boundary at or after k */

    for (size_t k = 0; len > 0 && k < n; k++) {
        if (n - k >= len && memcmp(dec + k, secret, len) == 0) {
            secret_hide(hide, k, k + len);
        }
        while (next < k || (next < n && !secret_boundary(dec, n, next))) {
            next++;
        }
        if (next - k >= FM_SECRET_PIECE_MIN && next - k < len
            && memcmp(dec + k, secret, next - k) == 0) {
            secret_hide(hide, k, next);
        }
        if (k > 0 && !secret_boundary(dec, n, k - 1)) {
            continue;
        }
        /* a line of its own: a middle piece of a secret split in three */
        if (next - k >= FM_SECRET_PIECE_MIN && next - k < len
            && memmem(secret, len, dec + k, next - k) != NULL) {
            secret_hide(hide, k, next);
            continue;
        }
        for (size_t p = (next - k < len)? next - k : len - 1; p >= FM_SECRET_PIECE_MIN; p--) {
            if (memcmp(dec + k, secret + len - p, p) == 0) {
                secret_hide(hide, k, k + p);
                break;
            }
        }
    }
}

size_t
fm_text_redact_secrets(char *out, size_t out_len, const char *in_text, size_t in_len,
                       const char *const *secrets, size_t n_secrets)
{
    const unsigned char *in = (const unsigned char *) in_text;
    unsigned char *dec = calloc(in_len + 1, 1);
    size_t *at = calloc(in_len + 1, sizeof(*at));
    bool *hide = calloc(in_len + 1, sizeof(*hide));
    size_t n = 0;
    size_t o = 0;

    if (dec == NULL || at == NULL || hide == NULL) {
        /* Better no text than one that might hold a secret. */
        n = in_len = 0;
    } else {
        n = secret_decode(in, in_len, dec, at);
        for (size_t i = 0; i < n_secrets; i++) {
            if (secrets[i] != NULL) {
                secret_mark(dec, n, secrets[i], hide);
            }
        }
    }
    for (size_t k = 0; k < n; k++) {
        if (!hide[k]) {
            put(out, out_len, &o, in + at[k], at[k + 1] - at[k]);
        } else if (k == 0 || !hide[k - 1]) {
            put(out, out_len, &o, (const unsigned char *) FM_TEXT_MASK, strlen(FM_TEXT_MASK));
        }
    }
    if (out_len > 0) {
        out[(o < out_len)? o : out_len - 1] = '\0';
    }
    if (dec != NULL) {
        explicit_bzero(dec, in_len + 1);
    }
    free(dec);
    free(at);
    free(hide);
    return o;
}

/* The length of the valid UTF-8 character at in (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t
utf8_char_len(const unsigned char *in, size_t len, uint32_t *cp)
{
    unsigned char c = in[0];
    size_t n = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;

    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        *cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        *cp = c & 0x0fu;
        lo = (c == 0xe0)? 0xa0 : 0x80;
        hi = (c == 0xed)? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        *cp = c & 0x07u;
        lo = (c == 0xf0)? 0x90 : 0x80;
        hi = (c == 0xf4)? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (len < n || in[1] < lo || in[1] > hi) {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if (i > 1 && (in[i] < 0x80 || in[i] > 0xbf)) {
            return 0;
        }
        *cp = (*cp << 6) | (in[i] & 0x3fu);
    }
    return n;
}

/* Characters that are valid UTF-8 but must not reach a log line or the
 * CIB as they are. */
static bool
unsafe_char(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f)             /* C1 controls */
           || cp == 0x2028 || cp == 0x2029         /* line and paragraph separators */
           || (cp >= 0x202a && cp <= 0x202e)       /* bidirectional embeddings, overrides */
           || (cp >= 0x2066 && cp <= 0x2069)       /* bidirectional isolates */
           || cp == 0xfffe || cp == 0xffff;        /* not characters in XML */
}

bool
fm_text_escape(char *out, size_t out_len, const char *in_text, size_t in_len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *in = (const unsigned char *) in_text;
    size_t o = 0;
    size_t i = 0;

    if (out_len == 0) {
        return in_len == 0;
    }
    while (in != NULL && i < in_len) {
        uint32_t cp = 0;
        size_t n = 1;
        bool escape = false;

        if (in[i] < 0x20 || in[i] == 0x7f) {
            escape = true;
        } else if (in[i] >= 0x80) {
            n = utf8_char_len(in + i, in_len - i, &cp);
            escape = (n == 0) || unsafe_char(cp);
            if (n == 0) {
                n = 1;
            }
        }
        if (o + (escape? 4 * n : n) + 1 > out_len) {
            break;
        }
        for (size_t k = 0; k < n; k++) {
            if (escape) {
                out[o++] = '\\';
                out[o++] = 'x';
                out[o++] = hex[in[i + k] >> 4];
                out[o++] = hex[in[i + k] & 0x0f];
            } else {
                out[o++] = (char) in[i + k];
            }
        }
        i += n;
    }
    out[o] = '\0';
    return i >= in_len;
}

/* Redact the whole of in, then escape into out (which may be in). */
static void
clean_into(char *out, size_t out_len, const char *in, size_t in_len, bool cut)
{
    size_t need = fm_text_redact(NULL, 0, in, in_len, cut);
    char *tmp = calloc(1, need + 1);

    if (tmp == NULL) {
        /* Better no message than one that might hold a secret. */
        out[0] = '\0';
        return;
    }
    fm_text_redact(tmp, need + 1, in, in_len, cut);
    fm_text_escape(out, out_len, tmp, need);
    free(tmp);
}

void
fm_text_clean(char *buf, size_t buf_len)
{
    size_t len = 0;

    if (buf == NULL || buf_len == 0) {
        return;
    }
    len = strnlen(buf, buf_len);
    if (len == buf_len) {
        buf[--len] = '\0';
    }
    clean_into(buf, buf_len, buf, len, len + 1 == buf_len);
}

void
fm_text_vformat(char *buf, size_t buf_len, const char *fmt, va_list ap)
{
    char *full = NULL;
    int n = 0;
    va_list copy;

    if (buf == NULL || buf_len == 0) {
        return;
    }
    va_copy(copy, ap);
    n = vasprintf(&full, fmt, copy);
    va_end(copy);
    if (n < 0) {
        /* Out of memory: the message may be cut, which fm_text_clean()
         * guards against. */
        vsnprintf(buf, buf_len, fmt, ap);
        fm_text_clean(buf, buf_len);
        return;
    }
    clean_into(buf, buf_len, full, (size_t) n, false);
    free(full);
}

void
fm_text_format(char *buf, size_t buf_len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fm_text_vformat(buf, buf_len, fmt, ap);
    va_end(ap);
}

int
fm_errf(char *err, size_t err_len, int rc, const char *fmt, ...)
{
    va_list ap;

    if (err != NULL && err_len > 0) {
        va_start(ap, fmt);
        fm_text_vformat(err, err_len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* libcrypto's EVP_EncodeBlock() would do, but the OCF agent links libc
 * only: its monitor must not pay for loading libcrypto. */
int
fm_base64_encode(const void *in, size_t in_len, char *out, size_t out_len)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *bytes = in;
    size_t j = 0;

    if (in_len > (SIZE_MAX - 1) / 4 * 3 - 2 || out_len < FM_BASE64_SIZE(in_len)) {
        if (out != NULL && out_len > 0) {
            out[0] = '\0';
        }
        return ENOSPC;
    }
    for (size_t i = 0; i < in_len; i += 3) {
        uint32_t chunk = (uint32_t) bytes[i] << 16;

        chunk |= (i + 1 < in_len)? (uint32_t) bytes[i + 1] << 8 : 0;
        chunk |= (i + 2 < in_len)? (uint32_t) bytes[i + 2] : 0;
        out[j++] = alphabet[(chunk >> 18) & 63];
        out[j++] = alphabet[(chunk >> 12) & 63];
        out[j++] = (i + 1 < in_len)? alphabet[(chunk >> 6) & 63] : '=';
        out[j++] = (i + 2 < in_len)? alphabet[chunk & 63] : '=';
    }
    out[j] = '\0';
    return 0;
}
