/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: case folding of a POSIX extended regex (heartbeat's
 * testregex is matched with grep -i; the probe core's regex is
 * case-sensitive), by rewriting the pattern rather than by REG_ICASE, so
 * that the loop and the probe helper compile the same text.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "ocf_common.h"

static char
other_case(char c)
{
    return isupper((unsigned char) c)? (char) tolower((unsigned char) c)
                                     : (char) toupper((unsigned char) c);
}

/* Append to out[*len], keeping room for the NUL. */
static bool
put(char *out, size_t out_len, size_t *len, const char *text, size_t n)
{
    if (*len + n + 1 > out_len) {
        return false;
    }
    memcpy(out + *len, text, n);
    *len += n;
    out[*len] = '\0';
    return true;
}

/* A bracket expression starting at p ('['): copy it with the other case of
 * its letters and letter ranges added; return the character after it. */
static const char *
icase_bracket(const char *p, char *out, size_t out_len, size_t *len, bool *ok)
{
    const char *start = p + 1;
    const char *q = start;
    char extra[512];
    size_t n_extra = 0;

    if (*q == '^') {
        q++;
    }
    if (*q == ']') {
        q++;
    }
    while (*q != '\0' && *q != ']') {
        if (q[0] == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.')) {
            char close[3] = { q[1], ']', '\0' };
            const char *end = strstr(q + 2, close);

            if (end == NULL) {
                break;
            }
            q = end + 2;
            continue;
        }
        if (isalpha((unsigned char) q[0]) && q[1] == '-' && isalpha((unsigned char) q[2])
            && (bool) isupper((unsigned char) q[0]) == (bool) isupper((unsigned char) q[2])) {
            if (n_extra + 3 < sizeof(extra)) {
                extra[n_extra++] = other_case(q[0]);
                extra[n_extra++] = '-';
                extra[n_extra++] = other_case(q[2]);
            }
            q += 3;
            continue;
        }
        if (isalpha((unsigned char) q[0]) && q[1] != '-' && n_extra + 1 < sizeof(extra)) {
            extra[n_extra++] = other_case(q[0]);
        }
        q++;
    }
    if (*q != ']') {
        /* Unterminated: leave it for regcomp to reject. */
        *ok = put(out, out_len, len, p, strlen(p));
        return p + strlen(p);
    }
    *ok = put(out, out_len, len, p, (size_t) (q - p))
          && put(out, out_len, len, extra, n_extra)
          && put(out, out_len, len, "]", 1);
    return q + 1;
}

int
fm_ocf_regex_icase(const char *regex, char *out, size_t out_len)
{
    size_t len = 0;
    bool ok = true;
    const char *p = regex;

    if (out_len == 0) {
        return ENAMETOOLONG;
    }
    out[0] = '\0';
    while (*p != '\0' && ok) {
        if (*p == '\\' && p[1] != '\0') {
            ok = put(out, out_len, &len, p, 2);
            p += 2;
        } else if (*p == '[') {
            p = icase_bracket(p, out, out_len, &len, &ok);
        } else if (isalpha((unsigned char) *p)) {
            char cls[4] = { '[', *p, other_case(*p), ']' };

            ok = put(out, out_len, &len, cls, 4);
            p++;
        } else {
            ok = put(out, out_len, &len, p, 1);
            p++;
        }
    }
    return ok? 0 : ENAMETOOLONG;
}
