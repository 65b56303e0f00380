/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the summary of one probe cycle.
 *
 * What the decision engine and the agents need from a cycle's results, in
 * one place: the worst class (the cycle's verdict) and which result gave it,
 * the highest latency, and the earliest certificate expiry.  Time is passed
 * in, so that tests can use pretend clocks.
 */
#ifndef FAULTMON_SUMMARY_H
#define FAULTMON_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/result.h>

struct fm_cycle_summary {
    enum fm_class worst;            /* the cycle's verdict: the worst class */
    size_t worst_index;             /* the first result of that class; the
                                       number of results when all are ok */
    uint64_t max_latency_us;        /* the slowest probe, failed ones too */
    bool have_cert;                 /* some probe saw a peer certificate */
    int64_t cert_left_s;            /* the earliest expiry, seconds from now
                                       (negative: expired) */
    size_t n_maintenance;           /* results that signal maintenance */
    size_t n_failed;                /* results that are not ok (quorum) */
    size_t n_service;               /* results of the service's own targets */
    size_t maintenance_index;       /* the first of them; n when none */
};

/*!
 * \brief Summarise one cycle's results: those of the service's own targets;
 *        a dependency's (Dependency_list) are judged apart and left out.
 *
 * \param[in]  results     the cycle's results
 * \param[in]  n           their number (0: an empty, ok summary)
 * \param[in]  now_wall_s  CLOCK_REALTIME now, in seconds (certificates
 *                         expire in wall-clock time)
 * \param[out] sum         the summary
 */
void fm_cycle_summarize(const struct fm_result *results, size_t n, int64_t now_wall_s,
                        struct fm_cycle_summary *sum);

#endif
