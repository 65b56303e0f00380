/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the observer as a suspect (run/observe.h).
 */
#include <config.h>

#include "observe.h"
#include "observe_cfg.h"

#include <errno.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/corosync_links.h>
#include <faultmon/log.h>
#include <faultmon/psi.h>

/* How long the loopback handshake may take: the kernel answers it at once
 * on a healthy node, even a loaded one; this is only asked on failed
 * cycles, on the loop's epoll, and holds their verdict at most this long. */
#define FM_LOOPBACK_TIMEOUT_MS 200

/* How long corosync-cfgtool may take: it asks the local corosync over IPC,
 * which answers at once unless it is itself stuck; only on failed cycles,
 * as a child on the loop's epoll, holding their verdict at most this long. */
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
    ob->loopback_fd = -1;
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
        fm_log_warn("%s: observer_corosync: no verdict from %s (%s): not counted",
                    ob->ctx.resource, tool, why);
    }
    ob->corosync_unread = true;
}

/* The answer of `corosync-cfgtool -s`: ctx.corosync_evidence set when its
 * links show this node cut off; a tool that cannot run, fails or prints
 * what the parser does not understand is no verdict, never impaired. */
static void
corosync_answer(struct fm_run_observer *ob, const char *tool, int status, const char *out, size_t size)
{
    struct fm_corosync_links links;
    char why[256];

    if (status != 0) {
        snprintf(why, sizeof(why), "status %d%s%.*s", status,
                 (status == FM_RUN_JOB_TIMEOUT)? ": no answer within 1000 ms" : (out[0] != '\0')? ": " : "",
                 (int) strcspn(out, "\n"), out);
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
}

static const char *
corosync_tool(void)
{
    const char *tool = getenv("FAULTMON_COROSYNC_CFGTOOL");

    return (tool != NULL && tool[0] == '/')? tool : FM_COROSYNC_CFGTOOL;
}

/* corosync's own libcfg (run/observe_cfg.h) when faultmon is built with it,
 * unless a test stands a tool in: no tool's text format to follow across
 * corosync releases.  The library's IPC blocks, so it runs in a child of
 * the loop as the tool did, under the same bound. */
static bool
corosync_use_libcfg(void)
{
    const char *tool = getenv("FAULTMON_COROSYNC_CFGTOOL");

    return fm_run_corosync_cfg_built() && (tool == NULL || tool[0] != '/');
}

/* What the links were read with, for the log. */
static const char *
corosync_source(void)
{
    static char buf[600];

    if (corosync_use_libcfg()) {
        return "corosync's libcfg";
    }
    snprintf(buf, sizeof(buf), "%s -s", corosync_tool());
    return buf;
}

/* One check has answered; the cycle goes on once all have. */
static void
observe_answered(struct fm_run_observer *ob)
{
    if (ob->pending > 0 && --ob->pending == 0 && ob->ready != NULL) {
        ob->ready(ob->ready_data);
    }
}

static void
on_corosync_done(void *data, int status, const char *out, size_t size)
{
    struct fm_run_observer *ob = data;

    ob->corosync_job = NULL;
    if (status == FM_RUN_JOB_CANCELLED) {
        return;
    }
    corosync_answer(ob, corosync_source(), status, out, size);
    observe_answered(ob);
}

/* FAULTMON_COROSYNC_CFGTOOL stands in for the tool in tests. */
static void
corosync_start(struct fm_run_observer *ob)
{
    char *argv[] = { (char *) corosync_tool(), (char *) "-s", NULL };

    ob->pending++;
    if (corosync_use_libcfg()) {
        ob->corosync_job = fm_run_jobs_fork(ob->jobs, fm_run_corosync_cfg_child, NULL, FM_COROSYNC_TIMEOUT_MS,
                                            FM_COROSYNC_OUTPUT_MAX, on_corosync_done, ob);
        return;
    }
    ob->corosync_job = fm_run_jobs_exec(ob->jobs, argv, NULL, FM_COROSYNC_TIMEOUT_MS, FM_COROSYNC_OUTPUT_MAX,
                                        on_corosync_done, ob);
}

static void
loopback_answer(struct fm_run_observer *ob, int rc)
{
    if (ob->loopback_fd >= 0) {
        fm_ev_unwatch(ob->jobs->loop, ob->loopback_fd);
        close(ob->loopback_fd);
        ob->loopback_fd = -1;
    }
    fm_loopback_drain(&ob->loopback);
    if (rc != 0) {
        snprintf(ob->loopback_error, sizeof(ob->loopback_error), "%s", strerror(rc));
        ob->ctx.loopback_failure = ob->loopback_error;
    }
    observe_answered(ob);
}

static int32_t
on_loopback_connected(int32_t fd, int32_t revents, void *data)
{
    struct fm_run_observer *ob = data;
    int err = 0;
    socklen_t len = sizeof(err);

    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
    }
    loopback_answer(ob, err);
    return 0;
}

static void
on_loopback_deadline(void *data)
{
    struct fm_run_observer *ob = data;

    if (ob->loopback_fd >= 0) {
        loopback_answer(ob, ETIMEDOUT);
    }
}

/* The handshake with our own listener, on the loop's epoll. */
static void
loopback_start(struct fm_run_observer *ob)
{
    int fd = -1;
    int rc = fm_loopback_connect(&ob->loopback, &fd);

    ob->pending++;
    if (rc != EINPROGRESS) {
        loopback_answer(ob, rc);
        return;
    }
    /* Without its deadline the check could hold the verdict for ever. */
    if ((ob->timer.ev == NULL && fm_run_timer_init(&ob->timer, ob->jobs->loop) != 0)
        || fm_ev_watch(ob->jobs->loop, fd, EPOLLOUT, on_loopback_connected, ob) != 0) {
        close(fd);
        loopback_answer(ob, EIO);
        return;
    }
    ob->loopback_fd = fd;
    fm_run_timer_arm(&ob->timer, fm_now_us(), FM_LOOPBACK_TIMEOUT_MS, on_loopback_deadline, ob);
}

void
fm_run_observer_set_jobs(struct fm_run_observer *ob, struct fm_run_jobs *jobs)
{
    ob->jobs = jobs;
}

bool
fm_run_observe_begin(struct fm_run_observer *ob, const struct fm_decide_opts *o, bool failed,
                     void (*ready)(void *data), void *data)
{
    ob->ctx.loopback_failure = NULL;
    ob->ctx.corosync_evidence = NULL;
    if (!failed || ob->jobs == NULL || ob->pending > 0) {
        return false;
    }
    ob->ready = NULL;
    ob->pending = 1;            /* none answers before all have started */
    if (o->observer_loopback) {
        loopback_start(ob);
    }
    if (o->observer_corosync) {
        corosync_start(ob);
    }
    ob->pending--;
    ob->ready = ready;
    ob->ready_data = data;
    return ob->pending > 0;
}

void
fm_run_observer_clear(struct fm_run_observer *ob)
{
    ob->ready = NULL;
    if (ob->loopback_fd >= 0) {
        fm_ev_unwatch(ob->jobs->loop, ob->loopback_fd);
        close(ob->loopback_fd);
        ob->loopback_fd = -1;
    }
    if (ob->timer.ev != NULL) {
        fm_run_timer_clear(&ob->timer);
    }
    fm_loopback_close(&ob->loopback);
}

const char *
fm_run_observe(struct fm_run_observer *ob, const struct fm_decide_opts *o, bool failed,
               uint64_t late_ms, char *buf, size_t buf_len)
{
    bool budget = false;

    if (!failed) {
        return NULL;
    }
    /* loopback_failure and corosync_evidence: fm_run_observe_begin()'s. */
    ob->ctx.late_ms = late_ms;
    ob->ctx.now_wall_s = (int64_t) time(NULL);
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
