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

void
fm_spread_run_start(struct fm_probe_run *run, uint64_t now_us)
{
    /* A lookup left running by the last sweep (its probe cut off at its own
     * deadline) waits for no probe now: end it before any waits again. */
    if (run->resolver != NULL) {
        fm_resolver_cancel(run->resolver);
    }
    fm_spread_begin(&run->spread, run->n, run->interval_ms, run->spread_seed, now_us);
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
}

int
fm_spread_run_wait_ms(const struct fm_probe_run *run, uint64_t now_us)
{
    int wait_ms = fm_spread_wait_ms(&run->spread, now_us);

    /* The first probe still running has the nearest deadline. */
    for (size_t i = run->first_open; i < run->spread.next; i++) {
        const struct fm_conn *conn = &run->conns[i];
        int dl_ms = 0;

        if (fm_conn_judged(conn)) {
            continue;
        }
        dl_ms = fm_deadline_wait_ms(&conn->deadline, now_us);
        if (wait_ms < 0 || dl_ms < wait_ms) {
            wait_ms = dl_ms;
        }
        break;
    }
    return wait_ms;
}
