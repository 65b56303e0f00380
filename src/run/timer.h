/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop's one timer (the next cycle, or a burst cycle's
 * deadline), a timer fd in libqb's poll set rather than a libqb timer.
 *
 * libqb 2.0 sleeps a timer's whole milliseconds rounded down and then polls
 * without sleeping until it is due: up to a millisecond of spinning at every
 * cycle, which at one target a second was a third of the loop's CPU.  A
 * timer fd wakes the loop at the microsecond, in one system call.
 */
#ifndef FAULTMON_CMD_RUN_TIMER_H
#define FAULTMON_CMD_RUN_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include <qb/qbloop.h>

struct fm_run_timer {
    qb_loop_t *loop;
    int fd;                         /* -1: not made */
    uint64_t at_us;                 /* when it fires (CLOCK_MONOTONIC), 0: disarmed */
    void (*fn)(void *data);
    void *data;
    qb_loop_timer_handle qb_timer;  /* the fallback when the fd fails */
    bool qb_armed;
};

/*! \brief Make the timer fd and add it to \p loop's poll set.
 *  \return 0, or an errno (the timer then falls back to libqb's: late by
 *          its spin, never missed) */
int fm_run_timer_init(struct fm_run_timer *t, qb_loop_t *loop);

/*!
 * \brief Call \p fn(\p data) once, \p delay_ms from \p now_us, in place of
 *        what the timer was set to.  Setting it again within a millisecond
 *        of the time it is set to changes nothing: a caller that recomputes a
 *        deadline in whole milliseconds at every wake-up costs no system call.
 */
void fm_run_timer_arm(struct fm_run_timer *t, uint64_t now_us, uint64_t delay_ms,
                      void (*fn)(void *data), void *data);

/*! \brief Take the timer fd out of the loop and close it. */
void fm_run_timer_clear(struct fm_run_timer *t);

#endif
