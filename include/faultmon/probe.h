/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the probe engine.
 *
 * One fm_probe_run probes a fixed list of targets concurrently on its own
 * epoll instance, under one deadline (Probe_timeout) for the whole run.  It
 * can be driven on its own (fm_probe_run_blocking) or embedded in another
 * main loop: register fm_probe_run_fd() for reading, call
 * fm_probe_run_dispatch() when it is readable or when
 * fm_probe_run_wait_ms() has passed.  The same run can be started again for
 * the next cycle; its memory is allocated once, in fm_probe_run_new().
 *
 * The engine changes nothing in its process: its caller raises the
 * open-file limit (fm_probe_reserve_fds()) and gives freed memory back
 * (fm_probe_run_take_released()).
 *
 * No .c of its name: the interface of the probe library, the folder
 * src/probe/ (engine.c runs it).
 */
#ifndef FAULTMON_PROBE_H
#define FAULTMON_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/probe_opts.h>
#include <faultmon/result.h>
#include <faultmon/target.h>

struct fm_probe_run;

/*!
 * \brief Make sure this process may open a socket per target at once.
 *
 * Every target holds a socket during a cycle, so running out of descriptors
 * would look like a failed service; the soft limit (often 1024) is raised
 * to fit, within the hard one.  For the program to call before
 * fm_probe_run_new(): a process-wide setting is its caller's to change.
 *
 * \param[in]  n_targets  targets of the engine about to be made
 * \param[out] err        on failure, why
 * \param[in]  err_len    size of err
 * \return 0, EMFILE when the hard limit is too low, or the errno of setrlimit()
 */
int fm_probe_reserve_fds(size_t n_targets, char *err, size_t err_len);

/*!
 * \brief Create an engine for these targets.
 *
 * Prepares each target for its protocol once (the request bytes of an HTTP
 * target), so the probe path only copies prepared bytes.
 *
 * \param[in]  targets  parsed targets; the engine keeps pointers to them,
 *                      so they must outlive it
 * \param[in]  n        how many
 * \param[in]  opts     shared options; kept by pointer too
 * \param[out] out      the engine
 * \param[out] err      on failure, why (a bad CA file, say)
 * \return 0, or a positive errno
 */
int fm_probe_run_new(struct fm_target *targets, size_t n,
                     const struct fm_probe_opts *opts,
                     struct fm_probe_run **out, char *err, size_t err_len);
void fm_probe_run_free(struct fm_probe_run *run);

struct fm_ev;

/*!
 * \brief fm_probe_run_new() on a caller's event loop (include/faultmon/ev.h):
 *        the probes' sockets, the spread timer and the resolver are entries
 *        of \p ev's own epoll set, not of an epoll fd of the run's, so that
 *        each wake-up is one epoll_wait.  After a wake-up that had events of
 *        the run's, \p ready(\p data) is called once: it calls
 *        fm_probe_run_dispatch() as a caller that watches fm_probe_run_fd()
 *        does when the fd is readable.  fm_probe_run_idle_until() and
 *        fm_probe_run_blocking() are not for such a run.
 */
int fm_probe_run_new_on(struct fm_ev *ev, void (*ready)(void *data), void *data,
                        struct fm_target *targets, size_t n, const struct fm_probe_opts *opts,
                        struct fm_probe_run **out, char *err, size_t err_len);

/*!
 * \brief Keep TLS sessions across cycles (for loops), so that handshakes
 *        after the first are resumed; a one-shot run does not need it.
 */
void fm_probe_run_set_keep_sessions(struct fm_probe_run *run, bool keep);

/*!
 * \brief The interval a cycle's probes spread over in spread mode
 *        (opts->spread; ignored otherwise): target i of n starts at
 *        i * interval / n plus a jitter below a tenth of its slot, seeded
 *        per node.  Call it before a cycle starts, when the interval changes.
 */
void fm_probe_run_set_interval(struct fm_probe_run *run, uint64_t interval_ms);

/*!
 * \brief How long after its first cycle is due a loop should start it: in
 *        spread mode, the first target's jitter (the node's phase), 0
 *        otherwise.  A sweep starts its first target at once and the rest
 *        after it as their offsets from the first's say, so a loop that
 *        delays its first cycle by this much probes at the same moments as
 *        one whose sweeps waited for the first target's jitter, with no
 *        wake-up at each cycle's start just to wait for it.
 */
uint64_t fm_probe_run_phase_ms(const struct fm_probe_run *run);

/*!
 * \brief Start a cycle: every target's probe begins now (burst mode), or
 *        as it comes due over the interval (spread mode).  Either way the
 *        cycle is done once every target has a verdict of this cycle.
 * \return 0 or errno
 */
int fm_probe_run_start(struct fm_probe_run *run, uint64_t now_us);

/*!
 * \brief Do all the work that is ready without blocking.
 * \return true once every target of the cycle has a verdict
 */
bool fm_probe_run_dispatch(struct fm_probe_run *run, uint64_t now_us);

/*!
 * \brief Whether every TLS connection of a cycle has closed since the last
 *        call: the moment for a long-lived caller to give OpenSSL's freed
 *        buffers back to the system (malloc_trim(0)), so that its memory
 *        between cycles stays proportional to the targets, not to the peak
 *        of concurrent handshakes.
 * \return true once per such moment
 */
bool fm_probe_run_take_released(struct fm_probe_run *run);

/*! \brief The epoll fd to watch for readability when embedding the engine
 *         (not for a run of fm_probe_run_new_on(): its fd is the loop's). */
int fm_probe_run_fd(const struct fm_probe_run *run);

/*!
 * \brief How long a caller may sleep before the next dispatch.
 * \return milliseconds, or -1 when nothing is waiting on time or when the
 *         engine's fd itself becomes readable in time (in spread mode on
 *         a caller's loop, a timer of that loop's wakes it for each start
 *         and deadline; on the run's own loop this is the wait to them)
 */
int fm_probe_run_wait_ms(const struct fm_probe_run *run, uint64_t now_us);

/*! \brief Whether every target of the cycle has its verdict. */
bool fm_probe_run_done(const struct fm_probe_run *run);

/*!
 * \brief Sleep until \p until_us (monotonic), doing the engine's background
 *        work meanwhile (reading TLS session tickets after a cycle).
 *
 * Returns early when the cycle's TLS connections have all closed
 * (fm_probe_run_take_released() is then true): call it again to sleep on.
 *
 * \return 0 or errno
 */
int fm_probe_run_idle_until(struct fm_probe_run *run, uint64_t until_us);

/*! \brief Start a cycle and wait for it on the engine's own epoll. */
int fm_probe_run_blocking(struct fm_probe_run *run);

/*! \brief Results of the last cycle, in target order. */
const struct fm_result *fm_probe_run_results(const struct fm_probe_run *run,
                                             size_t *n);

/*! \brief Worst class among the results of the last cycle. */
enum fm_class fm_probe_run_verdict(const struct fm_probe_run *run);

#endif
