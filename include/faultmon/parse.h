/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: parsing the values of parameters, options and files (libfmutil,
 * libc only, so the OCF agent links it too).  One function per kind of
 * value; every function takes the whole string (no leading or trailing
 * blanks, nothing after the value), never reads the locale, and leaves its
 * output untouched when it fails.
 *
 * Return codes: 0, EINVAL (not a value of that kind: NULL, empty, a stray
 * character, a sign where none is allowed) or ERANGE (a value of that kind,
 * but outside the range asked for, overflow included).
 */
#ifndef FAULTMON_PARSE_H
#define FAULTMON_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*!
 * \brief Parse a boolean as every faultmon parameter spells it.
 *
 * True: "1", "true", "yes", "on", "y"; false: "0", "false", "no", "off", "n";
 * in any case ("TRUE", "Yes").  This is the whole set that the decision
 * engine's, the run configuration's and the agent's parameters accept, and
 * each accepts it alike.  A caller that has a default for an empty or unset
 * parameter applies it before calling: "" is EINVAL here.
 *
 * \param[in]  text  the value (NULL is EINVAL)
 * \param[out] out   the boolean, set only on success
 * \return 0 or EINVAL
 */
int fm_parse_bool(const char *text, bool *out);

/*!
 * Flags for fm_parse_u64() and fm_parse_i64().
 *
 * FM_PARSE_CANONICAL: only the form a writer of ours prints: no leading zero
 * (but "0" itself) and no "-0", so that a file read back holds one spelling
 * per value (the state store's reader).  Without it "007" is 7.
 */
enum fm_parse_flags {
    FM_PARSE_DEFAULT = 0,
    FM_PARSE_CANONICAL = (1 << 0),
};

/*!
 * \brief Parse an unsigned decimal integer within [min, max].
 *
 * Digits only: no sign (not even '+'), no blanks, no base prefix.
 *
 * \param[in]  text   the value (NULL is EINVAL)
 * \param[in]  min    smallest accepted value
 * \param[in]  max    largest accepted value (UINT64_MAX for any)
 * \param[in]  flags  FM_PARSE_DEFAULT or FM_PARSE_CANONICAL
 * \param[out] out    the value, set only on success
 * \return 0, EINVAL (not digits only), ERANGE (below min, above max, or
 *         beyond UINT64_MAX)
 */
int fm_parse_u64(const char *text, uint64_t min, uint64_t max, unsigned int flags,
                 uint64_t *out);

/*!
 * \brief Parse a signed decimal integer within [min, max].
 *
 * An optional '-' then digits: no '+', no blanks, no base prefix.
 *
 * \param[in]  text   the value (NULL is EINVAL)
 * \param[in]  min    smallest accepted value (INT64_MIN for any)
 * \param[in]  max    largest accepted value (INT64_MAX for any)
 * \param[in]  flags  FM_PARSE_DEFAULT or FM_PARSE_CANONICAL
 * \param[out] out    the value, set only on success
 * \return 0, EINVAL, ERANGE (outside [min, max] or beyond int64_t)
 */
int fm_parse_i64(const char *text, int64_t min, int64_t max, unsigned int flags,
                 int64_t *out);

/*!
 * \brief Parse a non-negative duration in milliseconds.
 *
 * Digits, then one suffix, in lower case only: none or "s" (seconds), "ms",
 * "m" or "min" (minutes), "h" (hours): "5" and "5s" are 5000 ms, "500ms",
 * "2m", "1h".  No fractions, signs or blanks.  A year at most (it keeps every
 * later microsecond product clear of overflow); "0" is 0 (a caller that
 * refuses zero checks that itself).
 *
 * \param[in]  text    the value (NULL is EINVAL)
 * \param[out] out_ms  the duration, set only on success
 * \return 0, EINVAL, ERANGE (over a year, or too many digits)
 */
int fm_parse_duration_ms(const char *text, uint64_t *out_ms);

/*!
 * \brief Parse a size in bytes.
 *
 * Digits, then a suffix in any case: none (bytes), "k" or "KiB" (1024),
 * "m" or "MiB" (1024 * 1024): "65536", "64k", "1M".  1 GiB at most.
 *
 * \param[in]  text       the value (NULL is EINVAL)
 * \param[out] out_bytes  the size, set only on success
 * \return 0, EINVAL, ERANGE (over 1 GiB, or too many digits)
 */
int fm_parse_size_bytes(const char *text, size_t *out_bytes);

/*!
 * \brief Decode a send string's C escapes: \n \r \t \0 \\ \a \b \f \v \e,
 *        \xHH (exactly two hex digits) and \" \'; any other byte as it is.
 *
 * \param[in]  text     the string as written
 * \param[out] out      the bytes (may hold NULs), at most strlen(text)
 * \param[out] out_len  their number
 * \param[out] why      on failure, what is wrong and where
 * \return 0, or EINVAL for an unknown escape, a short \x or a trailing '\'
 */
int fm_parse_escapes(const char *text, char *out, size_t *out_len, char *why, size_t why_len);

#endif
