/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what the state file's own files share (not for callers):
 * state.c reads and writes the file, state_metrics.c the keys of the
 * metrics.
 *
 * No .c of its name: a pure interface between the state file's files.
 */
#ifndef FAULTMON_STATE_INT_H
#define FAULTMON_STATE_INT_H

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

/* The format's version (state_format.c). */
#define FM_STATE_FORMAT_NAME "faultmon-state"
#define FM_STATE_FORMAT_MAJOR 1
#define FM_STATE_HEADER "faultmon-state 1"       /* what this version writes */

/*!
 * \brief The header a state's text is read with: FM_STATE_HEADER, or its
 *        first line when that is a later minor version of the same major.
 * \return 0 (the framing then refuses what is not a state file), or EINVAL
 *         with \p err saying which other major version the file is of
 */
int fm_state_format_header(const char *text, size_t len, char *header, size_t header_len,
                           char *err, size_t err_len);

/*! \brief Whether \p key is one of format 1's keys that are not given once
 *         (kind, d.failure, d.restart, target, record). */
bool fm_state_key_repeated(const char *key);

/*! \brief Whether \p key is named as a writer of the format names one. */
bool fm_state_key_name_valid(const char *key);

/* The sources of a state's targets, in RESOURCE/sources beside it
 * (state_sources.c): written when they change, applied after a read. */
int fm_state_sources_write(const char *dir, const struct fm_run_state *st);
void fm_state_sources_apply(const char *dir, struct fm_run_state *st);

#endif
