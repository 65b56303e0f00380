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
 */
#ifndef FAULTMON_DECIDE_H
#define FAULTMON_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <crm/common/results.h>     /* enum ocf_exitcode */

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

/* How far in the future an imported state may lie (clock skew, a clock step
 * between writing and reading the file); beyond it the state is rejected. */
#define FM_DECIDE_IMPORT_SLACK_US (UINT64_C(60) * 1000000)

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

/*
 * Parameters, parsed by fm_decide_opts_set() from the agent-style names in
 * the comments (see fm_decide_params() for defaults and one-line help).
 */
struct fm_decide_opts {
    uint32_t retry_count;           /* Retry_count: restarts before a failover */
    uint64_t retry_interval_ms;     /* Retry_interval: the window */
    uint64_t interval_up_ms;        /* Thorough_probe_interval */
    uint64_t interval_down_ms;      /* down_interval; 0: Thorough_probe_interval */
    uint64_t interval_flapping_ms;  /* flapping_interval; 0: Thorough_probe_interval */
    uint64_t probe_timeout_ms;      /* Probe_timeout (only checked against the others) */
    uint32_t rise;                  /* successes before a down service is up */
    uint32_t fall;                  /* consecutive failed cycles that make one failure */
    bool manual_resume;             /* once down, held until resumed */
    bool report_degraded;           /* answer degraded (190) when not up; else 0 */
    int adaptive;                   /* -1: on if a limit is set; 0 off; 1 on */
    uint64_t adaptive_limit_ms;     /* absolute limit over the mean; 0 off */
    uint32_t adaptive_limit_pct;    /* relative limit in percent; 0 off */
    uint64_t adaptive_window_ms;    /* how much latency history makes the mean */
    uint32_t adaptive_misses;       /* consecutive misses that make one failure */
    uint32_t cert_warn_days;        /* degraded when the cert expires sooner; 0 off */
    bool publish_only;              /* not a parameter: set for a loop whose
                                       agent only publishes the verdict
                                       (httpmon); a recovery marks the service
                                       unhealthy, counts no restart, never
                                       fails over, and the reasons say so */
};

/* One parameter, for help texts and agent meta-data. */
struct fm_decide_param {
    const char *name;               /* as in OCF_RESKEY_<name> */
    const char *ocf_type;           /* content type for agent meta-data:
                                       "integer", "boolean" or "string" */
    const char *default_text;
    const char *help;               /* one line */
};

/*!
 * \brief The parameters fm_decide_opts_set() knows, in documentation order.
 *
 * \param[out] n  how many
 * \return a static table
 */
const struct fm_decide_param *fm_decide_params(size_t *n);

/*! \brief Fill \p o with the defaults (plain Sun behaviour). */
void fm_decide_opts_init(struct fm_decide_opts *o);

/*!
 * \brief Set one parameter from its agent-style name and text value.
 *
 * Names match case-insensitively and '-' stands for '_', so that
 * "Retry_count", "retry_count" and "retry-count" are the same parameter.
 * Durations are a whole number with an optional unit: "300", "300s", "5m",
 * "500ms", "1h"; a bare number is seconds, except for adaptive_limit_ms where
 * it is milliseconds.  Booleans: true/false, yes/no, on/off, 1/0.
 *
 * \param[in,out] o        options to change
 * \param[in]     name     parameter name
 * \param[in]     value    its text
 * \param[out]    err      on failure, one line naming the parameter and value
 * \param[in]     err_len  size of \p err
 * \return 0, ENOENT for a name this module does not know (the caller may try
 *         its own parameters), EINVAL for a bad value
 */
int fm_decide_opts_set(struct fm_decide_opts *o, const char *name,
                       const char *value, char *err, size_t err_len);

/*!
 * \brief Check the parameters against each other.
 *
 * \param[in]  o         options
 * \param[out] err       on failure, why, in one line
 * \param[in]  err_len   size of \p err
 * \param[out] warn      on success, empty or a one-line warning about a
 *                       setting that works but probably not as meant
 *                       (may be NULL)
 * \param[in]  warn_len  size of \p warn
 * \return 0 or EINVAL
 */
int fm_decide_opts_validate(const struct fm_decide_opts *o, char *err,
                            size_t err_len, char *warn, size_t warn_len);

/*! \return whether adaptive response time is in effect for \p o */
bool fm_decide_opts_adaptive(const struct fm_decide_opts *o);

/* One probe cycle's outcome. */
struct fm_decide_input {
    enum fm_class cls;              /* worst class of the cycle */
    bool have_latency;
    uint64_t latency_us;            /* cycle latency (adaptive response time) */
    bool have_cert;
    int64_t cert_left_s;            /* peer certificate: seconds to expiry, < 0 expired */
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

/*
 * The engine's history as plain numbers, for the loop to persist.  Signed
 * fields so that a reader can hand over whatever a file said, negative
 * values included, and let fm_decide_import() judge it.  Times are engine
 * time (see fm_decide_cycle()); records are oldest first.  Latency samples
 * are not kept: the mean rebuilds itself within adaptive_window.
 */
#define FM_DECIDE_STATE_VERSION 1

struct fm_decide_state {
    int64_t version;                /* FM_DECIDE_STATE_VERSION */
    int64_t have_time;              /* 0 before the first cycle, then 1 */
    int64_t clock_us;               /* engine time of the last input */
    int64_t last_now_us;            /* the caller's now of the last input */
    int64_t down;                   /* 0 or 1 */
    int64_t held;                   /* 0 or 1; 1 needs down */
    int64_t fail_streak;
    int64_t fail_worst;             /* enum fm_class of the worst failure in it */
    int64_t ok_streak;
    int64_t miss_streak;
    int64_t last_action;            /* enum fm_action of the last recovery */
    int64_t last_action_us;         /* its engine time; 0 if none */
    int64_t n_failures;
    int64_t failure_us[FM_DECIDE_MAX_FAILURES];
    int64_t failure_weight[FM_DECIDE_MAX_FAILURES];
    int64_t n_restarts;
    int64_t restart_us[FM_DECIDE_MAX_RESTARTS];
};

/*! \brief Copy the engine's history into \p s. */
void fm_decide_export(const struct fm_decide *d, struct fm_decide_state *s);

/*!
 * \brief Replace the engine's history with \p s after checking all of it.
 *
 * Rejects a wrong version, counts or streaks out of range, negative or
 * out-of-order times, records later than the engine time, weights that are
 * not 50 or 100 or that add up to 100 or more (the engine would already have
 * asked for recovery), enums out of range, held without down, and a state
 * whose last input lies more than FM_DECIDE_IMPORT_SLACK_US after \p now_us
 * (written under another boot's monotonic clock, or nonsense).  On rejection
 * the engine is unchanged.  When manual_resume is now off, a held state is
 * imported as down.
 *
 * \param[in,out] d        engine
 * \param[in]     s        state read back
 * \param[in]     now_us   the caller's clock now
 * \param[out]    err      on failure, which field is wrong, in one line
 * \param[in]     err_len  size of \p err
 * \return 0 or EINVAL
 */
int fm_decide_import(struct fm_decide *d, const struct fm_decide_state *s,
                     uint64_t now_us, char *err, size_t err_len);

/*!
 * \brief The OCF exit code that tells Pacemaker about \p dec.
 *
 * restart: 1, failover: 4, degraded: 190, none: 0.  See decide.c for why.
 */
enum ocf_exitcode fm_decide_ocf_rc(const struct fm_decision *dec);

const char *fm_action_name(enum fm_action action);

/*!
 * \brief The action as the administrator should read it: "unhealthy" for a
 *        restart or failover of a loop that only publishes its verdict
 *        (httpmon restarts nothing), else fm_action_name().
 */
const char *fm_action_word(enum fm_action action, bool publish_only);
const char *fm_state_name(enum fm_state state);

/*!
 * \brief `faultmon simulate`: run a timeline from stdin through the engine.
 *
 * \param[in] argc  argument count, argv[0] being "simulate"
 * \param[in] argv  arguments
 * \return 0, or 64 (FM_EXIT_USAGE) on bad usage or a malformed line
 */
int fm_cmd_simulate(int argc, char **argv);

#endif
