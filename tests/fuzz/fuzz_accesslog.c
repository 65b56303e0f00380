/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the access log's line parser and the window it feeds
 * (faultmon/accesslog.h): the log is written by the web server from what
 * clients sent (the request line, the referer, the user agent).
 *
 * Input: any bytes, cut at newlines as the loop's follower cuts them; the
 * first byte steps a pretend clock between lines (slots passed).
 *
 * Properties:
 *  - a parsed line has a status 100-599, and a response time only when it
 *    said it has one, of at most 10^6 s (%D's digits are bounded);
 *  - the parser reads only the bytes it is given: the same line parsed
 *    from a copy with no byte after it gives the same answer;
 *  - the window's sums never count more 5xx or slow replies than replies.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/accesslog.h>

#include "fuzz_common.h"

#define FUZZ_ACCESSLOG_MAX (64 * 1024)

static void
one_line(const uint8_t *line, size_t len, struct fm_accesslog_window *w, uint64_t now_us)
{
    struct fm_accesslog_line parsed;
    struct fm_accesslog_line again;
    char *copy = malloc(len + 1);
    int rc = fm_accesslog_parse((const char *) line, len, &parsed);

    if (copy == NULL) {
        return;
    }
    memcpy(copy, line, len);
    /* malloc'd to the byte: ASan finds a read past the end */
    FM_FUZZ_CHECK(fm_accesslog_parse(copy, len, &again) == rc, "a copy parses otherwise");
    free(copy);
    if (rc != 0) {
        return;
    }
    FM_FUZZ_CHECK(parsed.status >= 100 && parsed.status <= 599, "status %d", parsed.status);
    FM_FUZZ_CHECK(parsed.have_time || parsed.time_us == 0, "a time without have_time");
    FM_FUZZ_CHECK(parsed.time_us <= UINT64_C(1000000000000000), "time %llu us",
                  (unsigned long long) parsed.time_us);
    FM_FUZZ_CHECK(parsed.status == again.status && parsed.time_us == again.time_us, "not deterministic");
    fm_accesslog_window_add(w, now_us, &parsed, 1000);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size_bytes)
{
    static const struct fm_accesslog_opts opts = {
        .window_ms = 60000, .pct_5xx = 20, .min_requests = 2, .slow_ms = 1000, .slow_pct = 50,
    };
    struct fm_accesslog_window w;
    struct fm_accesslog_rate rate;
    uint64_t now_us = 1000000;
    uint64_t step_us = 0;
    char why[256];

    if (size_bytes == 0 || size_bytes > FUZZ_ACCESSLOG_MAX) {
        return -1;
    }
    step_us = (uint64_t) data[0] * 250000u;
    fm_accesslog_window_init(&w, opts.window_ms);
    for (size_t start = 1; start < size_bytes;) {
        const uint8_t *nl = memchr(data + start, '\n', size_bytes - start);
        size_t len = (nl != NULL)? (size_t) (nl - (data + start)) : size_bytes - start;
        uint8_t *line = malloc(len + 1);

        if (line == NULL) {
            return 0;
        }
        memcpy(line, data + start, len);
        one_line(line, len, &w, now_us);
        free(line);
        fm_accesslog_window_rate(&w, now_us, &rate);
        FM_FUZZ_CHECK(rate.errors <= rate.requests && rate.slow <= rate.requests, "more failed than replies");
        fm_accesslog_window_verdict(&w, &opts, now_us, why, sizeof(why));
        now_us += step_us;
        start += len + 1;
    }
    return 0;
}
