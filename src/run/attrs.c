/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the node attributes of a loop (run/attrs.h), through
 * Pacemaker's attrd_updater, run as a child on the loop's epoll
 * (run/jobs.h): never waited for, killed at its deadline.  The tool and
 * not a library, because Pacemaker 2.1 has no public attrd API (its
 * pcmk__attrd_api_* calls are internal and change between releases).  The
 * loop runs inside the cluster, so a missing cluster is only a log line.
 */
#include <config.h>

#include "attrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/attrd.h>
#include <faultmon/clock.h>
#include <faultmon/decide.h>
#include <faultmon/log.h>

#define FM_ATTRD_TIMEOUT_MS 5000
#define FM_ATTRD_STOP_TIMEOUT_MS 500    /* each: the agent's stop waits 2 s */
#define FM_ATTRD_RETRY_MS 1000          /* a failed update, asked again */
#define FM_ATTRD_RETRY_MAX_MS 60000

static const char *
attrs_tool(void)
{
    const char *tool = getenv("FAULTMON_ATTRD_UPDATER");

    return (tool != NULL && tool[0] == '/')? tool : FM_ATTRD_UPDATER;
}

static void attrs_start(struct fm_run_attr_slot *sl, const char *value, const char *dampen,
                        uint64_t timeout_ms);

static void
on_attr_done(void *data, int status, const char *out, size_t size)
{
    struct fm_run_attr_slot *sl = data;
    struct fm_run_attrs *ra = sl->ra;

    sl->job = NULL;
    if (status == FM_RUN_JOB_CANCELLED) {
        /* Not answered: its latest value is still to be sent (the stop
         * sends a recovery's reason again, fm_run_attrs_remove()). */
        if (sl->queued) {
            sl->running_delete = sl->queued_delete;
            memcpy(sl->running_value, sl->queued_value, sizeof(sl->running_value));
        }
        sl->queued = false;
        sl->failed = true;
        return;
    }
    if (status == FM_RUN_JOB_TIMEOUT) {
        /* An attrd frozen or busy answers later: the same value is asked
         * again (one call at a time) until it answers or a newer value
         * replaces it, so the attribute reaches the loop's latest value
         * once attrd is back (tests/cluster/frozen-daemons.sh).  Said
         * once, not every FM_ATTRD_TIMEOUT_MS. */
        if (!sl->retrying) {
            fm_log_warn("%s: %s -n %s: no answer within its time, killed%s", ra->resource, attrs_tool(),
                        sl->name, ra->stopping? "" : "; asking again until it answers");
        }
        if (!sl->queued && !ra->stopping) {
            sl->queued = true;
            sl->queued_delete = sl->running_delete;
            memcpy(sl->queued_value, sl->running_value, sizeof(sl->queued_value));
            sl->queued_dampen = sl->running_dampen;
            sl->queued_timeout_ms = sl->running_timeout_ms;
        }
        sl->retrying = true;
    } else if (status != 0) {
        /* Its first line says why it failed.  An attrd that restarts (one
         * that pacemakerd found frozen) resets its callers' connections:
         * the value is asked again at a cycle FM_ATTRD_RETRY_MS later,
         * then twice as late each time, up to a minute, so that a node
         * whose attrd never answers costs no fork per cycle. */
        if (!sl->retrying) {
            fm_log_warn("%s: %s -n %s failed (status %d)%s%.*s; asking again later", ra->resource, attrs_tool(),
                        sl->name, status, (out[0] != '\0')? ": " : "", (int) strcspn(out, "\n"), out);
        }
        sl->retrying = true;
        if (!sl->queued && !ra->stopping) {
            sl->failed = true;
            sl->backoff_ms = (sl->backoff_ms == 0)? FM_ATTRD_RETRY_MS
                             : (sl->backoff_ms >= FM_ATTRD_RETRY_MAX_MS / 2)? FM_ATTRD_RETRY_MAX_MS
                             : sl->backoff_ms * 2;
            sl->retry_at_us = fm_now_us() + sl->backoff_ms * 1000u;
        }
    } else {
        sl->retrying = false;
        sl->backoff_ms = 0;
    }
    if (sl->queued && !ra->stopping) {
        sl->queued = false;
        attrs_start(sl, sl->queued_delete? NULL : sl->queued_value, sl->queued_dampen, sl->queued_timeout_ms);
    }
}

static void
attrs_start(struct fm_run_attr_slot *sl, const char *value, const char *dampen, uint64_t timeout_ms)
{
    char *argv[FM_ATTRD_ARGS_MAX];

    sl->running_delete = (value == NULL);
    snprintf(sl->running_value, sizeof(sl->running_value), "%s", (value != NULL)? value : "");
    sl->running_dampen = dampen;
    sl->running_timeout_ms = timeout_ms;
    sl->failed = false;
    fm_attrd_update_argv(argv, attrs_tool(), sl->name, (value != NULL)? sl->running_value : NULL, dampen);
    sl->job = fm_run_jobs_exec(sl->ra->jobs, argv, NULL, timeout_ms, 512, on_attr_done, sl);
}

static struct fm_run_attr_slot *
attrs_slot(struct fm_run_attrs *ra, const char *name)
{
    struct fm_run_attr_slot *free_slot = NULL;

    for (size_t i = 0; i < FM_RUN_ATTR_SLOTS; i++) {
        struct fm_run_attr_slot *sl = &ra->slot[i];

        if (strcmp(sl->name, name) == 0) {
            return sl;
        }
        if (free_slot == NULL && sl->name[0] == '\0') {
            free_slot = sl;
        }
    }
    if (free_slot != NULL) {
        free_slot->ra = ra;
        snprintf(free_slot->name, sizeof(free_slot->name), "%s", name);
    }
    return free_slot;
}

/*
 * Set (\p value NULL: delete) an attribute on the loop, never waiting: at
 * most one update of it runs, and a value asked meanwhile replaces any
 * other waiting, so that an attrd that answers late gets the latest value
 * once, not every value since.  FAULTMON_ATTRD_UPDATER stands in for the
 * tool in tests.
 */
static void
attrs_run(struct fm_run_attrs *ra, const char *name, const char *value, const char *dampen,
          uint64_t timeout_ms)
{
    struct fm_run_attr_slot *sl = attrs_slot(ra, name);

    if (ra->stopping) {
        return;                     /* the stop's deletes are the last word */
    }
    if (sl == NULL || ra->jobs == NULL) {
        fm_log_warn("%s: bug: no room to set %s", ra->resource, name);
        return;
    }
    if (sl->job == NULL) {
        attrs_start(sl, value, dampen, timeout_ms);
        return;
    }
    if ((value == NULL)? sl->running_delete
        : (!sl->running_delete && strcmp(sl->running_value, value) == 0)) {
        sl->queued = false;         /* the latest value is the one running */
        return;
    }
    sl->queued = true;
    sl->queued_delete = (value == NULL);
    snprintf(sl->queued_value, sizeof(sl->queued_value), "%s", (value != NULL)? value : "");
    sl->queued_dampen = dampen;
    sl->queued_timeout_ms = timeout_ms;
}

void
fm_run_attrs_reason(struct fm_run_attrs *ra, const char *reason)
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
    /* A value that failed, asked again when its time has come. */
    for (size_t i = 0; i < FM_RUN_ATTR_SLOTS; i++) {
        struct fm_run_attr_slot *sl = &ra->slot[i];

        if (sl->failed && sl->job == NULL && !ra->stopping && now_us >= sl->retry_at_us) {
            char again[sizeof(sl->running_value)];

            memcpy(again, sl->running_value, sizeof(again));
            attrs_start(sl, sl->running_delete? NULL : again, sl->running_dampen, sl->running_timeout_ms);
        }
    }
}

/* The reason of the recovery decided just before the stop, not answered
 * yet: what the agent's stop after a failover keeps for the administrator
 * (dropin-1node.sh 8 lost it when the stop came 30 ms after the decision).
 * \return whether \p sl holds it (its latest value, into \p value) */
static bool
reason_in_flight(const struct fm_run_attrs *ra, const struct fm_run_attr_slot *sl, char *value, size_t len)
{
    char name[FM_RESOURCE_NAME_MAX + 32];

    snprintf(name, sizeof(name), "faultmon-%s-reason", ra->resource);
    if (strcmp(sl->name, name) != 0 || (sl->job == NULL && !sl->failed)
        || (sl->queued? sl->queued_delete : sl->running_delete)) {
        return false;
    }
    snprintf(value, len, "%s", sl->queued? sl->queued_value : sl->running_value);
    return true;
}

/* At the loop's stop: whatever runs is moot but the reason of a recovery
 * just decided, which goes again with the deletes; they go together (the
 * agent's stop waits 2 s for the loop), and nothing starts after them. */
void
fm_run_attrs_remove(struct fm_run_attrs *ra)
{
    static const unsigned which[] = { FM_NODE_ATTR_STATE, FM_NODE_ATTR_WEIGHT };
    char name[FM_RESOURCE_NAME_MAX + 32];

    for (size_t i = 0; i < FM_RUN_ATTR_SLOTS; i++) {
        struct fm_run_attr_slot *sl = &ra->slot[i];
        char reason[sizeof(sl->running_value)];
        bool resend = reason_in_flight(ra, sl, reason, sizeof(reason));

        if (sl->job != NULL) {
            fm_run_jobs_cancel(ra->jobs, sl->job);
        }
        sl->failed = false;
        if (resend) {
            attrs_run(ra, sl->name, reason, NULL, FM_ATTRD_STOP_TIMEOUT_MS);
        }
    }
    for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++) {
        if ((ra->shown.published & which[i]) != 0) {
            fm_node_attr_name(name, sizeof(name), ra->resource, which[i]);
            attrs_run(ra, name, NULL, NULL, FM_ATTRD_STOP_TIMEOUT_MS);
        }
    }
    ra->shown.published = 0;
    ra->stopping = true;
}

void
fm_run_attrs_node_health(struct fm_run_attrs *ra, const char *name, const char *value)
{
    if (ra->enabled) {
        attrs_run(ra, name, value, NULL, FM_ATTRD_TIMEOUT_MS);
    }
}

/* In the recovery request's child (run/request.c), which may wait: the
 * controller must not be asked before the ban is set. */
void
fm_run_attrs_ban(struct fm_run_attrs *ra, const struct fm_pcmk_resource *rsc)
{
    char name[FM_RESOURCE_NAME_MAX + 32];
    char out[512];
    int status = 0;

    if (ra->enabled) {
        snprintf(name, sizeof(name), FM_PCMK_GUARD_FAILCOUNT_FMT, rsc->rsc_id);
        fm_log_notice("%s: failover of %s: setting %s=INFINITY on this node", ra->resource, rsc->rsc_id, name);
        status = fm_attrd_update(attrs_tool(), name, "INFINITY", NULL, FM_ATTRD_TIMEOUT_MS, out, sizeof(out));
        if (status != 0) {
            fm_log_warn("%s: %s -n %s failed (status %d)%s%s", ra->resource, attrs_tool(), name, status,
                        (out[0] != '\0')? ": " : "", out);
        }
    }
}
