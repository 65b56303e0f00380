/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the sliding window of an access log's replies (see
 * faultmon/accesslog.h).  Time is a parameter: every function takes now,
 * so that test_accesslog walks the window with pretend times.
 *
 * The window is FM_ACCESSLOG_SLOTS slots of window/60 each, a ring indexed
 * by the slot's number; sliding clears the slots it passes.  A reply is
 * counted when it is read, not at the time it logs: the log's clock is the
 * wall clock at the request's start, and the loop judges what it saw lately.
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/accesslog.h>

void
fm_accesslog_window_init(struct fm_accesslog_window *w, uint64_t window_ms)
{
    memset(w, 0, sizeof(*w));
    if (window_ms < FM_ACCESSLOG_SLOTS) {
        window_ms = FM_ACCESSLOG_SLOTS;
    }
    w->slot_us = window_ms * 1000u / FM_ACCESSLOG_SLOTS;
}

/* Move the newest slot to \p now_us's, clearing the slots passed. */
static void
slide(struct fm_accesslog_window *w, uint64_t now_us)
{
    uint64_t slot = now_us / w->slot_us;

    if (!w->started) {
        w->started = true;
        w->head = slot;
        return;
    }
    if (slot <= w->head) {
        return;                 /* the same slot (a clock never goes back) */
    }
    if (slot - w->head >= FM_ACCESSLOG_SLOTS) {
        memset(w->requests, 0, sizeof(w->requests));
        memset(w->errors, 0, sizeof(w->errors));
        memset(w->slow, 0, sizeof(w->slow));
    } else {
        for (uint64_t s = w->head + 1; s <= slot; s++) {
            size_t i = (size_t) (s % FM_ACCESSLOG_SLOTS);

            w->requests[i] = 0;
            w->errors[i] = 0;
            w->slow[i] = 0;
        }
    }
    w->head = slot;
}

void
fm_accesslog_window_add(struct fm_accesslog_window *w, uint64_t now_us,
                        const struct fm_accesslog_line *line, uint64_t slow_ms)
{
    size_t i = 0;

    slide(w, now_us);
    i = (size_t) (w->head % FM_ACCESSLOG_SLOTS);
    if (w->requests[i] == UINT32_MAX) {
        return;                 /* 4 billion replies a slot: the share is known */
    }
    w->requests[i]++;
    if (line->status >= 500) {
        w->errors[i]++;
    }
    if (slow_ms > 0 && line->have_time && line->time_us >= slow_ms * 1000u) {
        w->slow[i]++;
    }
}

void
fm_accesslog_window_rate(struct fm_accesslog_window *w, uint64_t now_us, struct fm_accesslog_rate *rate)
{
    memset(rate, 0, sizeof(*rate));
    slide(w, now_us);
    for (size_t i = 0; i < FM_ACCESSLOG_SLOTS; i++) {
        rate->requests += w->requests[i];
        rate->errors += w->errors[i];
        rate->slow += w->slow[i];
    }
    rate->window_ms = w->slot_us * FM_ACCESSLOG_SLOTS / 1000u;
}

/* part * 100 >= whole * pct, in integers (no rounding at the threshold). */
static bool
share_reached(uint64_t part, uint64_t whole, unsigned int pct)
{
    return whole > 0 && part * 100u >= whole * pct;
}

bool
fm_accesslog_window_verdict(struct fm_accesslog_window *w, const struct fm_accesslog_opts *opts,
                            uint64_t now_us, char *why, size_t why_len)
{
    struct fm_accesslog_rate rate;
    bool errors = false;
    bool slow = false;

    fm_accesslog_window_rate(w, now_us, &rate);
    if (rate.requests < opts->min_requests || rate.requests == 0) {
        return false;
    }
    /* At most once per window: the replies that gave one failure are
     * still in the window for a while, and must not give a second. */
    if (w->last_failure_us != 0 && now_us - w->last_failure_us < rate.window_ms * 1000u) {
        return false;
    }
    errors = share_reached(rate.errors, rate.requests, opts->pct_5xx);
    slow = opts->slow_ms > 0 && share_reached(rate.slow, rate.requests, opts->slow_pct);
    if (!errors && !slow) {
        return false;
    }
    w->last_failure_us = (now_us > 0)? now_us : 1;
    if (errors) {
        snprintf(why, why_len, "access log: %" PRIu64 " of %" PRIu64 " replies 5xx in %" PRIu64
                 " s (%" PRIu64 "%%, threshold %u%%)", rate.errors, rate.requests, rate.window_ms / 1000u,
                 rate.errors * 100u / rate.requests, opts->pct_5xx);
    } else {
        snprintf(why, why_len, "access log: %" PRIu64 " of %" PRIu64 " replies slower than %" PRIu64
                 " ms in %" PRIu64 " s (%" PRIu64 "%%, threshold %u%%)", rate.slow, rate.requests,
                 opts->slow_ms, rate.window_ms / 1000u, rate.slow * 100u / rate.requests, opts->slow_pct);
    }
    return true;
}
