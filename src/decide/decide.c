/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the decision engine (see include/faultmon/decide.h for the rules).
 *
 * Every cycle goes through one function, decide_step(), which records the
 * failure, applies the window and Retry_count, moves the state and writes the
 * reason, so that the rules live in one place whatever fed the engine.  The
 * parameters are in params.c, adaptive response time in adaptive.c, the
 * words in names.c, import and export in persist.c.
 *
 * Size: one concern, decide_step() and the state machine it moves, in one
 * file on purpose: the rules live in one place.
 */
#include <config.h>

#include <faultmon/decide.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide_int.h"

#define US_PER_MS FM_DECIDE_US_PER_MS
#define S_PER_DAY INT64_C(86400)

/* Append to a reason, separating parts with "; "; truncates silently. */
static void
add_reason(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
add_reason(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;

    if (used + 1 >= len) {
        return;
    }
    if (used > 0) {
        snprintf(buf + used, len - used, "; ");
        used = strlen(buf);
    }
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static void
ring_clear(struct fm_decide_ring *r)
{
    r->head = 0;
    r->n = 0;
}

void
fm_decide_reset(struct fm_decide *d)
{
    struct fm_decide_opts opts = d->opts;

    memset(d, 0, sizeof(*d));
    d->opts = opts;
    d->retry_interval_us = opts.retry_interval_ms * US_PER_MS;
    d->adaptive_window_us = opts.adaptive_window_ms * US_PER_MS;
    d->fail_worst = FM_CLASS_OK;
    d->last_action = FM_ACTION_NONE;
    d->failures.cap = FM_DECIDE_MAX_FAILURES;
    d->restarts.cap = FM_DECIDE_MAX_RESTARTS;
    d->samples.cap = FM_DECIDE_MAX_SAMPLES;
    d->grace_pending = true;        /* a new engine: the service just started */
}

int
fm_decide_new(const struct fm_decide_opts *o, struct fm_decide **out)
{
    struct fm_decide *d = NULL;

    *out = NULL;
    if (fm_decide_opts_validate(o, NULL, 0, NULL, 0) != 0) {
        return EINVAL;
    }
    d = calloc(1, sizeof(*d));
    if (d == NULL) {
        return ENOMEM;
    }
    d->opts = *o;
    fm_decide_reset(d);
    *out = d;
    return 0;
}

void
fm_decide_free(struct fm_decide *d)
{
    free(d);
}

/* Move engine time on by what the caller's clock moved forward; see
 * fm_decide_cycle() for why a step back counts as no time at all. */
static bool
advance_clock(struct fm_decide *d, uint64_t now_us, uint64_t *back_us)
{
    bool stepped_back = false;

    if (!d->have_time) {
        d->have_time = true;
        d->clock_us = now_us;
    } else if (now_us >= d->last_now_us) {
        d->clock_us += now_us - d->last_now_us;
    } else {
        stepped_back = true;
        if (back_us != NULL) {
            *back_us = d->last_now_us - now_us;
        }
    }
    d->last_now_us = now_us;
    return stepped_back;
}

/* Engine time that a caller's \p now_us would give, without moving. */
static uint64_t
peek_clock(const struct fm_decide *d, uint64_t now_us)
{
    if (!d->have_time) {
        return now_us;
    }
    if (now_us >= d->last_now_us) {
        return d->clock_us + (now_us - d->last_now_us);
    }
    return d->clock_us;
}

/* Forget what has left its window at engine time \p t. */
static void
prune(struct fm_decide *d, uint64_t t)
{
    while ((d->failures.n > 0)
           && !fm_decide_in_window(t, d->failure_us[d->failures.head], d->retry_interval_us)) {
        fm_decide_ring_pop(&d->failures);
    }
    while ((d->restarts.n > 0)
           && !fm_decide_in_window(t, d->restart_us[d->restarts.head], d->retry_interval_us)) {
        fm_decide_ring_pop(&d->restarts);
    }
    fm_decide_adaptive_prune(d, t);
}

static uint32_t
window_weight(const struct fm_decide *d)
{
    uint32_t sum = 0;

    for (uint32_t i = 0; i < d->failures.n; i++) {
        sum += d->failure_weight[fm_decide_ring_index(&d->failures, i)];
    }
    return sum;
}

/* What the weight is made of, for the reason: "1 partial failure",
 * "2 complete, 1 partial failures". */
static void
window_cause(const struct fm_decide *d, char *buf, size_t len)
{
    uint32_t complete = 0;
    uint32_t partial = 0;

    for (uint32_t i = 0; i < d->failures.n; i++) {
        if (d->failure_weight[fm_decide_ring_index(&d->failures, i)] >= FM_DECIDE_WEIGHT_COMPLETE) {
            complete++;
        } else {
            partial++;
        }
    }
    if (complete > 0 && partial > 0) {
        snprintf(buf, len, "%" PRIu32 " complete, %" PRIu32 " partial failures", complete, partial);
    } else {
        snprintf(buf, len, "%" PRIu32 " %s failure%s", complete + partial,
                 (complete > 0)? "complete" : "partial", (complete + partial == 1)? "" : "s");
    }
}

static uint32_t
class_weight(enum fm_class cls)
{
    switch (cls) {
        case FM_CLASS_COMPLETE: return FM_DECIDE_WEIGHT_COMPLETE;
        case FM_CLASS_PARTIAL:  return FM_DECIDE_WEIGHT_PARTIAL;
        case FM_CLASS_OK:       return 0;
    }
    return 0;
}

static uint64_t
state_interval_ms(const struct fm_decide_opts *o, enum fm_state state)
{
    switch (state) {
        case FM_STATE_DOWN:
        case FM_STATE_HELD:
            return (o->interval_down_ms != 0)? o->interval_down_ms : o->interval_up_ms;
        case FM_STATE_FLAPPING:
            return (o->interval_flapping_ms != 0)? o->interval_flapping_ms
                                                 : o->interval_up_ms;
        case FM_STATE_UP:
        case FM_STATE_DEGRADED:
            break;
    }
    return o->interval_up_ms;
}

static bool
cert_warning(const struct fm_decide *d)
{
    return d->have_cert && (d->opts.cert_warn_days > 0)
           && (d->cert_left_s < (int64_t) d->opts.cert_warn_days * S_PER_DAY);
}

/* Start again from zero: the failure weight and every streak.  After a
 * recovery was asked (as Sun does after acting) and after a resume. */
static void
forget_failures(struct fm_decide *d)
{
    ring_clear(&d->failures);
    d->fail_streak = 0;
    d->fail_worst = FM_CLASS_OK;
    d->ok_streak = 0;
    d->miss_streak = 0;
}

/* A recovery was asked at \p t: forget what led to it, and stay down (held,
 * with manual_resume) until rise successes or a resume. */
static void
enter_recovery(struct fm_decide *d, uint64_t t, enum fm_action action)
{
    forget_failures(d);
    d->down = true;
    if (d->opts.manual_resume) {
        d->held = true;
    }
    d->last_action = action;
    d->last_action_us = t;
    /* The service restarted in place warms up again (httpmon restarts nothing). */
    d->grace_pending = (action == FM_ACTION_RESTART) && !d->opts.publish_only;
}

/*
 * Ask for recovery: restart, or failover once Retry_count restarts are in
 * the window.  Resets the accumulation, as Sun does after acting.  The
 * reason leads with what Pacemaker must keep (it cuts exit reasons at 128
 * bytes); \p detail, if any, comes last.
 */
static void
recover(struct fm_decide *d, uint64_t t, const char *what, uint32_t weight,
        const char *detail, struct fm_decision *out)
{
    const struct fm_decide_opts *o = &d->opts;
    char ri[32];

    fm_decide_fmt_duration(ri, sizeof(ri), o->retry_interval_ms);
    if (o->publish_only) {
        /* httpmon: nothing is restarted, so nothing counts towards
         * Retry_count; the verdict goes down until rise successes. */
        out->action = o->manual_resume? FM_ACTION_FAILOVER : FM_ACTION_RESTART;
        snprintf(out->reason, sizeof(out->reason),
                 "%s, weight %" PRIu32 " within Retry_interval %s: unhealthy%s",
                 what, weight, ri,
                 o->manual_resume? ", held until resumed (manual_resume)" : "");
    } else if (o->manual_resume) {
        /* A restart in place would bring the service back without the
         * administrator; held means it moves away and stays away from this
         * node until resumed. */
        out->action = FM_ACTION_FAILOVER;
        snprintf(out->reason, sizeof(out->reason),
                 "%s, weight %" PRIu32 " within Retry_interval %s: failing over, "
                 "held until resumed (manual_resume)", what, weight, ri);
    } else if (d->dependency_here[0] != '\0') {
        /* What it needs fails from this node only: another node can serve,
         * a restart here cannot; the remaining restarts would be outages. */
        out->action = FM_ACTION_FAILOVER;
        snprintf(out->reason, sizeof(out->reason),
                 "%s, weight %" PRIu32 " within Retry_interval %s: failing over at once (%s)",
                 what, weight, ri, d->dependency_here);
    } else if (d->restarts.n >= o->retry_count) {
        uint32_t would_be = d->restarts.n + 1;

        out->action = FM_ACTION_FAILOVER;
        snprintf(out->reason, sizeof(out->reason),
                 "%" PRIu32 " restart%s within Retry_interval %s exceed%s Retry_count %"
                 PRIu32 ": failing over (%s)",
                 would_be, (would_be == 1)? "" : "s", ri, (would_be == 1)? "s" : "",
                 o->retry_count, what);
    } else {
        uint32_t idx = fm_decide_ring_push(&d->restarts);

        d->restart_us[idx] = t;
        out->action = FM_ACTION_RESTART;
        snprintf(out->reason, sizeof(out->reason),
                 "%s, weight %" PRIu32 " within Retry_interval %s: restart %" PRIu32
                 " of Retry_count %" PRIu32,
                 what, weight, ri, d->restarts.n, o->retry_count);
    }
    if ((detail != NULL) && (detail[0] != '\0')) {
        add_reason(out->reason, sizeof(out->reason), "%s", detail);
    }
    enter_recovery(d, t, out->action);
}

/* The state follows from the counters; one function so that cycle, status
 * and import agree. */
static enum fm_state
derive_state(const struct fm_decide *d, uint32_t weight)
{
    if (d->held) {
        return FM_STATE_HELD;
    }
    if (d->down) {
        return (d->ok_streak > 0)? FM_STATE_FLAPPING : FM_STATE_DOWN;
    }
    if (d->fail_streak > 0) {
        return FM_STATE_FLAPPING;
    }
    if ((weight > 0) || (d->miss_streak > 0) || cert_warning(d) || (d->maintenance > 0)
        || (d->excused != FM_EXCUSE_NONE)) {
        return FM_STATE_DEGRADED;
    }
    return FM_STATE_UP;
}

/* Reason for a cycle that asked for no recovery: what holds the state. */
static void
describe_state(const struct fm_decide *d, enum fm_state state, uint32_t weight,
               struct fm_decision *out)
{
    const struct fm_decide_opts *o = &d->opts;
    char ri[32];

    fm_decide_fmt_duration(ri, sizeof(ri), o->retry_interval_ms);
    switch (state) {
        case FM_STATE_HELD:
            add_reason(out->reason, sizeof(out->reason),
                       "held after %s until resumed (manual_resume)",
                       o->publish_only? "a failure" :
                       (d->last_action == FM_ACTION_FAILOVER)? "a failover" : "a restart");
            break;
        case FM_STATE_DOWN:
            add_reason(out->reason, sizeof(out->reason),
                       "%s: up again after %" PRIu32 " success%s in a row (rise)",
                       o->publish_only? "unhealthy" :
                       (d->last_action == FM_ACTION_FAILOVER)? "down after a failover" :
                       "down after a restart",
                       o->rise, (o->rise == 1)? "" : "es");
            break;
        case FM_STATE_FLAPPING:
            if (d->down) {
                add_reason(out->reason, sizeof(out->reason),
                           "success %" PRIu32 " of rise %" PRIu32 " after recovery",
                           d->ok_streak, o->rise);
            } else {
                add_reason(out->reason, sizeof(out->reason),
                           "%s %" PRIu32 " of fall %" PRIu32 " in a row",
                           fm_decide_class_text(d->fail_worst), d->fail_streak, o->fall);
            }
            break;
        case FM_STATE_DEGRADED:
        case FM_STATE_UP:
            break;
    }
    /* First: why a failure was not counted, and what the administrator
     * draining the node looks for. */
    fm_decide_excuse_reason(d, d->clock_us, out->reason, sizeof(out->reason));
    if (d->maintenance > 0 && state == FM_STATE_DEGRADED) {
        add_reason(out->reason, sizeof(out->reason),
                   "the service signals maintenance (%zu target%s)", d->maintenance,
                   (d->maintenance == 1)? "" : "s");
    }
    if (weight > 0) {
        char cause[64];

        /* The cause with the number: a line that says only "weight 50 of
         * 100" leaves the reader to find the failure in earlier lines. */
        window_cause(d, cause, sizeof(cause));
        add_reason(out->reason, sizeof(out->reason),
                   "weight %" PRIu32 " of %d within Retry_interval %s (%s)", weight,
                   FM_DECIDE_THRESHOLD, ri, cause);
    }
    if ((d->miss_streak > 0) && (state != FM_STATE_HELD)) {
        add_reason(out->reason, sizeof(out->reason),
                   "latency miss %" PRIu32 " of %" PRIu32 " in a row",
                   d->miss_streak, o->adaptive_misses);
    }
    if (cert_warning(d)) {
        if (d->cert_left_s < 0) {
            add_reason(out->reason, sizeof(out->reason),
                       "certificate expired %" PRId64 " days ago",
                       -d->cert_left_s / S_PER_DAY);
        } else {
            add_reason(out->reason, sizeof(out->reason),
                       "certificate expires in %" PRId64 " days (cert_warn_days %" PRIu32 ")",
                       d->cert_left_s / S_PER_DAY, o->cert_warn_days);
        }
    }
    if (out->reason[0] == '\0') {
        add_reason(out->reason, sizeof(out->reason), "ok");
    }
}

static void
finish(const struct fm_decide *d, uint32_t weight, struct fm_decision *out)
{
    out->state = derive_state(d, weight);
    out->interval_ms = state_interval_ms(&d->opts, out->state);
    out->fail_streak = d->fail_streak;
    out->ok_streak = d->ok_streak;
    out->miss_streak = d->miss_streak;
    out->restarts_in_window = d->restarts.n;
    if (out->action == FM_ACTION_NONE) {
        if ((out->state != FM_STATE_UP) && d->opts.report_degraded) {
            out->action = FM_ACTION_DEGRADED;
        }
        describe_state(d, out->state, weight, out);
    }
}

/* What one input made of the failure history, for the reason. */
struct event {
    uint32_t weight;                /* of the failure this input records; 0: none */
    const char *what;               /* what happened */
    char misses[48];                /* "N latency misses in a row" */
    char why[160];                  /* the latency judged, when it was a miss */
};

/* A failed restart: fail over, whatever the history says. */
static void
restart_failed(struct fm_decide *d, uint64_t t, struct fm_decision *out)
{
    out->weight = window_weight(d);
    out->action = FM_ACTION_FAILOVER;
    snprintf(out->reason, sizeof(out->reason),
             "the restart did not bring the service back: failing over");
    enter_recovery(d, t, FM_ACTION_FAILOVER);
    finish(d, 0, out);
}

/* A successful cycle: the streaks, then its latency (adaptive response
 * time), whose misses in a row make one complete failure. */
static void
count_success(struct fm_decide *d, uint64_t t, const struct fm_decide_input *in,
              struct fm_decision *out, struct event *ev)
{
    const struct fm_decide_opts *o = &d->opts;

    if (d->ok_streak < UINT32_MAX) {
        d->ok_streak++;
    }
    d->fail_streak = 0;
    d->fail_worst = FM_CLASS_OK;
    if (fm_decide_opts_adaptive(o) && in->have_latency
        && fm_decide_adaptive_step(d, t, in->latency_us, out, ev->why, sizeof(ev->why))) {
        ev->weight = FM_DECIDE_WEIGHT_COMPLETE;
        snprintf(ev->misses, sizeof(ev->misses), "%" PRIu32 " latency misses in a row",
                 o->adaptive_misses);
        ev->what = ev->misses;
        d->miss_streak = 0;
    }
}

/* A failed cycle: fall of them in a row make one failure of the worst
 * class among them. */
static void
count_failure(struct fm_decide *d, const struct fm_decide_input *in, struct event *ev)
{
    d->ok_streak = 0;
    /* The failure is counted by the rule below; a latency streak running
     * through it would count the same trouble twice. */
    d->miss_streak = 0;
    d->fail_streak++;
    if (in->cls > d->fail_worst) {
        d->fail_worst = in->cls;
    }
    if (d->fail_streak >= d->opts.fall) {
        ev->weight = class_weight(d->fail_worst);
        ev->what = fm_decide_class_text(d->fail_worst);
        d->fail_streak = 0;
        d->fail_worst = FM_CLASS_OK;
    } else {
        ev->what = fm_decide_class_text(in->cls);
    }
}

/* No recovery this time: up again after rise successes, and the reason. */
static void
settle(struct fm_decide *d, bool was_down, const struct event *ev, uint32_t weight,
       struct fm_decision *out)
{
    const struct fm_decide_opts *o = &d->opts;

    if (d->down && !d->held && (d->ok_streak >= o->rise)) {
        d->down = false;
    }
    if (ev->weight > 0) {
        add_reason(out->reason, sizeof(out->reason), "%s", ev->what);
    }
    if (ev->why[0] != '\0') {
        add_reason(out->reason, sizeof(out->reason), "%s", ev->why);
    }
    if (was_down && !d->down) {
        add_reason(out->reason, sizeof(out->reason),
                   "up again after %" PRIu32 " success%s in a row (rise %" PRIu32 ")",
                   d->ok_streak, (d->ok_streak == 1)? "" : "es", o->rise);
    }
    finish(d, weight, out);
}

/*
 * The one place where an input changes the engine, once the clock has moved
 * to \p t.  \p in is NULL for a failed restart.
 */
static void
decide_event(struct fm_decide *d, uint64_t t, const struct fm_decide_input *in,
             struct fm_decision *out)
{
    struct event ev = { .weight = 0, .what = NULL, .misses = "", .why = "" };
    bool was_down = d->down;
    uint32_t weight = 0;

    if (in == NULL) {
        restart_failed(d, t, out);
        return;
    }
    if (in->have_cert) {
        d->have_cert = true;
        d->cert_left_s = in->cert_left_s;
    }
    /* A failed cycle says nothing of maintenance: its failure rules. */
    d->maintenance = (in->cls == FM_CLASS_OK)? in->maintenance : 0;
    snprintf(d->dependency_here, sizeof(d->dependency_here), "%s",
             (in->dependency_here != NULL)? in->dependency_here : "");
    if (fm_decide_excuse(d, t, in)) {
        weight = window_weight(d);
        out->weight = weight;
        settle(d, was_down, &ev, weight, out);
        return;
    }
    if (in->cls == FM_CLASS_OK) {
        count_success(d, t, in, out, &ev);
    } else {
        count_failure(d, in, &ev);
    }
    if (ev.weight > 0) {
        uint32_t idx = fm_decide_ring_push(&d->failures);

        d->failure_us[idx] = t;
        d->failure_weight[idx] = (uint8_t) ev.weight;
    }
    weight = window_weight(d);
    out->weight = weight;
    if ((ev.weight > 0) && (weight >= FM_DECIDE_THRESHOLD)
        && fm_decide_observer_holds(d, t, in)) {
        /* Recorded, not acted on: the weight stays, so that the first
         * failure after the hold recovers at once. */
        settle(d, was_down, &ev, weight, out);
        return;
    }
    if ((ev.weight > 0) && (weight >= FM_DECIDE_THRESHOLD)) {
        recover(d, t, ev.what, weight, ev.why, out);
        finish(d, weight, out);
        return;
    }
    settle(d, was_down, &ev, weight, out);
}

/* Every input goes through here: the clock first, then the rules. */
static void
decide_step(struct fm_decide *d, uint64_t now_us, const struct fm_decide_input *in,
            struct fm_decision *out)
{
    uint64_t t = 0;
    uint64_t back_us = 0;

    memset(out, 0, sizeof(*out));
    out->action = FM_ACTION_NONE;
    out->clock_stepped_back = advance_clock(d, now_us, &back_us);
    t = d->clock_us;
    prune(d, t);
    decide_event(d, t, in, out);
    if (out->clock_stepped_back) {
        char b[32];

        add_reason(out->reason, sizeof(out->reason),
                   "the clock stepped back %s: counted as no time",
                   fm_decide_fmt_duration(b, sizeof(b), back_us / US_PER_MS));
    }
}

void
fm_decide_cycle(struct fm_decide *d, uint64_t now_us,
                const struct fm_decide_input *in, struct fm_decision *out)
{
    decide_step(d, now_us, in, out);
}

void
fm_decide_restart_failed(struct fm_decide *d, uint64_t now_us,
                         struct fm_decision *out)
{
    decide_step(d, now_us, NULL, out);
}

int
fm_decide_resume(struct fm_decide *d, uint64_t now_us, struct fm_decision *out)
{
    uint64_t t = 0;
    bool was_held = d->held;

    memset(out, 0, sizeof(*out));
    out->clock_stepped_back = advance_clock(d, now_us, NULL);
    t = d->clock_us;
    prune(d, t);
    if (was_held) {
        d->held = false;
        d->down = false;
        forget_failures(d);
        snprintf(out->reason, sizeof(out->reason), "resumed by the administrator");
    } else {
        snprintf(out->reason, sizeof(out->reason), "not held: nothing to resume");
    }
    out->weight = window_weight(d);
    finish(d, out->weight, out);
    return was_held? 0 : EALREADY;
}

void
fm_decide_status(const struct fm_decide *d, uint64_t now_us,
                 struct fm_decision *out)
{
    /* A copy keeps the caller's engine untouched while reusing the same
     * pruning and state rules; the engine holds no pointers. */
    struct fm_decide tmp = *d;

    memset(out, 0, sizeof(*out));
    if (tmp.have_time) {
        uint64_t t = peek_clock(&tmp, now_us);

        tmp.clock_us = t;
        tmp.last_now_us = now_us;
        prune(&tmp, t);
    }
    out->weight = window_weight(&tmp);
    if (tmp.samples.n > 0) {
        out->have_mean = true;
        out->mean_latency_us = tmp.sample_sum_us / tmp.samples.n;
    }
    finish(&tmp, out->weight, out);
}

void
fm_decide_preview(const struct fm_decide *d, uint64_t now_us, enum fm_class cls,
                  struct fm_decision *out)
{
    struct fm_decide tmp = *d;
    struct fm_decide_input in = { .cls = cls };

    decide_step(&tmp, now_us, &in, out);
}
