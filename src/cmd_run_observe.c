/*
 * faultmon run: the observer as a suspect (cmd_run_observe.h).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <faultmon/log.h>
#include <faultmon/psi.h>

#include "cmd_run_observe.h"

/* How long the loopback handshake may take: the kernel answers it at once
 * on a healthy node, even a loaded one; this is only asked on failed
 * cycles, so it blocks the loop at most this long there. */
#define FM_LOOPBACK_TIMEOUT_MS 200

/* The health attribute Pacemaker's node-health-strategy acts on. */
#define FM_NODE_HEALTH_ATTR "#health-faultmon"

void
fm_run_observer_init(struct fm_run_observer *ob, const char *resource, const char *dir,
                     struct fm_run_attrs *attrs)
{
    const char *slash = strrchr(dir, '/');

    memset(ob, 0, sizeof(*ob));
    ob->dir = dir;
    ob->attrs = attrs;
    ob->ctx.resource = resource;
    fm_loopback_init(&ob->loopback);
    ob->ctx.psi.proc_dir = "/proc/pressure";
    ob->ctx.psi.cgroup_dir = (fm_psi_own_cgroup_dir(ob->cgroup_dir, sizeof(ob->cgroup_dir)) == 0)?
                             ob->cgroup_dir : NULL;
    if (slash != NULL && slash > dir
        && snprintf(ob->root, sizeof(ob->root), "%.*s", (int) (slash - dir), dir)
           < (int) sizeof(ob->root)) {
        ob->ctx.state_root = ob->root;
    }
}

const char *
fm_run_observe(struct fm_run_observer *ob, const struct fm_decide_opts *o, bool failed,
               uint64_t late_ms, char *buf, size_t buf_len)
{
    bool budget = false;

    if (!failed) {
        return NULL;
    }
    ob->ctx.late_ms = late_ms;
    ob->ctx.now_wall_s = (int64_t) time(NULL);
    ob->ctx.loopback_failure = NULL;
    if (o->observer_loopback) {
        int rc = fm_loopback_check(&ob->loopback, FM_LOOPBACK_TIMEOUT_MS);

        if (rc != 0) {
            snprintf(ob->loopback_error, sizeof(ob->loopback_error), "%s", strerror(rc));
            ob->ctx.loopback_failure = ob->loopback_error;
        }
    }
    if (!fm_observer_impaired(o, &ob->ctx, buf, buf_len, &budget)) {
        return NULL;
    }
    fm_log_notice("%s: this node may be impaired: %s", ob->ctx.resource, buf);
    if (budget && !ob->marked_unhealthy) {
        /* Pacemaker's node-health-strategy moves everything off the node
         * once, where N restarts in place would be N outages. */
        fm_log_warn("%s: marking this node unhealthy (%s=red)", ob->ctx.resource,
                    FM_NODE_HEALTH_ATTR);
        fm_run_attrs_node_health(ob->attrs, FM_NODE_HEALTH_ATTR, "red");
        ob->marked_unhealthy = true;
    }
    return buf;
}

void
fm_run_observer_recovered(struct fm_run_observer *ob)
{
    if (fm_node_budget_mark(ob->dir, (int64_t) time(NULL)) != 0) {
        fm_log_warn("%s: cannot mark the recovery in %s/%s", ob->ctx.resource, ob->dir,
                    FM_NODE_BUDGET_MARK);
    }
}
