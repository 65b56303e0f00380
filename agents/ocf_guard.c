/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the actions of ocf:faultmon:guard, the Sun Cluster
 * fault monitor for any resource Pacemaker runs.  The guard runs the
 * fault-monitor loop beside the resource it guards (`resource`) and the loop
 * acts on that resource, not on the guard: a restart is a fail request for
 * it (Pacemaker restarts it in place), a failover that request after its
 * fail-count on this node is set to INFINITY (Pacemaker moves it; a cleanup
 * or failure-timeout clears it, as any failure).  The guard never stops,
 * starts or configures the guarded resource itself.
 */
#include <config.h>

#include "ocf_guard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/pcmk.h>
#include <faultmon/recovery.h>
#include <faultmon/state.h>

/* Pacemaker's ids are XML IDs; faultmon's state names allow no more.  The
 * XPath of the CIB lookup quotes the id, so this also keeps quotes out. */
static bool
valid_id(const char *id)
{
    size_t len = strlen(id);

    if (len == 0 || len >= FM_RESOURCE_NAME_MAX
        || !((id[0] >= 'A' && id[0] <= 'Z') || (id[0] >= 'a' && id[0] <= 'z') || id[0] == '_')) {
        return false;
    }
    return strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == len;
}

/* The guard's own id without a clone suffix. */
static bool
is_self(const struct fm_guard *g)
{
    const char *self = g->ocf->resource;

    return self != NULL && strncmp(self, g->resource, strlen(g->resource)) == 0
           && (self[strlen(g->resource)] == '\0' || self[strlen(g->resource)] == ':');
}

static bool
has_value(const char *name)
{
    const char *v = fm_ocf_param(name);

    return v != NULL && v[strspn(v, " \t\r\n,")] != '\0';
}

int
fm_guard_params(struct fm_guard *g)
{
    g->resource = fm_ocf_param("resource");
    if (!g->ocf->have_state_dir) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "OCF_RESOURCE_INSTANCE '%s' is not a usable resource name",
                           (g->ocf->resource != NULL)? g->ocf->resource : "");
    }
    if (g->resource == NULL || g->resource[0] == '\0') {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "resource is required: the id of the resource to guard");
    }
    if (!valid_id(g->resource)) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "invalid resource '%.64s': expected a resource id (a letter or '_', then "
                           "letters, digits, '.', '_', '-')", g->resource);
    }
    if (is_self(g)) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "resource '%s' is this guard itself", g->resource);
    }
    /* The loop's default target (http://127.0.0.1/) is the apache agent's;
     * a guard probes what the administrator names. */
    if (!has_value("Port_list") && !has_value("Monitor_Uri_List") && !has_value("Probe_command")) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "nothing to probe: set Port_list, Monitor_Uri_List or "
                           "Probe_command for %s", g->resource);
    }
    return PCMK_OCF_OK;
}

/* Run by Pacemaker (it names the node), not by hand or by ocf-tester. */
static bool
under_pacemaker(void)
{
    const char *node = getenv("OCF_RESKEY_CRM_meta_on_node");

    return node != NULL && node[0] != '\0';
}

/*
 * The guarded resource in the CIB.  Without a cluster (ocf-tester, a shell)
 * there is nothing to look up and nothing to act on: the loop then only
 * records its decisions, and says so.  Under Pacemaker an unreadable CIB
 * fails the action, which Pacemaker retries.
 */
static int
guard_lookup(struct fm_guard *g)
{
    int rc = fm_ocf_cib_primitive(g->resource, &g->rsc);

    switch (rc) {
        case 0:
            break;
        case ENOENT:
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "resource '%s' is not in the CIB", g->resource);
        case EISDIR:
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                               "resource '%s' is a %s, not a primitive: guard the primitive it holds",
                               g->resource, (g->rsc.kind[0] != '\0')? g->rsc.kind : "collection");
        default:
            if (under_pacemaker()) {
                return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot read resource '%s' from the CIB",
                                   g->resource);
            }
            fm_ocf_log(LOG_WARNING, "no CIB to read resource '%s' from (no cluster here): the fault "
                       "monitor will only record its decisions", g->resource);
            return PCMK_OCF_OK;
    }
    if (g->rsc.cloned) {
        return fm_ocf_fail(PCMK_OCF_UNIMPLEMENT_FEATURE,
                           "resource '%s' is cloned: guarding a clone's instances is not supported",
                           g->resource);
    }
    g->have_rsc = true;
    return PCMK_OCF_OK;
}

static int
guard_validate(struct fm_guard *g)
{
    int rc = fm_guard_params(g);

    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_validate_loop_params(g->ocf, NULL);
    }
    if (rc == PCMK_OCF_OK && access(fm_ocf_faultmon_path(), X_OK) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "the faultmon program %s is missing", fm_ocf_faultmon_path());
    }
    if (rc == PCMK_OCF_OK) {
        rc = guard_lookup(g);
    }
    return rc;
}

/* The loop learns whom it acts on from its environment (faultmon/pcmk.h). */
static void
export_guarded(const struct fm_guard *g)
{
    if (!g->have_rsc) {
        unsetenv("FAULTMON_GUARD_RESOURCE");
        return;
    }
    setenv("FAULTMON_GUARD_RESOURCE", g->resource, 1);
    setenv("FAULTMON_GUARD_CLASS", g->rsc.standard, 1);
    setenv("FAULTMON_GUARD_TYPE", g->rsc.type, 1);
    if (g->rsc.provider[0] != '\0') {
        setenv("FAULTMON_GUARD_PROVIDER", g->rsc.provider, 1);
    } else {
        unsetenv("FAULTMON_GUARD_PROVIDER");
    }
}

/*
 * After a restart the guard asked for: the guarded resource's fail-count of
 * the fail requests (Pacemaker's asyncmon_0, whether the loop asked or the
 * monitor with crm_resource --fail) becomes the restarts faultmon counts
 * within Retry_interval.  The controller counts a fail request once or
 * twice: one restart left fail-count 2, and a migration-threshold of 2 would
 * then move a service that one restart brought back.
 */
static void
sync_failcount(const struct fm_guard *g, const struct fm_run_state *st)
{
    char name[FM_RESOURCE_NAME_MAX + 32];
    char value[32];

    if (!g->have_rsc || st->restarts_in_window == 0) {
        return;
    }
    snprintf(name, sizeof(name), FM_PCMK_GUARD_FAILCOUNT_FMT, g->resource);
    snprintf(value, sizeof(value), "%u", (unsigned) st->restarts_in_window);
    if (fm_ocf_attrd(g->ocf, name, value) == 0) {
        fm_ocf_log(LOG_INFO, "fail-count of %s set to the %s restart(s) faultmon counts within "
                   "Retry_interval", g->resource, value);
    }
}

/*
 * A recovery left pending by the guard's last loop: a start of the guard
 * means Pacemaker carried it out.  A restart: the guarded resource was
 * restarted (the group restarts the guard after it), and the restart stays
 * in the history that Retry_count counts.  A failover: the resource is
 * allowed here again, so its ban was cleaned up or expired, and faultmon
 * forgets as Pacemaker did.
 */
static void
settle_pending(struct fm_guard *g)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[512];

    if (st == NULL || fm_state_read(g->ocf->state_dir, st, err, sizeof(err)) != 0
        || st->pending == FM_ACTION_NONE) {
        free(st);
        return;
    }
    if (st->pending == FM_ACTION_FAILOVER) {
        fm_ocf_log(LOG_NOTICE, "%s runs here again after the failover faultmon asked: forgetting the "
                   "history", g->resource);
        fm_ocf_loop_reset(g->ocf);
    } else {
        sync_failcount(g, st);
        if (fm_recovery_refuse_once(g->ocf->state_dir, st, err, sizeof(err)) != 0) {
            fm_ocf_log(LOG_WARNING, "cannot clear the restart carried out: %s", err);
        }
    }
    free(st);
}

static int
write_record(const struct fm_guard *g)
{
    struct fm_ocf_record rec;
    int rc = 0;

    memset(&rec, 0, sizeof(rec));
    fm_ocf_record_set(&rec, "agent", "guard");
    fm_ocf_record_set(&rec, "resource", g->resource);
    fm_ocf_record_set(&rec, "class", g->have_rsc? g->rsc.standard : "");
    fm_ocf_record_set(&rec, "provider", g->have_rsc? g->rsc.provider : "");
    fm_ocf_record_set(&rec, "type", g->have_rsc? g->rsc.type : "");
    rc = fm_ocf_record_write(g->ocf->state_dir, &rec);
    if (rc != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot write %s/agent: %s", g->ocf->state_dir,
                           strerror(rc));
    }
    return PCMK_OCF_OK;
}

int
fm_guard_start_loop(struct fm_guard *g)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    int rc = PCMK_OCF_OK;

    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    export_guarded(g);
    rc = fm_ocf_loop_start(g->ocf, NULL, st);
    free(st);
    return rc;
}

static int
guard_start(struct fm_guard *g)
{
    int rc = PCMK_OCF_OK;

    fm_ocf_policy_clear(g->ocf);
    rc = guard_validate(g);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (fm_state_loop_pid(g->ocf->state_dir) != 0) {
        fm_ocf_log(LOG_INFO, "already running");
        return PCMK_OCF_OK;
    }
    if (g->have_rsc && !fm_ocf_cib_guard_placed(g->resource, g->ocf->resource)) {
        fm_ocf_log(LOG_WARNING, "%s is not in a group after %s, nor ordered after and colocated with it: "
                   "the guard may judge %s while Pacemaker stops or moves it", g->ocf->resource,
                   g->resource, g->resource);
    }
    rc = fm_state_dir_create(g->ocf->state_dir);
    if (rc != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot create %s: %s", g->ocf->state_dir, strerror(rc));
    }
    settle_pending(g);
    rc = write_record(g);
    if (rc == PCMK_OCF_OK) {
        rc = fm_guard_start_loop(g);
    }
    if (rc != PCMK_OCF_OK) {
        fm_ocf_record_remove(g->ocf->state_dir);
    }
    return rc;
}

/* What the guard's loop may have published; none may outlive the guard. */
static void
remove_attributes(const struct fm_guard *g)
{
    static const char *const suffixes[] = { "reason", "state", "weight" };
    char name[FM_RESOURCE_NAME_MAX + 32];

    if (access(fm_ocf_attrd_updater_path(), X_OK) != 0) {
        return;
    }
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        snprintf(name, sizeof(name), "faultmon-%s-%s", g->ocf->resource, suffixes[i]);
        fm_ocf_attrd(g->ocf, name, NULL);
    }
}

static int
guard_stop(struct fm_guard *g)
{
    struct fm_ocf_record rec;
    int rc = fm_guard_params(g);

    if (rc != PCMK_OCF_OK && !g->ocf->have_state_dir) {
        return rc;
    }
    if (!fm_ocf_loop_stop(g->ocf, 2000)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor does not stop");
    }
    /* A loop that had a resource to act on talked to the cluster. */
    if (fm_ocf_record_read(g->ocf->state_dir, &rec) == 0) {
        const char *cls = fm_ocf_record_get(&rec, "class");

        if (under_pacemaker() || (cls != NULL && cls[0] != '\0')) {
            remove_attributes(g);
        }
    }
    fm_ocf_stay_clear(g->ocf, g->resource);
    fm_ocf_record_remove(g->ocf->state_dir);
    fm_ocf_policy_clear(g->ocf);    /* its reason attribute: remove_attributes() */
    return PCMK_OCF_OK;
}

int
fm_ocf_guard_main(struct fm_ocf *ocf)
{
    struct fm_guard g;

    memset(&g, 0, sizeof(g));
    g.ocf = ocf;
    if (strcmp(ocf->action, "start") == 0) {
        return guard_start(&g);
    }
    if (strcmp(ocf->action, "stop") == 0) {
        return guard_stop(&g);
    }
    if (strcmp(ocf->action, "monitor") == 0) {
        return fm_guard_monitor(&g);
    }
    if (strcmp(ocf->action, "validate-all") == 0) {
        return guard_validate(&g);
    }
    if (strcmp(ocf->action, "reload") == 0) {
        struct fm_ocf_record rec;
        int rc = guard_validate(&g);

        if (rc != PCMK_OCF_OK) {
            return rc;
        }
        if (fm_ocf_record_read(ocf->state_dir, &rec) != 0) {
            return fm_ocf_fail(PCMK_OCF_NOT_RUNNING, "not started here: nothing to reload");
        }
        if (!fm_ocf_loop_stop(ocf, 2000)) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: the fault monitor does not stop");
        }
        fm_ocf_log(LOG_NOTICE, "reload: restarting the fault monitor with the new parameters");
        fm_ocf_service_kept_env(true);      /* only the loop restarts */
        rc = write_record(&g);
        return (rc == PCMK_OCF_OK)? fm_guard_start_loop(&g) : rc;
    }
    return PCMK_OCF_UNIMPLEMENT_FEATURE;
}
