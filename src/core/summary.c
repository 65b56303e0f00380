/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the summary of one probe cycle (see faultmon/summary.h).
 *
 * The loop feeds it to the decision engine and the agent's fresh probe
 * reports its worst result: one definition of "worst", "slowest" and
 * "expires first" for both.
 */
#include <config.h>

#include <faultmon/summary.h>
#include <faultmon/target.h>

void
fm_cycle_summarize(const struct fm_result *results, size_t n, int64_t now_wall_s,
                   struct fm_cycle_summary *sum)
{
    *sum = (struct fm_cycle_summary) {
        .worst = FM_CLASS_OK, .worst_index = n, .maintenance_index = n,
    };
    for (size_t i = 0; i < n; i++) {
        const struct fm_result *r = &results[i];
        enum fm_class cls = fm_result_class(r);

        if (r->target != NULL && r->target->dependency) {
            continue;
        }
        sum->n_service++;
        if (cls != FM_CLASS_OK) {
            sum->n_failed++;
        }
        if (cls > sum->worst) {
            sum->worst = cls;
            sum->worst_index = i;
        }
        if (r->reason == FM_REASON_MAINTENANCE && sum->n_maintenance++ == 0) {
            sum->maintenance_index = i;
        }
        if (r->latency_us > sum->max_latency_us) {
            sum->max_latency_us = r->latency_us;
        }
        if (r->cert_not_after != 0
            && (!sum->have_cert || r->cert_not_after - now_wall_s < sum->cert_left_s)) {
            sum->have_cert = true;
            sum->cert_left_s = r->cert_not_after - now_wall_s;
        }
    }
}
