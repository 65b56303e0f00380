/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: a timer of the loop (the next cycle, or a burst cycle's
 * deadline; a child's deadline; the loopback check's), one of the event
 * loop's own timers (include/faultmon/ev.h): the epoll_wait's timeout.
 *
 * Neither libqb's timers, which slept their whole milliseconds rounded down
 * and then polled without sleeping until due (up to a millisecond of
 * spinning at every cycle, a third of the loop's CPU at one target a
 * second), nor a timer fd, which cost a timerfd_settime each time it was
 * set (twice a cycle): setting one costs no system call, and it wakes the
 * loop at most a millisecond late, never early.
 */
#ifndef FAULTMON_CMD_RUN_TIMER_H
#define FAULTMON_CMD_RUN_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include <faultmon/ev.h>

struct fm_run_timer {
    struct fm_ev *ev;               /* NULL: not made (zeroed) or cleared */
    struct fm_ev_timer at;
};

/*! \brief Tie the timer to \p ev's loop.  \return 0 (an errno if it ever
 *         needs a resource: the caller fails then) */
int fm_run_timer_init(struct fm_run_timer *t, struct fm_ev *ev);

/*!
 * \brief Call \p fn(\p data) once, \p delay_ms from \p now_us, in place of
 *        what the timer was set to.  No system call: a caller may set it
 *        again at every wake-up.
 */
void fm_run_timer_arm(struct fm_run_timer *t, uint64_t now_us, uint64_t delay_ms,
                      void (*fn)(void *data), void *data);

/*! \brief Disarm the timer and untie it from the loop (init makes it again). */
void fm_run_timer_clear(struct fm_run_timer *t);

#endif
