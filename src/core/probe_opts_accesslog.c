/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the access log's parameters that are numbers of their own
 * (durations, percentages, a count): parameters of `faultmon run` only,
 * so not the table's generic setters, which give each an option of
 * `faultmon probe` too.  The path is a plain text row (probe_params.c).
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>

#include <faultmon/parse.h>
#include <faultmon/probe_opts.h>
#include <faultmon/target.h>
#include <faultmon/text.h>

/* A decimal number within [min, max], nothing else around it. */
static int
parse_count(const char *text, unsigned long min, unsigned long max, unsigned int *out)
{
    char *end = NULL;
    unsigned long value = 0;

    if (text[0] < '0' || text[0] > '9') {
        return EINVAL;
    }
    errno = 0;
    value = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < min || value > max) {
        return EINVAL;
    }
    *out = (unsigned int) value;
    return 0;
}

int
fm_probe_opts_set_accesslog_5xx_pct(struct fm_probe_opts *opts, const char *text, char *err, size_t err_len)
{
    if (parse_count(text, 1, 100, &opts->access_log.pct_5xx) != 0) {
        return fm_errf(err, err_len, EINVAL, "invalid percentage '%s': expected 1 to 100",
                       text);
    }
    return 0;
}

int
fm_probe_opts_set_accesslog_slow_pct(struct fm_probe_opts *opts, const char *text, char *err, size_t err_len)
{
    if (parse_count(text, 1, 100, &opts->access_log.slow_pct) != 0) {
        return fm_errf(err, err_len, EINVAL, "invalid percentage '%s': expected 1 to 100",
                       text);
    }
    return 0;
}

int
fm_probe_opts_set_accesslog_min_requests(struct fm_probe_opts *opts, const char *text, char *err,
                                         size_t err_len)
{
    if (parse_count(text, 1, 1000000, &opts->access_log.min_requests) != 0) {
        return fm_errf(err, err_len, EINVAL,
                       "invalid count '%s': expected 1 to 1000000", text);
    }
    return 0;
}

#define ACCESSLOG_DURATION_MAX_MS (24u * 3600u * 1000u)

int
fm_probe_opts_set_accesslog_window(struct fm_probe_opts *opts, const char *text, char *err, size_t err_len)
{
    uint64_t ms = 0;

    if (fm_parse_duration_ms(text, &ms) != 0 || ms < 1000 || ms > ACCESSLOG_DURATION_MAX_MS) {
        return fm_errf(err, err_len, EINVAL, "invalid window '%s': expected a duration from 1s to 24h such as 60s", text);
    }
    opts->access_log.window_ms = ms;
    return 0;
}

int
fm_probe_opts_set_accesslog_slow(struct fm_probe_opts *opts, const char *text, char *err, size_t err_len)
{
    uint64_t ms = 0;

    if (fm_parse_duration_ms(text, &ms) != 0 || ms > ACCESSLOG_DURATION_MAX_MS) {
        return fm_errf(err, err_len, EINVAL, "invalid duration '%s': expected one such as 2s, or 0 for off", text);
    }
    opts->access_log.slow_ms = ms;
    return 0;
}
