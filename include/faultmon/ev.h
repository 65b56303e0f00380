/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the event loop of `faultmon run` (src/util/ev.c): one epoll set
 * for everything the loop waits on, each wake-up one epoll_wait.
 *
 * Every entry of the set carries, as its epoll data.ptr, a struct
 * fm_ev_source: the callback that handles its events.  So dispatch is the
 * same for all: the probe engine's sockets and timer (embedded in its own
 * structures, see src/probe/engine.c), and the loop's own descriptors
 * (fm_ev_watch(): a child's pipe or pidfd, a timer fd, inotify...).  Signals
 * arrive through a signalfd in the same set; there is no other timer than
 * timer fds, so the wait is never bounded by a computed timeout and never
 * spins before one.
 *
 * It replaces libqb's main loop, which waits in milliseconds (rounded down,
 * then polled until due), runs its lower priority levels a wake-up later,
 * and could only take the probe engine's own epoll fd as one entry: two
 * epoll_wait calls for every wake-up on a probe's socket.
 */
#ifndef FAULTMON_EV_H
#define FAULTMON_EV_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct fm_ev_source;

/*! \brief What an entry does with its ready events (EPOLLIN...). */
typedef void (*fm_ev_ready_fn)(struct fm_ev_source *src, uint32_t events);

/*! \brief One entry of the set: what its epoll data.ptr points to. */
struct fm_ev_source {
    fm_ev_ready_fn ready;
};

/*! \brief A callback on a descriptor (fm_ev_watch()); \p revents are epoll's,
 *         whose low bits are poll(2)'s.  What it returns is ignored. */
typedef int32_t (*fm_ev_fd_fn)(int32_t fd, int32_t revents, void *data);

/*! \brief A callback on a signal (fm_ev_signal()). */
typedef int32_t (*fm_ev_signal_fn)(int32_t sig, void *data);

/*! \brief Work to run once after the current wake-up's events (fm_ev_later()). */
struct fm_ev_later {
    void (*fn)(void *data);
    void *data;
    bool queued;
    struct fm_ev_later *next;
};

/* Events taken by one epoll_wait: a wake-up with more ready takes another
 * call at once.  12, as libqb asked for (tests/integration/run-timer.sh
 * counts the loop's wake-ups by it); a cycle rarely has more ready at once. */
#define FM_EV_BATCH 12
#define FM_EV_SIGNALS 8

struct fm_ev_watch;
struct epoll_event;

struct fm_ev {
    int epfd;                           /* -1: not made */
    bool stop;
    /* Signals through one signalfd; what each calls. */
    int sig_fd;
    struct fm_ev_source sig_src;
    sigset_t sigs;                      /* blocked, for the life of the process */
    struct {
        int sig;
        fm_ev_signal_fn fn;
        void *data;
    } on_signal[FM_EV_SIGNALS];
    struct fm_ev_watch *watches;        /* fm_ev_watch()'s, by descriptor */
    struct fm_ev_later *later;          /* queued for after this wake-up */
    /* The wake-up being dispatched: an entry removed while it is handled
     * is struck out of it, so no callback sees a freed source. */
    struct epoll_event *batch;
    int batch_n;
};

/*! \brief Make the epoll set.  \return 0 or an errno */
int fm_ev_init(struct fm_ev *ev);

/*! \brief Close everything the loop made.  Its signals stay blocked (a
 *         signal as the process ends is not its death). */
void fm_ev_fini(struct fm_ev *ev);

/*! \brief Put \p fd in the set for \p events, with \p src as its data.ptr.
 *  \return 0 or an errno */
int fm_ev_add(struct fm_ev *ev, int fd, uint32_t events, struct fm_ev_source *src);

/*! \brief Change the events of a descriptor of fm_ev_add(). \return 0 or an errno */
int fm_ev_mod(struct fm_ev *ev, int fd, uint32_t events, struct fm_ev_source *src);

/*! \brief Take a descriptor of fm_ev_add() out of the set (before freeing
 *         \p src; closing the descriptor also takes it out), and strike
 *         \p src's events out of the wake-up being dispatched.  \p fd -1:
 *         only the latter (the descriptor was closed; a level-triggered
 *         entry still ready is reported again at the next wait). */
void fm_ev_del(struct fm_ev *ev, int fd, struct fm_ev_source *src);

/*! \brief Call \p fn(\p fd, events, \p data) whenever \p fd has \p events
 *         (a source the loop allocates).  \return 0 or an errno */
int fm_ev_watch(struct fm_ev *ev, int fd, uint32_t events, fm_ev_fd_fn fn, void *data);

/*! \brief Change what fm_ev_watch() waits for on \p fd. \return 0 or an errno */
int fm_ev_watch_mod(struct fm_ev *ev, int fd, uint32_t events);

/*! \brief Stop watching \p fd (it stays open). */
void fm_ev_unwatch(struct fm_ev *ev, int fd);

/*! \brief Call \p fn(\p sig, \p data) on \p sig, from the loop (the signal
 *         is blocked and read from a signalfd).  \return 0 or an errno */
int fm_ev_signal(struct fm_ev *ev, int sig, fm_ev_signal_fn fn, void *data);

/*! \brief Run \p later once after the events of this wake-up are handled
 *         (queued twice, it runs once). */
void fm_ev_later(struct fm_ev *ev, struct fm_ev_later *later);

/*! \brief One wake-up: one epoll_wait of at most \p timeout_ms (-1: no
 *         bound), its events dispatched, then the work they queued.
 *  \return the events taken (FM_EV_BATCH: more may be ready), or -errno */
int fm_ev_dispatch(struct fm_ev *ev, int timeout_ms);

/*! \brief Wait and dispatch until fm_ev_stop().  \return 0 or an errno */
int fm_ev_run(struct fm_ev *ev);

/*! \brief Return from fm_ev_run() once the current wake-up is handled. */
void fm_ev_stop(struct fm_ev *ev);

#endif
