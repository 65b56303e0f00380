/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the decision engine's history as plain numbers (see
 * include/faultmon/decide_persist.h).  What comes back from a file is
 * checked field by field before any of it reaches the engine: a state that
 * the engine could never have written is refused whole, so that a torn or
 * edited file cannot make it ask for a recovery it would not have asked for.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <faultmon/decide_persist.h>
#include <faultmon/text.h>

#include "decide_int.h"

void
fm_decide_export(const struct fm_decide *d, struct fm_decide_state *s)
{
    memset(s, 0, sizeof(*s));
    s->version = FM_DECIDE_STATE_VERSION;
    s->have_time = d->have_time? 1 : 0;
    s->clock_us = (int64_t) d->clock_us;
    s->last_now_us = (int64_t) d->last_now_us;
    s->down = d->down? 1 : 0;
    s->held = d->held? 1 : 0;
    s->fail_streak = d->fail_streak;
    s->fail_worst = d->fail_worst;
    s->ok_streak = d->ok_streak;
    s->miss_streak = d->miss_streak;
    s->last_action = d->last_action;
    s->last_action_us = (int64_t) d->last_action_us;
    s->n_failures = d->failures.n;
    for (uint32_t i = 0; i < d->failures.n; i++) {
        uint32_t idx = fm_decide_ring_index(&d->failures, i);

        s->failure_us[i] = (int64_t) d->failure_us[idx];
        s->failure_weight[i] = d->failure_weight[idx];
    }
    s->n_restarts = d->restarts.n;
    for (uint32_t i = 0; i < d->restarts.n; i++) {
        s->restart_us[i] = (int64_t) d->restart_us[fm_decide_ring_index(&d->restarts, i)];
    }
}

static bool
is_bool(int64_t v)
{
    return (v == 0) || (v == 1);
}

/* The flags and the clocks: the time the state was written must be of this
 * boot's clock, give or take FM_DECIDE_IMPORT_SLACK_US. */
static int
check_clock(const struct fm_decide_state *s, uint64_t now_us, char *err, size_t err_len)
{
    if (s->version != FM_DECIDE_STATE_VERSION) {
        return fm_errf(err, err_len, EINVAL, "version %" PRId64 " is not %d", s->version,
                       FM_DECIDE_STATE_VERSION);
    }
    if (!is_bool(s->have_time) || !is_bool(s->down) || !is_bool(s->held)) {
        return fm_errf(err, err_len, EINVAL, "have_time, down and held must be 0 or 1");
    }
    if (s->held && !s->down) {
        return fm_errf(err, err_len, EINVAL, "held without down");
    }
    if ((s->clock_us < 0) || (s->last_now_us < 0)) {
        return fm_errf(err, err_len, EINVAL, "negative clock_us or last_now_us");
    }
    if ((uint64_t) s->last_now_us > now_us
        && ((uint64_t) s->last_now_us - now_us) > FM_DECIDE_IMPORT_SLACK_US) {
        return fm_errf(err, err_len, EINVAL,
                       "last_now_us %" PRId64 " lies %" PRIu64 " s in the future "
                       "(written under another boot, or corrupt)",
                       s->last_now_us, ((uint64_t) s->last_now_us - now_us) / FM_DECIDE_US_PER_S);
    }
    if (!s->have_time && ((s->n_failures != 0) || (s->n_restarts != 0))) {
        return fm_errf(err, err_len, EINVAL, "history without a time");
    }
    return 0;
}

/* The streaks, the worst failure and the last recovery. */
static int
check_streaks(const struct fm_decide_state *s, char *err, size_t err_len)
{
    if ((s->fail_streak < 0) || (s->fail_streak > FM_DECIDE_MAX_RISE_FALL)
        || (s->ok_streak < 0) || (s->ok_streak > UINT32_MAX)
        || (s->miss_streak < 0) || (s->miss_streak > FM_DECIDE_MAX_ADAPTIVE_MISSES)) {
        return fm_errf(err, err_len, EINVAL, "a streak is negative or out of range");
    }
    if ((s->fail_worst < FM_CLASS_OK) || (s->fail_worst > FM_CLASS_COMPLETE)
        || ((s->fail_streak == 0) != (s->fail_worst == FM_CLASS_OK))) {
        return fm_errf(err, err_len, EINVAL,
                       "fail_worst %" PRId64 " does not fit fail_streak %" PRId64,
                       s->fail_worst, s->fail_streak);
    }
    if ((s->last_action < FM_ACTION_NONE) || (s->last_action > FM_ACTION_FAILOVER)) {
        return fm_errf(err, err_len, EINVAL,
                       "last_action %" PRId64 " is not none, restart or failover",
                       s->last_action);
    }
    if ((s->last_action_us < 0) || (s->last_action_us > s->clock_us)) {
        return fm_errf(err, err_len, EINVAL, "last_action_us %" PRId64 " is outside 0..clock",
                       s->last_action_us);
    }
    return 0;
}

/* Check one ordered list of times: each within [0, clock], oldest first. */
static int
check_times(const char *what, const int64_t *t, int64_t n, int64_t clock_us,
            char *err, size_t err_len)
{
    for (int64_t i = 0; i < n; i++) {
        if ((t[i] < 0) || (t[i] > clock_us)) {
            return fm_errf(err, err_len, EINVAL,
                           "%s[%" PRId64 "] %" PRId64 " is outside 0..clock %" PRId64,
                           what, i, t[i], clock_us);
        }
        if ((i > 0) && (t[i] < t[i - 1])) {
            return fm_errf(err, err_len, EINVAL,
                           "%s[%" PRId64 "] %" PRId64 " is older than the one before it",
                           what, i, t[i]);
        }
    }
    return 0;
}

/* The records: counts within the rings, times in order, and weights the
 * engine gives.  They may add up to a recovery: an impaired observer holds
 * one with its failure recorded (excuse.c), and the first failure after
 * the hold then recovers at once, in this loop as in the one that wrote
 * them; refusing such a state would leave the agents no verdict for the
 * whole hold. */
static int
check_records(const struct fm_decide_state *s, char *err, size_t err_len)
{
    if ((s->n_failures < 0) || (s->n_failures > FM_DECIDE_MAX_FAILURES)) {
        return fm_errf(err, err_len, EINVAL, "n_failures %" PRId64 " is outside 0..%d",
                       s->n_failures, FM_DECIDE_MAX_FAILURES);
    }
    if ((s->n_restarts < 0) || (s->n_restarts > FM_DECIDE_MAX_RESTARTS)) {
        return fm_errf(err, err_len, EINVAL, "n_restarts %" PRId64 " is outside 0..%d",
                       s->n_restarts, FM_DECIDE_MAX_RESTARTS);
    }
    if ((check_times("failure_us", s->failure_us, s->n_failures, s->clock_us,
                     err, err_len) != 0)
        || (check_times("restart_us", s->restart_us, s->n_restarts, s->clock_us,
                        err, err_len) != 0)) {
        return EINVAL;
    }
    for (int64_t i = 0; i < s->n_failures; i++) {
        if ((s->failure_weight[i] != FM_DECIDE_WEIGHT_PARTIAL)
            && (s->failure_weight[i] != FM_DECIDE_WEIGHT_COMPLETE)) {
            return fm_errf(err, err_len, EINVAL,
                           "failure_weight[%" PRId64 "] %" PRId64 " is not %d or %d",
                           i, s->failure_weight[i], FM_DECIDE_WEIGHT_PARTIAL,
                           FM_DECIDE_WEIGHT_COMPLETE);
        }
    }
    return 0;
}

/* Replace the engine's history with \p s, which passed every check. */
static void
restore(struct fm_decide *d, const struct fm_decide_state *s)
{
    fm_decide_reset(d);
    d->have_time = (s->have_time == 1);
    d->clock_us = (uint64_t) s->clock_us;
    d->last_now_us = (uint64_t) s->last_now_us;
    d->down = (s->down == 1);
    d->held = (s->held == 1) && d->opts.manual_resume;
    d->fail_streak = (uint32_t) s->fail_streak;
    d->fail_worst = (enum fm_class) s->fail_worst;
    d->ok_streak = (uint32_t) s->ok_streak;
    d->miss_streak = (uint32_t) s->miss_streak;
    d->last_action = (enum fm_action) s->last_action;
    d->last_action_us = (uint64_t) s->last_action_us;
    for (int64_t i = 0; i < s->n_failures; i++) {
        uint32_t idx = fm_decide_ring_push(&d->failures);

        d->failure_us[idx] = (uint64_t) s->failure_us[i];
        d->failure_weight[idx] = (uint8_t) s->failure_weight[i];
    }
    for (int64_t i = 0; i < s->n_restarts; i++) {
        uint32_t idx = fm_decide_ring_push(&d->restarts);

        d->restart_us[idx] = (uint64_t) s->restart_us[i];
    }
    /* fall may have been lowered since the state was written. */
    if (d->fail_streak >= d->opts.fall) {
        d->fail_streak = d->opts.fall - 1;
        if (d->fail_streak == 0) {
            d->fail_worst = FM_CLASS_OK;
        }
    }
}

int
fm_decide_import(struct fm_decide *d, const struct fm_decide_state *s,
                 uint64_t now_us, char *err, size_t err_len)
{
    if ((check_clock(s, now_us, err, err_len) != 0)
        || (check_streaks(s, err, err_len) != 0)
        || (check_records(s, err, err_len) != 0)) {
        return EINVAL;
    }
    restore(d, s);
    return 0;
}
