/*
 * faultmon run: the node attributes of a loop (cmd_run_attrs.h), through
 * Pacemaker's attrd_updater (faultmon/attrd.h runs it safely, under a
 * deadline).  The loop runs inside the cluster, so a missing cluster is
 * only a log line.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include <faultmon/attrd.h>
#include <faultmon/decide.h>
#include <faultmon/log.h>

#include "cmd_run_attrs.h"

#define FM_ATTRD_TIMEOUT_MS 5000
#define FM_ATTRD_STOP_TIMEOUT_MS 500    /* each: the agent's stop waits 2 s */

/* \p value NULL: delete.  FAULTMON_ATTRD_UPDATER stands in for the tool
 * in tests. */
static void
attrs_run(const struct fm_run_attrs *ra, const char *name, const char *value, const char *dampen,
          uint64_t timeout_ms)
{
    const char *tool = getenv("FAULTMON_ATTRD_UPDATER");
    char out[512];
    int status = 0;

    if (tool == NULL || tool[0] != '/') {
        tool = FM_ATTRD_UPDATER;
    }
    status = fm_attrd_update(tool, name, value, dampen, timeout_ms, out, sizeof(out));
    if (status != 0) {
        fm_log_warn("%s: %s -n %s failed (status %d)%s%s", ra->resource, tool, name, status,
                    (out[0] != '\0')? ": " : "", out);
    }
}

void
fm_run_attrs_reason(const struct fm_run_attrs *ra, const char *reason)
{
    char name[FM_RESOURCE_NAME_MAX + 32];

    if (!ra->enabled) {
        return;
    }
    snprintf(name, sizeof(name), "faultmon-%s-reason", ra->resource);
    attrs_run(ra, name, reason, NULL, FM_ATTRD_TIMEOUT_MS);
}

/* An update that fails is not tried again before the value changes: the
 * warning says so, and a cluster whose attrd does not answer must not cost
 * a fork per cycle. */
void
fm_run_attrs_publish(struct fm_run_attrs *ra, const struct fm_run_state *st, uint64_t now_us)
{
    char name[FM_RESOURCE_NAME_MAX + 32];
    char value[32];
    unsigned due = 0;

    if (!ra->enabled) {
        return;
    }
    due = fm_node_attrs_due(&ra->shown, st->state, st->weight, now_us);
    if ((due & FM_NODE_ATTR_STATE) != 0) {
        fm_node_attr_name(name, sizeof(name), ra->resource, FM_NODE_ATTR_STATE);
        attrs_run(ra, name, fm_state_name(st->state), FM_NODE_ATTRS_DAMPEN, FM_ATTRD_TIMEOUT_MS);
    }
    if ((due & FM_NODE_ATTR_WEIGHT) != 0) {
        fm_node_attr_name(name, sizeof(name), ra->resource, FM_NODE_ATTR_WEIGHT);
        snprintf(value, sizeof(value), "%lu", (unsigned long) st->weight);
        attrs_run(ra, name, value, FM_NODE_ATTRS_DAMPEN, FM_ATTRD_TIMEOUT_MS);
    }
    fm_node_attrs_set(&ra->shown, due, st->state, st->weight, now_us);
}

void
fm_run_attrs_remove(struct fm_run_attrs *ra)
{
    static const unsigned which[] = { FM_NODE_ATTR_STATE, FM_NODE_ATTR_WEIGHT };
    char name[FM_RESOURCE_NAME_MAX + 32];

    for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++) {
        if ((ra->shown.published & which[i]) != 0) {
            fm_node_attr_name(name, sizeof(name), ra->resource, which[i]);
            attrs_run(ra, name, NULL, NULL, FM_ATTRD_STOP_TIMEOUT_MS);
        }
    }
    ra->shown.published = 0;
}

void
fm_run_attrs_node_health(const struct fm_run_attrs *ra, const char *name, const char *value)
{
    if (ra->enabled) {
        attrs_run(ra, name, value, NULL, FM_ATTRD_TIMEOUT_MS);
    }
}

void
fm_run_attrs_ban(const struct fm_run_attrs *ra, const struct fm_pcmk_resource *rsc)
{
    char name[FM_RESOURCE_NAME_MAX + 32];

    if (ra->enabled) {
        snprintf(name, sizeof(name), FM_PCMK_GUARD_FAILCOUNT_FMT, rsc->rsc_id);
        fm_log_notice("%s: failover of %s: setting %s=INFINITY on this node", ra->resource, rsc->rsc_id, name);
        attrs_run(ra, name, "INFINITY", NULL, FM_ATTRD_TIMEOUT_MS);
    }
}
