/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: node attributes through Pacemaker's attrd_updater
 * (fail-counts, the reason of a decision), by the one caller of it that the
 * loop shares (src/pcmk/attrd.c).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <syslog.h>

#include <faultmon/attrd.h>
#include <faultmon/state.h>

#include "ocf_common.h"

const char *
fm_ocf_attrd_updater_path(void)
{
    const char *env = getenv("FAULTMON_OCF_ATTRD_UPDATER");

    return (env != NULL && env[0] == '/')? env : FM_OCF_ATTRD_UPDATER;
}

int
fm_ocf_attrd(const struct fm_ocf *ocf, const char *name, const char *value)
{
    char out[512];
    uint64_t left_ms = fm_ocf_left_ms(ocf);
    int status = fm_attrd_update(fm_ocf_attrd_updater_path(), name, value, NULL,
                                 (left_ms > 5000 || left_ms == 0)? 5000 : left_ms, out, sizeof(out));

    if (status != 0) {
        fm_ocf_log(LOG_WARNING, "attrd_updater could not %s %s (status %d): %s",
                   (value != NULL)? "set" : "delete", name, status, out);
    }
    return status;
}

/* The stop after faultmon failed the resource over (or held it off this
 * node): its reason is what an administrator reads in crm_mon -A to learn
 * why the resource left, so it outlives the stop until a cleanup (whose
 * probe removes it); any other stop (disabled, deleted, moved by hand)
 * leaves no reason behind. */
static bool
stop_keeps_reason(const struct fm_ocf *ocf)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256];
    bool keep = false;

    if (st != NULL && ocf->have_state_dir && fm_state_read(ocf->state_dir, st, err, sizeof(err)) == 0) {
        keep = (st->decide.last_action == FM_ACTION_FAILOVER || st->ocf_rc == PCMK_OCF_INSUFFICIENT_PRIV
                || st->state == FM_STATE_HELD || st->decide.held);
    }
    free(st);
    return keep;
}

/* The reason attribute deleted, in the detached process. */
static void
delete_reason(void *arg)
{
    const struct fm_ocf *ocf = arg;
    char name[FM_RESOURCE_NAME_MAX + 32];

    snprintf(name, sizeof(name), "faultmon-%s-reason", ocf->resource);
    fm_ocf_attrd(ocf, name, NULL);
}

void
fm_ocf_stop_attributes(const struct fm_ocf *ocf)
{
    const char *node = getenv("OCF_RESKEY_CRM_meta_on_node");

    fm_ocf_policy_clear(ocf);
    fm_ocf_stay_clear(ocf, NULL);
    /* Pacemaker's stop (it names the node): by hand or under ocf-tester
     * there is no cluster whose attributes this resource could own. */
    if (node == NULL || node[0] == '\0' || ocf->resource == NULL
        || access(fm_ocf_attrd_updater_path(), X_OK) != 0) {
        return;
    }
    if (stop_keeps_reason(ocf)) {
        fm_ocf_log(LOG_INFO, "the reason attribute stays: it says why the resource left this node "
                   "(pcs resource cleanup removes it)");
        return;
    }
    /* Not waited for: a frozen attrd must not hold up the stop (its 5 s
     * were on the way to a failover or a restart). */
    fm_ocf_detached(delete_reason, (void *) ocf);
}
