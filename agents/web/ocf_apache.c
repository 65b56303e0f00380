/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the actions of ocf:faultmon:apache and
 * ocf:faultmon:nginx, and their dispatch; what differs between the two
 * servers comes from their struct fm_web_ops (ocf_apache_int.h).
 * Parameters and validate-all are in ocf_apache_params.c, server control in
 * ocf_apache_httpd.c, the level-10 test in ocf_apache_level10.c, the
 * configuration readers in ocf_apache_conf.c and ocf_nginx_conf.c.
 *
 * A monitor of a running resource reads two small files (the agent's record
 * and the loop's state) and httpd's pid file; everything that needs the
 * Apache configuration, the envfiles or a probe happens in start, stop,
 * validate-all and OCF_CHECK_LEVEL=10, or when the agent has no record.
 *
 * Size: one concern, the OCF actions of the two web agents and their dispatch.
 */
#include <config.h>

#include "ocf_apache.h"

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
#include <faultmon/words.h>

#include "ocf_apache_int.h"

static void
apache_clear(struct apache *a)
{
    fm_words_free(a->options, a->n_options);
    a->options = NULL;
    a->n_options = 0;
}

static void
write_record(const struct apache *a)
{
    struct fm_ocf_record rec;
    char digest[17];
    int rc = 0;

    memset(&rec, 0, sizeof(rec));
    fm_ocf_record_set(&rec, "agent", a->ops->agent);
    fm_ocf_record_set(&rec, "httpd", a->httpd);
    fm_ocf_record_set(&rec, "configfile", a->configfile);
    fm_ocf_record_set(&rec, "pid_file", a->pid_file);
    fm_ocf_record_set(&rec, "pid_directive", a->pid_directive? "1" : "0");
    fm_ocf_record_set(&rec, "port_list", a->port_list);
    fm_ocf_record_set(&rec, "status_url", a->status_url);
    fm_ocf_record_set(&rec, "base_url", a->base_url);
    fm_ocf_record_set(&rec, "Thorough_probe_interval", fm_ocf_param_or("Thorough_probe_interval", ""));
    fm_ocf_record_set(&rec, "Probe_timeout", fm_ocf_param_or("Probe_timeout", ""));
    a->ops->digest(digest);
    fm_ocf_record_set(&rec, "httpd_params", digest);
    fm_ocf_policy_record(&rec);
    rc = fm_ocf_record_write(a->ocf->state_dir, &rec);
    if (rc != 0) {
        fm_ocf_log(LOG_WARNING, "cannot write %s/agent: %s", a->ocf->state_dir, strerror(rc));
    }
}

static const char *
rec_or(const struct fm_ocf_record *rec, const char *key, const char *dflt)
{
    const char *v = fm_ocf_record_get(rec, key);

    return (v != NULL)? v : dflt;
}

/*
 * After a restart faultmon asked for: make Pacemaker's fail-count the number
 * of restarts faultmon counts within Retry_interval.  The controller counts
 * a fail request once or twice, and keeps counting past the window.
 */
static void
sync_failcount(const struct fm_ocf *ocf, const struct fm_run_state *prev)
{
    char name[FM_RESOURCE_NAME_MAX + 64];
    char value[32];
    char id[FM_RESOURCE_NAME_MAX];
    unsigned asked = fm_recovery_asked_count(ocf->state_dir);
    unsigned restarts = prev->restarts_in_window;
    uint64_t interval_ms = 0;
    uint64_t timeout_ms = 0;
    /* Not waited for: with attrd or the CIB frozen its calls (5 s each)
     * came before httpd was started again (tests/cluster/frozen-daemons.sh). */
    int where = fm_ocf_detach();

    if (where == 0) {
        return;
    }
    snprintf(id, sizeof(id), "%s", ocf->resource);
    if (asked > restarts) {
        asked = restarts;
    }
    snprintf(name, sizeof(name), "fail-count-%s#asyncmon_0", id);
    snprintf(value, sizeof(value), "%u", asked);
    fm_ocf_attrd(ocf, name, (asked > 0)? value : NULL);
    if (fm_ocf_monitor_op(ocf, &interval_ms, &timeout_ms)) {
        snprintf(name, sizeof(name), "fail-count-%s#monitor_%" PRIu64, id, interval_ms);
        snprintf(value, sizeof(value), "%u", restarts - asked);
        fm_ocf_attrd(ocf, name, (restarts > asked)? value : NULL);
    }
    fm_ocf_log(LOG_INFO, "fail-count set to the %u restart(s) faultmon counts within Retry_interval", restarts);
    if (where == 1) {
        _exit(0);
    }
}

/* A start is refused where faultmon decided to fail over, or while the
 * service is held for manual resume: that refusal is what moves it. */
static int
check_refusal(const struct fm_ocf *ocf)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[512];
    char reason[1024];
    enum fm_refusal refusal = FM_REFUSAL_NONE;
    int rc = PCMK_OCF_OK;

    if (st == NULL) {
        return PCMK_OCF_OK;
    }
    if (fm_state_read(ocf->state_dir, st, err, sizeof(err)) != 0) {
        free(st);
        return PCMK_OCF_OK;
    }
    refusal = fm_recovery_start_refusal(st, fm_recovery_file_exists(ocf->state_dir, FM_RECOVERY_RESUME));
    if (refusal == FM_REFUSAL_FAILOVER || refusal == FM_REFUSAL_HELD_FAILOVER) {
        fm_ocf_short_decision(st, NULL, reason, sizeof(reason));
        /* Refuse once: after a cleanup, a start here works again. */
        if (fm_recovery_refuse_once(ocf->state_dir, st, err, sizeof(err)) != 0) {
            fm_ocf_log(LOG_WARNING, "cannot clear the failover request: %s", err);
        }
    }
    /* Pacemaker keeps about 128 bytes of a reason: the decision and its
     * cause first, then what the administrator can do. */
    switch (refusal) {
        case FM_REFUSAL_HELD_FAILOVER:
            rc = fm_ocf_hold(PCMK_OCF_INSUFFICIENT_PRIV,
                             "held for manual resume, not starting here: %s; run faultmon resume %s, "
                             "then a cleanup", reason, ocf->resource);
            break;
        case FM_REFUSAL_FAILOVER:
            rc = fm_ocf_hold(PCMK_OCF_INSUFFICIENT_PRIV,
                             "%s; not starting here until a cleanup of %s", reason, ocf->resource);
            break;
        case FM_REFUSAL_HELD:
            rc = fm_ocf_hold(PCMK_OCF_INSUFFICIENT_PRIV,
                             "held for manual resume, not starting here: run faultmon resume %s, then a "
                             "cleanup (%s)", ocf->resource, st->reason);
            break;
        case FM_REFUSAL_NONE:
            break;
    }
    free(st);
    return rc;
}

/* The loop watches the server's parent and finds its exit at once; its
 * reasons name it as the agent does ("nginx (pid 812) exited"). */
static void
watch_env(const struct apache *a, const char *pid_file, bool kept)
{
    setenv("FAULTMON_WATCH_PIDFILE", pid_file, 1);
    setenv("FAULTMON_WATCH_NAME", a->ops->server, 1);
    fm_ocf_service_kept_env(kept);
}

static int
apache_start(struct apache *a)
{
    struct fm_run_state *st = NULL;
    char err[512];
    pid_t pid = 0;
    bool heartbeat = a->ops->heartbeat_mode();  /* before translate() adds targets */
    int rc = PCMK_OCF_OK;

    if (a->ocf->have_state_dir) {
        fm_apache_derive_timing(a->ocf);
    }
    rc = fm_apache_validate(a, true);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    if (fm_state_read(a->ocf->state_dir, st, err, sizeof(err)) == 0 && st->pending == FM_ACTION_RESTART
        && fm_state_loop_pid(a->ocf->state_dir) == 0) {
        sync_failcount(a->ocf, st);
    }
    free(st);
    st = NULL;
    pid = fm_apache_httpd_pid(a->pid_file, a->httpd);
    if (pid != 0 && fm_state_loop_pid(a->ocf->state_dir) != 0) {
        fm_ocf_log(LOG_INFO, "already running (%s pid %ld)", a->ops->server, (long) pid);
        write_record(a);
        return PCMK_OCF_OK;
    }
    if (pid == 0) {
        /* A loop left watching a dead httpd would rewrite the state while
         * it is judged here, and the loop started below replaces it. */
        if (!fm_ocf_loop_stop(a->ocf, 2000)) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor does not stop");
        }
        rc = check_refusal(a->ocf);
        if (rc != PCMK_OCF_OK) {
            return rc;
        }
        rc = fm_apache_httpd_start(a);
        if (rc != PCMK_OCF_OK) {
            return rc;
        }
    } else {
        fm_ocf_log(LOG_INFO, "%s already running (pid %ld); starting its fault monitor", a->ops->server, (long) pid);
    }
    rc = fm_state_dir_create(a->ocf->state_dir);
    if (rc != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot create %s: %s", a->ocf->state_dir, strerror(rc));
    }
    write_record(a);
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    watch_env(a, a->pid_file, pid != 0);     /* httpd already ran: not restarted */
    rc = fm_ocf_loop_start(a->ocf, NULL, st);
    if (rc == PCMK_OCF_OK && heartbeat && !a->loop_only) {
        char failed[512];

        /* heartbeat's start fails unless its status check passes. */
        fm_ocf_first_failure(st, failed, sizeof(failed));
        if (failed[0] != '\0') {
            rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "started, but the first probe cycle failed: %s (%s)",
                             failed, st->reason);
        }
    }
    if (rc == PCMK_OCF_OK && !a->loop_only && fm_state_ocf_rc(st) != PCMK_OCF_OK
        && fm_state_ocf_rc(st) != PCMK_OCF_DEGRADED) {
        char failed[512];

        fm_ocf_first_failure(st, failed, sizeof(failed));
        rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "started, but the first probe cycle failed: %s (%s)",
                         failed, st->reason);
    }
    free(st);
    return rc;
}

static int
apache_stop(struct apache *a)
{
    struct fm_ocf_record rec;
    bool have_record = false;
    pid_t pid = 0;
    int rc = fm_apache_check_resource_name(a->ocf);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (!fm_ocf_loop_stop(a->ocf, 2000)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor does not stop");
    }
    have_record = (fm_ocf_record_read(a->ocf->state_dir, &rec) == 0);
    rc = a->ops->resolve_params(a);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (have_record) {
        snprintf(a->httpd, sizeof(a->httpd), "%s", rec_or(&rec, "httpd", ""));
        snprintf(a->configfile, sizeof(a->configfile), "%s", rec_or(&rec, "configfile", a->configfile));
        snprintf(a->pid_file, sizeof(a->pid_file), "%s", rec_or(&rec, "pid_file", ""));
        a->pid_directive = (strcmp(rec_or(&rec, "pid_directive", "0"), "1") == 0);
    } else {
        /* Not started by us (or /run was emptied): what the configuration
         * says.  A stop must succeed when there is nothing to stop. */
        if (a->ops->resolve_rest(a) != PCMK_OCF_OK) {
            fm_ocf_log(LOG_INFO, "cannot resolve %s or its configuration; nothing to stop", a->ops->server);
            fm_ocf_stop_attributes(a->ocf);
            return PCMK_OCF_OK;
        }
    }
    pid = fm_apache_httpd_pid(a->pid_file, a->httpd);
    rc = fm_apache_httpd_stop(a, pid);
    if (rc == PCMK_OCF_OK) {
        fm_ocf_record_remove(a->ocf->state_dir);
        fm_ocf_stop_attributes(a->ocf);
        fm_ocf_log(LOG_INFO, "stopped");
    }
    return rc;
}

/* No record: is an httpd of this configuration running anyway? */
static int
monitor_unrecorded(struct apache *a)
{
    pid_t pid = 0;

    if (a->ops->resolve_params(a) != PCMK_OCF_OK || a->ops->resolve_rest(a) != PCMK_OCF_OK) {
        return PCMK_OCF_NOT_RUNNING;
    }
    pid = fm_apache_httpd_pid(a->pid_file, a->httpd);
    if (pid == 0) {
        return PCMK_OCF_NOT_RUNNING;
    }
    fm_ocf_log(LOG_WARNING, "%s (pid %ld, %s) runs without its fault monitor: not started by this agent",
               a->ops->server, (long) pid, a->pid_file);
    return PCMK_OCF_OK;
}

static int
restart_loop(struct apache *a, const struct fm_ocf_record *rec, struct fm_run_state *st)
{
    int rc = a->ops->translate(rec_or(rec, "port_list", ""), rec_or(rec, "status_url", ""),
                               rec_or(rec, "base_url", "http://127.0.0.1:80"));

    fm_ocf_log(LOG_WARNING, "the fault monitor is not running; restarting it");
    fm_apache_params_from_record(rec);
    if (rc == PCMK_OCF_OK) {
        watch_env(a, rec_or(rec, "pid_file", ""), true);
        rc = fm_ocf_loop_start(a->ocf, NULL, st);
    }
    if (rc != PCMK_OCF_OK) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor died and could not be restarted");
    }
    return PCMK_OCF_OK;
}

/*
 * The monitor found httpd dead.  That failure enters the loop's history as
 * a complete failure, like a failed probe, and the answer is the loop's
 * decision: 1 restart, 4 failover (fail-count INFINITY, as the ban it
 * causes), or degraded (fall not reached).  While a recovery the cluster
 * already knows of is pending (the loop's fail request, or an earlier
 * monitor's answer), it is the same outage: degraded, so that Pacemaker
 * counts it once.
 */
static int
monitor_httpd_dead(struct apache *a, const struct fm_ocf_record *rec)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char cause[FM_OCF_PATH_MAX + 64];
    char reason[1024];
    char err[512];
    int rc = 0;

    snprintf(cause, sizeof(cause), "%s is not running (pid file %s)", a->ops->server, rec_or(rec, "pid_file", "?"));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s", cause);
    }
    if (fm_recovery_reported(a->ocf->state_dir) && fm_state_read(a->ocf->state_dir, st, err, sizeof(err)) == 0
        && st->pending != FM_ACTION_NONE) {
        const char *action = fm_action_name(st->pending);

        fm_ocf_short_decision(st, cause, reason, sizeof(reason));
        free(st);
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s asked, under way: %s", action, reason);
    }
    snprintf(reason, sizeof(reason), "%s is not running", a->ops->server);
    rc = fm_ocf_loop_event(a->ocf, reason, st);
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
    snprintf(err, sizeof(err), "%s is not running", a->ops->server);
    fm_ocf_short_decision(st, err, reason, sizeof(reason));
    snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason), " (pid file %s)",
               rec_or(rec, "pid_file", "?"));
    rc = st->ocf_rc;
    if (rc == PCMK_OCF_INSUFFICIENT_PRIV && a->ocf->interval_ms > 0) {
        char name[FM_RESOURCE_NAME_MAX + 64];

        snprintf(name, sizeof(name), "fail-count-%s#monitor_%" PRIu64, a->ocf->resource, a->ocf->interval_ms);
        fm_ocf_attrd(a->ocf, name, "INFINITY");
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
 * running is still "not running"; a running httpd is no verdict, so never
 * success: a failure, whose recovery (stop, start) writes a new record.
 */
static int
monitor_refused_record(struct apache *a, const char *why, bool status_only)
{
    int rc = PCMK_OCF_OK;

    fm_ocf_log(LOG_WARNING, "the agent's record is refused: %s", why);
    rc = monitor_unrecorded(a);
    if (rc != PCMK_OCF_OK || status_only) {
        return rc;
    }
    return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s runs, but the agent's record %s/agent is refused "
                       "(%s): its fault monitor cannot be trusted", a->ops->server, a->ocf->state_dir, why);
}

/* OCF_CHECK_LEVEL=10: a fresh probe cycle with the helper, and the test. */
static int
monitor_level10(struct apache *a, const struct fm_ocf_record *rec, bool heartbeat)
{
    uint64_t probe_timeout_ms = 0;
    int rc = a->ops->translate(rec_or(rec, "port_list", ""), rec_or(rec, "status_url", ""),
                               rec_or(rec, "base_url", "http://127.0.0.1:80"));

    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_validate_loop_params(a->ocf, &probe_timeout_ms);
    }
    if (rc == PCMK_OCF_OK) {
        rc = a->ops->test_prepare(a->ocf, rec_or(rec, "base_url", "http://127.0.0.1:80"),
                                  rec_or(rec, "status_url", ""), false);
    }
    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_fresh_probe(a->ocf, probe_timeout_ms);
    }
    /* As at level 0: in heartbeat's mode a partial failure is a failure;
     * so it is where the level's test is heartbeat's own (nginx: its curl
     * fails the monitor on a timeout). */
    if (rc == PCMK_OCF_DEGRADED && (heartbeat || a->ops->strict_levels)) {
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
monitor_loop_state(struct apache *a, const struct fm_ocf_record *rec, struct fm_run_state *st,
                   bool heartbeat, bool *done)
{
    char err[512];
    int rc = 0;

    *done = true;
    if (fm_state_loop_pid(a->ocf->state_dir) == 0) {
        rc = restart_loop(a, rec, st);
        *done = (rc != PCMK_OCF_OK);
        return rc;
    }
    rc = fm_ocf_loop_state_read(a->ocf, st, err, sizeof(err));
    if (rc == ENOENT) {
        return PCMK_OCF_OK;     /* its first cycle is under way */
    }
    if (rc != 0) {
        fm_ocf_log(LOG_WARNING, "%s; no verdict from it: probing afresh", err);
        return monitor_level10(a, rec, heartbeat);
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
monitor_heartbeat_failed(struct apache *a, struct fm_run_state *st, int *rc)
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
    ev = fm_ocf_loop_event(a->ocf, cause, st);
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
monitor_decision(struct apache *a, const struct fm_run_state *st, int rc)
{
    char reason[1024];

    /* Target, cause and decision first: Pacemaker keeps only the start
     * of the reason. */
    fm_ocf_short_decision(st, NULL, reason, sizeof(reason));
    if ((rc == PCMK_OCF_UNKNOWN_ERROR || rc == PCMK_OCF_INSUFFICIENT_PRIV) && fm_recovery_reported(a->ocf->state_dir)) {
        /* The loop's fail request already reported it: count it once. */
        return fm_ocf_fail(PCMK_OCF_DEGRADED, "%s asked, under way: %s", fm_action_name(st->pending), reason);
    }
    return fm_ocf_fail(rc, "%s", reason);
}

/* The running resource's health: the loop's state, then level 10. */
static int
monitor_running(struct apache *a, const struct fm_ocf_record *rec, bool heartbeat)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    bool done = false;
    bool degraded = false;
    int rc = PCMK_OCF_OK;

    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    rc = monitor_loop_state(a, rec, st, heartbeat, &done);
    if (!done) {
        rc = check_stale(st);
        done = (rc != PCMK_OCF_OK);
    }
    if (!done) {
        /* Only 0, 1, 4 or 190, from a state the reader fully checked. */
        rc = fm_state_ocf_rc(st);
        done = (rc == PCMK_OCF_OK || rc == PCMK_OCF_DEGRADED) && heartbeat
               && monitor_heartbeat_failed(a, st, &rc);
    }
    /* Where the level's test is heartbeat's own (strict_levels), a degraded
     * verdict still runs it: heartbeat's monitor fails when its test does. */
    degraded = !done && rc == PCMK_OCF_DEGRADED && a->ops->strict_levels && a->ocf->check_level >= 10;
    if (!done && rc != PCMK_OCF_OK && !degraded) {
        rc = monitor_decision(a, st, rc);
        done = true;
    }
    if (!done && a->ocf->check_level >= 10) {
        rc = monitor_level10(a, rec, heartbeat);
        if (rc == PCMK_OCF_OK && degraded) {
            rc = monitor_decision(a, st, PCMK_OCF_DEGRADED);
        }
    }
    free(st);
    return rc;
}

static int
apache_monitor(struct apache *a, bool status_only)
{
    struct fm_ocf_record rec;
    char why[512];
    pid_t pid = 0;
    bool heartbeat = a->ops->heartbeat_mode();  /* before translate() adds targets */
    int rc = fm_apache_check_resource_name(a->ocf);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    /* Pacemaker probes (a monitor with interval 0, run by the cluster: it
     * names the node) after a cleanup or a refresh, when it has forgotten
     * this node's fail-count and failures: faultmon forgets its history
     * and decision here too. */
    if (!status_only && a->ocf->interval_ms == 0 && getenv("OCF_RESKEY_CRM_meta_on_node") != NULL) {
        fm_ocf_loop_reset(a->ocf);
    }
    rc = fm_ocf_record_read_why(a->ocf->state_dir, &rec, why, sizeof(why));
    if (rc == ENOENT) {
        return monitor_unrecorded(a);
    }
    if (rc != 0) {
        return monitor_refused_record(a, why, status_only);
    }
    /* No waiting for a pid file to reappear: Apache's graceful and full
     * restarts keep the parent's PID, so a dead PID means a dead httpd. */
    pid = fm_apache_httpd_pid(rec_or(&rec, "pid_file", ""), rec_or(&rec, "httpd", ""));
    if (pid == 0) {
        return status_only? PCMK_OCF_NOT_RUNNING : monitor_httpd_dead(a, &rec);
    }
    if (status_only) {
        return PCMK_OCF_OK;
    }
    /* As heartbeat's monitor: a configuration removed from this node makes
     * the service one that cannot be started here again. */
    if (access(rec_or(&rec, "configfile", "/"), F_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "configfile %s was removed from this node: %s "
                           "(pid %ld) cannot be restarted here", rec_or(&rec, "configfile", "?"), a->ops->server,
                           (long) pid);
    }
    return monitor_running(a, &rec, heartbeat);
}

/*
 * reload: Pacemaker calls it instead of a restart when only parameters
 * without unique="1" changed (the OCF 1.0 reload that Pacemaker 2.1 still
 * honours).  The fault monitor's parameters (Retry_count, Probe_timeout,
 * targets...) take effect by a restart of the loop alone, which keeps its
 * history in the state directory; httpd's own (httpd, options, envfiles)
 * by a restart of httpd in place, as Pacemaker would have done.  Invalid
 * new parameters change nothing and fail the reload.
 */
static int
apache_reload(struct apache *a)
{
    struct fm_ocf_record rec;
    struct apache fresh;
    char digest[17];
    int rc = fm_apache_validate_in_child(a);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (fm_ocf_record_read(a->ocf->state_dir, &rec) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_RUNNING, "not started by this agent here: nothing to reload");
    }
    memset(&fresh, 0, sizeof(fresh));
    fresh.ocf = a->ocf;
    fresh.ops = a->ops;
    a->ops->digest(digest);
    if (strcmp(rec_or(&rec, "httpd_params", ""), digest) != 0) {
        fm_ocf_log(LOG_NOTICE, "reload: %s's own parameters changed: restarting it in place", a->ops->server);
        rc = apache_stop(&fresh);
        apache_clear(&fresh);
        memset(&fresh, 0, sizeof(fresh));
        fresh.ocf = a->ocf;
        fresh.ops = a->ops;
        if (rc == PCMK_OCF_OK) {
            rc = apache_start(&fresh);
        }
        apache_clear(&fresh);
        return rc;
    }
    fm_ocf_log(LOG_NOTICE, "reload: restarting the fault monitor with the new parameters (%s untouched)",
               a->ops->server);
    if (!fm_ocf_loop_stop(a->ocf, 2000)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: the fault monitor does not stop");
    }
    /* A failing service is the monitor's to report (the loop keeps its
     * history and decides): the reload itself worked. */
    fresh.loop_only = true;
    rc = apache_start(&fresh);      /* httpd runs: starts only its fault monitor */
    apache_clear(&fresh);
    return rc;
}

int
fm_web_main(struct fm_ocf *ocf, const struct fm_web_ops *ops)
{
    struct apache a;
    int rc = PCMK_OCF_UNIMPLEMENT_FEATURE;

    memset(&a, 0, sizeof(a));
    a.ocf = ocf;
    a.ops = ops;
    if (strcmp(ocf->action, "start") == 0) {
        rc = apache_start(&a);
    } else if (strcmp(ocf->action, "stop") == 0) {
        rc = apache_stop(&a);
    } else if (strcmp(ocf->action, "monitor") == 0) {
        rc = apache_monitor(&a, false);
    } else if (strcmp(ocf->action, "status") == 0) {
        rc = apache_monitor(&a, true);
        if (rc != PCMK_OCF_OK) {
            rc = PCMK_OCF_NOT_RUNNING;
        }
    } else if (strcmp(ocf->action, "validate-all") == 0) {
        rc = fm_apache_validate(&a, true);
    } else if (strcmp(ocf->action, "reload") == 0) {
        rc = apache_reload(&a);
    }
    apache_clear(&a);
    return rc;
}
