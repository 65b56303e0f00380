/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon probe: what it prints (src/cmd/cmd_probe_out.c): the column header,
 * a line per target and the verdict of each cycle, as text or JSON, and the
 * summary of a --count run, like ping's.
 */
#ifndef FAULTMON_CMD_PROBE_OUT_H
#define FAULTMON_CMD_PROBE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/probe.h>
#include <faultmon/probe_opts.h>
#include <faultmon/target.h>

/* The cycles of a run so far, for the summary. */
struct probe_tally {
    uint64_t sent;                  /* cycles run to their verdict */
    uint64_t verdicts[3];           /* by class: ok, partial, complete */
    uint64_t min_us;
    uint64_t max_us;
    uint64_t sum_us;
};

/*! \brief The width of the target column: the longest target's text. */
size_t fm_probe_out_width(const struct fm_target *targets, size_t n);

/*! \brief The column header of the text output (one line). */
void fm_probe_out_header(size_t width);

/*! \brief One cycle as text: a line per target (unless quiet), its verdict. */
void fm_probe_out_text(const struct fm_probe_run *run, size_t width, uint64_t elapsed_us,
                       bool quiet);

/*!
 * \brief One cycle as one JSON object: its time (UTC), number, verdict and
 *        counts, and each target's result with its own time; null for a
 *        status or certificate the probe never saw.
 */
void fm_probe_out_json(const struct fm_probe_run *run, const struct fm_probe_opts *opts,
                       uint64_t cycle, uint64_t wall_us, uint64_t elapsed_us);

/*! \brief Count a cycle's verdict and time. */
void fm_probe_out_count(struct probe_tally *t, enum fm_class verdict, uint64_t elapsed_us);

/*! \brief The summary: cycles sent, their verdicts, min/avg/max time. */
void fm_probe_out_summary(const struct probe_tally *t, bool json);

#endif
