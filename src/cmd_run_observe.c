/*
 * faultmon run: the observer as a suspect (cmd_run_observe.h).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <faultmon/corosync_links.h>
#include <faultmon/log.h>
#include <faultmon/psi.h>
#include <faultmon/spawn.h>

#include "cmd_run_observe.h"

/* How long the loopback handshake may take: the kernel answers it at once
 * on a healthy node, even a loaded one; this is only asked on failed
 * cycles, so it blocks the loop at most this long there. */
#define FM_LOOPBACK_TIMEOUT_MS 200

/* How long corosync-cfgtool may take: it asks the local corosync over IPC,
 * which answers at once unless it is itself stuck; only on failed cycles. */
#define FM_COROSYNC_TIMEOUT_MS 1000

/* The most of its output read: a few KiB for the largest cluster corosync
 * allows; an output that does not fit is no verdict. */
#define FM_COROSYNC_OUTPUT_MAX 16384

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

/* No verdict from corosync-cfgtool: said once, until it answers again, so
 * that a node without corosync (or a tool that prints something else) does
 * not log every failed cycle. */
static void
corosync_unread(struct fm_run_observer *ob, const char *tool, const char *why)
{
    if (!ob->corosync_unread) {
        fm_log_warn("%s: observer_corosync: no verdict from %s -s (%s): not counted",
                    ob->ctx.resource, tool, why);
    }
    ob->corosync_unread = true;
}

/* Run `corosync-cfgtool -s` (FAULTMON_COROSYNC_CFGTOOL stands in for it in
 * tests) and set ctx.corosync_evidence when its links show this node cut
 * off; a tool that cannot run, fails or prints what the parser does not
 * understand is no verdict, never impaired. */
static void
corosync_check(struct fm_run_observer *ob)
{
    const char *tool = getenv("FAULTMON_COROSYNC_CFGTOOL");
    char *argv[3];
    char *out = malloc(FM_COROSYNC_OUTPUT_MAX);
    struct fm_corosync_links links;
    char why[256];
    size_t size = 0;
    int status = 0;

    if (tool == NULL || tool[0] != '/') {
        tool = FM_COROSYNC_CFGTOOL;
    }
    if (out == NULL) {
        corosync_unread(ob, tool, "out of memory");
        return;
    }
    argv[0] = (char *) tool;
    argv[1] = (char *) "-s";
    argv[2] = NULL;
    status = fm_spawn_run(argv, FM_COROSYNC_TIMEOUT_MS, out, FM_COROSYNC_OUTPUT_MAX, &size);
    if (status != 0) {
        out[strcspn(out, "\n")] = '\0';
        snprintf(why, sizeof(why), "status %d%s%s", status, (out[0] != '\0')? ": " : "", out);
        corosync_unread(ob, tool, why);
    } else if (size >= FM_COROSYNC_OUTPUT_MAX) {
        corosync_unread(ob, tool, "an output past 16 KiB");
    } else if (strlen(out) != size) {
        /* What follows a NUL would go unseen: a node listed, or not. */
        corosync_unread(ob, tool, "a NUL in the output");
    } else if (fm_corosync_links_parse(out, &links, why, sizeof(why)) != 0) {
        corosync_unread(ob, tool, why);
    } else {
        ob->corosync_unread = false;
        if (fm_corosync_links_impaired(&links, ob->corosync_evidence,
                                       sizeof(ob->corosync_evidence))) {
            ob->ctx.corosync_evidence = ob->corosync_evidence;
        }
    }
    free(out);
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
    ob->ctx.corosync_evidence = NULL;
    if (o->observer_corosync) {
        corosync_check(ob);
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
