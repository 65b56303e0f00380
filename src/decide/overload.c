/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: overload is not a hang (libfmdecide).
 *
 * Restarting a server that is slow because every worker is busy serving
 * real traffic drops the work in flight and does not help; restarting one
 * that is hung does.  When a cycle fails and the caller read the server's
 * own status page within the cycle's deadline and it says every worker is
 * busy (in->overloaded), the failure is shown, not weighed: degraded, with
 * the page's words.  A SIGSTOPped or deadlocked server does not answer its
 * status page either, so without that answer there is no excuse.
 *
 * For at most overload_grace from the first such cycle: a server stuck
 * busy is as broken as a hung one, and after the grace the normal rules
 * judge it.  The episode ends only at a successful cycle (the server
 * answered in time again), not at a failed cycle without the evidence:
 * otherwise a server that alternates between "all busy" and no answer at
 * all would start the grace afresh and never be judged.  The episode is
 * not kept across a restart of the loop (nor is the observer's): a new
 * loop gives at most one more grace.
 */
#include <config.h>

#include <faultmon/overload.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decide_int.h"

bool
fm_decide_overload_excuses(struct fm_decide *d, uint64_t t, const struct fm_decide_input *in)
{
    uint64_t grace_us = d->opts.overload_grace_ms * FM_DECIDE_US_PER_MS;

    if (grace_us == 0 || in->overloaded == NULL || in->overloaded[0] == '\0') {
        return false;
    }
    if (!d->overload_open) {
        d->overload_open = true;
        d->overload_since_us = t;
    }
    snprintf(d->overload_why, sizeof(d->overload_why), "%s", in->overloaded);
    if (t - d->overload_since_us >= grace_us) {
        return false;       /* busy for longer than a restart takes: the rules */
    }
    d->excused = FM_EXCUSE_OVERLOAD;
    return true;
}

void
fm_decide_overload_ok(struct fm_decide *d)
{
    d->overload_open = false;
}

void
fm_decide_overload_reason(const struct fm_decide *d, uint64_t t, char *buf, size_t len)
{
    size_t used = strlen(buf);
    uint64_t grace_ms = d->opts.overload_grace_ms;
    uint64_t busy_ms = (t - d->overload_since_us) / FM_DECIDE_US_PER_MS;

    if (used + 1 >= len) {
        return;
    }
    snprintf(buf + used, len - used,
             "%s%s: overloaded, not restarting (%" PRIu64 " s of overload_grace left)",
             (used > 0)? "; " : "", d->overload_why,
             (grace_ms > busy_ms)? (grace_ms - busy_ms + 999) / 1000 : 0);
}
