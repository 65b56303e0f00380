/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the probe engine's spread mode (opts->spread).
 *
 * A cycle is one sweep: target i starts when schedule.c says it is due, and
 * keeps the deadline rule of burst mode, Probe_timeout from its own start.
 * The cycle ends, as in burst mode, once every target has its verdict, so
 * the decision is taken over a verdict of every target, none left "ok" from
 * an earlier cycle.
 *
 * A failure hurries the sweep: the first verdict that is not ok starts
 * every target not yet due at once, so the cycle's decision comes as soon
 * as those probes end rather than at the end of the interval.  The cycle's
 * class is its worst target's (src/core/summary.c), so the one failure
 * already makes it as bad as burst mode would; a target probed earlier in
 * the sweep keeps its verdict, the latest there is.  Starting a probe early
 * never ends the sweep later: it ends at most Probe_timeout after the
 * failure, before the probe's own start and Probe_timeout would have.
 *
 * Cheap: starts are whole milliseconds from the sweep's start, so the probes
 * due in one millisecond share a wake-up.  Start times, and so deadlines,
 * grow with the index, hurried or not, so the running probes are found from
 * one cursor (first_open), never by a walk over every target.
 */
#include <config.h>

#include <limits.h>

#include "probe_int.h"

/* When the next probe is due to start or the nearest deadline comes;
 * 0: neither (the sweep is done). */
static uint64_t
next_wake_us(const struct fm_probe_run *run)
{
    uint64_t at = (run->spread.next < run->n)? fm_spread_start_us(&run->spread, run->spread.next) : 0;

    /* The first probe still running has the nearest deadline. */
    for (size_t i = run->first_open; i < run->spread.next; i++) {
        const struct fm_conn *conn = &run->conns[i];

        if (!fm_conn_judged(conn)) {
            if (at == 0 || conn->deadline.end_us < at) {
                at = conn->deadline.end_us;
            }
            break;
        }
    }
    return at;
}

/* Set the spread timer to the next wake-up, on a caller's loop (a time
 * past fires at the loop's next turn).  A timer of the loop's own (its
 * epoll_wait's timeout, include/faultmon/ev.h), not a timer fd: setting it
 * costs no system call, where a timer fd cost a timerfd_settime for every
 * probe of a sweep.  On the run's own loop the wait is told instead
 * (fm_spread_run_wait_ms()). */
static void
arm(struct fm_probe_run *run)
{
    uint64_t at = next_wake_us(run);

    if (!run->ev_external) {
        return;
    }
    if (at == 0) {
        fm_ev_timer_disarm(run->ev, &run->timer);
    } else if (at != run->timer.at_us) {
        fm_ev_timer_arm(run->ev, &run->timer, at, fm_spread_run_timer_fired, run);
    }
}

/* Start the probes that have come due. */
static void
start_due(struct fm_probe_run *run, uint64_t now_us)
{
    size_t from = run->spread.next;
    size_t to = fm_spread_take_due(&run->spread, now_us);
    struct fm_deadline deadline;

    fm_deadline_init(&deadline, now_us, run->opts->timeout_ms);
    for (size_t i = from; i < to; i++) {
        fm_conn_begin(&run->conns[i], now_us, &deadline);
    }
}

/* A failure came: everything not yet started starts now. */
static void
hurry(struct fm_probe_run *run, uint64_t now_us)
{
    size_t from = run->spread.next;
    struct fm_deadline deadline;

    run->hurry = false;
    run->spread.next = run->n;
    fm_deadline_init(&deadline, now_us, run->opts->timeout_ms);
    for (size_t i = from; i < run->n; i++) {
        fm_conn_begin(&run->conns[i], now_us, &deadline);
    }
}

/* Cut off the started probes past their own deadlines. */
static void
expire(struct fm_probe_run *run, uint64_t now_us)
{
    for (size_t i = run->first_open; i < run->spread.next; i++) {
        struct fm_conn *conn = &run->conns[i];

        if (!fm_conn_judged(conn)) {
            if (!fm_deadline_expired(&conn->deadline, now_us)) {
                break;      /* every later probe started later */
            }
            fm_conn_expire(conn);
        }
        if (i == run->first_open) {
            run->first_open++;
        }
    }
}

uint64_t
fm_spread_lead_ms(const struct fm_probe_run *run)
{
    return fm_spread_offset_ms(0, run->n, run->interval_ms, run->spread_seed);
}

void
fm_spread_run_start(struct fm_probe_run *run, uint64_t now_us)
{
    /* The sweep is set back by the first target's jitter, so that it starts
     * now: a wake-up only to wait for it would cost more than a probe (the
     * loop delays its first cycle by as much, fm_probe_run_phase_ms(), so
     * the node keeps its phase).  Later offsets keep their spacing. */
    uint64_t lead_us = fm_spread_lead_ms(run) * 1000u;

    /* A lookup left running by the last sweep (its probe cut off at its own
     * deadline) waits for no probe now: end it before any waits again. */
    if (run->resolver != NULL) {
        fm_resolver_cancel(run->resolver);
    }
    fm_spread_begin(&run->spread, run->n, run->interval_ms, run->spread_seed,
                    (now_us > lead_us)? now_us - lead_us : 0);
    run->first_open = 0;
    run->hurry = false;
    for (size_t i = 0; i < run->n; i++) {
        run->conns[i].step = FM_STEP_IDLE;      /* not judged: not started */
    }
    fm_spread_run_tick(run, now_us);
}

void
fm_spread_run_tick(struct fm_probe_run *run, uint64_t now_us)
{
    expire(run, now_us);
    start_due(run, now_us);
    /* A probe may fail while it starts (a refused connect): hurry then too. */
    if (run->hurry) {
        hurry(run, now_us);
    }
    arm(run);
}

int
fm_spread_run_wait_ms(const struct fm_probe_run *run, uint64_t now_us)
{
    uint64_t at = next_wake_us(run);
    uint64_t wait_ms = 0;

    if (at == 0 || run->ev_external) {
        return -1;      /* nothing to wait for, or the spread timer wakes the caller */
    }
    /* On the run's own loop: its wait, rounded up (never early). */
    wait_ms = (at > now_us)? (at - now_us + 999u) / 1000u : 0;
    return (wait_ms > INT_MAX)? INT_MAX : (int) wait_ms;
}
