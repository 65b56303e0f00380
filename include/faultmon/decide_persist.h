/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the decision engine's history as plain numbers, for the loop to
 * persist in its state file and to hand back after a restart.
 *
 * No .c of its name: the interface of src/decide/persist.c.
 */
#ifndef FAULTMON_DECIDE_PERSIST_H
#define FAULTMON_DECIDE_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide.h>

/* How far in the future an imported state may lie (clock skew, a clock step
 * between writing and reading the file); beyond it the state is rejected. */
#define FM_DECIDE_IMPORT_SLACK_US (UINT64_C(60) * 1000000)

/*
 * Signed fields so that a reader can hand over whatever a file said,
 * negative values included, and let fm_decide_import() judge it.  Times are
 * engine time (see fm_decide_cycle()); records are oldest first.  Latency
 * samples are not kept: the mean rebuilds itself within adaptive_window.
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

#endif
