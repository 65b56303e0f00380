/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 *
 * On a Pacemaker Remote node there is no controller: pacemaker-remoted
 * hands our IPC to the controller of the cluster node that hosts the remote
 * node's connection.  That controller relays a request addressed to the
 * remote node's name to the cluster layer, where no such member is, and the
 * request is lost although sending it succeeded; the agent's next monitor
 * would then answer "under way" for a recovery nobody was asked for.  So
 * the request names that cluster node as the router, as `crm_resource
 * --fail` does for a remote node.  Which node it is, we learn from the
 * controller itself: the node whose controller answers.
 *
 * Pacemaker 2.1.5's controller then refuses the request all the same: a
 * proxied request runs as the remote node's name, an unprivileged user,
 * and only root or hacluster may fail a resource.  It says so in its
 * acknowledgement (an operation status other than done), which we read:
 * a refused request is a failed one, so the loop does not take it as
 * reported and the agent's next monitor reports the failure itself.
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/tree.h>

#include <faultmon/clock.h>
#include <faultmon/log.h>
#include <faultmon/pcmk.h>

#include "crmcommon.h"
#include "xml_attr.h"

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


/* What the controller answered: to the node-info request, who sent it;
 * to the fail request, whether it refused. */
struct controller_answer {
    const struct fm_crmcommon *crm;
    bool node_known;
    char host_from[256];
    bool fail_acked;
    bool fail_refused;
    char refusal[200];
};

/* The first element named \p name below \p xml, depth first. */
static xmlNode *
find_element(xmlNode *xml, const char *name)
{
    for (xmlNode *c = (xml != NULL)? xml->children : NULL; c != NULL; c = c->next) {
        xmlNode *found = NULL;

        if (c->type != XML_ELEMENT_NODE) {
            continue;
        }
        if (strcmp((const char *) c->name, name) == 0) {
            return c;
        }
        found = find_element(c, name);
        if (found != NULL) {
            return found;
        }
    }
    return NULL;
}

/* The acknowledgement of a fail request: the operation it made, whose
 * status is "done" (0) when the failure was recorded. */
static void
note_fail_ack(struct controller_answer *answer, xmlNode *node_state)
{
    xmlNode *op = find_element(node_state, "lrm_rsc_op");
    char status_buf[32];
    char reason_buf[sizeof(answer->refusal)];
    char rc_buf[32];
    const char *status = fm_xml_attr_value(op, "op-status", status_buf, sizeof(status_buf));
    const char *reason = fm_xml_attr_value(op, "exit-reason", reason_buf, sizeof(reason_buf));
    const char *rc = fm_xml_attr_value(op, "rc-code", rc_buf, sizeof(rc_buf));

    answer->fail_acked = true;
    if (status != NULL && strcmp(status, "0") != 0) {
        answer->fail_refused = true;
        snprintf(answer->refusal, sizeof(answer->refusal), "%s (rc %s, status %s)",
                 (reason != NULL && reason[0] != '\0')? reason : "no reason given",
                 (rc != NULL)? rc : "?", status);
    }
}

static void
controller_cb(pcmk_ipc_api_t *api, enum pcmk_ipc_event event_type, crm_exit_t status,
              void *event_data, void *user_data)
{
    struct controller_answer *answer = user_data;
    const pcmk_controld_api_reply_t *reply = event_data;

    (void) api;
    if (event_type != pcmk_ipc_event_reply || status != CRM_EX_OK || reply == NULL) {
        return;
    }
    if (reply->reply_type == pcmk_controld_reply_resource) {
        note_fail_ack(answer, reply->data.resource.node_state);
        return;
    }
    if (reply->reply_type != pcmk_controld_reply_info) {
        return;
    }
    snprintf(answer->host_from, sizeof(answer->host_from), "%s",
             (reply->host_from != NULL)? reply->host_from : "");
    answer->node_known = true;
}

/* Milliseconds left before \p end_us, at least 1 while any is left. */
static int
ms_left(uint64_t end_us)
{
    uint64_t now = fm_now_us();

    return (now >= end_us)? 0 : (int) ((end_us - now + 999u) / 1000u);
}

/* EACCES is the controller's refusal in its acknowledgement (the loop
 * then tells the monitor: a Pacemaker Remote node's request): the same
 * code from the connection or the send is not that refusal. */
static int
refusal_only(int rc)
{
    return (rc == EACCES)? EIO : rc;
}

/*
 * The cluster node through which a request for \p node must go: NULL when
 * the controller we reach is \p node's own (a cluster node), else the node
 * whose controller answered (the connection host of a remote node).
 */
static int
find_router(pcmk_ipc_api_t *api, const char *node, struct controller_answer *answer, uint64_t end_us,
            const char **router, char *err, size_t err_len)
{
    const struct fm_crmcommon *crm = answer->crm;
    int rc = crm->controld_api_node_info(api, 0);
    int left = 0;

    *router = NULL;
    if (rc != pcmk_rc_ok) {
        snprintf(err, err_len, "cannot ask the controller which node it is: %s", crm->rc_str(rc));
        return rc;
    }
    while (!answer->node_known) {
        left = ms_left(end_us);
        if (left == 0) {
            snprintf(err, err_len, "the controller did not say which node it is");
            return ETIMEDOUT;
        }
        rc = crm->poll_ipc(api, left);
        if (rc == EAGAIN || rc == EINTR) {
            continue;
        }
        if (rc != pcmk_rc_ok) {
            snprintf(err, err_len, "lost the controller while asking which node it is: %s",
                     crm->rc_str(rc));
            return rc;
        }
        crm->dispatch_ipc(api);
    }
    if (answer->host_from[0] == '\0') {
        snprintf(err, err_len, "the controller did not say which node it is");
        return EPROTO;
    }
    if (strcasecmp(answer->host_from, node) != 0) {
        *router = answer->host_from;
    }
    return pcmk_rc_ok;
}

int
fm_pcmk_request_recovery(const struct fm_pcmk_resource *rsc, int timeout_ms,
                         char *err, size_t err_len)
{
    pcmk_ipc_api_t *api = NULL;
    const struct fm_crmcommon *crm = fm_crmcommon_load(err, err_len);
    struct controller_answer answer = { .crm = crm, .node_known = false };
    const char *router = NULL;
    uint64_t end_us = fm_now_us() + (uint64_t) ((timeout_ms > 0)? timeout_ms : 0) * 1000u;
    int rc = pcmk_rc_ok;

    if (crm == NULL) {
        return ELIBACC;
    }
    rc = crm->new_ipc_api(&api, pcmk_ipc_controld);
    if (rc != pcmk_rc_ok) {
        snprintf(err, err_len, "cannot create controller IPC: %s", crm->rc_str(rc));
        return rc;
    }
    crm->register_ipc_callback(api, controller_cb, &answer);
    rc = crm->connect_ipc(api, pcmk_ipc_dispatch_poll);
    if (rc != pcmk_rc_ok) {
        snprintf(err, err_len, "cannot connect to the controller: %s", crm->rc_str(rc));
        crm->free_ipc_api(api);
        return refusal_only(rc);
    }
    /* Without a node name the controller takes its own node: nothing to
     * route.  A controller that does not say which node it is (busy with a
     * transition, say) gets the request unrouted, as a cluster node's own
     * controller needs it: delayed there, never dropped. */
    if (rsc->node != NULL && find_router(api, rsc->node, &answer, end_us, &router, err, err_len)
                             != pcmk_rc_ok) {
        fm_log_info("%s: %s; asking it without a router", rsc->rsc_id, err);
        router = NULL;
        err[0] = '\0';
    }
    {
        rc = crm->controld_api_fail(api, rsc->node, router, rsc->rsc_id, rsc->rsc_id,
                                    rsc->standard, rsc->provider, rsc->type);
        if (rc != pcmk_rc_ok) {
            snprintf(err, err_len, "controller refused the fail request: %s", crm->rc_str(rc));
            rc = refusal_only(rc);
        } else {
            /* Wait for the acknowledgement, which says whether the failure
             * was recorded; none in time is taken as yes, as it always was
             * (a controller busy with a transition answers late). */
            int left = 0;

            while (!answer.fail_acked && (left = ms_left(end_us)) > 0) {
                int prc = crm->poll_ipc(api, left);

                if (prc == EAGAIN || prc == EINTR) {
                    continue;
                }
                if (prc != pcmk_rc_ok) {
                    break;
                }
                crm->dispatch_ipc(api);
            }
            if (answer.fail_refused) {
                snprintf(err, err_len, "the controller%s%s refused the fail request: %s",
                         (router != NULL)? " of " : "", (router != NULL)? router : "", answer.refusal);
                rc = EACCES;
            }
        }
    }
    crm->disconnect_ipc(api);
    crm->free_ipc_api(api);
    return rc;
}
