/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: sets of HTTP status codes (faultmon/status_set.h): the one
 * parser of expect_status and maintenance_status lists.
 */
#include <config.h>

#include <faultmon/status_set.h>

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include <faultmon/text.h>

bool
fm_status_set_has(const struct fm_status_set *set, int status)
{
    if (status < 0 || status > 999) {
        return false;
    }
    return (set->bits[status / 8] & (1u << (status % 8))) != 0;
}

static void
status_set_add(struct fm_status_set *set, int lo, int hi)
{
    for (int s = lo; s <= hi; s++) {
        set->bits[s / 8] |= (uint8_t) (1u << (s % 8));
    }
}

/* One code: three digits, or a digit followed by "xx". */
static bool
parse_status_code(const char *start, size_t len, int *lo, int *hi)
{
    if (len != 3 || start[0] < '1' || start[0] > '9') {
        return false;
    }
    if ((start[1] == 'x' || start[1] == 'X') && (start[2] == 'x' || start[2] == 'X')) {
        *lo = (start[0] - '0') * 100;
        *hi = *lo + 99;
        return true;
    }
    if (!isdigit((unsigned char) start[1]) || !isdigit((unsigned char) start[2])) {
        return false;
    }
    *lo = *hi = (start[0] - '0') * 100 + (start[1] - '0') * 10 + (start[2] - '0');
    return true;
}

int
fm_status_set_parse(struct fm_status_set *set, const char *text, char *err, size_t err_len)
{
    const char *p = text;

    memset(set, 0, sizeof(*set));
    if (text == NULL || text[0] == '\0') {
        return fm_errf(err, err_len, EINVAL, "invalid status list '': empty");
    }
    while (*p != '\0') {
        size_t item_len = strcspn(p, ",");
        const char *dash = memchr(p, '-', item_len);
        int lo1 = 0;
        int hi1 = 0;
        int lo2 = 0;
        int hi2 = 0;

        if (dash == NULL) {
            if (!parse_status_code(p, item_len, &lo1, &hi1)) {
                goto bad;
            }
            status_set_add(set, lo1, hi1);
        } else {
            if (!parse_status_code(p, (size_t) (dash - p), &lo1, &hi1)
                || !parse_status_code(dash + 1, item_len - (size_t) (dash - p) - 1, &lo2, &hi2)
                || lo1 > hi2) {
                goto bad;
            }
            status_set_add(set, lo1, hi2);
        }
        p += item_len;
        if (*p == ',') {
            p++;
            if (*p == '\0') {
                goto bad;
            }
        }
    }
    return 0;

bad:
    memset(set, 0, sizeof(*set));
    return fm_errf(err, err_len, EINVAL,
                   "invalid status list '%s': expected codes 100-999, ranges (200-399) or classes (2xx), comma-separated",
                   text);
}
