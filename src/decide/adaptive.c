/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: adaptive response time (F5's rule): each cycle's latency is
 * judged against the running mean of the samples within adaptive_window,
 * and adaptive_misses misses in a row make one complete failure.
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>

#include <faultmon/decide.h>

#include "decide_int.h"

#define US_PER_MS FM_DECIDE_US_PER_MS

/* Latency for reasons: "350 ms", or "0.4 ms" below one millisecond. */
static const char *
fmt_latency(char *buf, size_t len, uint64_t us)
{
    if (us >= 10 * US_PER_MS) {
        snprintf(buf, len, "%" PRIu64 " ms", (us + 500) / US_PER_MS);
    } else {
        snprintf(buf, len, "%" PRIu64 ".%" PRIu64 " ms", us / US_PER_MS,
                 (us % US_PER_MS) / 100);
    }
    return buf;
}

bool
fm_decide_adaptive_step(struct fm_decide *d, uint64_t t, uint64_t latency_us,
                        struct fm_decision *out, char *why, size_t why_len)
{
    const struct fm_decide_opts *o = &d->opts;
    bool failure = false;
    uint32_t idx = 0;
    uint32_t stored = (latency_us > UINT32_MAX)? UINT32_MAX : (uint32_t) latency_us;

    if (d->samples.n >= FM_DECIDE_ADAPTIVE_MIN_SAMPLES) {
        uint64_t mean = d->sample_sum_us / d->samples.n;
        uint64_t over = (latency_us > mean)? latency_us - mean : 0;
        bool miss_abs = (o->adaptive_limit_ms > 0)
                        && (over > o->adaptive_limit_ms * US_PER_MS);
        bool miss_rel = (o->adaptive_limit_pct > 0)
                        && (over * 100 > mean * o->adaptive_limit_pct);
        char l[32];
        char m[32];

        out->have_mean = true;
        out->mean_latency_us = mean;
        if (miss_abs || miss_rel) {
            d->miss_streak++;
            if (miss_abs) {
                snprintf(why, why_len,
                         "latency %s exceeds mean %s by more than %" PRIu64 " ms",
                         fmt_latency(l, sizeof(l), latency_us),
                         fmt_latency(m, sizeof(m), mean), o->adaptive_limit_ms);
            } else {
                snprintf(why, why_len,
                         "latency %s exceeds mean %s by more than %" PRIu32 " %%",
                         fmt_latency(l, sizeof(l), latency_us),
                         fmt_latency(m, sizeof(m), mean), o->adaptive_limit_pct);
            }
            if (d->miss_streak >= o->adaptive_misses) {
                failure = true;
            }
        } else {
            d->miss_streak = 0;
        }
    } else {
        /* Too little history to judge: neither a miss nor a hit, but a
         * streak from before the gap is no longer "in a row". */
        d->miss_streak = 0;
    }

    /* Misses enter the mean too: that is what makes the limit adaptive (a
     * lasting slowdown becomes the new normal) as in F5's running mean. */
    if (d->samples.n == d->samples.cap) {
        d->sample_sum_us -= d->sample_latency_us[d->samples.head];
    }
    idx = fm_decide_ring_push(&d->samples);
    d->sample_us[idx] = t;
    d->sample_latency_us[idx] = stored;
    d->sample_sum_us += stored;
    return failure;
}

void
fm_decide_adaptive_prune(struct fm_decide *d, uint64_t t)
{
    while ((d->samples.n > 0)
           && !fm_decide_in_window(t, d->sample_us[d->samples.head], d->adaptive_window_us)) {
        d->sample_sum_us -= d->sample_latency_us[d->samples.head];
        fm_decide_ring_pop(&d->samples);
    }
}
