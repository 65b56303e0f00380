/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: how a caller sleeps until a probe run has work: how long it may
 * wait (the deadline, a spread run's next start, a c-ares retry, the linger
 * for TLS session tickets), and the two ways to wait on the run's own event
 * loop for a caller with no loop of its own (`faultmon probe`: a run to its
 * end, and the idle time between its runs).  Each wake-up is one
 * epoll_wait, whose events are handled as it returns (engine_ev.c); the
 * rest of the work is fm_probe_run_dispatch()'s.
 */
#include <config.h>

#include <errno.h>

#include "probe_int.h"

int
fm_probe_run_wait_ms(const struct fm_probe_run *run, uint64_t now_us)
{
    int wait_ms = (run->pending == 0)? -1
                  : run->opts->spread? fm_spread_run_wait_ms(run, now_us)
                  : fm_deadline_wait_ms(&run->deadline, now_us);
    int resolve_ms = fm_resolver_wait_ms(run->resolver);

    if (resolve_ms >= 0 && (wait_ms < 0 || resolve_ms < wait_ms)) {
        wait_ms = resolve_ms;   /* a c-ares retry is due before the deadline */
    }

    if (run->lingering > 0) {
        /* Wake when the last ticket wait ends; earlier ones end with it. */
        int linger_ms = (now_us >= run->linger_end_us)? 0
                        : (int) ((run->linger_end_us - now_us + 999) / 1000);

        if (wait_ms < 0 || linger_ms < wait_ms) {
            wait_ms = linger_ms;
        }
    }
    return wait_ms;
}

/* One wake-up of the run's own loop: sleep at most \p wait_ms, handle what
 * is ready.  A wake-up that took fewer events than a batch took them all:
 * the dispatch after it need not look again. \return 0 or an errno */
static int
run_wait(struct fm_probe_run *run, int wait_ms)
{
    int n = fm_ev_dispatch(run->ev, wait_ms);

    if (n < 0) {
        return -n;
    }
    run->events_taken = (n < FM_EV_BATCH);
    return 0;
}

int
fm_probe_run_idle_until(struct fm_probe_run *run, uint64_t until_us)
{
    for (uint64_t now_us = fm_now_us(); now_us < until_us; now_us = fm_now_us()) {
        int wait_ms = fm_probe_run_wait_ms(run, now_us);
        int until_ms = (int) ((until_us - now_us + 999) / 1000);
        int rc = 0;

        if (wait_ms < 0 || wait_ms > until_ms) {
            wait_ms = until_ms;
        }
        rc = run_wait(run, wait_ms);
        if (rc != 0) {
            return rc;
        }
        fm_probe_run_dispatch(run, fm_now_us());
        if (run->released) {
            break;      /* the caller may want to give the memory back now */
        }
    }
    return 0;
}

int
fm_probe_run_blocking(struct fm_probe_run *run)
{
    int rc = fm_probe_run_start(run, fm_now_us());

    if (rc != 0) {
        return rc;
    }
    while (!fm_probe_run_dispatch(run, fm_now_us())) {
        rc = run_wait(run, fm_probe_run_wait_ms(run, fm_now_us()));
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}
