/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the monitor and status actions of the web agents
 * (ocf:faultmon:apache, ocf:faultmon:nginx): whether the server runs, and
 * the loop's verdict on it (its state, staleness, heartbeat's check, the
 * level-10 probe), as one OCF exit code with the reason Pacemaker keeps.
 *
 * A monitor of a running resource reads two small files (the agent's record
 * and the loop's state) and the server's pid file; everything that needs the
 * server's configuration, the envfiles or a probe happens in start, stop,
 * validate-all and OCF_CHECK_LEVEL=10, or when the agent has no record.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/recovery.h>
#include <faultmon/state.h>

#include "ocf_web.h"

/* No record: is a server of this configuration running anyway? */
static int
monitor_unrecorded(struct fm_web *w)
{
    pid_t pid = 0;

    if (w->ops->resolve_params(w) != PCMK_OCF_OK || w->ops->resolve_rest(w) != PCMK_OCF_OK) {
        return PCMK_OCF_NOT_RUNNING;
    }
    pid = fm_web_server_pid(w->pid_file, w->program);
    if (pid == 0) {
        return PCMK_OCF_NOT_RUNNING;
    }
    fm_ocf_log(LOG_WARNING, "%s (pid %ld, %s) runs without its fault monitor: not started by this agent",
               w->ops->server, (long) pid, w->pid_file);
    return PCMK_OCF_OK;
}

static int
restart_loop(struct fm_web *w, const struct fm_ocf_record *rec, struct fm_run_state *st)
{
    int rc = w->ops->translate(fm_web_record_or(rec, "port_list", ""), fm_web_record_or(rec, "status_url", ""),
                               fm_web_record_or(rec, "base_url", "http://127.0.0.1:80"));

    fm_ocf_log(LOG_WARNING, "the fault monitor is not running; restarting it");
    fm_web_params_from_record(rec);
    if (rc == PCMK_OCF_OK) {
        fm_web_watch_env(w, fm_web_record_or(rec, "pid_file", ""), true);
        rc = fm_ocf_loop_start(w->ocf, NULL, st);
    }
    if (rc != PCMK_OCF_OK) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor died and could not be restarted");
    }
    return PCMK_OCF_OK;
}

/*
 * The monitor found the server dead.  That failure enters the loop's history as
 * a complete failure, like a failed probe, and the answer is the loop's
 * decision: 1 restart, 4 failover (fail-count INFINITY, as the ban it
 * causes), or degraded (fall not reached).  While a recovery the cluster
 * already knows of is pending (the loop's fail request, or an earlier
 * monitor's answer), it is the same outage: degraded, so that Pacemaker
 * counts it once.
 */
static int
monitor_server_dead(struct fm_web *w, const struct fm_ocf_record *rec)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char cause[FM_OCF_PATH_MAX + 64];
    char reason[1024];
    char err[512];
    int rc = 0;

    snprintf(cause, sizeof(cause), "%s is not running (pid file %s)", w->ops->server, fm_web_record_or(rec, "pid_file", "?"));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s", cause);
    }
    if (fm_recovery_reported(w->ocf->state_dir) && fm_state_read(w->ocf->state_dir, st, err, sizeof(err)) == 0
        && st->pending != FM_ACTION_NONE) {
        const char *action = fm_action_name(st->pending);

        fm_ocf_short_decision(st, cause, reason, sizeof(reason));
        free(st);
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s asked, under way: %s", action, reason);
    }
    snprintf(reason, sizeof(reason), "%s is not running", w->ops->server);
    rc = fm_ocf_loop_event(w->ocf, reason, st);
    if (rc == EALREADY) {
        const char *action = fm_action_name(st->pending);

        fm_ocf_short_decision(st, cause, reason, sizeof(reason));
        free(st);
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s asked, under way: %s", action, reason);
    }
    if (rc != 0) {
        free(st);
        /* No loop to decide: a plain soft failure, as before faultmon. */
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s (the fault monitor could not decide: %s)", cause,
                           strerror(rc));
    }
    /* Pacemaker keeps 128 bytes: the pid file after the decision. */
    snprintf(err, sizeof(err), "%s is not running", w->ops->server);
    fm_ocf_short_decision(st, err, reason, sizeof(reason));
    snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason), " (pid file %s)",
               fm_web_record_or(rec, "pid_file", "?"));
    rc = st->ocf_rc;
    if (rc == PCMK_OCF_INSUFFICIENT_PRIV && w->ocf->interval_ms > 0) {
        char name[FM_RESOURCE_NAME_MAX + 64];

        snprintf(name, sizeof(name), "fail-count-%s#monitor_%" PRIu64, w->ocf->resource, w->ocf->interval_ms);
        fm_ocf_attrd(w->ocf, name, "INFINITY");
    }
    free(st);
    if (rc == PCMK_OCF_OK) {
        rc = PCMK_OCF_DEGRADED;
    }
    return fm_ocf_fail(rc, "%s", reason);
}

/*
 * The record is there but refused (cut short, data after "end", a symbolic
 * link...): what it says cannot be trusted, nor the loop it names.  Nothing
 * running is still "not running"; a running server is no verdict, so never
 * success: a failure, whose recovery (stop, start) writes a new record.
 */
static int
monitor_refused_record(struct fm_web *w, const char *why, bool status_only)
{
    int rc = PCMK_OCF_OK;

    fm_ocf_log(LOG_WARNING, "the agent's record is refused: %s", why);
    rc = monitor_unrecorded(w);
    if (rc != PCMK_OCF_OK || status_only) {
        return rc;
    }
    return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s runs, but the agent's record %s/agent is refused "
                       "(%s): its fault monitor cannot be trusted", w->ops->server, w->ocf->state_dir, why);
}

/* OCF_CHECK_LEVEL=10: a fresh probe cycle with the helper, and the test. */
static int
monitor_level10(struct fm_web *w, const struct fm_ocf_record *rec, bool heartbeat)
{
    uint64_t probe_timeout_ms = 0;
    int rc = w->ops->translate(fm_web_record_or(rec, "port_list", ""), fm_web_record_or(rec, "status_url", ""),
                               fm_web_record_or(rec, "base_url", "http://127.0.0.1:80"));

    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_validate_loop_params(w->ocf, &probe_timeout_ms);
    }
    if (rc == PCMK_OCF_OK) {
        rc = w->ops->test_prepare(w->ocf, fm_web_record_or(rec, "base_url", "http://127.0.0.1:80"),
                                  fm_web_record_or(rec, "status_url", ""), false);
    }
    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_fresh_probe(w->ocf, probe_timeout_ms);
    }
    /* As at level 0: in heartbeat's mode a partial failure is a failure;
     * so it is where the level's test is heartbeat's own (nginx: its curl
     * fails the monitor on a timeout). */
    if (rc == PCMK_OCF_DEGRADED && (heartbeat || w->ops->strict_levels)) {
        rc = PCMK_OCF_UNKNOWN_ERROR;
    }
    return rc;
}

/*
 * The loop's last state into \p st, restarting a loop that died.
 * \return PCMK_OCF_OK with \p st filled (*done false), or the answer of the
 *         monitor (*done true): OK while the first cycle is under way, an
 *         error when it cannot be restarted, and for a file the reader
 *         refuses, no verdict from it: a fresh probe's (it may be the loop's
 *         own file that a check refuses at every cycle: never OK for that)
 */
static int
monitor_loop_state(struct fm_web *w, const struct fm_ocf_record *rec, struct fm_run_state *st,
                   bool heartbeat, bool *done)
{
    char err[512];
    int rc = 0;

    *done = true;
    if (fm_state_loop_pid(w->ocf->state_dir) == 0) {
        rc = restart_loop(w, rec, st);
        *done = (rc != PCMK_OCF_OK);
        return rc;
    }
    rc = fm_ocf_loop_state_read(w->ocf, st, err, sizeof(err));
    if (rc == ENOENT) {
        return PCMK_OCF_OK;     /* its first cycle is under way */
    }
    if (rc != 0) {
        fm_ocf_log(LOG_WARNING, "%s; no verdict from it: probing afresh", err);
        return monitor_level10(w, rec, heartbeat);
    }
    *done = false;
    return PCMK_OCF_OK;
}

/* The agent's staleness rule: a loop that stopped writing its state is stuck.
 * \return PCMK_OCF_OK, or PCMK_OCF_UNKNOWN_ERROR with an exit reason */
static int
check_stale(const struct fm_run_state *st)
{
    uint64_t age_s = 0;

    if (fm_recovery_state_stale(st, fm_now_us(), &age_s)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor has not written its state for %" PRIu64
                           " s: it is stuck", age_s);
    }
    return PCMK_OCF_OK;
}

/*
 * heartbeat's monitor fails on any failed fetch of its status page; a
 * partial failure must not pass for health here.  It is one complete failure
 * of the loop's history, so that Retry_count holds; the answer is the
 * decision, never success.
 * \return whether a target failed (then *rc is the answer)
 */
static bool
monitor_heartbeat_failed(struct fm_web *w, struct fm_run_state *st, int *rc)
{
    char failed[512];
    char cause[600];
    char reason[1024];
    int ev = 0;

    fm_ocf_first_failure(st, failed, sizeof(failed));
    if (failed[0] == '\0') {
        return false;
    }
    snprintf(cause, sizeof(cause), "status check failed: %s", failed);
    ev = fm_ocf_loop_event(w->ocf, cause, st);
    if (ev == EALREADY) {
        fm_ocf_short_decision(st, cause, reason, sizeof(reason));
        *rc = fm_ocf_fail(PCMK_OCF_DEGRADED, "%s asked, under way: %s", fm_action_name(st->pending),
                          reason);
    } else if (ev != 0) {
        *rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s", cause);
    } else {
        fm_ocf_short_decision(st, cause, reason, sizeof(reason));
        *rc = (st->ocf_rc == PCMK_OCF_INSUFFICIENT_PRIV)? PCMK_OCF_INSUFFICIENT_PRIV : PCMK_OCF_UNKNOWN_ERROR;
        fm_ocf_fail(*rc, "%s", reason);
    }
    return true;
}

/* The loop's decision \p rc (not success) as the monitor's answer. */
static int
monitor_decision(struct fm_web *w, const struct fm_run_state *st, int rc)
{
    char reason[1024];

    /* Target, cause and decision first: Pacemaker keeps only the start
     * of the reason. */
    fm_ocf_short_decision(st, NULL, reason, sizeof(reason));
    if ((rc == PCMK_OCF_UNKNOWN_ERROR || rc == PCMK_OCF_INSUFFICIENT_PRIV) && fm_recovery_reported(w->ocf->state_dir)) {
        /* The loop's fail request already reported it: count it once. */
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s asked, under way: %s", fm_action_name(st->pending), reason);
    }
    return fm_ocf_fail(rc, "%s", reason);
}

/* The running resource's health: the loop's state, then level 10. */
static int
monitor_running(struct fm_web *w, const struct fm_ocf_record *rec, bool heartbeat)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    bool done = false;
    bool degraded = false;
    int rc = PCMK_OCF_OK;

    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    rc = monitor_loop_state(w, rec, st, heartbeat, &done);
    if (!done) {
        rc = check_stale(st);
        done = (rc != PCMK_OCF_OK);
    }
    if (!done) {
        /* Only 0, 1, 4 or 190, from a state the reader fully checked. */
        rc = fm_state_ocf_rc(st);
        done = (rc == PCMK_OCF_OK || rc == PCMK_OCF_DEGRADED) && heartbeat
               && monitor_heartbeat_failed(w, st, &rc);
    }
    /* Where the level's test is heartbeat's own (strict_levels), a degraded
     * verdict still runs it: heartbeat's monitor fails when its test does. */
    degraded = !done && rc == PCMK_OCF_DEGRADED && w->ops->strict_levels && w->ocf->check_level >= 10;
    if (!done && rc != PCMK_OCF_OK && !degraded) {
        rc = monitor_decision(w, st, rc);
        done = true;
    }
    if (!done && w->ocf->check_level >= 10) {
        rc = monitor_level10(w, rec, heartbeat);
        if (rc == PCMK_OCF_OK && degraded) {
            rc = monitor_decision(w, st, PCMK_OCF_DEGRADED);
        }
    }
    free(st);
    return rc;
}

int
fm_web_monitor(struct fm_web *w, bool status_only)
{
    struct fm_ocf_record rec;
    char why[512];
    pid_t pid = 0;
    bool heartbeat = w->ops->heartbeat_mode();  /* before translate() adds targets */
    int rc = fm_web_check_resource_name(w->ocf);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    /* Pacemaker probes (a monitor with interval 0, run by the cluster: it
     * names the node) after a cleanup or a refresh, when it has forgotten
     * this node's fail-count and failures: faultmon forgets its history
     * and decision here too. */
    if (!status_only && w->ocf->interval_ms == 0 && getenv("OCF_RESKEY_CRM_meta_on_node") != NULL) {
        fm_ocf_loop_reset(w->ocf);
    }
    rc = fm_ocf_record_read_why(w->ocf->state_dir, &rec, why, sizeof(why));
    if (rc == ENOENT) {
        return monitor_unrecorded(w);
    }
    if (rc != 0) {
        return monitor_refused_record(w, why, status_only);
    }
    if (!status_only) {
        fm_ocf_loop_refusal_note(w->ocf);
    }
    /* No waiting for a pid file to reappear: Apache's graceful and full
     * restarts keep the parent's PID, so a dead PID means a dead server. */
    pid = fm_web_server_pid(fm_web_record_or(&rec, "pid_file", ""), fm_web_record_or(&rec, "httpd", ""));
    if (pid == 0) {
        return status_only? PCMK_OCF_NOT_RUNNING : monitor_server_dead(w, &rec);
    }
    if (status_only) {
        return PCMK_OCF_OK;
    }
    /* As heartbeat's monitor: a configuration removed from this node makes
     * the service one that cannot be started here again. */
    if (access(fm_web_record_or(&rec, "configfile", "/"), F_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "configfile %s was removed from this node: %s "
                           "(pid %ld) cannot be restarted here", fm_web_record_or(&rec, "configfile", "?"), w->ops->server,
                           (long) pid);
    }
    return monitor_running(w, &rec, heartbeat);
}
