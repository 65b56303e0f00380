/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: a timer of the loop (see run/timer.h for why the event
 * loop's own).
 */
#include <config.h>

#include "timer.h"

#include <string.h>

int
fm_run_timer_init(struct fm_run_timer *t, struct fm_ev *ev)
{
    memset(t, 0, sizeof(*t));
    t->ev = ev;
    return 0;
}

void
fm_run_timer_arm(struct fm_run_timer *t, uint64_t now_us, uint64_t delay_ms,
                 void (*fn)(void *data), void *data)
{
    if (t->ev != NULL) {
        /* delay 0: now, which the loop runs before it waits again. */
        fm_ev_timer_arm(t->ev, &t->at, now_us + delay_ms * 1000u, fn, data);
    }
}

void
fm_run_timer_clear(struct fm_run_timer *t)
{
    if (t->ev != NULL) {
        fm_ev_timer_disarm(t->ev, &t->at);
        t->ev = NULL;
    }
}
