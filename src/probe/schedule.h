/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the spread schedule of a probe cycle (libc only, not installed).
 *
 * In spread mode the probes of one interval do not all start at once: target
 * i of n starts at i * interval / n plus a jitter below a tenth of its slot,
 * seeded per node, so that clones on many nodes never probe a backend in
 * lockstep while one node keeps the same phase from cycle to cycle.  Offsets
 * are whole milliseconds and depend only on the sweep's start, never on how
 * long an earlier probe took.  The jitter stays below the slot, so start
 * times grow with the index and "the next to start" is one cursor.
 *
 * A wake-up costs more than a probe on a busy machine, so a wake-up for one
 * start also starts the targets due within FM_SPREAD_BATCH_MS after it: at
 * most FM_SPREAD_BATCH_MS early, one wake-up per 20 ms when slots are
 * shorter (200 targets a second: four at a time), and nothing changes when
 * slots are longer (each target has its wake-up, at its jittered time).
 */
#ifndef FAULTMON_PROBE_SCHEDULE_H
#define FAULTMON_PROBE_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

/*! The jitter of a start is below 1/FM_SPREAD_JITTER_DIV of its slot. */
#define FM_SPREAD_JITTER_DIV 10
/*! A wake-up starts the targets due up to this much later too. */
#define FM_SPREAD_BATCH_MS 20

/*! One sweep over the targets of a cycle. */
struct fm_spread {
    uint64_t begin_us;      /* monotonic start of the sweep */
    uint64_t window_ms;     /* the interval the starts spread over */
    uint64_t seed;          /* per node (fm_spread_seed()) */
    size_t n;               /* targets */
    size_t next;            /* first target not started yet */
};

/*! \brief A node's seed: a hash of its name (stable on one node). */
uint64_t fm_spread_seed(const char *node);

/*!
 * \brief Offset of target \p i of \p n from the sweep's start: its slot's
 *        start, i * window / n, plus a jitter in [0, slot / 10).
 */
uint64_t fm_spread_offset_ms(size_t i, size_t n, uint64_t window_ms, uint64_t seed);

/*! \brief Begin a sweep of \p n targets at \p now_us; none started yet. */
void fm_spread_begin(struct fm_spread *sp, size_t n, uint64_t window_ms, uint64_t seed,
                     uint64_t now_us);

/*! \brief When target \p i is due (monotonic microseconds). */
uint64_t fm_spread_start_us(const struct fm_spread *sp, size_t i);

/*!
 * \brief Take the targets due at \p now_us: every target from sp->next on
 *        whose start has come or comes within FM_SPREAD_BATCH_MS.
 * \return the new cursor: targets [old sp->next, returned) start now
 */
size_t fm_spread_take_due(struct fm_spread *sp, uint64_t now_us);

/*! \brief Milliseconds until the next start (0: due now), -1 when all started. */
int fm_spread_wait_ms(const struct fm_spread *sp, uint64_t now_us);

#endif
