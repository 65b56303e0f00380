/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the service's dependencies across the cluster
 * (run/run_deps.h), through Pacemaker's attrd_updater, run on the loop
 * (run/jobs.h: never waited for, killed at its deadline).
 */
#include <config.h>

#include "run_deps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <faultmon/attrd.h>
#include <faultmon/clock.h>
#include <faultmon/log.h>

#define FM_DEPS_ATTRD_TIMEOUT_MS 2000
#define FM_DEPS_SETTLE_GRACE_MS 2000
#define FM_DEPS_REPUBLISH_MS 60000
#define FM_DEPS_VIEWS_MAX 16384
#define FM_DEPS_WITHDRAW_TIMEOUT_MS 500     /* the agent's stop waits 2 s */

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

void
fm_run_deps_set_jobs(struct fm_run_deps *dp, struct fm_run_jobs *jobs)
{
    dp->jobs = jobs;
    for (size_t i = 0; i < dp->n; i++) {
        dp->dep[i].dp = dp;
    }
}

static void publish_start(struct fm_run_deps *dp, struct fm_run_dep *d);

/* An update that failed is tried again at the next cycle, as ever; one
 * asked meanwhile (the view changed) follows this one. */
static void
on_published(void *data, int status, const char *out, size_t size)
{
    struct fm_run_dep *d = data;
    struct fm_run_deps *dp = d->dp;

    (void) size;
    d->publishing = NULL;
    if (status == FM_RUN_JOB_CANCELLED) {
        return;
    }
    if (status != 0) {
        fm_log_warn("%s: %s -n %s failed (status %d)%s%.*s", dp->resource, attrd_tool(), d->attr, status,
                    (status == FM_RUN_JOB_TIMEOUT)? ": no answer within its time, killed"
                    : (out[0] != '\0')? ": " : "", (int) strcspn(out, "\n"), out);
        return;
    }
    d->shown_us = d->publishing_us;
    if (d->shown != d->publishing_value) {
        d->shown = d->publishing_value;
        fm_log_notice("%s: dependency %s %s from this node", dp->resource, d->target->text,
                      (d->shown == 1)? "down" : "up");
    }
    if (d->want != d->shown) {
        publish_start(dp, d);
    }
}

static void
publish_start(struct fm_run_deps *dp, struct fm_run_dep *d)
{
    char *argv[FM_ATTRD_ARGS_MAX];

    fm_attrd_update_argv(argv, attrd_tool(), d->attr, (d->want == 1)? "down" : "up", NULL);
    d->publishing_value = d->want;
    d->publishing_us = fm_now_us();
    d->asked = true;
    d->publishing = fm_run_jobs_exec(dp->jobs, argv, NULL, FM_DEPS_ATTRD_TIMEOUT_MS, 256, on_published, d);
}

/* This node's view, when it changed, and again every
 * FM_DEPS_REPUBLISH_MS: another loop on this node that publishes the same
 * dependency (the httpmon clone, the service's) deletes it when it stops.
 * The same value again is no change to attrd: the CIB is not written.
 * At most one update of it runs. */
static void
publish(struct fm_run_deps *dp, struct fm_run_dep *d, bool down, uint64_t now_us)
{
    d->want = (int) down;
    if (!dp->publish || dp->jobs == NULL || d->publishing != NULL
        || (d->shown == d->want && now_us - d->shown_us < FM_DEPS_REPUBLISH_MS * 1000u)) {
        return;
    }
    publish_start(dp, d);
}

/* The others' views of a dependency that is down from here, judged. */
static void
on_views(void *data, int status, const char *out, size_t size)
{
    struct fm_run_dep *d = data;
    struct fm_run_deps *dp = d->dp;

    d->querying = NULL;
    if (status == FM_RUN_JOB_CANCELLED) {
        return;
    }
    d->answered = true;
    d->readable = false;
    d->verdict = FM_DEP_UNKNOWN;
    if (status != 0 || size >= FM_DEPS_VIEWS_MAX || fm_deps_parse_views(out, d->attr, dp->node, &d->views) != 0) {
        /* No evidence of a node where it is up: held (fm_deps_action()). */
        memset(&d->views, 0, sizeof(d->views));
        fm_log_info("%s: the views of %s cannot be read (status %d): judged by this node alone",
                    dp->resource, d->attr, status);
    } else {
        d->readable = true;
        d->verdict = fm_deps_judge(true, &d->views);
    }
}

/* Ask the others' views, on the loop, unless a query runs. */
static void
query(struct fm_run_deps *dp, struct fm_run_dep *d)
{
    char *argv[] = { (char *) attrd_tool(), (char *) "-Q", (char *) "-A", (char *) "-n", d->attr, NULL };
    char **envp = NULL;

    if (d->querying != NULL || dp->jobs == NULL) {
        return;
    }
    envp = fm_attrd_query_envp();
    if (envp != NULL) {
        d->querying = fm_run_jobs_exec(dp->jobs, argv, envp, FM_DEPS_ATTRD_TIMEOUT_MS, FM_DEPS_VIEWS_MAX,
                                       on_views, d);
        free(envp);
    }
}

/* The latest answer (the next one is asked for the next cycle), or false
 * when none has come since it went down: the first is asked now. */
static bool
judge(struct fm_run_deps *dp, struct fm_run_dep *d, struct fm_deps_views *v, enum fm_dep_verdict *verdict)
{
    bool answered = d->answered;

    *v = d->views;
    *verdict = d->verdict;
    query(dp, d);
    return answered;
}

/* A failed cycle with dependency \p d down from here: what the views say.
 * They are read on the loop (attrd_updater, never waited for): until the
 * first answer since it went down the failure is held, as every verdict
 * but another node's settled "up" holds it. */
static void
judge_failed(struct fm_run_deps *dp, struct fm_run_dep *d, uint64_t now_us)
{
    struct fm_deps_views v;
    enum fm_dep_verdict verdict = FM_DEP_UNKNOWN;
    bool settled = !dp->publish || now_us - d->down_since_us >= dp->settle_us;

    memset(&v, 0, sizeof(v));
    if (dp->publish && !judge(dp, d, &v, &verdict)) {
        snprintf(dp->everywhere, sizeof(dp->everywhere),
                 "dependency %.60s down from this node, the others' views being read", d->target->text);
        return;
    }
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
            if (!d->readable && dp->publish) {
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
            d->answered = false;
            if (d->querying != NULL) {
                fm_run_jobs_cancel(dp->jobs, d->querying);
            }
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

static void
on_withdrawn(void *data, int status, const char *out, size_t size)
{
    struct fm_run_dep *d = data;

    (void) size;
    if (status == 0) {
        d->shown = -1;
    } else if (status != FM_RUN_JOB_CANCELLED) {
        fm_log_warn("%s: cannot delete %s%s%.*s", d->dp->resource, d->attr,
                    (status == FM_RUN_JOB_TIMEOUT)? ": no answer within its time, killed"
                    : (out[0] != '\0')? ": " : "", (int) strcspn(out, "\n"), out);
    }
}

/* The deletes run together on the loop, which stops once they have ended
 * (run/loop.c: the agent's stop waits 2 s for it). */
void
fm_run_deps_withdraw(struct fm_run_deps *dp)
{
    for (size_t i = 0; i < dp->n; i++) {
        struct fm_run_dep *d = &dp->dep[i];
        char *argv[FM_ATTRD_ARGS_MAX];

        if (d->publishing != NULL) {
            fm_run_jobs_cancel(dp->jobs, d->publishing);
        }
        if (d->querying != NULL) {
            fm_run_jobs_cancel(dp->jobs, d->querying);
        }
        /* An update killed half-way may have reached attrd: deleted too. */
        if (!dp->publish || dp->jobs == NULL || (d->shown < 0 && !d->asked)) {
            continue;
        }
        /* Nobody would correct it once this loop is gone: a "down" left
         * behind keeps a location rule on it banning this node for good. */
        fm_attrd_update_argv(argv, attrd_tool(), d->attr, NULL, NULL);
        fm_run_jobs_exec(dp->jobs, argv, NULL, FM_DEPS_WITHDRAW_TIMEOUT_MS, 256, on_withdrawn, d);
    }
}
