/*
 * faultmon run: the service's dependencies across the cluster
 * (cmd_run_deps.h), through Pacemaker's attrd_updater (faultmon/attrd.h
 * runs it safely, under a deadline).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <faultmon/attrd.h>
#include <faultmon/log.h>

#include "cmd_run_deps.h"

#define FM_DEPS_ATTRD_TIMEOUT_MS 2000
#define FM_DEPS_SETTLE_GRACE_MS 2000
#define FM_DEPS_REPUBLISH_MS 60000

static const char *
attrd_tool(void)
{
    const char *tool = getenv("FAULTMON_ATTRD_UPDATER");

    return (tool != NULL && tool[0] == '/')? tool : FM_ATTRD_UPDATER;
}

void
fm_run_deps_init(struct fm_run_deps *dp, const char *resource, const struct fm_target *targets,
                 size_t n_targets, bool publish, uint64_t interval_ms)
{
    const char *node = getenv("OCF_RESKEY_CRM_meta_on_node");
    struct utsname uts;

    memset(dp, 0, sizeof(*dp));
    dp->resource = resource;
    dp->publish = publish;
    /* The other nodes probe on their own schedules and publish what they
     * see when it changes: a view two of their cycles old may be from
     * before the dependency failed. */
    dp->settle_us = (2 * interval_ms + FM_DEPS_SETTLE_GRACE_MS) * 1000u;
    for (size_t i = 0; i < n_targets && dp->n < FM_DEPS_MAX; i++) {
        if (targets[i].dependency) {
            struct fm_run_dep *d = &dp->dep[dp->n++];

            d->target = &targets[i];
            d->shown = -1;
            fm_deps_attr_name(targets[i].text, d->attr, sizeof(d->attr));
        }
    }
    /* attrd names the local node as the cluster does: Pacemaker's name for
     * it, which is the host name unless configured otherwise. */
    if (node != NULL && node[0] != '\0') {
        snprintf(dp->node, sizeof(dp->node), "%s", node);
    } else if (uname(&uts) == 0) {
        snprintf(dp->node, sizeof(dp->node), "%s", uts.nodename);
    }
}

bool
fm_run_deps_service_failed(const struct fm_result *results, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!results[i].target->dependency && fm_result_class(&results[i]) != FM_CLASS_OK) {
            return true;
        }
    }
    return false;
}

/* This node's view, when it changed, and again every
 * FM_DEPS_REPUBLISH_MS: another loop on this node that publishes the same
 * dependency (the httpmon clone, the service's) deletes it when it stops.
 * The same value again is no change to attrd: the CIB is not written. */
static void
publish(struct fm_run_deps *dp, struct fm_run_dep *d, bool down, uint64_t now_us)
{
    char out[256];
    int status = 0;

    if (!dp->publish
        || (d->shown == (int) down && now_us - d->shown_us < FM_DEPS_REPUBLISH_MS * 1000u)) {
        return;
    }
    status = fm_attrd_update(attrd_tool(), d->attr, down? "down" : "up", NULL, FM_DEPS_ATTRD_TIMEOUT_MS,
                             out, sizeof(out));
    if (status != 0) {
        fm_log_warn("%s: %s -n %s failed (status %d)%s%s", dp->resource, attrd_tool(), d->attr, status,
                    (out[0] != '\0')? ": " : "", out);
        return;
    }
    d->shown_us = now_us;
    if (d->shown == (int) down) {
        return;
    }
    d->shown = (int) down;
    fm_log_notice("%s: dependency %s %s from this node", dp->resource, d->target->text, down? "down" : "up");
}

/* The others' views of a dependency that is down from here, judged;
 * \p readable is false when there is no reply to judge. */
static enum fm_dep_verdict
judge(struct fm_run_deps *dp, const struct fm_run_dep *d, struct fm_deps_views *v, bool *readable)
{
    char *out = NULL;
    int status = 0;
    enum fm_dep_verdict verdict = FM_DEP_UNKNOWN;

    memset(v, 0, sizeof(*v));
    *readable = false;
    if (!dp->publish) {
        return FM_DEP_UNKNOWN;
    }
    out = calloc(1, 16384);
    if (out == NULL) {
        return FM_DEP_UNKNOWN;
    }
    status = fm_attrd_query_all(attrd_tool(), d->attr, FM_DEPS_ATTRD_TIMEOUT_MS, out, 16384);
    if (status != 0 || fm_deps_parse_views(out, d->attr, dp->node, v) != 0) {
        /* No evidence of a node where it is up: held (fm_deps_action()). */
        fm_log_info("%s: the views of %s cannot be read (status %d): judged by this node alone",
                    dp->resource, d->attr, status);
    } else {
        *readable = true;
        verdict = fm_deps_judge(true, v);
    }
    free(out);
    return verdict;
}

/* A failed cycle with dependency \p d down from here: what the views say. */
static void
judge_failed(struct fm_run_deps *dp, const struct fm_run_dep *d, uint64_t now_us)
{
    struct fm_deps_views v;
    bool readable = false;
    enum fm_dep_verdict verdict = judge(dp, d, &v, &readable);
    bool settled = !dp->publish || now_us - d->down_since_us >= dp->settle_us;

    switch (fm_deps_action(verdict, settled)) {
        case FM_DEP_ACT_PENDING:
            /* Too early to trust another node's "up": a failover now could
             * be the storm this is meant to prevent. */
            snprintf(dp->everywhere, sizeof(dp->everywhere),
                     "dependency %.60s down from this node, the others' views pending", d->target->text);
            break;
        case FM_DEP_ACT_FAILOVER:
            snprintf(dp->here, sizeof(dp->here), "dependency %.40s down from this node only, up from %.24s",
                     d->target->text, v.up_nodes);
            break;
        case FM_DEP_ACT_HOLD:
            if (!readable && dp->publish) {
                snprintf(dp->everywhere, sizeof(dp->everywhere),
                         "dependency %.48s down from here, no view readable, recovery cannot help",
                         d->target->text);
            } else {
                snprintf(dp->everywhere, sizeof(dp->everywhere),
                         "dependency %.60s down from all %u nodes, recovery cannot help", d->target->text,
                         v.down + 1);
            }
            break;
        case FM_DEP_ACT_RULES:
            break;
    }
}

void
fm_run_deps_cycle(struct fm_run_deps *dp, bool service_failed, struct fm_monitor_cycle *cycle)
{
    dp->everywhere[0] = '\0';
    dp->here[0] = '\0';
    for (size_t i = 0; i < dp->n; i++) {
        struct fm_run_dep *d = &dp->dep[i];
        const struct fm_result *r = NULL;

        for (size_t j = 0; j < cycle->n; j++) {
            if (cycle->results[j].target == d->target) {
                r = &cycle->results[j];
            }
        }
        if (r == NULL) {
            continue;
        }
        publish(dp, d, fm_result_class(r) != FM_CLASS_OK, cycle->now_us);
        if (fm_result_class(r) == FM_CLASS_OK) {
            d->down_since_us = 0;
            continue;
        }
        if (d->down_since_us == 0) {
            d->down_since_us = cycle->now_us;
        }
        if (!service_failed || dp->everywhere[0] != '\0') {
            continue;
        }
        judge_failed(dp, d, cycle->now_us);
    }
    /* Down everywhere outweighs down here: no node can help then. */
    cycle->dependency_everywhere = (dp->everywhere[0] != '\0')? dp->everywhere : NULL;
    cycle->dependency_here = (dp->everywhere[0] == '\0' && dp->here[0] != '\0')? dp->here : NULL;
}

void
fm_run_deps_withdraw(struct fm_run_deps *dp)
{
    char out[256];

    for (size_t i = 0; i < dp->n; i++) {
        struct fm_run_dep *d = &dp->dep[i];

        if (!dp->publish || d->shown < 0) {
            continue;
        }
        /* Nobody would correct it once this loop is gone: a "down" left
         * behind keeps a location rule on it banning this node for good. */
        if (fm_attrd_update(attrd_tool(), d->attr, NULL, NULL, FM_DEPS_ATTRD_TIMEOUT_MS, out, sizeof(out)) != 0) {
            fm_log_warn("%s: cannot delete %s%s%s", dp->resource, d->attr, (out[0] != '\0')? ": " : "", out);
            continue;
        }
        d->shown = -1;
    }
}
