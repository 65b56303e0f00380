/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the pending-recovery protocol between the loop and the agents.
 *
 * The loop (`faultmon run`) decides a recovery and writes it into its state
 * as `pending`; the agent's monitor answers Pacemaker from it, and the agent's
 * start refuses a node the loop decided to fail over from.  Both sides read
 * and write the same few files of the state directory, under the rules of
 * this one module (libc only: the agent links it):
 *
 *   reported    present while Pacemaker already knows of the pending
 *               recovery (the loop's fail request reached the controller),
 *               so that the monitor does not report it a second time
 *   asked       the wall-clock seconds of each fail request within
 *               Retry_interval, one a line: the agent's next start sets
 *               Pacemaker's fail-count from it
 *   cause       the cause of a recovery not decided by a probe (httpd's exit,
 *               the monitor's report), for the agent's exit reasons
 *   event       "complete CAUSE": a failure the agent's monitor found, for
 *               the loop to judge; removed by the loop once the state holds
 *               its decision
 *   event.same  left by the loop when that event was the outage already
 *               being recovered
 *   resume      an administrator's `faultmon resume`, for the running loop
 *   reset       `faultmon reset` or Pacemaker's probe after a cleanup, for
 *               the running loop
 *   refused     left by a loop whose fail request the controller refused
 *               (a Pacemaker Remote node's): recovery waits for the agent's
 *               monitor; a monitor slower than 10 s warns once and
 *               removes it
 */
#ifndef FAULTMON_RECOVERY_H
#define FAULTMON_RECOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide.h>
#include <faultmon/state.h>

#define FM_RECOVERY_REPORTED "reported"
#define FM_RECOVERY_ASKED "asked"
#define FM_RECOVERY_CAUSE "cause"
#define FM_RECOVERY_EVENT "event"
#define FM_RECOVERY_EVENT_SAME "event.same"
#define FM_RECOVERY_RESUME "resume"
#define FM_RECOVERY_RESET "reset"
#define FM_RECOVERY_REFUSED "refused"

/* How many fail requests `asked` keeps at most. */
#define FM_RECOVERY_ASKED_MAX 64

/* A loop that has not written its state for twice its cycle (interval and
 * Probe_timeout) plus this grace is stuck. */
#define FM_RECOVERY_STALE_GRACE_MS 30000

/* The loop writes its state on every decision and every change of what the
 * agents or `faultmon status` show, and otherwise at the end of the first
 * cycle at least this long after its last write: so a live loop's state is
 * at most this plus one cycle (interval and Probe_timeout) old, inside the
 * staleness rule above with a margin of a cycle plus the rest of the grace. */
#define FM_RECOVERY_STATE_REFRESH_MS 10000

_Static_assert(FM_RECOVERY_STATE_REFRESH_MS < FM_RECOVERY_STALE_GRACE_MS,
               "a live loop's state must never read as stale");

/*!
 * \brief The recovery pending after a decision.
 *
 * A restart or a failover decided is pending until carried out; a service
 * up again while still running makes it moot (nobody carried it out); an
 * httpmon loop (publish only) never has one, since nobody carries it out.
 *
 * \param[in] pending       the recovery pending before the decision
 * \param[in] dec           the decision
 * \param[in] publish_only  whether the loop only publishes its verdict
 * \return the recovery pending now
 */
enum fm_action fm_recovery_pending(enum fm_action pending, const struct fm_decision *dec,
                                   bool publish_only);

/*!
 * \brief The OCF code the agent's monitor answers for a decision: that of
 *        the pending recovery while there is one, else that of the decision;
 *        always 0 for an httpmon loop.
 */
int fm_recovery_ocf_rc(enum fm_action pending, const struct fm_decision *dec, bool publish_only);

/*!
 * \brief Whether a loop's state is too old to believe: the loop has not
 *        written it for 2 x (interval + Probe_timeout) + 30 s.
 *
 * \param[in]  st           the state
 * \param[in]  now_mono_us  CLOCK_MONOTONIC now, in microseconds
 * \param[out] age_s        when not NULL, seconds since the state was written
 */
bool fm_recovery_state_stale(const struct fm_run_state *st, uint64_t now_mono_us, uint64_t *age_s);

/* Why the agent's start refuses this node. */
enum fm_refusal {
    FM_REFUSAL_NONE = 0,
    FM_REFUSAL_FAILOVER,            /* the loop decided to fail over */
    FM_REFUSAL_HELD_FAILOVER,       /* that, and the service is held */
    FM_REFUSAL_HELD,                /* held for manual resume, not resumed */
};

/*!
 * \brief Whether a start on this node is refused by the last loop's state.
 *
 * A failover refuses once (the caller then clears it with
 * fm_recovery_refuse_once(), so that after a cleanup a start here works
 * again); a hold refuses until an administrator resumes the service.
 *
 * \param[in] st                the last loop's state
 * \param[in] resume_requested  whether `resume` exists
 */
enum fm_refusal fm_recovery_start_refusal(const struct fm_run_state *st, bool resume_requested);

/*!
 * \brief After refusing a start for a failover: clear the pending failover
 *        in the state of \p dir, which no loop runs for, so that the next
 *        start (after a cleanup) is not refused again.
 * \return 0 or errno; err says why
 */
int fm_recovery_refuse_once(const char *dir, struct fm_run_state *st, char *err, size_t err_len);

/*
 * The files.  Every reader takes a file only when it is a regular file of its
 * own: a symbolic link or a FIFO at one of these names is refused at once,
 * without blocking, and counts as no marker and no content (so that nothing
 * planted there can make the agent answer success, or hang the loop).
 */

/*! \return whether DIR/NAME (one of the FM_RECOVERY_* files) is a regular file */
bool fm_recovery_file_exists(const char *dir, const char *name);

/*!
 * \brief Create (\p present) or remove DIR/NAME, an empty marker file.
 * \return 0 or errno: never blocking, and an error when something other
 *         than a regular file is there (ELOOP for a symbolic link, ENXIO for
 *         a FIFO, EINVAL for the rest)
 */
int fm_recovery_file_mark(const char *dir, const char *name, bool present);

/* How long a recovery the loop's fail request reported may stay "under
 * way" (the agent's monitor answering degraded, not the failure): a request
 * the controller took, or whose acknowledgement did not come in time (taken
 * as yes), that nobody carries out (tests/cluster/remote-nodes.sh) is then
 * reported by the monitor itself.  Pacemaker carries out one it took within
 * a transition, seconds; a busy cluster's transition may hold it longer. */
#define FM_RECOVERY_UNDER_WAY_MAX_S 60

/*!
 * \return whether `reported` says the pending recovery is known to
 *         Pacemaker: present, and marked less than
 *         FM_RECOVERY_UNDER_WAY_MAX_S ago
 */
bool fm_recovery_reported(const char *dir);

/*!
 * \brief An offline reset: remove `asked` and `cause`, which belong to the
 *        history forgotten.
 * \return 0 or the first errno
 */
int fm_recovery_forget(const char *dir);

/*!
 * \brief How many fail requests `asked` holds (its lines).
 * \return that count; 0 when there is no file or it cannot be trusted
 */
unsigned fm_recovery_asked_count(const char *dir);

/*!
 * \brief Add a fail request at \p now_wall_s to `asked`, dropping those
 *        older than \p window_s (Retry_interval) and keeping at most
 *        FM_RECOVERY_ASKED_MAX.  A file that cannot be trusted is replaced.
 * \return 0 or errno
 */
int fm_recovery_note_asked(const char *dir, int64_t now_wall_s, int64_t window_s);

/*! \brief Write the cause of a recovery into `cause`. \return 0 or errno */
int fm_recovery_write_cause(const char *dir, const char *cause);

/*!
 * \brief Read the first line of `cause`.
 * \param[out] cause      the line without its newline; "" when none is read
 * \param[in]  cause_len  size of \p cause
 * \return 0; ENOENT when there is none; another errno when it cannot be
 *         trusted or read
 */
int fm_recovery_read_cause(const char *dir, char *cause, size_t cause_len);

/*!
 * \brief The agent's side of an event: remove an old `event.same`, and write
 *        `event` ("complete CAUSE", CAUSE up to its first newline) atomically.
 * \return 0 or errno
 */
int fm_recovery_post_event(const char *dir, const char *cause);

/*! \return whether `event` is still there (the loop has not decided on it) */
bool fm_recovery_event_waiting(const char *dir);

/*! \brief Remove `event` (the agent gives up waiting, or the loop is done). */
void fm_recovery_withdraw_event(const char *dir);

/*!
 * \brief Whether the loop answered the last event with `event.same` (the
 *        outage already being recovered); the marker is consumed.
 */
bool fm_recovery_take_event_same(const char *dir);

/*!
 * \brief Read the agent's `event`.
 *
 * \param[in]  dir        the state directory
 * \param[out] cause      its cause (the text after "complete ")
 * \param[in]  cause_len  size of \p cause
 * \return 0; ENOENT when there is none; EINVAL when it is malformed or
 *         cannot be trusted (then \p cause holds the line read, if any,
 *         for the log)
 */
int fm_recovery_read_event(const char *dir, char *cause, size_t cause_len);

#endif
