/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: a timer of the loop (the next cycle, or a burst cycle's
 * deadline; a child's deadline; the loopback check's), a timer fd in the
 * loop's epoll set (include/faultmon/ev.h).
 *
 * A timer fd wakes the loop at the microsecond, in one system call: libqb
 * 2.0's timers slept their whole milliseconds rounded down and then polled
 * without sleeping until due, up to a millisecond of spinning at every
 * cycle, which at one target a second was a third of the loop's CPU.
 */
#ifndef FAULTMON_CMD_RUN_TIMER_H
#define FAULTMON_CMD_RUN_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include <faultmon/ev.h>

struct fm_run_timer {
    struct fm_ev *ev;
    int fd;                         /* -1: not made */
    uint64_t at_us;                 /* when it fires (CLOCK_MONOTONIC), 0: disarmed */
    void (*fn)(void *data);
    void *data;
};

/*! \brief Make the timer fd and add it to \p ev's epoll set.
 *  \return 0, or an errno (the timer is then of no use: the caller fails) */
int fm_run_timer_init(struct fm_run_timer *t, struct fm_ev *ev);

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
