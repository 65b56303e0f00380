/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the event loop of `faultmon run` (see include/faultmon/ev.h for
 * why one of our own): one epoll set, a source struct behind every entry,
 * signals through a signalfd, and work queued for after a wake-up.
 */
#include <config.h>

#include <faultmon/ev.h>
#include <faultmon/clock.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* A descriptor watched for a callback of the fm_ev_fd_fn kind. */
struct fm_ev_watch {
    struct fm_ev_source src;    /* first: the epoll data.ptr */
    int fd;
    fm_ev_fd_fn fn;
    void *data;
    struct fm_ev_watch *next;
};

int
fm_ev_init(struct fm_ev *ev)
{
    memset(ev, 0, sizeof(*ev));
    ev->sig_fd = -1;
    sigemptyset(&ev->sigs);
    ev->epfd = epoll_create1(EPOLL_CLOEXEC);
    return (ev->epfd < 0)? errno : 0;
}

void
fm_ev_fini(struct fm_ev *ev)
{
    while (ev->watches != NULL) {
        struct fm_ev_watch *w = ev->watches;

        ev->watches = w->next;
        free(w);
    }
    if (ev->sig_fd >= 0) {
        /* Its signals stay blocked: one that comes as the loop ends (a
         * second SIGTERM, the SIGUSR1 of `faultmon resume`) would otherwise
         * end the process by its default action, before its exit status. */
        close(ev->sig_fd);
        ev->sig_fd = -1;
    }
    if (ev->epfd >= 0) {
        close(ev->epfd);
        ev->epfd = -1;
    }
    ev->later = NULL;
    ev->timers = NULL;
}

int
fm_ev_add(struct fm_ev *ev, int fd, uint32_t events, struct fm_ev_source *src)
{
    struct epoll_event e = { .events = events, .data.ptr = src };

    return (epoll_ctl(ev->epfd, EPOLL_CTL_ADD, fd, &e) == 0)? 0 : errno;
}

int
fm_ev_mod(struct fm_ev *ev, int fd, uint32_t events, struct fm_ev_source *src)
{
    struct epoll_event e = { .events = events, .data.ptr = src };

    return (epoll_ctl(ev->epfd, EPOLL_CTL_MOD, fd, &e) == 0)? 0 : errno;
}

/* An entry gone while its wake-up is dispatched: strike out its events. */
static void
strike_out(struct fm_ev *ev, const struct fm_ev_source *src)
{
    for (int i = 0; i < ev->batch_n; i++) {
        if (ev->batch[i].data.ptr == src) {
            ev->batch[i].data.ptr = NULL;
        }
    }
}

void
fm_ev_del(struct fm_ev *ev, int fd, struct fm_ev_source *src)
{
    if (fd >= 0) {
        epoll_ctl(ev->epfd, EPOLL_CTL_DEL, fd, NULL);
    }
    strike_out(ev, src);
}

static void
on_watch_ready(struct fm_ev_source *src, uint32_t events)
{
    struct fm_ev_watch *w = (struct fm_ev_watch *) src;

    w->fn(w->fd, (int32_t) events, w->data);
}

int
fm_ev_watch(struct fm_ev *ev, int fd, uint32_t events, fm_ev_fd_fn fn, void *data)
{
    struct fm_ev_watch *w = calloc(1, sizeof(*w));
    int rc = 0;

    if (w == NULL) {
        return ENOMEM;
    }
    *w = (struct fm_ev_watch) { .src.ready = on_watch_ready, .fd = fd, .fn = fn, .data = data };
    rc = fm_ev_add(ev, fd, events, &w->src);
    if (rc != 0) {
        free(w);
        return rc;
    }
    w->next = ev->watches;
    ev->watches = w;
    return 0;
}

int
fm_ev_watch_mod(struct fm_ev *ev, int fd, uint32_t events)
{
    for (struct fm_ev_watch *w = ev->watches; w != NULL; w = w->next) {
        if (w->fd == fd) {
            return fm_ev_mod(ev, fd, events, &w->src);
        }
    }
    return ENOENT;
}

void
fm_ev_unwatch(struct fm_ev *ev, int fd)
{
    for (struct fm_ev_watch **p = &ev->watches; *p != NULL; p = &(*p)->next) {
        struct fm_ev_watch *w = *p;

        if (w->fd == fd) {
            *p = w->next;
            fm_ev_del(ev, fd, &w->src);
            free(w);
            return;
        }
    }
}

/* Every signal queued since the last wake-up, each to its callback. */
static void
on_signal_ready(struct fm_ev_source *src, uint32_t events)
{
    struct fm_ev *ev = (struct fm_ev *) ((char *) src - offsetof(struct fm_ev, sig_src));
    struct signalfd_siginfo si;

    while (read(ev->sig_fd, &si, sizeof(si)) == (ssize_t) sizeof(si)) {
        for (size_t i = 0; i < FM_EV_SIGNALS; i++) {
            if (ev->on_signal[i].fn != NULL && ev->on_signal[i].sig == (int) si.ssi_signo) {
                ev->on_signal[i].fn((int32_t) si.ssi_signo, ev->on_signal[i].data);
                break;
            }
        }
    }
}

int
fm_ev_signal(struct fm_ev *ev, int sig, fm_ev_signal_fn fn, void *data)
{
    size_t slot = 0;
    int fd = -1;

    while (slot < FM_EV_SIGNALS && ev->on_signal[slot].fn != NULL && ev->on_signal[slot].sig != sig) {
        slot++;
    }
    if (slot == FM_EV_SIGNALS) {
        return ENOSPC;
    }
    /* Blocked, so that it waits in the signalfd; the children unblock
     * every signal before they exec (src/run/jobs.c, src/util/spawn.c,
     * src/util/spawn_tied.c). */
    sigaddset(&ev->sigs, sig);
    if (sigprocmask(SIG_BLOCK, &ev->sigs, NULL) != 0) {
        return errno;
    }
    fd = signalfd(ev->sig_fd, &ev->sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    if (ev->sig_fd < 0) {
        int rc = 0;

        ev->sig_fd = fd;
        ev->sig_src.ready = on_signal_ready;
        rc = fm_ev_add(ev, fd, EPOLLIN, &ev->sig_src);
        if (rc != 0) {
            return rc;
        }
    }
    ev->on_signal[slot].sig = sig;
    ev->on_signal[slot].fn = fn;
    ev->on_signal[slot].data = data;
    return 0;
}

void
fm_ev_later(struct fm_ev *ev, struct fm_ev_later *later)
{
    if (later->queued) {
        return;
    }
    later->queued = true;
    later->next = ev->later;
    ev->later = later;
}

/* What the wake-up's events queued, until none is left (work queued by
 * queued work runs in the same pass, before the next wait). */
static void
run_later(struct fm_ev *ev)
{
    while (ev->later != NULL) {
        struct fm_ev_later *later = ev->later;

        ev->later = later->next;
        later->queued = false;
        later->next = NULL;
        later->fn(later->data);
    }
}

void
fm_ev_timer_disarm(struct fm_ev *ev, struct fm_ev_timer *t)
{
    if (t->at_us == 0) {
        return;
    }
    for (struct fm_ev_timer **p = &ev->timers; *p != NULL; p = &(*p)->next) {
        if (*p == t) {
            *p = t->next;
            break;
        }
    }
    t->at_us = 0;
    t->next = NULL;
}

void
fm_ev_timer_arm(struct fm_ev *ev, struct fm_ev_timer *t, uint64_t at_us,
                void (*fn)(void *data), void *data)
{
    fm_ev_timer_disarm(ev, t);
    t->at_us = (at_us == 0)? 1 : at_us;     /* 0 means disarmed: 1 µs after boot is past */
    t->fn = fn;
    t->data = data;
    t->next = ev->timers;
    ev->timers = t;
}

/* Timers fired in one turn before the wait gives the descriptors theirs
 * (a callback that keeps arming a timer already due would starve them). */
#define FM_EV_TIMER_TURN 64

/* Run the timers that were due when the last wait returned, one at a time
 * (a callback may arm or disarm any other), each followed by the work it
 * queued.  One that came due since (while a callback ran) waits for a wait
 * of 0 ms first: the descriptors' news comes before a deadline's timer, so
 * a reply that arrived while the loop was busy is read, not judged missing.
 * In a steady cycle the wait returns at the timer, which is due by then: no
 * extra wait.  \return the wait until the nearest one left, in
 * milliseconds rounded up (never early), -1 for none, 0 if one is due
 * still. */
static int
run_timers(struct fm_ev *ev)
{
    for (int fired = 0; fired < FM_EV_TIMER_TURN && !ev->stop; fired++) {
        uint64_t now_us = fm_now_us();
        struct fm_ev_timer *due = NULL;
        uint64_t next_us = 0;

        for (struct fm_ev_timer *t = ev->timers; t != NULL; t = t->next) {
            if (t->at_us <= ev->woke_us) {
                due = t;
                break;
            }
            if (next_us == 0 || t->at_us < next_us) {
                next_us = t->at_us;
            }
        }
        if (due == NULL) {
            uint64_t wait_ms = (next_us == 0 || next_us <= now_us)? 0 : (next_us - now_us + 999u) / 1000u;

            return (next_us == 0)? -1 : (wait_ms > INT_MAX)? INT_MAX : (int) wait_ms;
        }
        fm_ev_timer_disarm(ev, due);
        due->fn(due->data);
        run_later(ev);
    }
    return 0;
}

int
fm_ev_dispatch(struct fm_ev *ev, int timeout_ms)
{
    struct epoll_event events[FM_EV_BATCH];
    int n = epoll_wait(ev->epfd, events, FM_EV_BATCH, timeout_ms);

    ev->woke_us = fm_now_us();
    if (n < 0) {
        return (errno == EINTR)? 0 : -errno;
    }
    ev->batch = events;
    ev->batch_n = n;
    for (int i = 0; i < n; i++) {
        struct fm_ev_source *src = events[i].data.ptr;

        if (src != NULL) {      /* NULL: struck out by fm_ev_del() */
            src->ready(src, events[i].events);
        }
    }
    ev->batch = NULL;
    ev->batch_n = 0;
    run_later(ev);
    return n;
}

int
fm_ev_run(struct fm_ev *ev)
{
    ev->woke_us = fm_now_us();      /* nothing to read yet: what is due runs */
    run_later(ev);
    while (!ev->stop) {
        int timeout_ms = run_timers(ev);
        int n = 0;

        if (ev->stop) {
            break;
        }
        n = fm_ev_dispatch(ev, timeout_ms);
        if (n < 0) {
            return -n;
        }
    }
    return 0;
}

void
fm_ev_stop(struct fm_ev *ev)
{
    ev->stop = true;
}
