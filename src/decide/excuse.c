/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: failed cycles that are shown but not weighed (libfmdecide).
 *
 * Two judgements within one node, each off by default:
 *  - quorum (keepalived's quorum, Envoy's panic threshold): with several
 *    targets, a cycle is a failure only when at least quorum of them failed;
 *    one virtual host out of ten is degraded, not a restart.  A quorum above
 *    the number of targets means all of them, so that a target list shorter
 *    than the setting can never hold a dead service up.
 *  - startup_grace (Kubernetes' startupProbe, F5's time-until-up): after a
 *    start or a restart, failures are shown but not weighed, so that an
 *    application that answers 503 while it warms up is not restarted in a
 *    loop; the grace ends at the first success, and at its end at the
 *    latest: a service that never comes up is judged as before, late by at
 *    most the grace.
 * An excused cycle adds no weight and moves no streak; the state is
 * degraded and the reason says why.
 *
 * And Dependency_list's (off unless the caller passes the views): a
 * dependency failing from every node that reports it makes failed cycles
 * shown, not weighed, for as long as it lasts, since no restart and no
 * failover can help (a failover storm would only add outages).
 *
 * And overload's (overload.c): a failed cycle while the server's own
 * status page says every worker is busy, for at most overload_grace.
 *
 * And one on the observer (off by default: with neither observer_pressure
 * nor observer_late set, no caller says it is impaired): a recovery due
 * while the node doing the probing is itself impaired (under pressure, or
 * so starved that its cycle started late) is held, the failure recorded
 * but not acted on, since the verdict may be the node's and not the
 * service's.  For at most observer_hold from the first held recovery of an
 * impairment, so that a sick node cannot hold a dead service forever.  The
 * episode ends only when a whole observer_hold passes with no impaired
 * reading: neither a cycle that passed (the observer is read only when a
 * cycle fails) nor a reading just under the threshold may start the hold
 * afresh, or a service that answers now and then, or a node whose pressure
 * hovers at observer_pressure, would be held for ever.
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decide_int.h"

#define US_PER_MS UINT64_C(1000)

bool
fm_decide_excuse(struct fm_decide *d, uint64_t t, const struct fm_decide_input *in)
{
    const struct fm_decide_opts *o = &d->opts;
    size_t need = o->quorum;

    d->excused = FM_EXCUSE_NONE;
    if (d->grace_pending) {
        d->grace_pending = false;
        d->grace_open = o->startup_grace_ms > 0;
        d->grace_end_us = t + o->startup_grace_ms * US_PER_MS;
    }
    if (in->cls == FM_CLASS_OK) {
        d->grace_open = false;      /* it is up: the grace has done its work */
        fm_decide_overload_ok(d);
        return false;
    }
    if (in->dependency_everywhere != NULL && in->dependency_everywhere[0] != '\0') {
        /* Neither a restart nor another node can help: hold while it lasts;
         * the first cycle with the dependency back is judged by the rules. */
        snprintf(d->dependency_why, sizeof(d->dependency_why), "%s", in->dependency_everywhere);
        d->excused = FM_EXCUSE_DEPENDENCY;
        return true;
    }
    if (d->grace_open && t < d->grace_end_us) {
        d->excused = FM_EXCUSE_GRACE;
        return true;
    }
    d->grace_open = false;
    if (need > in->n_targets) {
        need = in->n_targets;
    }
    if (need > 1 && in->n_failed < need) {
        d->excused = FM_EXCUSE_QUORUM;
        d->excused_failed = in->n_failed;
        d->excused_targets = in->n_targets;
        return true;
    }
    return fm_decide_overload_excuses(d, t, in);
}

bool
fm_decide_observer_holds(struct fm_decide *d, uint64_t t, const struct fm_decide_input *in)
{
    const char *why = (in != NULL)? in->observer_impaired : NULL;
    uint64_t hold_us = d->opts.observer_hold_ms * US_PER_MS;

    if (why == NULL || why[0] == '\0') {
        return false;
    }
    if (!d->observer_open || t - d->observer_last_us >= hold_us) {
        d->observer_open = true;    /* a new episode */
        d->observer_since_us = t;
    }
    d->observer_last_us = t;
    snprintf(d->observer_why, sizeof(d->observer_why), "%s", why);
    if (t - d->observer_since_us >= hold_us) {
        return false;       /* held long enough: the rules apply */
    }
    d->excused = FM_EXCUSE_OBSERVER;
    return true;
}

void
fm_decide_excuse_reason(const struct fm_decide *d, uint64_t t, char *buf, size_t len)
{
    size_t used = strlen(buf);
    const char *sep = (used > 0)? "; " : "";

    if (used + 1 >= len) {
        return;
    }
    switch (d->excused) {
        case FM_EXCUSE_QUORUM:
            snprintf(buf + used, len - used,
                     "%s%zu of %zu targets failing, below quorum %" PRIu32 ": not counted", sep,
                     d->excused_failed, d->excused_targets, d->opts.quorum);
            break;
        case FM_EXCUSE_GRACE:
            snprintf(buf + used, len - used,
                     "%sfailure within startup_grace (%" PRIu64 " ms left): not counted", sep,
                     (d->grace_end_us > t)? (d->grace_end_us - t) / US_PER_MS : 0);
            break;
        case FM_EXCUSE_OBSERVER: {
            uint64_t held_ms = (d->clock_us - d->observer_since_us) / US_PER_MS;
            uint64_t hold_ms = d->opts.observer_hold_ms;

            snprintf(buf + used, len - used,
                     "%sthis node is impaired (%s): recovery held, %" PRIu64 " s of observer_hold"
                     " left", sep, d->observer_why,
                     (hold_ms > held_ms)? (hold_ms - held_ms + 999) / 1000 : 0);
            break;
        }
        case FM_EXCUSE_DEPENDENCY:
            snprintf(buf + used, len - used, "%s%s: holding", sep, d->dependency_why);
            break;
        case FM_EXCUSE_OVERLOAD:
            fm_decide_overload_reason(d, t, buf, len);
            break;
        case FM_EXCUSE_NONE:
            break;
    }
}
