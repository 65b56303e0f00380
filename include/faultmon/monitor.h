/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the monitor, what the loop does with each cycle's results.
 *
 * One place receives every outcome the loop learns of (a probe cycle, a
 * cycle that could not start, the watched process's exit, a failure the
 * agent's monitor found, an administrator's resume or reset), with the
 * clocks passed in, in the manner of relayd's hce_notify_done(): it
 * summarises, asks the decision engine, updates the state the agents read,
 * and says what to do (write the state, ask the cluster for a recovery,
 * publish the reason, log) without doing any of it.  The libqb wiring in
 * `faultmon run` carries the answer out; the unit tests read it with a fake
 * clock.  libc only.
 */
#ifndef FAULTMON_MONITOR_H
#define FAULTMON_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide.h>
#include <faultmon/history.h>
#include <faultmon/result.h>
#include <faultmon/state.h>

#define FM_MONITOR_CAUSE_MAX 600
#define FM_MONITOR_TEXT_MAX (FM_DECIDE_REASON_MAX + FM_MONITOR_CAUSE_MAX + 128)
#define FM_MONITOR_LOGS_MAX 6

/* What the agents and `faultmon status` act on, as last written: a cycle
 * that changes none of it need not be written (see fm_monitor_cycle_done()).
 * int64_t and int32_t fields only, so that memcmp() compares values. */
struct fm_monitor_shown {
    int64_t state;
    int64_t action;
    int64_t ocf_rc;
    int64_t pending;
    int64_t weight;
    int64_t restarts_in_window;
    int64_t interval_ms;
    int64_t n_targets;
    struct fm_decide_state decide;      /* without its clocks and ok_streak */
    struct {
        int32_t cls;
        int32_t reason;
        int32_t http_status;
    } targets[FM_STATE_MAX_TARGETS];
    char reason[FM_DECIDE_REASON_MAX];
    char next_failure[FM_DECIDE_REASON_MAX];
};

/* The failure counts of the earlier loop's targets (fm_monitor_restore()),
 * for the targets of the same text and source when the first cycle names
 * them. */
struct fm_monitor_carried {
    size_t n;
    struct {
        char target[FM_STATE_TEXT_MAX];
        uint64_t failures[FM_CLASS_COMPLETE + 1];
        enum fm_state_source source;
    } targets[FM_STATE_MAX_TARGETS];
};

/* The loop's memory between cycles, beside the engine and its state. */
struct fm_monitor {
    const struct fm_decide_opts *opts;  /* the loop's; must outlive it */
    struct fm_decide *decide;
    struct fm_run_state st;             /* what the agents read */
    bool signal_pacemaker;              /* ask the cluster for recovery */
    bool verify_restart;                /* first cycle after a restart we
                                           asked for */
    bool outage_pending;                /* the pending recovery was decided
                                           for an outage still being recovered:
                                           a later report of it (httpd's exit,
                                           the monitor's, in a cluster a failed
                                           probe) is the same outage, not a new
                                           failure */
    bool recovery_reported;             /* our fail request reported it to the
                                           cluster: the monitor must not again */
    enum fm_state logged_state;         /* the state the log last told of
                                           (fm_monitor_restore() brings the
                                           earlier loop's back) */
    bool have_written;                  /* a write was asked and not failed */
    bool unwritten;                     /* st holds cycles not written yet */
    uint64_t written_us;                /* when the last write was asked */
    struct fm_monitor_shown shown;      /* as of that write */
    struct fm_history_buf history;      /* the outcomes noted for the cycle
                                           history, until the loop writes
                                           them with the state */
    struct fm_monitor_carried carried;  /* the earlier loop's counters */
};

/* One line for the log, without the resource name (the caller adds it). */
struct fm_monitor_log {
    int priority;                       /* syslog's LOG_* */
    char text[FM_MONITOR_TEXT_MAX];
};

/* What to do after an outcome, in this order. */
struct fm_monitor_out {
    bool write_state;                   /* write mon->st (the lock held) */
    bool watch;                         /* look for the watched process again */
    size_t n_logs;
    struct fm_monitor_log logs[FM_MONITOR_LOGS_MAX];
    enum fm_action request;             /* ask the cluster for it now; then
                                           fm_monitor_reported() if it
                                           reached the controller */
    bool publish;                       /* publish the reason: `cause` when
                                           there is one, and with a cluster
                                           the node attribute
                                           faultmon-RSC-reason (the log has
                                           it: a recovery is a transition) */
    char cause[FM_MONITOR_CAUSE_MAX];   /* what failed, or "" */
    char reason[FM_MONITOR_TEXT_MAX];   /* the cause and the decision */
    bool event_same;                    /* tell the agent: the same outage */
    bool transition;                    /* the state changed or a recovery
                                           was decided: logged once (at
                                           LOG_NOTICE, among logs), and the
                                           node attribute of the state */
    uint64_t next_cycle_ms;             /* after a cycle: when to start the next */
};

/* One probe cycle's outcome. */
struct fm_monitor_cycle {
    const struct fm_result *results;
    size_t n;
    const char *start_error;            /* not NULL: the cycle could not
                                           start, and why (no results) */
    uint64_t start_us;                  /* CLOCK_MONOTONIC at its start */
    uint64_t now_us;                    /* CLOCK_MONOTONIC now */
    int64_t now_wall_s;                 /* CLOCK_REALTIME now */
    const char *observer_impaired;      /* why this node's own verdict is
                                           suspect (src/monitor/observer.c);
                                           NULL: it is fine */
    const char *dependency_everywhere;  /* faultmon/decide.h's fm_decide_input */
    const char *dependency_here;
    /* The access log's share of 5xx (or slow) replies passed its
     * threshold (src/run/run_accesslog.c): a partial failure of a cycle
     * whose probes passed, with this cause; NULL: none. */
    const char *access_log;
    const char *overloaded;             /* the status page's "all 4 workers
                                           busy"; NULL: no such evidence */
};

/*!
 * \brief Set up a monitor in state up, with no history.
 *
 * \param[out] mon               the monitor
 * \param[in]  opts              validated decision options (kept by pointer)
 * \param[in]  resource          the resource name
 * \param[in]  kind              FM_KIND_APACHE or FM_KIND_HTTPMON
 * \param[in]  signal_pacemaker  whether recoveries are asked of the cluster
 * \return 0, EINVAL or ENOMEM
 */
int fm_monitor_init(struct fm_monitor *mon, const struct fm_decide_opts *opts, const char *resource,
                    const char *kind, bool signal_pacemaker);

/*! \brief Free what fm_monitor_init() allocated. */
void fm_monitor_clear(struct fm_monitor *mon);

/*!
 * \brief Bring back the history of an earlier loop's state.
 * \return 0, or EINVAL (err says why): the caller sets the file aside
 */
int fm_monitor_restore(struct fm_monitor *mon, const struct fm_run_state *old, uint64_t now_us,
                       char *err, size_t err_len);

/*!
 * \brief A probe cycle ended (or could not start).
 *
 * Its state is to be written (out->write_state) when the decision or
 * anything the agents or `faultmon status` show changed (state, action,
 * pending recovery, OCF code, reason, the engine's history, a target's
 * class, reason or HTTP status), when no write succeeded yet, or when the
 * last write is FM_RECOVERY_STATE_REFRESH_MS old or more; otherwise only the
 * cycle count, the latencies and the records (history lines) are behind in
 * the file, for at most that long plus one cycle.  Every other outcome
 * (events, resume, reset, cycles while a recovery is under way) is written.
 *
 * A cycle that could not start is a partial failure: whether the service
 * works is unknown, as when a reply does not come in time, so one such
 * cycle never causes a recovery, but a loop that cannot probe for long adds
 * up to one (and the restart starts a new loop).
 */
void fm_monitor_cycle_done(struct fm_monitor *mon, const struct fm_monitor_cycle *cycle,
                           struct fm_monitor_out *out);

/*!
 * \brief fm_monitor_cycle_done() with the cycle's results already summed up
 *        as the engine's input: what `faultmon simulate --replay` hands the
 *        monitor from the cycle history (no targets are shown then).
 *
 * \param[in] cycle  its times and observer verdict; results and n unused;
 *                   start_error not NULL for a cycle that could not start
 * \param[in] in     the engine's input (a partial failure when start_error)
 */
void fm_monitor_input_done(struct fm_monitor *mon, const struct fm_monitor_cycle *cycle,
                           const struct fm_decide_input *in, struct fm_monitor_out *out);

/*!
 * \brief A complete failure found outside a probe cycle: the watched
 *        process exited, or the agent's monitor found the service dead.
 *
 * \param[in] cause           what failed, for the log and the reason
 * \param[in] agent_answers   whether the agent's monitor reported it and
 *                            answers Pacemaker with the decision itself (no
 *                            fail request then)
 */
void fm_monitor_event(struct fm_monitor *mon, const char *cause, bool agent_answers, uint64_t now_us,
                      int64_t now_wall_s, struct fm_monitor_out *out);

/*!
 * \brief An administrator resumed a held service (`faultmon resume`).
 * \return 0, or EALREADY when it was not held (nothing to do)
 */
int fm_monitor_resume(struct fm_monitor *mon, uint64_t now_us, int64_t now_wall_s,
                      struct fm_monitor_out *out);

/*!
 * \brief Forget the history and decision (`faultmon reset`, or Pacemaker's
 *        probe after a cleanup).
 * \return 0; EBUSY when held (a reset keeps the hold); ENOMEM
 */
int fm_monitor_reset(struct fm_monitor *mon, uint64_t now_us, int64_t now_wall_s,
                     struct fm_monitor_out *out);

/*! \brief The fail request reached the controller: the cluster knows. */
void fm_monitor_reported(struct fm_monitor *mon);

/*!
 * \brief The state asked for could not be written: the next cycle writes
 *        it whatever changed.
 */
void fm_monitor_write_failed(struct fm_monitor *mon);

/*!
 * \brief The loop stops: write the cycles not written yet, if any
 *        (out->write_state), so that the file ends where the loop did.
 */
void fm_monitor_flush(struct fm_monitor *mon, uint64_t now_us, int64_t now_wall_s,
                      struct fm_monitor_out *out);

#endif
