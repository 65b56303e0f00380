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
        return false;
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
    return false;
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
        case FM_EXCUSE_NONE:
            break;
    }
}
