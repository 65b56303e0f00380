/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: internals shared by the decision engine's files (decide.c,
 * persist.c, params.c); not part of the interface.
 *
 * No .c of its name: a pure interface between the decision engine's files.
 */
#ifndef FAULTMON_DECIDE_INT_H
#define FAULTMON_DECIDE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide.h>

#define FM_DECIDE_US_PER_MS UINT64_C(1000)
#define FM_DECIDE_US_PER_S UINT64_C(1000000)

/* A ring of records, oldest at head; the records live in arrays beside it. */
struct fm_decide_ring {
    uint32_t head;
    uint32_t n;
    uint32_t cap;
};

/* Why a failed cycle was not weighed (excuse.c). */
enum fm_decide_excuse {
    FM_EXCUSE_NONE = 0,
    FM_EXCUSE_QUORUM,               /* fewer targets failed than quorum */
    FM_EXCUSE_GRACE,                /* within startup_grace */
    FM_EXCUSE_OBSERVER,             /* a recovery held: the observer is impaired */
    FM_EXCUSE_DEPENDENCY,           /* a dependency fails from every node */
    FM_EXCUSE_OVERLOAD,             /* every worker busy, within overload_grace */
};

#define FM_DECIDE_OBSERVER_WHY_MAX 96
#define FM_DECIDE_DEPENDENCY_WHY_MAX 128
#define FM_DECIDE_OVERLOAD_WHY_MAX 128

struct fm_decide {
    struct fm_decide_opts opts;
    uint64_t retry_interval_us;
    uint64_t adaptive_window_us;

    bool have_time;
    uint64_t clock_us;              /* engine time: only ever moves forward */
    uint64_t last_now_us;           /* the caller's previous now */

    bool down;
    bool held;
    uint32_t fail_streak;
    enum fm_class fail_worst;
    uint32_t ok_streak;
    uint32_t miss_streak;
    enum fm_action last_action;
    uint64_t last_action_us;

    bool have_cert;
    int64_t cert_left_s;
    size_t maintenance;             /* of the last cycle: not kept across restarts,
                                       the next cycle says it again */

    /* quorum and startup_grace (excuse.c): a failed cycle shown, not weighed */
    enum fm_decide_excuse excused;  /* of the last cycle */
    size_t excused_failed;          /* quorum: failed targets of that cycle */
    size_t excused_targets;
    bool grace_pending;             /* the next cycle opens a startup grace */
    bool grace_open;
    uint64_t grace_end_us;          /* engine time */
    /* the observer as a suspect (excuse.c): recoveries held while the node
     * doing the probing is impaired, for at most observer_hold */
    bool observer_open;             /* impaired since observer_since_us */
    uint64_t observer_since_us;     /* engine time of the first held recovery */
    uint64_t observer_last_us;      /* of the latest impaired reading */
    char observer_why[FM_DECIDE_OBSERVER_WHY_MAX];
    /* Dependency_list (excuse.c): the evidence of the last cycle */
    char dependency_why[FM_DECIDE_DEPENDENCY_WHY_MAX];
    char dependency_here[FM_DECIDE_DEPENDENCY_WHY_MAX];  /* of this cycle */
    /* overload (overload.c): failed cycles while every worker is busy,
     * since overload_since_us, until a success */
    bool overload_open;
    uint64_t overload_since_us;     /* engine time of the first such cycle */
    char overload_why[FM_DECIDE_OVERLOAD_WHY_MAX];

    struct fm_decide_ring failures;
    uint64_t failure_us[FM_DECIDE_MAX_FAILURES];
    uint8_t failure_weight[FM_DECIDE_MAX_FAILURES];

    struct fm_decide_ring restarts;
    uint64_t restart_us[FM_DECIDE_MAX_RESTARTS];

    struct fm_decide_ring samples;
    uint64_t sample_us[FM_DECIDE_MAX_SAMPLES];
    uint32_t sample_latency_us[FM_DECIDE_MAX_SAMPLES];
    uint64_t sample_sum_us;
};

/* Where the \p i-th oldest record of \p r is stored. */
static inline uint32_t
fm_decide_ring_index(const struct fm_decide_ring *r, uint32_t i)
{
    return (r->head + i) % r->cap;
}

/* Make room at the tail, dropping the oldest record when full; returns
 * where the new record goes. */
static inline uint32_t
fm_decide_ring_push(struct fm_decide_ring *r)
{
    if (r->n == r->cap) {
        r->head = (r->head + 1) % r->cap;
        r->n--;
    }
    r->n++;
    return fm_decide_ring_index(r, r->n - 1);
}

/* Drop the oldest record. */
static inline void
fm_decide_ring_pop(struct fm_decide_ring *r)
{
    r->head = (r->head + 1) % r->cap;
    r->n--;
}

/* Inside the window: age <= window.  Records are never later than now. */
static inline bool
fm_decide_in_window(uint64_t now_us, uint64_t t_us, uint64_t window_us)
{
    return (now_us - t_us) <= window_us;
}

/*!
 * \brief Whether a recovery due now is held back because the observer is
 *        impaired (and for how long it may still be); sets d->excused.
 */
bool fm_decide_observer_holds(struct fm_decide *d, uint64_t t, const struct fm_decide_input *in);

/*!
 * \brief Forget all history and state, keeping the options (for a new
 *        engine, and before an import).
 */
void fm_decide_reset(struct fm_decide *d);

/*!
 * \brief Format a duration in the parameters' words: "300 s" for whole
 *        seconds, else "1500 ms".
 * \return \p buf
 */
const char *fm_decide_fmt_duration(char *buf, size_t len, uint64_t ms);

/*! \return "complete failure", "partial failure" or "ok", for reasons */
const char *fm_decide_class_text(enum fm_class cls);

/*!
 * \brief Judge one latency against the mean of the samples before it, then
 *        add it to them (adaptive.c).
 *
 * \param[in,out] d           engine
 * \param[in]     t           engine time of the cycle
 * \param[in]     latency_us  the cycle's latency
 * \param[out]    out         gets the mean it was judged against, if any
 * \param[out]    why         on a miss, one line saying by how much
 * \param[in]     why_len     size of \p why
 * \return true when this miss completes adaptive_misses in a row
 */
bool fm_decide_adaptive_step(struct fm_decide *d, uint64_t t, uint64_t latency_us,
                             struct fm_decision *out, char *why, size_t why_len);

/*! \brief Drop the latency samples older than adaptive_window at \p t. */
void fm_decide_adaptive_prune(struct fm_decide *d, uint64_t t);

/* excuse.c: quorum and startup grace */

/*! \brief Whether this cycle's failure is excused (shown, not weighed);
 *         sets d->excused, opens and closes the grace. */
bool fm_decide_excuse(struct fm_decide *d, uint64_t t, const struct fm_decide_input *in);
/*! \brief Whether a failed cycle is excused as overload (overload.c);
 *         sets d->excused.  \p in->cls is not ok. */
bool fm_decide_overload_excuses(struct fm_decide *d, uint64_t t, const struct fm_decide_input *in);
/*! \brief A successful cycle: the overload episode, if any, is over. */
void fm_decide_overload_ok(struct fm_decide *d);
/*! \brief Add the overload excuse's reason to \p buf. */
void fm_decide_overload_reason(const struct fm_decide *d, uint64_t t, char *buf, size_t len);
/*! \brief Add why the last cycle was excused to \p buf (nothing if it was not). */
void fm_decide_excuse_reason(const struct fm_decide *d, uint64_t t, char *buf, size_t len);

#endif
