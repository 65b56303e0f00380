/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the decision engine.
 *
 * Turns probe-cycle outcomes into recovery decisions, following the Sun
 * Cluster fault monitor: a complete failure weighs 100, a partial one 50;
 * failures older than Retry_interval are forgotten; when the weight within
 * Retry_interval reaches 100 the engine asks for recovery and starts again
 * from zero; recovery is a restart unless the restarts already asked for
 * within Retry_interval have reached Retry_count, in which case it is a
 * failover.  On top of that, each with a default that keeps the plain Sun
 * behaviour: rise/fall hysteresis, a probe interval per state, manual
 * resume, adaptive response time (F5), and a degraded state.
 *
 * The engine is pure logic: it never reads a clock, does no I/O and does not
 * allocate after fm_decide_new().  Time comes in as a parameter, in
 * microseconds of any clock that normally moves forward (the loop passes
 * CLOCK_MONOTONIC); see fm_decide_cycle() for what happens when it does not.
 *
 * The window rule, precisely: a record made at engine time T is inside the
 * window at time NOW while NOW - T <= Retry_interval, and forgotten once
 * NOW - T > Retry_interval.  A failure exactly Retry_interval old still counts.
 *
 * The parameters are in decide_params.h, the history as plain numbers for
 * the state file in decide_persist.h, and the OCF exit code that tells
 * Pacemaker about a decision in the Pacemaker layer (ocf_rc.h): the engine
 * knows nothing of Pacemaker.
 */
#ifndef FAULTMON_DECIDE_H
#define FAULTMON_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide_params.h> /* struct fm_decide_opts */
#include <faultmon/result.h>        /* enum fm_class */

/*
 * Fixed capacities.  At each cap the oldest record is dropped first; none of
 * them can make the engine ask for more recovery than without the cap:
 * - failures: the weights kept never add up to 100 (reaching 100 clears
 *   them), so with weights of 50 and 100 at most one record is ever kept; a
 *   dropped record only lowers the weight.
 * - restarts: Retry_count is at most FM_DECIDE_MAX_RESTARTS, and once that
 *   many restarts are inside the window the engine fails over instead of
 *   restarting, so the ring never overflows.
 * - latency samples (adaptive response time): the mean covers the newest
 *   FM_DECIDE_MAX_SAMPLES samples inside adaptive_window (enough for a 5
 *   minute window at one probe a second).
 */
#define FM_DECIDE_MAX_FAILURES 64
#define FM_DECIDE_MAX_RESTARTS 64
#define FM_DECIDE_MAX_SAMPLES 320

#define FM_DECIDE_WEIGHT_COMPLETE 100
#define FM_DECIDE_WEIGHT_PARTIAL 50
#define FM_DECIDE_THRESHOLD 100     /* weight that asks for recovery */

/* Samples needed in the window before a latency can be judged a miss. */
#define FM_DECIDE_ADAPTIVE_MIN_SAMPLES 3

/* What the caller should do after a cycle. */
enum fm_action {
    FM_ACTION_NONE = 0,     /* healthy: nothing to do (OCF 0) */
    FM_ACTION_RESTART,      /* restart in place; set on the deciding cycle only */
    FM_ACTION_FAILOVER,     /* move away; set on the deciding cycle only */
    FM_ACTION_DEGRADED,     /* state not up, no recovery: report it (OCF 190);
                               never with report_degraded off */
};

enum fm_state {
    FM_STATE_UP = 0,
    FM_STATE_DEGRADED,      /* partial weight in the window, latency misses, cert */
    FM_STATE_DOWN,          /* recovery asked; fewer than rise successes since */
    FM_STATE_FLAPPING,      /* between up and down: 0 < failures < fall, or
                               0 < successes < rise after a recovery */
    FM_STATE_HELD,          /* manual_resume: every recovery is a failover,
                               and the state stays held (never up) until
                               fm_decide_resume() */
};

/* One probe cycle's outcome. */
struct fm_decide_input {
    enum fm_class cls;              /* worst class of the cycle */
    bool have_latency;
    uint64_t latency_us;            /* cycle latency (adaptive response time) */
    bool have_cert;
    int64_t cert_left_s;            /* peer certificate: seconds to expiry, < 0 expired */
    size_t maintenance;             /* targets that signal maintenance (degraded) */
    size_t n_targets;               /* the cycle's targets (0: unknown, no quorum) */
    size_t n_failed;                /* of which failed */
    /* The evidence that the node doing the probing is itself impaired
     * (pressure, a late cycle), from the caller; NULL or "": it is fine. */
    const char *observer_impaired;
    /* A dependency (Dependency_list) failing from every node that reports
     * it ("tcp://db:5432 down from all 3 nodes"): recovery cannot help, a
     * failed cycle is shown, not weighed; or failing from this node only
     * while another sees it up: a recovery due fails over at once.  From
     * the caller; NULL or "": neither. */
    const char *dependency_everywhere;
    const char *dependency_here;
    /* The server's own status page, read after this failed cycle within
     * its deadline, says every worker is busy ("all 150 workers busy"):
     * overloaded, not hung; the failure is shown, not weighed, for at most
     * overload_grace.  From the caller; NULL or "": no such evidence. */
    const char *overloaded;
};

#define FM_DECIDE_REASON_MAX 256

/* What the engine decided, and the numbers behind it. */
struct fm_decision {
    enum fm_action action;
    enum fm_state state;
    uint64_t interval_ms;           /* until the next probe, by state */
    uint32_t weight;                /* in the window, with this cycle's failure,
                                       before a recovery resets it */
    uint32_t restarts_in_window;    /* restarts asked within Retry_interval,
                                       including one asked now */
    uint32_t fail_streak;           /* failed cycles towards fall */
    uint32_t ok_streak;             /* consecutive successful cycles */
    uint32_t miss_streak;           /* consecutive latency misses */
    bool have_mean;
    uint64_t mean_latency_us;       /* mean the last latency was judged against */
    bool clock_stepped_back;        /* now was earlier than the previous now */
    char reason[FM_DECIDE_REASON_MAX];  /* one line; the first 128 bytes, the
                                           most Pacemaker keeps, say the most */
};

struct fm_decide;

/*!
 * \brief Create an engine.
 *
 * \param[in]  o    validated options; copied
 * \param[out] out  the engine, in state up with no history
 * \return 0, EINVAL if \p o does not validate, or ENOMEM
 */
int fm_decide_new(const struct fm_decide_opts *o, struct fm_decide **out);

/*! \brief Free an engine from fm_decide_new() (NULL is fine). */
void fm_decide_free(struct fm_decide *d);

/*!
 * \brief Feed one probe cycle's outcome.
 *
 * Time steps: the engine keeps its own clock, which advances by the
 * difference between successive \p now_us values when that is positive and
 * by nothing when \p now_us goes backwards.  A step back therefore neither
 * forgets history nor keeps it in the window for longer than the time that
 * really passes afterwards (no false failover from a frozen window); a step
 * forward ages history by the step, which can only make the engine forget
 * failures and restarts, never ask for more recovery.
 *
 * \param[in,out] d       engine
 * \param[in]     now_us  when the cycle ended
 * \param[in]     in      the outcome
 * \param[out]    out     the decision
 */
void fm_decide_cycle(struct fm_decide *d, uint64_t now_us,
                     const struct fm_decide_input *in, struct fm_decision *out);

/*!
 * \brief Report that a restart did not bring the service back: fail over.
 *
 * \param[in,out] d       engine
 * \param[in]     now_us  when the restart was found to have failed
 * \param[out]    out     the decision (always FM_ACTION_FAILOVER)
 */
void fm_decide_restart_failed(struct fm_decide *d, uint64_t now_us,
                              struct fm_decision *out);

/*!
 * \brief An administrator puts a held service back in service.
 *
 * Clears the hold, the failure weight and the streaks; restarts asked stay
 * counted until they leave the window, so that Retry_count stays true.
 *
 * \param[in,out] d       engine
 * \param[in]     now_us  now
 * \param[out]    out     the state afterwards
 * \return 0, or EALREADY when the engine was not held (nothing changes)
 */
int fm_decide_resume(struct fm_decide *d, uint64_t now_us,
                     struct fm_decision *out);

/*!
 * \brief The current state, weight and restarts as of \p now_us, for status.
 *
 * Does not change the engine; the action is none or degraded.
 */
void fm_decide_status(const struct fm_decide *d, uint64_t now_us,
                      struct fm_decision *out);

/*!
 * \brief What a failed cycle of class \p cls at \p now_us would cause.
 *
 * Does not change the engine ("what the next failure would cause").
 */
void fm_decide_preview(const struct fm_decide *d, uint64_t now_us,
                       enum fm_class cls, struct fm_decision *out);

/*! \return the action's name, as the state file and logs spell it ("none",
 *          "restart", "failover", "degraded") */
const char *fm_action_name(enum fm_action action);

/*!
 * \brief The action as the administrator should read it: "unhealthy" for a
 *        restart or failover of a loop that only publishes its verdict
 *        (httpmon restarts nothing), else fm_action_name().
 */
const char *fm_action_word(enum fm_action action, bool publish_only);

/*! \return the state's name ("up", "degraded", "down", "flapping", "held") */
const char *fm_state_name(enum fm_state state);

#endif
