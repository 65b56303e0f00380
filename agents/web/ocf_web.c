/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the actions of the web agents (ocf:faultmon:apache,
 * ocf:faultmon:nginx) but monitor: start, stop, reload, and their dispatch.
 * What differs between the servers comes from their struct fm_web_ops
 * (ocf_web.h, filled by ocf_apache.c and ocf_nginx.c); monitor and status
 * are in ocf_web_monitor.c, the parameters shared by both servers and
 * validate-all in ocf_web_params.c, the server's processes in
 * ocf_web_server.c.
 */
#include <config.h>

#include "ocf_web.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/recovery.h>
#include <faultmon/state.h>
#include <faultmon/words.h>

static void
web_clear(struct fm_web *w)
{
    fm_words_free(w->options, w->n_options);
    w->options = NULL;
    w->n_options = 0;
}

static void
write_record(const struct fm_web *w)
{
    struct fm_ocf_record rec;
    char digest[17];
    int rc = 0;

    memset(&rec, 0, sizeof(rec));
    /* The keys keep their first names ("httpd": the program, of nginx
     * too), so that a record an earlier version wrote reads back. */
    fm_ocf_record_set(&rec, "agent", w->ops->agent);
    fm_ocf_record_set(&rec, "httpd", w->program);
    fm_ocf_record_set(&rec, "configfile", w->configfile);
    fm_ocf_record_set(&rec, "pid_file", w->pid_file);
    fm_ocf_record_set(&rec, "pid_directive", w->pid_directive? "1" : "0");
    fm_ocf_record_set(&rec, "port_list", w->port_list);
    fm_ocf_record_set(&rec, "status_url", w->status_url);
    fm_ocf_record_set(&rec, "base_url", w->base_url);
    fm_ocf_record_set(&rec, "Thorough_probe_interval", fm_ocf_param_or("Thorough_probe_interval", ""));
    fm_ocf_record_set(&rec, "Probe_timeout", fm_ocf_param_or("Probe_timeout", ""));
    w->ops->digest(digest);
    fm_ocf_record_set(&rec, "httpd_params", digest);
    fm_ocf_policy_record(&rec);
    rc = fm_ocf_record_write(w->ocf->state_dir, &rec);
    if (rc != 0) {
        fm_ocf_log(LOG_WARNING, "cannot write %s/agent: %s", w->ocf->state_dir, strerror(rc));
    }
}

/* What the detached process of sync_failcount() writes, read in the agent. */
struct failcount_sync {
    const struct fm_ocf *ocf;
    unsigned asked;
    unsigned restarts;
};

static void
write_failcount(void *arg)
{
    const struct failcount_sync *fs = arg;
    const struct fm_ocf *ocf = fs->ocf;
    char name[FM_RESOURCE_NAME_MAX + 64];
    char value[32];
    char id[FM_RESOURCE_NAME_MAX];
    unsigned asked = fs->asked;
    unsigned restarts = fs->restarts;
    uint64_t interval_ms = 0;
    uint64_t timeout_ms = 0;

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
}

/*
 * After a restart faultmon asked for: make Pacemaker's fail-count the number
 * of restarts faultmon counts within Retry_interval.  The controller counts
 * a fail request once or twice, and keeps counting past the window.
 */
static void
sync_failcount(const struct fm_ocf *ocf, const struct fm_run_state *prev)
{
    struct failcount_sync fs = {
        .ocf = ocf,
        .asked = fm_recovery_asked_count(ocf->state_dir),
        .restarts = prev->restarts_in_window,
    };

    /* Not waited for: with attrd or the CIB frozen its calls (5 s each)
     * came before httpd was started again (tests/cluster/frozen-daemons.sh). */
    fm_ocf_detached(write_failcount, &fs);
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

static int
web_start(struct fm_web *w)
{
    struct fm_run_state *st = NULL;
    char err[512];
    pid_t pid = 0;
    bool heartbeat = w->ops->heartbeat_mode();  /* before translate() adds targets */
    int rc = PCMK_OCF_OK;

    if (w->ocf->have_state_dir) {
        fm_web_derive_timing(w->ocf);
    }
    rc = fm_web_validate(w, true);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    if (fm_state_read(w->ocf->state_dir, st, err, sizeof(err)) == 0 && st->pending == FM_ACTION_RESTART
        && fm_state_loop_pid(w->ocf->state_dir) == 0) {
        sync_failcount(w->ocf, st);
    }
    free(st);
    st = NULL;
    pid = fm_web_server_pid(w->pid_file, w->program);
    if (pid != 0 && fm_state_loop_pid(w->ocf->state_dir) != 0) {
        fm_ocf_log(LOG_INFO, "already running (%s pid %ld)", w->ops->server, (long) pid);
        write_record(w);
        return PCMK_OCF_OK;
    }
    if (pid == 0) {
        /* A loop left watching a dead server would rewrite the state while
         * it is judged here, and the loop started below replaces it. */
        if (!fm_ocf_loop_stop(w->ocf, 2000)) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor does not stop");
        }
        rc = check_refusal(w->ocf);
        if (rc != PCMK_OCF_OK) {
            return rc;
        }
        rc = fm_web_server_start(w);
        if (rc != PCMK_OCF_OK) {
            return rc;
        }
    } else {
        fm_ocf_log(LOG_INFO, "%s already running (pid %ld); starting its fault monitor", w->ops->server, (long) pid);
    }
    rc = fm_state_dir_create(w->ocf->state_dir);
    if (rc != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot create %s: %s", w->ocf->state_dir, strerror(rc));
    }
    write_record(w);
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    fm_web_watch_env(w, w->pid_file, pid != 0);     /* the server already ran: not restarted */
    rc = fm_ocf_loop_start(w->ocf, NULL, st);
    if (rc == PCMK_OCF_OK && heartbeat && !w->loop_only) {
        char failed[512];

        /* heartbeat's start fails unless its status check passes. */
        fm_ocf_first_failure(st, failed, sizeof(failed));
        if (failed[0] != '\0') {
            rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "started, but the first probe cycle failed: %s (%s)",
                             failed, st->reason);
        }
    }
    if (rc == PCMK_OCF_OK && !w->loop_only && fm_state_ocf_rc(st) != PCMK_OCF_OK
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
web_stop(struct fm_web *w)
{
    struct fm_ocf_record rec;
    bool have_record = false;
    pid_t pid = 0;
    int rc = fm_web_check_resource_name(w->ocf);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (!fm_ocf_loop_stop(w->ocf, 2000)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor does not stop");
    }
    have_record = (fm_ocf_record_read(w->ocf->state_dir, &rec) == 0);
    rc = w->ops->resolve_params(w);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (have_record) {
        snprintf(w->program, sizeof(w->program), "%s", fm_web_record_or(&rec, "httpd", ""));
        snprintf(w->configfile, sizeof(w->configfile), "%s", fm_web_record_or(&rec, "configfile", w->configfile));
        snprintf(w->pid_file, sizeof(w->pid_file), "%s", fm_web_record_or(&rec, "pid_file", ""));
        w->pid_directive = (strcmp(fm_web_record_or(&rec, "pid_directive", "0"), "1") == 0);
    } else {
        /* Not started by us (or /run was emptied): what the configuration
         * says.  A stop must succeed when there is nothing to stop. */
        if (w->ops->resolve_rest(w) != PCMK_OCF_OK) {
            fm_ocf_log(LOG_INFO, "cannot resolve %s or its configuration; nothing to stop", w->ops->server);
            fm_ocf_stop_attributes(w->ocf);
            return PCMK_OCF_OK;
        }
    }
    pid = fm_web_server_pid(w->pid_file, w->program);
    rc = fm_web_server_stop(w, pid);
    if (rc == PCMK_OCF_OK) {
        fm_ocf_record_remove(w->ocf->state_dir);
        fm_ocf_stop_attributes(w->ocf);
        fm_ocf_log(LOG_INFO, "stopped");
    }
    return rc;
}


/*
 * reload: Pacemaker calls it instead of a restart when only parameters
 * without unique="1" changed (the OCF 1.0 reload that Pacemaker 2.1 still
 * honours).  The fault monitor's parameters (Retry_count, Probe_timeout,
 * targets...) take effect by a restart of the loop alone, which keeps its
 * history in the state directory; the server's own (httpd, options,
 * envfiles, configfile) by a restart of the server in place, as Pacemaker
 * would have done.  Invalid new parameters change nothing and fail the
 * reload.
 */
static int
web_reload(struct fm_web *w)
{
    struct fm_ocf_record rec;
    struct fm_web fresh;
    char digest[17];
    int rc = fm_web_validate_in_child(w);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (fm_ocf_record_read(w->ocf->state_dir, &rec) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_RUNNING, "not started by this agent here: nothing to reload");
    }
    memset(&fresh, 0, sizeof(fresh));
    fresh.ocf = w->ocf;
    fresh.ops = w->ops;
    w->ops->digest(digest);
    if (strcmp(fm_web_record_or(&rec, "httpd_params", ""), digest) != 0) {
        fm_ocf_log(LOG_NOTICE, "reload: %s's own parameters changed: restarting it in place", w->ops->server);
        rc = web_stop(&fresh);
        web_clear(&fresh);
        memset(&fresh, 0, sizeof(fresh));
        fresh.ocf = w->ocf;
        fresh.ops = w->ops;
        if (rc == PCMK_OCF_OK) {
            rc = web_start(&fresh);
        }
        web_clear(&fresh);
        return rc;
    }
    fm_ocf_log(LOG_NOTICE, "reload: restarting the fault monitor with the new parameters (%s untouched)",
               w->ops->server);
    if (!fm_ocf_loop_stop(w->ocf, 2000)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: the fault monitor does not stop");
    }
    /* A failing service is the monitor's to report (the loop keeps its
     * history and decides): the reload itself worked. */
    fresh.loop_only = true;
    rc = web_start(&fresh);      /* the server runs: starts only its fault monitor */
    web_clear(&fresh);
    return rc;
}

int
fm_web_main(struct fm_ocf *ocf, const struct fm_web_ops *ops)
{
    struct fm_web w;
    int rc = PCMK_OCF_UNIMPLEMENT_FEATURE;

    memset(&w, 0, sizeof(w));
    w.ocf = ocf;
    w.ops = ops;
    if (strcmp(ocf->action, "start") == 0) {
        rc = web_start(&w);
    } else if (strcmp(ocf->action, "stop") == 0) {
        rc = web_stop(&w);
    } else if (strcmp(ocf->action, "monitor") == 0) {
        rc = fm_web_monitor(&w, false);
    } else if (strcmp(ocf->action, "status") == 0) {
        rc = fm_web_monitor(&w, true);
        if (rc != PCMK_OCF_OK) {
            rc = PCMK_OCF_NOT_RUNNING;
        }
    } else if (strcmp(ocf->action, "validate-all") == 0) {
        rc = fm_web_validate(&w, true);
    } else if (strcmp(ocf->action, "reload") == 0) {
        rc = web_reload(&w);
    }
    web_clear(&w);
    return rc;
}
