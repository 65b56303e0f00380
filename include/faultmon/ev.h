/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the event loop of `faultmon run` (src/util/ev.c): one epoll set
 * for everything the loop waits on, each wake-up one epoll_wait.
 *
 * Every entry of the set carries, as its epoll data.ptr, a struct
 * fm_ev_source: the callback that handles its events.  So dispatch is the
 * same for all: the probe engine's sockets (and the exec probe's and the
 * TCP banner's timer fds), embedded in its own structures (see
 * src/probe/engine.c), and the loop's own descriptors
 * (fm_ev_watch(): a child's pipe or pidfd, inotify...).  Signals arrive
 * through a signalfd in the same set.
 *
 * Timers (fm_ev_timer_arm()) are a list of the loop's own, not descriptors:
 * fm_ev_run() bounds each epoll_wait by the nearest one, in milliseconds
 * rounded up, and runs the due ones when it returns.  Arming one costs no
 * system call, where a timer fd cost a timerfd_settime each time (two a
 * cycle: the deadline at its start, the next cycle at its end); a timer is
 * at most a millisecond late, never early, and a wait is 0 ms only when a
 * timer is due still after 64 ran in one turn, so nothing spins before one.
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
 * call at once.  A burst cycle's replies can come together: 64 takes those
 * of 64 targets in one call, for 768 bytes of stack. */
#define FM_EV_BATCH 64
#define FM_EV_SIGNALS 8

/*! \brief A timer of the loop (fm_ev_timer_arm()); zeroed: not armed. */
struct fm_ev_timer {
    uint64_t at_us;                     /* due (CLOCK_MONOTONIC, fm_now_us()); 0: not armed */
    void (*fn)(void *data);
    void *data;
    struct fm_ev_timer *next;           /* in the loop's list while armed */
};

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
    struct fm_ev_timer *timers;         /* armed, in no order (a loop has few) */
    uint64_t woke_us;                   /* when the last wait returned (fm_now_us()) */
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

/*! \brief Call \p fn(\p data) once, from fm_ev_run(), when fm_now_us()
 *         reaches \p at_us (0 or a time past: at the next turn).  Arming an
 *         armed timer moves it.  No system call. */
void fm_ev_timer_arm(struct fm_ev *ev, struct fm_ev_timer *t, uint64_t at_us,
                     void (*fn)(void *data), void *data);

/*! \brief Disarm \p t (armed or not); it is not called. */
void fm_ev_timer_disarm(struct fm_ev *ev, struct fm_ev_timer *t);

/*! \brief One wake-up: one epoll_wait of at most \p timeout_ms (-1: no
 *         bound), its events dispatched, then the work they queued.
 *  \return the events taken (FM_EV_BATCH: more may be ready), or -errno */
int fm_ev_dispatch(struct fm_ev *ev, int timeout_ms);

/*! \brief Wait and dispatch until fm_ev_stop(), each wait bounded by the
 *         nearest timer, due timers run before each wait (only here:
 *         fm_ev_dispatch() alone runs none).  \return 0 or an errno */
int fm_ev_run(struct fm_ev *ev);

/*! \brief Return from fm_ev_run() once the current wake-up is handled. */
void fm_ev_stop(struct fm_ev *ev);

#endif
