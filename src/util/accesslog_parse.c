/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: one line of a web server's access log (see faultmon/accesslog.h).
 *
 * Apache's common and combined formats and nginx's default (combined) all
 * put the status right after the quoted request:
 *
 *   HOST IDENT USER [TIME] "REQUEST" STATUS BYTES ["REFERER" "AGENT"] [TIME]
 *
 * The request is the first quoted field after the bracketed time.  Apache
 * escapes a '"' in it as \" and nginx as \x22, so a backslash skips the
 * next byte.  Nothing else of the line is read: a host, user or agent is
 * never looked at, so no field the client chose can move the status.
 */
#include <config.h>

#include <errno.h>
#include <string.h>

#include <faultmon/accesslog.h>

/* The end of the quoted field that starts at \p p ('"'), or NULL. */
static const char *
quoted_end(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\') {
            p++;
        } else if (*p == '"') {
            return p;
        }
    }
    return NULL;
}

/* Digits at \p p, as a number of at most \p max_digits; the count read. */
static size_t
read_digits(const char *p, const char *end, size_t max_digits, uint64_t *value)
{
    size_t n = 0;

    *value = 0;
    while (p + n < end && n < max_digits && p[n] >= '0' && p[n] <= '9') {
        *value = *value * 10u + (uint64_t) (p[n] - '0');
        n++;
    }
    return n;
}

/* The optional last field: %D's microseconds or $request_time's seconds
 * with a point (nginx logs milliseconds: "0.123"). */
static void
parse_time(const char *p, const char *end, struct fm_accesslog_line *out)
{
    uint64_t whole = 0;
    uint64_t frac = 0;
    size_t n = read_digits(p, end, 12, &whole);
    size_t nf = 0;

    if (n == 0) {
        return;
    }
    if (p + n == end) {
        out->have_time = true;
        out->time_us = whole;
        return;
    }
    if (p[n] != '.') {
        return;
    }
    nf = read_digits(p + n + 1, end, 6, &frac);
    if (nf == 0 || p + n + 1 + nf != end || whole > 1000000u) {
        return;
    }
    for (size_t i = nf; i < 6; i++) {
        frac *= 10u;
    }
    out->have_time = true;
    out->time_us = whole * 1000000u + frac;
}

/* After STATUS BYTES: the combined format's two quoted fields, then maybe
 * a time; anything else after them means no time. */
static void
parse_tail(const char *p, const char *end, struct fm_accesslog_line *out)
{
    for (int quoted = 0; quoted < 2; quoted++) {
        while (p < end && *p == ' ') {
            p++;
        }
        if (p == end || *p != '"') {
            return;
        }
        p = quoted_end(p, end);
        if (p == NULL) {
            return;
        }
        p++;
    }
    while (p < end && *p == ' ') {
        p++;
    }
    while (end > p && end[-1] == ' ') {
        end--;
    }
    parse_time(p, end, out);
}

int
fm_accesslog_parse(const char *line, size_t len, struct fm_accesslog_line *out)
{
    const char *end = line + len;
    const char *p = NULL;
    uint64_t status = 0;

    memset(out, 0, sizeof(*out));
    if (len == 0 || memchr(line, '\0', len) != NULL) {
        return EINVAL;
    }
    if (end[-1] == '\r') {
        end--;
    }
    p = memchr(line, '[', (size_t) (end - line));
    if (p != NULL) {
        p = memchr(p, ']', (size_t) (end - p));
    }
    if (p == NULL || end - p < 3 || p[1] != ' ' || p[2] != '"') {
        return EINVAL;
    }
    p = quoted_end(p + 2, end);
    if (p == NULL || end - p < 5 || p[1] != ' ') {
        return EINVAL;
    }
    p += 2;
    if (read_digits(p, end, 4, &status) != 3 || status < 100 || status > 599
        || (p + 3 < end && p[3] != ' ')) {
        return EINVAL;
    }
    out->status = (int) status;
    p += 3;
    /* BYTES: a number or "-" (nothing sent), then the rest. */
    while (p < end && *p == ' ') {
        p++;
    }
    while (p < end && *p != ' ') {
        p++;
    }
    parse_tail(p, end, out);
    return 0;
}
