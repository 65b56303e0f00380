/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:guard's monitor.  It reads the loop's
 * verdict on the guarded resource and answers for the guard: 0 while the
 * resource is healthy, 190 (degraded, which Pacemaker shows in crm_mon and
 * does not recover) while it is degraded, while the recovery the loop
 * asked for is under way, or while the loop's state gives no verdict (a
 * file the reader refuses), an error only when the guard itself is broken
 * (its loop stuck or not restartable, a recovery nobody could ask for).  A
 * failure of the guarded resource never fails the guard: Pacemaker would
 * recover the guard, not the resource.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/pcmk.h>
#include <faultmon/recovery.h>
#include <faultmon/state.h>

#include "ocf_guard.h"

/* The loop writes its decision, then asks the controller (at most 1 s),
 * then marks it reported: a pending recovery decided longer ago than this
 * and not reported was not asked for. */
#define GUARD_ASK_GRACE_S 3

/* The guarded resource as the record names it (the loop was started so). */
static void
from_record(struct fm_guard *g, const struct fm_ocf_record *rec)
{
    const char *v = fm_ocf_record_get(rec, "class");

    g->have_rsc = (v != NULL && v[0] != '\0');
    snprintf(g->rsc.standard, sizeof(g->rsc.standard), "%s", (v != NULL)? v : "");
    v = fm_ocf_record_get(rec, "provider");
    snprintf(g->rsc.provider, sizeof(g->rsc.provider), "%s", (v != NULL)? v : "");
    v = fm_ocf_record_get(rec, "type");
    snprintf(g->rsc.type, sizeof(g->rsc.type), "%s", (v != NULL)? v : "");
}

/* crm_resource, beside attrd_updater (pacemaker-cli-utils). */
static void
crm_resource_path(char *buf, size_t buf_len)
{
    const char *tool = fm_ocf_attrd_updater_path();
    const char *slash = strrchr(tool, '/');

    snprintf(buf, buf_len, "%.*s/crm_resource", (slash != NULL)? (int) (slash - tool) : 0, tool);
}

/*
 * The loop's own fail request did not reach the controller (it logged
 * why): ask as `crm_resource --fail` would, never through a shell.
 */
static int
ask_recovery(const struct fm_guard *g, enum fm_action pending, const char *reason)
{
    char tool[FM_OCF_PATH_MAX + 16];
    char name[FM_RESOURCE_NAME_MAX + 32];
    char out[512];
    char *argv[8];
    size_t argc = 0;
    const char *node = getenv("OCF_RESKEY_CRM_meta_on_node");
    int status = 0;

    if (pending == FM_ACTION_FAILOVER) {
        snprintf(name, sizeof(name), FM_PCMK_GUARD_FAILCOUNT_FMT, g->resource);
        if (fm_ocf_attrd(g->ocf, name, "INFINITY") != 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot ban %s from this node for the failover "
                               "asked: %s", g->resource, reason);
        }
    }
    crm_resource_path(tool, sizeof(tool));
    argv[argc++] = tool;
    argv[argc++] = (char *) "--fail";
    argv[argc++] = (char *) "--resource";
    argv[argc++] = (char *) g->resource;
    if (node != NULL && node[0] != '\0') {
        argv[argc++] = (char *) "--node";
        argv[argc++] = (char *) node;
    }
    argv[argc] = NULL;
    status = fm_ocf_run(argv, out, sizeof(out), NULL, 5000);
    if (status != 0) {
        out[strcspn(out, "\n")] = '\0';
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot ask Pacemaker to %s %s (crm_resource: %s): %s",
                           (pending == FM_ACTION_FAILOVER)? "move" : "restart", g->resource, out, reason);
    }
    fm_ocf_log(LOG_NOTICE, "asked Pacemaker to %s %s: %s", (pending == FM_ACTION_FAILOVER)? "move" : "restart",
               g->resource, reason);
    return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s of %s asked: %s", fm_action_name(pending), g->resource, reason);
}

/* Was the pending recovery decided within the grace?  The cycle that
 * decided it is among the state's last records (their wall-clock time is
 * all they have); one that fell out of them is older than the grace. */
static bool
decided_lately(const struct fm_run_state *st)
{
    int64_t now_s = (int64_t) time(NULL);

    for (size_t i = st->n_records; i > 0; i--) {
        const struct fm_state_record *r = &st->records[i - 1];

        if (r->action == st->pending) {
            return now_s - r->wall_s < GUARD_ASK_GRACE_S;
        }
    }
    return false;
}

/* A recovery decided: under way, or asked now. */
static int
answer_pending(const struct fm_guard *g, const struct fm_run_state *st)
{
    char reason[1024];

    fm_ocf_short_decision(st, NULL, reason, sizeof(reason));
    if (!g->have_rsc) {
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s of %s decided, nobody to ask (no cluster): %s",
                           fm_action_name(st->pending), g->resource, reason);
    }
    if (fm_recovery_reported(g->ocf->state_dir) || decided_lately(st)) {
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s of %s asked, under way: %s", fm_action_name(st->pending),
                           g->resource, reason);
    }
    return ask_recovery(g, st->pending, reason);
}

/* The loop's last state into \p st, restarting a loop that died.
 * \return -1 with \p st filled, or the monitor's answer */
static int
loop_state(struct fm_guard *g, struct fm_run_state *st)
{
    char err[512];
    uint64_t age_s = 0;
    int rc = 0;

    if (fm_state_loop_pid(g->ocf->state_dir) == 0) {
        fm_ocf_log(LOG_WARNING, "the fault monitor is not running; restarting it");
        fm_ocf_service_kept_env(true);      /* only the loop restarts */
        rc = fm_guard_start_loop(g);
        if (rc != PCMK_OCF_OK) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor died and could not be restarted");
        }
    }
    rc = fm_ocf_loop_state_read(g->ocf, st, err, sizeof(err));
    if (rc == ENOENT) {
        return PCMK_OCF_OK;     /* its first cycle is under way */
    }
    if (rc != 0) {
        /* No verdict either way: not OK (it may be the loop's own file that
         * the reader refuses at every cycle, and then nothing would ever
         * report the resource), and not a failure of the guard (Pacemaker
         * would recover the guard).  Degraded shows it in crm_mon. */
        fm_ocf_log(LOG_WARNING, "%s; no verdict on %s from it", err, g->resource);
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "no verdict on %s from the fault monitor's state: %s",
                           g->resource, err);
    }
    if (fm_recovery_state_stale(st, fm_now_us(), &age_s)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor has not written its state for %llu s: "
                           "it is stuck", (unsigned long long) age_s);
    }
    return -1;
}

int
fm_guard_monitor(struct fm_guard *g)
{
    struct fm_ocf_record rec;
    struct fm_run_state *st = NULL;
    char reason[1024];
    int rc = fm_guard_params(g);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (fm_ocf_record_read(g->ocf->state_dir, &rec) != 0) {
        return PCMK_OCF_NOT_RUNNING;
    }
    from_record(g, &rec);
    /* Pacemaker's probe after a cleanup of the guard (it names the node):
     * faultmon forgets its history and decision too, as the apache agent. */
    if (g->ocf->interval_ms == 0 && getenv("OCF_RESKEY_CRM_meta_on_node") != NULL) {
        fm_ocf_loop_reset(g->ocf);
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    rc = loop_state(g, st);
    if (rc == -1) {
        if (st->pending == FM_ACTION_RESTART || st->pending == FM_ACTION_FAILOVER) {
            rc = answer_pending(g, st);
        } else if (st->decide.held != 0) {
            rc = fm_ocf_fail(PCMK_OCF_DEGRADED, "%s held for manual resume (faultmon resume %s): %s",
                             g->resource, g->ocf->resource, st->reason);
        } else if (fm_state_ocf_rc(st) == PCMK_OCF_DEGRADED) {
            fm_ocf_short_decision(st, NULL, reason, sizeof(reason));
            rc = fm_ocf_fail(PCMK_OCF_DEGRADED, "%s degraded: %s", g->resource, reason);
        } else {
            rc = PCMK_OCF_OK;
        }
    }
    free(st);
    return rc;
}
