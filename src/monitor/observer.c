/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: is the node doing the probing itself impaired?  (see
 * include/faultmon/observer.h)  A starved loop's probes time out for its
 * own sake, and a node thrashing under memory or I/O pressure answers
 * slowly to itself too: restarting or moving a healthy service on such a
 * verdict adds the outage it was meant to end.
 */
#include <config.h>

#include <faultmon/observer.h>

#include <inttypes.h>
#include <stdio.h>

bool
fm_observer_impaired(const struct fm_decide_opts *o, const struct fm_observer_ctx *ctx,
                     char *why, size_t why_len, bool *budget)
{
    enum fm_psi_resource which = FM_PSI_CPU;
    double pct = 0.0;

    if (budget != NULL) {
        *budget = false;
    }
    if (o->observer_late_ms > 0 && ctx->late_ms >= o->observer_late_ms) {
        snprintf(why, why_len, "its probe cycle started %" PRIu64 " ms late, observer_late %" PRIu64
                 " ms", ctx->late_ms, o->observer_late_ms);
        return true;
    }
    if (o->node_budget > 0 && ctx->state_root != NULL) {
        int64_t since = ctx->now_wall_s - (int64_t) (o->node_budget_window_ms / 1000u);
        unsigned others = fm_node_budget_count(ctx->state_root, ctx->resource, since,
                                               ctx->now_wall_s);

        if (others + 1 >= o->node_budget) {
            snprintf(why, why_len, "%u other resource%s of this node asked for recovery within %"
                     PRIu64 " s, node_budget %" PRIu32, others, (others == 1)? "" : "s",
                     o->node_budget_window_ms / 1000u, o->node_budget);
            if (budget != NULL) {
                *budget = true;
            }
            return true;
        }
    }
    if (o->observer_loopback && ctx->loopback_failure != NULL) {
        snprintf(why, why_len, "a connection to its own listener on 127.0.0.1 failed (%s), "
                 "observer_loopback", ctx->loopback_failure);
        return true;
    }
    if (o->observer_corosync && ctx->corosync_evidence != NULL) {
        snprintf(why, why_len, "%s, observer_corosync", ctx->corosync_evidence);
        return true;
    }
    if (o->observer_pressure_pct > 0 && fm_psi_read_max(&ctx->psi, &pct, &which) == 0
        && pct >= (double) o->observer_pressure_pct) {
        snprintf(why, why_len, "%s pressure %.1f%% over 10 s, observer_pressure %" PRIu32 "%%",
                 fm_psi_resource_name(which), pct, o->observer_pressure_pct);
        return true;
    }
    return false;
}
