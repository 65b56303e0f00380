/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FROZEN: a copy of src/core/state_int.h at 391a9ef (tests/unit/compat/state_v1_names.h).
 * faultmon: what the state file's own files share (not for callers):
 * state.c reads and writes the file, state_metrics.c the keys of the
 * metrics.
 */
#ifndef FAULTMON_STATE_V1_INT_H
#define FAULTMON_STATE_V1_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <faultmon/state.h>

/* Which of the metrics' keys a parse has seen: each at most once, a
 * target's for the target line they follow. */
struct fm_state_metrics_parse {
    size_t target;          /* st->n_targets when `seen` was cleared */
    unsigned int seen;      /* bit per key of that target */
    bool decisions;
};

/*!
 * \brief Split \p value into exactly \p n fields separated by single
 *        spaces; the last one takes the rest of the line when \p rest.
 */
bool fm_state_split_fields(char *value, char **fields, size_t n, bool rest);

/*! \brief The resource's metrics keys (after the decision history). */
void fm_state_metrics_write(FILE *out, const struct fm_run_state *st);

/*! \brief A target's metrics keys, right after its target line. */
void fm_state_metrics_write_target(FILE *out, const struct fm_state_target *t);

/*!
 * \brief One line, if its key is one of the metrics'.
 * \param[out] ours  whether it is
 * \return NULL when it is not ours or parsed; else why it is refused
 */
const char *fm_state_metrics_entry(const char *key, char *value, struct fm_run_state *st,
                                   struct fm_state_metrics_parse *mp, bool *ours);

/*!
 * \brief The targets and records of a state read whole: as many targets as
 *        cycles say, each one's class, reason and status in agreement.
 * \return 0, or EINVAL with \p err saying which is wrong
 */
int fm_state_validate_targets(const struct fm_run_state *st, char *err, size_t err_len);

#endif
