/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the readers of Apache's mod_status (?auto) and nginx's
 * stub_status, and "every worker busy" (faultmon/overload.h).
 *
 * Both pages are lines of text.  The readers walk the bytes given, line
 * by line, without copying or terminating them, and believe only what is
 * well formed: a number is decimal digits within FM_OVERLOAD_MAX_COUNT, a
 * field given twice makes the page unreadable (which value would be the
 * server's?), and a scoreboard holds only the letters Apache writes.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/overload.h>

/* One line of [*pos, end): its start and length (without "\r\n"). */
static bool
next_line(const char *body, size_t len, size_t *pos, const char **line, size_t *line_len)
{
    size_t start = *pos;
    size_t i = start;

    if (start >= len) {
        return false;
    }
    while (i < len && body[i] != '\n') {
        i++;
    }
    *pos = (i < len)? i + 1 : len;
    *line = body + start;
    *line_len = i - start;
    if (*line_len > 0 && (*line)[*line_len - 1] == '\r') {
        (*line_len)--;
    }
    return true;
}

/* Whether \p line starts with \p key; \p rest is what follows it. */
static bool
starts_with(const char *line, size_t line_len, const char *key, const char **rest, size_t *rest_len)
{
    size_t n = strlen(key);

    if (line_len < n || memcmp(line, key, n) != 0) {
        return false;
    }
    *rest = line + n;
    *rest_len = line_len - n;
    return true;
}

/* A count at *p (blanks before it skipped); advances past it. */
static int
read_count(const char *s, size_t len, size_t *p, uint32_t *out)
{
    uint64_t v = 0;
    size_t i = *p;
    size_t digits = 0;

    while (i < len && (s[i] == ' ' || s[i] == '\t')) {
        i++;
    }
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        v = v * 10 + (uint64_t) (s[i] - '0');
        if (v > FM_OVERLOAD_MAX_COUNT) {
            return EINVAL;
        }
    }
    if (digits == 0) {
        return EINVAL;
    }
    *out = (uint32_t) v;
    *p = i;
    return 0;
}

/* The rest of a line holds one count and blanks, nothing else. */
static int
only_count(const char *s, size_t len, uint32_t *out)
{
    size_t p = 0;

    if (read_count(s, len, &p, out) != 0) {
        return EINVAL;
    }
    for (; p < len; p++) {
        if (s[p] != ' ' && s[p] != '\t') {
            return EINVAL;
        }
    }
    return 0;
}

static int
read_scoreboard(const char *s, size_t len, struct fm_overload_apache *out)
{
    /* Apache's letters (mod_status.c): waiting, starting, reading,
     * writing, keepalive, DNS, closing, logging, gracefully finishing,
     * idle cleanup, open slot. */
    static const char letters[] = "_SRWKDCLGI.";

    for (size_t i = 0; i < len; i++) {
        if (s[i] == ' ' && (i == 0 || i == len - 1)) {
            continue;
        }
        if (s[i] == '\0' || strchr(letters, s[i]) == NULL) {
            return EINVAL;
        }
        if (s[i] == '_') {
            out->sb_idle++;
        } else if (s[i] == '.') {
            out->sb_open++;
        } else {
            out->sb_busy++;
        }
    }
    out->have_scoreboard = true;
    return 0;
}

/* One "Key: value" line of ?auto; other keys are passed over. */
static int
apache_line(const char *line, size_t line_len, struct fm_overload_apache *out)
{
    const char *rest = NULL;
    size_t rest_len = 0;

    if (starts_with(line, line_len, "BusyWorkers:", &rest, &rest_len)) {
        if (out->have_busy) {
            return EINVAL;
        }
        out->have_busy = true;
        return only_count(rest, rest_len, &out->busy_workers);
    }
    if (starts_with(line, line_len, "IdleWorkers:", &rest, &rest_len)) {
        if (out->have_idle) {
            return EINVAL;
        }
        out->have_idle = true;
        return only_count(rest, rest_len, &out->idle_workers);
    }
    if (starts_with(line, line_len, "Scoreboard:", &rest, &rest_len)) {
        if (out->have_scoreboard || rest_len > FM_OVERLOAD_MAX_COUNT) {
            return EINVAL;
        }
        return read_scoreboard(rest, rest_len, out);
    }
    return 0;
}

int
fm_overload_parse_apache(const char *body, size_t len, struct fm_overload_apache *out)
{
    size_t pos = 0;
    const char *line = NULL;
    size_t line_len = 0;

    memset(out, 0, sizeof(*out));
    while (next_line(body, len, &pos, &line, &line_len)) {
        if (apache_line(line, line_len, out) != 0) {
            memset(out, 0, sizeof(*out));
            return EINVAL;
        }
    }
    if (!out->have_busy || !out->have_idle) {
        memset(out, 0, sizeof(*out));
        return EINVAL;
    }
    return 0;
}

/* "Reading: R Writing: W Waiting: X" */
static int
nginx_rww(const char *line, size_t line_len, struct fm_overload_nginx *out)
{
    static const char *const keys[] = { "Reading:", " Writing:", " Waiting:" };
    uint32_t *fields[] = { &out->reading, &out->writing, &out->waiting };
    size_t p = 0;

    for (size_t k = 0; k < 3; k++) {
        size_t n = strlen(keys[k]);

        while (k > 0 && p + 1 < line_len && line[p] == ' ' && line[p + 1] == ' ') {
            p++;
        }
        if (line_len - p < n || memcmp(line + p, keys[k], n) != 0) {
            return EINVAL;
        }
        p += n;
        if (read_count(line, line_len, &p, fields[k]) != 0) {
            return EINVAL;
        }
    }
    for (; p < line_len; p++) {
        if (line[p] != ' ' && line[p] != '\t') {
            return EINVAL;
        }
    }
    return 0;
}

int
fm_overload_parse_nginx(const char *body, size_t len, struct fm_overload_nginx *out)
{
    size_t pos = 0;
    const char *line = NULL;
    const char *rest = NULL;
    size_t line_len = 0;
    size_t rest_len = 0;
    bool have_active = false;
    bool have_rww = false;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    while (rc == 0 && next_line(body, len, &pos, &line, &line_len)) {
        if (starts_with(line, line_len, "Active connections:", &rest, &rest_len)) {
            rc = have_active? EINVAL : only_count(rest, rest_len, &out->active);
            have_active = true;
        } else if (starts_with(line, line_len, "Reading:", &rest, &rest_len)) {
            rc = have_rww? EINVAL : nginx_rww(line, line_len, out);
            have_rww = true;
        }
    }
    if (rc != 0 || !have_active || !have_rww) {
        memset(out, 0, sizeof(*out));
        return EINVAL;
    }
    return 0;
}

bool
fm_overload_apache_full(const struct fm_overload_apache *st, char *why, size_t why_len)
{
    /* Open slots ('.') are not counted against it: the scoreboard has
     * ServerLimit x ThreadsPerChild of them whatever MaxRequestWorkers
     * allows, so they are there on a saturated server too. */
    if (!st->have_busy || !st->have_idle || st->busy_workers == 0 || st->idle_workers > 0
        || (st->have_scoreboard && st->sb_idle > 0)) {
        return false;
    }
    snprintf(why, why_len, "all %" PRIu32 " workers busy", st->busy_workers);
    return true;
}

bool
fm_overload_nginx_full(const struct fm_overload_nginx *st, uint64_t capacity, char *why,
                       size_t why_len)
{
    /* capacity is the client connections nginx can hold, not its
     * worker_connections: each worker keeps one of those for each listening
     * socket and one for its master's channel (measured on nginx 1.22:
     * worker_connections 8, one listener, at most 6 active).  The status
     * request counts among the active: it took the last one. */
    if (capacity == 0 || st->active == 0 || (uint64_t) st->active < capacity) {
        return false;
    }
    snprintf(why, why_len, "all %" PRIu64 " connections busy (%" PRIu32 " active)", capacity,
             st->active);
    return true;
}
