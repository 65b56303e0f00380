/*
 * faultmon: asking Pacemaker to recover a resource now, through the
 * controller's public IPC API (the call behind `crm_resource --fail`).
 *
 * The controller records the request as a failed "asyncmon" operation with
 * OCF_ERR_GENERIC, which the scheduler treats as soft: recover in place.  A
 * failover is made by the agent's start refusing on this node (see the
 * agents), so this one call serves both decisions.  Pacemaker's fail-count
 * rises with it (by 1 or 2, as measured), so faultmon keeps its own count of
 * restarts in its state file and does not rely on the fail-count.
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crm/crm.h>
#include <crm/common/ipc.h>
#include <crm/common/ipc_controld.h>

#include <faultmon/pcmk.h>

static const char *
env_or_null(const char *name)
{
    const char *value = getenv(name);

    return (value != NULL && value[0] != '\0')? value : NULL;
}

/* A guard's loop acts on the guarded resource, which runs on the guard's
 * node (the group or constraint the guard's documentation asks for). */
static bool
guarded_from_env(struct fm_pcmk_resource *rsc)
{
    rsc->rsc_id = env_or_null("FAULTMON_GUARD_RESOURCE");
    rsc->standard = env_or_null("FAULTMON_GUARD_CLASS");
    rsc->provider = env_or_null("FAULTMON_GUARD_PROVIDER");
    rsc->type = env_or_null("FAULTMON_GUARD_TYPE");
    rsc->guarded = true;
    if (rsc->standard == NULL || rsc->type == NULL) {
        return false;
    }
    /* The controller wants a provider for ocf and none for the others. */
    return (strcmp(rsc->standard, "ocf") == 0) == (rsc->provider != NULL);
}

bool
fm_pcmk_resource_from_env(struct fm_pcmk_resource *rsc)
{
    memset(rsc, 0, sizeof(*rsc));
    rsc->node = env_or_null("OCF_RESKEY_CRM_meta_on_node");
    if (env_or_null("FAULTMON_GUARD_RESOURCE") != NULL) {
        return guarded_from_env(rsc);
    }
    rsc->rsc_id = env_or_null("OCF_RESOURCE_INSTANCE");
    rsc->standard = "ocf";
    rsc->provider = env_or_null("OCF_RESOURCE_PROVIDER");
    rsc->type = env_or_null("OCF_RESOURCE_TYPE");
    if (rsc->provider == NULL) {
        rsc->provider = "faultmon";
    }
    return rsc->rsc_id != NULL && rsc->type != NULL;
}


int
fm_pcmk_request_recovery(const struct fm_pcmk_resource *rsc, int timeout_ms,
                         char *err, size_t err_len)
{
    pcmk_ipc_api_t *api = NULL;
    int rc = pcmk_new_ipc_api(&api, pcmk_ipc_controld);

    if (rc != pcmk_rc_ok) {
        snprintf(err, err_len, "cannot create controller IPC: %s", pcmk_rc_str(rc));
        return rc;
    }
    rc = pcmk_connect_ipc(api, pcmk_ipc_dispatch_poll);
    if (rc != pcmk_rc_ok) {
        snprintf(err, err_len, "cannot connect to the controller: %s", pcmk_rc_str(rc));
        pcmk_free_ipc_api(api);
        return rc;
    }
    rc = pcmk_controld_api_fail(api, rsc->node, NULL, rsc->rsc_id, rsc->rsc_id,
                                rsc->standard, rsc->provider, rsc->type);
    if (rc != pcmk_rc_ok) {
        snprintf(err, err_len, "controller refused the fail request: %s", pcmk_rc_str(rc));
    } else {
        /* Give the controller the time to take the request before we hang
         * up; the reply (if any) is not needed. */
        if (pcmk_poll_ipc(api, timeout_ms) == pcmk_rc_ok) {
            pcmk_dispatch_ipc(api);
        }
    }
    pcmk_disconnect_ipc(api);
    pcmk_free_ipc_api(api);
    return rc;
}
