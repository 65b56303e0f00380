/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: a timer of the loop (see run/timer.h for why a timer fd).
 */
#include <config.h>

#include "timer.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

static void
fire(struct fm_run_timer *t)
{
    void (*fn)(void *data) = t->fn;

    t->at_us = 0;
    t->fn = NULL;
    if (fn != NULL) {
        fn(t->data);
    }
}

static int32_t
on_timer_fd(int32_t fd, int32_t revents, void *data)
{
    struct fm_run_timer *t = data;
    uint64_t expirations = 0;

    fire(t);
    /* A timer fd that fired stays readable until it is read or set again
     * (timerfd_settime(2) clears what it counted), and the loop would call
     * this again at once.  The callback usually sets it again (the deadline
     * at a cycle's start, the next cycle at its end): then no read is needed. */
    if (t->at_us == 0 && t->fd >= 0) {
        if (read(fd, &expirations, sizeof(expirations)) < 0) {
            expirations = 0;    /* EAGAIN: already cleared */
        }
    }
    return 0;
}

int
fm_run_timer_init(struct fm_run_timer *t, struct fm_ev *ev)
{
    int rc = 0;

    memset(t, 0, sizeof(*t));
    t->ev = ev;
    t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (t->fd < 0) {
        return errno;
    }
    rc = fm_ev_watch(ev, t->fd, EPOLLIN, on_timer_fd, t);
    if (rc != 0) {
        close(t->fd);
        t->fd = -1;
    }
    return rc;
}

void
fm_run_timer_arm(struct fm_run_timer *t, uint64_t now_us, uint64_t delay_ms,
                 void (*fn)(void *data), void *data)
{
    /* 0 would disarm: a time past (1 µs after boot) fires at once. */
    uint64_t at_us = (delay_ms == 0)? 1 : now_us + delay_ms * 1000u;
    struct itimerspec its;

    if (t->fn == fn && t->data == data && t->at_us != 0
        && ((t->at_us > at_us)? t->at_us - at_us : at_us - t->at_us) < 1000u) {
        return;
    }
    t->at_us = 0;
    memset(&its, 0, sizeof(its));
    its.it_value.tv_sec = (time_t) (at_us / 1000000u);
    its.it_value.tv_nsec = (long) (at_us % 1000000u) * 1000;
    if (t->fd >= 0 && timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL) == 0) {
        t->at_us = at_us;
    }
    t->fn = fn;
    t->data = data;
}

void
fm_run_timer_clear(struct fm_run_timer *t)
{
    if (t->fd >= 0) {
        fm_ev_unwatch(t->ev, t->fd);
        close(t->fd);
        t->fd = -1;
    }
    t->fn = NULL;
}
