/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: parsing the values of parameters, options and files, each kind
 * once (see parse.h).  Written by hand rather than on strtoull(): those
 * skip blanks, take a sign on unsigned numbers and read the locale.
 */
#include <config.h>

#include <faultmon/parse.h>

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <faultmon/text.h>

/* One maximum for a duration: a year. */
#define FM_PARSE_DURATION_MAX_MS (UINT64_C(365) * 24 * 3600000)
#define FM_PARSE_SIZE_MAX_BYTES (UINT64_C(1) << 30)

static bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int
fm_parse_bool(const char *text, bool *out)
{
    static const char *const yes[] = { "1", "true", "yes", "on", "y" };
    static const char *const no[] = { "0", "false", "no", "off", "n" };

    if (text == NULL) {
        return EINVAL;
    }
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(text, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(text, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return EINVAL;
}

/* Leading digits of text into *value (ERANGE past \p limit), the rest in
 * *rest.  At least one digit, else EINVAL. */
static int
parse_digits(const char *text, uint64_t limit, uint64_t *value, const char **rest)
{
    uint64_t v = 0;
    const char *p = text;

    if (text == NULL || !is_digit(*p)) {
        return EINVAL;
    }
    for (; is_digit(*p); p++) {
        uint64_t digit = (uint64_t) (*p - '0');

        if (v > (limit - digit) / 10) {
            /* Read on: "12x" past the limit is still no number. */
            while (is_digit(*p)) {
                p++;
            }
            *rest = p;
            return ERANGE;
        }
        v = v * 10 + digit;
    }
    *value = v;
    *rest = p;
    return 0;
}

/* Digits only, the whole string, within limit; canonical: no leading 0. */
static int
parse_magnitude(const char *digits, uint64_t limit, unsigned int flags, uint64_t *out)
{
    const char *rest = NULL;
    int rc = parse_digits(digits, limit, out, &rest);

    if (rc == EINVAL || *rest != '\0') {
        return EINVAL;
    }
    if ((flags & FM_PARSE_CANONICAL) && digits[0] == '0' && digits[1] != '\0') {
        return EINVAL;
    }
    return rc;
}

int
fm_parse_u64(const char *text, uint64_t min, uint64_t max, unsigned int flags,
             uint64_t *out)
{
    uint64_t v = 0;
    int rc = parse_magnitude(text, UINT64_MAX, flags, &v);

    if (rc != 0) {
        return rc;
    }
    if (v < min || v > max) {
        return ERANGE;
    }
    *out = v;
    return 0;
}

int
fm_parse_i64(const char *text, int64_t min, int64_t max, unsigned int flags,
             int64_t *out)
{
    bool negative = (text != NULL && text[0] == '-');
    uint64_t limit = negative? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
    uint64_t magnitude = 0;
    int64_t v = 0;
    int rc = 0;

    if (text == NULL) {
        return EINVAL;
    }
    rc = parse_magnitude(negative? text + 1 : text, limit, flags, &magnitude);
    if (rc != 0) {
        return rc;
    }
    if (negative && magnitude == 0 && (flags & FM_PARSE_CANONICAL)) {
        return EINVAL;
    }
    if (!negative) {
        v = (int64_t) magnitude;
    } else if (magnitude == (uint64_t) INT64_MAX + 1) {
        v = INT64_MIN;
    } else {
        v = -(int64_t) magnitude;
    }
    if (v < min || v > max) {
        return ERANGE;
    }
    *out = v;
    return 0;
}

/* A suffix and what a unit of it is worth. */
struct fm_parse_unit {
    const char *suffix;
    uint64_t scale;
};

/* Durations: lower case only, as the spellings always were. */
static const struct fm_parse_unit duration_units[] = {
    { "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "min", 60000 },
    { "h", 3600000 },
};

/* Sizes: any case ("64K", "1MiB"). */
static const struct fm_parse_unit size_units[] = {
    { "", 1 }, { "k", 1024 }, { "kib", 1024 }, { "m", 1024 * 1024 }, { "mib", 1024 * 1024 },
};

/* Digits, then one suffix of \p units; the product at most \p max. */
static int
parse_scaled(const char *text, const struct fm_parse_unit *units, size_t n_units,
             bool any_case, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    const char *suffix = NULL;
    int rc = parse_digits(text, UINT64_MAX, &v, &suffix);

    if (rc != 0) {
        return rc;
    }
    for (size_t i = 0; i < n_units; i++) {
        bool same = any_case? (strcasecmp(suffix, units[i].suffix) == 0)
                            : (strcmp(suffix, units[i].suffix) == 0);

        if (same) {
            if (v > max / units[i].scale) {
                return ERANGE;
            }
            *out = v * units[i].scale;
            return 0;
        }
    }
    return EINVAL;
}

int
fm_parse_duration_ms(const char *text, uint64_t *out_ms)
{
    return parse_scaled(text, duration_units, sizeof(duration_units) / sizeof(duration_units[0]),
                        false, FM_PARSE_DURATION_MAX_MS, out_ms);
}

int
fm_parse_size_bytes(const char *text, size_t *out_bytes)
{
    uint64_t bytes = 0;
    int rc = parse_scaled(text, size_units, sizeof(size_units) / sizeof(size_units[0]),
                          true, FM_PARSE_SIZE_MAX_BYTES, &bytes);

    if (rc == 0) {
        *out_bytes = (size_t) bytes;
    }
    return rc;
}

static int
escape_hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c = (char) tolower((unsigned char) c);
    return (c >= 'a' && c <= 'f')? c - 'a' + 10 : -1;
}

/* The byte of a one-letter escape, -1 for none. */
static int
escape_letter(char c)
{
    static const char letters[] = "nrt0\\abfve\"'";
    static const char bytes[] = "\n\r\t\0\\\a\b\f\v\x1b\"'";
    const char *at = (c != '\0')? strchr(letters, c) : NULL;

    return (at != NULL)? (unsigned char) bytes[at - letters] : -1;
}

int
fm_parse_escapes(const char *text, char *out, size_t *out_len, char *why, size_t why_len)
{
    size_t o = 0;

    for (size_t i = 0; text[i] != '\0'; i++) {
        int byte = (unsigned char) text[i];

        if (text[i] == '\\') {
            if (text[i + 1] == 'x') {
                int hi = escape_hex_digit(text[i + 2]);
                int lo = (hi >= 0)? escape_hex_digit(text[i + 3]) : -1;

                if (lo < 0) {
                    return fm_errf(why, why_len, EINVAL, "\\x at byte %zu needs two hex digits", i);
                }
                byte = (hi << 4) | lo;
                i += 3;
            } else {
                byte = escape_letter(text[i + 1]);
                if (byte < 0) {
                    return fm_errf(why, why_len, EINVAL, "unknown escape '\\%.1s' at byte %zu",
                                   &text[i + 1], i);
                }
                i++;
            }
        }
        out[o++] = (char) byte;
    }
    *out_len = o;
    return 0;
}
