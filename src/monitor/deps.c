/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a service's dependencies across the cluster (faultmon/deps.h).
 */
#include <config.h>

#include <faultmon/deps.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Append the letters and digits of [p, end) to buf, a run of anything else
 * as one '-'. */
static size_t
append_key(char *buf, size_t used, size_t buf_len, const char *p, const char *end)
{
    for (; p < end && used + 2 < buf_len; p++) {
        unsigned char c = (unsigned char) *p;

        if (isalnum(c)) {
            buf[used++] = (char) tolower(c);
        } else if (used > 0 && buf[used - 1] != '-') {
            buf[used++] = '-';
        }
    }
    buf[used] = '\0';
    return used;
}

/* FNV-1a, 32 bits: a short, stable mark of a key too long to keep whole. */
static uint32_t
key_hash(const char *s)
{
    uint32_t h = UINT32_C(2166136261);

    for (; *s != '\0'; s++) {
        h = (h ^ (unsigned char) *s) * UINT32_C(16777619);
    }
    return h;
}

/* "-" and 8 hex digits */
#define KEY_HASH_LEN 9

void
fm_deps_attr_name(const char *uri, char *out, size_t out_len)
{
    /* The whole key first: one cut short must still differ from another
     * that shares its first FM_DEPS_ATTR_MAX characters, or the two
     * dependencies would publish their views into one attribute. */
    char buf[FM_DEPS_KEY_MAX];
    size_t buf_len = sizeof(buf);
    const char *end = uri + strlen(uri);
    const char *scheme_end = strstr(uri, "://");
    size_t used = 0;

    snprintf(buf, buf_len, "%s", FM_DEPS_ATTR_PREFIX);
    used = strlen(buf);
    if (scheme_end != NULL) {
        const char *host = scheme_end + 3;
        const char *auth_end = host + strcspn(host, "/?#");
        const char *at = NULL;

        /* scheme://user:password@host: the credentials are no one's name */
        for (const char *q = host; q < auth_end; q++) {
            if (*q == '@') {
                at = q;
            }
        }
        used = append_key(buf, used, buf_len, uri, host);
        uri = (at != NULL)? at + 1 : host;
    }
    used = append_key(buf, used, buf_len, uri, end);
    while (used > strlen(FM_DEPS_ATTR_PREFIX) && buf[used - 1] == '-') {
        buf[--used] = '\0';
    }
    if (out_len == 0) {
        return;
    }
    if (used < out_len) {
        memcpy(out, buf, used + 1);
    } else if (out_len > strlen(FM_DEPS_ATTR_PREFIX) + KEY_HASH_LEN + 1) {
        size_t keep = out_len - 1 - KEY_HASH_LEN;

        while (keep > strlen(FM_DEPS_ATTR_PREFIX) && buf[keep - 1] == '-') {
            keep--;
        }
        snprintf(out, out_len, "%.*s-%08" PRIx32, (int) keep, buf, key_hash(buf));
    } else {
        snprintf(out, out_len, "%.*s", (int) (out_len - 1), buf);
    }
}

/* The value of key="..." in line (which ends at end), into out. */
static bool
line_field(const char *line, const char *end, const char *key, char *out, size_t out_len)
{
    char pat[16];
    const char *p = NULL;
    const char *q = NULL;

    snprintf(pat, sizeof(pat), "%s=\"", key);
    for (p = line; (p = strstr(p, pat)) != NULL && p < end; p++) {
        if (p == line || p[-1] == ' ') {
            break;
        }
    }
    if (p == NULL || p >= end) {
        return false;
    }
    p += strlen(pat);
    q = memchr(p, '"', (size_t) (end - p));
    if (q == NULL || (size_t) (q - p) >= out_len) {
        return false;
    }
    snprintf(out, out_len, "%.*s", (int) (q - p), p);
    return true;
}

int
fm_deps_parse_views(const char *out, const char *name, const char *self, struct fm_deps_views *v)
{
    memset(v, 0, sizeof(*v));
    for (const char *line = out; *line != '\0';) {
        const char *end = line + strcspn(line, "\n");
        char got_name[FM_DEPS_ATTR_MAX];
        char host[256];
        char value[16];

        if (end > line) {
            if (!line_field(line, end, "name", got_name, sizeof(got_name))
                || !line_field(line, end, "host", host, sizeof(host))
                || !line_field(line, end, "value", value, sizeof(value)) || strcmp(got_name, name) != 0) {
                memset(v, 0, sizeof(*v));
                return EINVAL;
            }
            if (self == NULL || strcmp(host, self) != 0) {
                if (strcmp(value, "up") == 0) {
                    if (v->up++ == 0) {
                        snprintf(v->up_nodes, sizeof(v->up_nodes), "%.*s", (int) sizeof(v->up_nodes) - 1, host);
                    }
                } else if (strcmp(value, "down") == 0) {
                    v->down++;
                }
            }
        }
        line = (*end == '\n')? end + 1 : end;
    }
    return 0;
}

enum fm_dep_verdict
fm_deps_judge(bool down_here, const struct fm_deps_views *v)
{
    if (!down_here) {
        return FM_DEP_FINE;
    }
    if (v->up > 0) {
        return FM_DEP_HERE_ONLY;
    }
    return (v->down > 0)? FM_DEP_EVERYWHERE : FM_DEP_UNKNOWN;
}

enum fm_dep_action
fm_deps_action(enum fm_dep_verdict verdict, bool settled)
{
    switch (verdict) {
        case FM_DEP_FINE:
            return FM_DEP_ACT_RULES;
        case FM_DEP_HERE_ONLY:
            return settled? FM_DEP_ACT_FAILOVER : FM_DEP_ACT_PENDING;
        case FM_DEP_EVERYWHERE:
        case FM_DEP_UNKNOWN:
            /* With no node known where it is up, a restart in place cannot
             * bring back what the service needs, and a failover would go
             * blind: held, as "down from all 1 nodes" on a single node. */
            break;
    }
    return FM_DEP_ACT_HOLD;
}
