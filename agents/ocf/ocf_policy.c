/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: a policy mismatch, i.e. two settings that each work
 * but disagree (faultmon's Retry_count and Pacemaker's migration-threshold;
 * Probe_timeout and the operation's timeout).  Only validate-all refuses one:
 * pcs runs it when a resource is created or updated, before anything runs.
 * start, monitor and reload never do: a refused start is OCF_ERR_CONFIGURED,
 * fatal, and would stop a service that works on every node for a setting
 * that only changes when or how it is recovered.  They run with the stricter
 * of the two policies (each check says what that is and why) and say so once
 * a start: a warning in the log, STATE_DIR/policy (faultmon status shows it)
 * and the resource's reason attribute (faultmon-RESOURCE-reason).
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/kvfile.h>
#include <faultmon/parse.h>
#include <faultmon/state.h>

#include "ocf_common.h"

/* The notes of this action, joined, and the Retry_count it runs with:
 * one action, one process. */
static char policy_notes[1024];
static char policy_retry_count[32];


/* A validation in a child (reload's) notes nothing: its parent's start
 * says it once. */
static bool policy_quiet = false;

void
fm_ocf_policy_quiet(void)
{
    policy_quiet = true;
}

bool
fm_ocf_policy_refuses(const struct fm_ocf *ocf)
{
    return strcmp(ocf->action, "validate-all") == 0;
}

static void
write_note(FILE *out, const void *data)
{
    fprintf(out, "%s\n", (const char *) data);
}

void
fm_ocf_policy_clear(const struct fm_ocf *ocf)
{
    char path[FM_OCF_PATH_MAX + 16];

    policy_notes[0] = '\0';
    if (!ocf->have_state_dir) {
        return;
    }
    snprintf(path, sizeof(path), "%s/" FM_OCF_POLICY_FILE, ocf->state_dir);
    if (unlink(path) != 0 && errno != ENOENT) {
        fm_ocf_log(LOG_WARNING, "cannot remove %s: %s", path, strerror(errno));
    }
}

void
fm_ocf_policy_record(struct fm_ocf_record *rec)
{
    if (policy_retry_count[0] != '\0') {
        fm_ocf_record_set(rec, "Retry_count", policy_retry_count);
    }
}

void
fm_ocf_policy_restore(const struct fm_ocf_record *rec)
{
    const char *v = fm_ocf_record_get(rec, "Retry_count");

    if (v != NULL && v[0] != '\0') {
        fm_ocf_param_set("Retry_count", v);
    }
}

static bool
under_pacemaker(void)
{
    const char *node = getenv("OCF_RESKEY_CRM_meta_on_node");

    return node != NULL && node[0] != '\0';
}

void
fm_ocf_policy_note(const struct fm_ocf *ocf, const char *note)
{
    char name[FM_RESOURCE_NAME_MAX + 32];
    size_t len = strlen(policy_notes);
    int rc = 0;

    if (policy_quiet) {
        return;
    }
    fm_ocf_log(LOG_WARNING, "%s", note);
    snprintf(policy_notes + len, sizeof(policy_notes) - len, "%s%s", (len > 0)? "; " : "", note);
    if (!ocf->have_state_dir) {
        return;
    }
    rc = fm_state_dir_create(ocf->state_dir);
    if (rc == 0) {
        rc = fm_kvfile_write(ocf->state_dir, FM_OCF_POLICY_FILE, write_note, policy_notes);
    }
    if (rc != 0) {
        fm_ocf_log(LOG_WARNING, "cannot write %s/" FM_OCF_POLICY_FILE ": %s", ocf->state_dir, strerror(rc));
    }
    /* Where an administrator looks first (crm_mon -A); the loop's next
     * decision replaces it, and the agent's stop removes it.  Only under
     * Pacemaker (it names the node): by hand there is no cluster to tell. */
    if (under_pacemaker() && access(fm_ocf_attrd_updater_path(), X_OK) == 0) {
        snprintf(name, sizeof(name), "faultmon-%s-reason", ocf->resource);
        fm_ocf_attrd(ocf, name, policy_notes);
    }
}

/*
 * Pacemaker moves a resource once its fail-count reaches migration-threshold.
 * faultmon sets the fail-count to the restarts it counts within
 * Retry_interval at each start after a restart (sync_failcount()), but a fail
 * request may count twice until then: at the last restart the fail-count may
 * reach Retry_count + 1.  A threshold of Retry_count + 2 or more never moves
 * the resource before faultmon would; a lower one bans this node in the
 * middle of what faultmon reports as "restart N of Retry_count".
 *
 * The stricter policy is the one that moves the service first: the
 * threshold, which Pacemaker enforces whatever faultmon thinks.  So the loop
 * runs with Retry_count lowered to threshold - 2 (at least 0: fail over at
 * the first complete failure): faultmon then decides the failover itself no
 * later than the threshold would have moved the service, and its reasons and
 * status tell what really happens.  Raising the threshold instead is not
 * ours to do (it is the administrator's CIB, and may be meant for other
 * failures than faultmon's), and keeping Retry_count would make the
 * administrator read "restart 2 of 3" while the node is banned.
 */
int
fm_ocf_policy_migration(const struct fm_ocf *ocf, int64_t *effective_retry_count)
{
    char mt[64] = "";
    char note[512];
    char value[32];
    int64_t threshold = 0;
    int64_t retry_count = 0;
    int64_t eff = 0;

    *effective_retry_count = -1;
    /* A Retry_count that is not a number is validate-all's to report. */
    if (fm_parse_i64(fm_ocf_param_or("Retry_count", "2"), INT32_MIN, INT32_MAX, FM_PARSE_DEFAULT,
                     &retry_count) != 0) {
        return PCMK_OCF_OK;
    }
    /* Pacemaker does not pass it to agents: the CIB says (the primitive's,
     * else rsc_defaults'). */
    if (!fm_ocf_meta_attr(ocf, "migration-threshold", mt, sizeof(mt))) {
        return PCMK_OCF_OK;
    }
    /* 0, INFINITY or anything else but a threshold: none. */
    if (fm_parse_i64(mt, 1, 1000000, FM_PARSE_DEFAULT, &threshold) != 0) {
        return PCMK_OCF_OK;
    }
    if (threshold > retry_count + 1) {
        return PCMK_OCF_OK;
    }
    if (fm_ocf_policy_refuses(ocf)) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "migration-threshold=%" PRId64 " would move %s before Retry_count=%" PRId64
                           " restarts: unset it (faultmon decides) or set it to %" PRId64 " or more",
                           threshold, ocf->resource, retry_count, retry_count + 2);
    }
    eff = (threshold >= 2)? threshold - 2 : 0;
    snprintf(value, sizeof(value), "%" PRId64, eff);
    fm_ocf_param_set("Retry_count", value);
    snprintf(policy_retry_count, sizeof(policy_retry_count), "%s", value);
    *effective_retry_count = eff;
    snprintf(note, sizeof(note), "migration-threshold=%" PRId64 " is below Retry_count=%" PRId64 " + 2: "
             "running with Retry_count=%" PRId64 ", so that faultmon fails over before Pacemaker's "
             "threshold bans the node (validate-all refuses this; unset migration-threshold or set it "
             "to %" PRId64 ")", threshold, retry_count, eff, retry_count + 2);
    fm_ocf_policy_note(ocf, note);
    return PCMK_OCF_OK;
}
