/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop's recovery request (run/request.h).
 *
 * Pacemaker's IPC client blocks (pcmk_connect_ipc() has no deadline: with
 * pacemaker-controld frozen it took 9 s to fail) and its public API gives
 * no descriptor to put on another loop's epoll.  So the request runs in a
 * forked child of the loop, which may block, and the loop watches the
 * child's pipe and pidfd like any other job: killed at its deadline,
 * reported as a request that failed (the agent's next monitor reports the
 * failure, as when the controller cannot be reached).
 */
#include <config.h>

#include "request.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/log.h>

/* The controller's own answers (which node it is, the acknowledgement).
 * None in time is taken as a request taken, as it always was; on a
 * Pacemaker Remote node the refusal comes back through the connection
 * host's controller, which under load took more than a second
 * (tests/cluster/remote-nodes.sh): a refusal read too late would leave the
 * recovery "under way" with nobody to carry it out. */
#define FM_PCMK_TIMEOUT_MS 3000

/* The child's whole life: the connection, both answers, and a guard's ban
 * (attrd_updater, 5 s at most) first; the loop never waits for it. */
#define FM_REQUEST_TIMEOUT_MS 4000
#define FM_REQUEST_BAN_TIMEOUT_MS 5000

/* The child's exit status when the controller refused the request. */
#define FM_REQUEST_REFUSED_STATUS 2

/* In the child: its output is the error, its exit status 0, 1 or
 * FM_REQUEST_REFUSED_STATUS. */
static int
request_child(void *arg, int out_fd)
{
    struct fm_run_request *rq = arg;
    char err[512] = "";
    int rc = 0;

    if (rq->ban) {
        fm_run_attrs_ban(rq->attrs, rq->rsc);
    }
    rc = fm_pcmk_request_recovery(rq->rsc, FM_PCMK_TIMEOUT_MS, err, sizeof(err));
    if (rc == 0) {
        return 0;
    }
    dprintf(out_fd, "%s", (err[0] != '\0')? err : "the fail request failed");
    return (rc == EACCES)? FM_REQUEST_REFUSED_STATUS : 1;
}

static void
on_request_done(void *data, int status, const char *out, size_t size)
{
    struct fm_run_request *rq = data;
    char err[600];

    (void) size;
    rq->job = NULL;
    if (status == FM_RUN_JOB_CANCELLED) {
        return;
    }
    if (status == FM_RUN_JOB_TIMEOUT) {
        snprintf(err, sizeof(err), "the controller did not take the fail request within %d ms",
                 FM_REQUEST_TIMEOUT_MS + (rq->ban? FM_REQUEST_BAN_TIMEOUT_MS : 0));
    } else if (status != 0) {
        snprintf(err, sizeof(err), "%s", (out[0] != '\0')? out : "the fail request failed");
    } else {
        err[0] = '\0';
    }
    rq->done(rq->data, (status == 0)? 0 : (status == FM_REQUEST_REFUSED_STATUS)? EACCES : -1, err);
}

static void
request_fork(struct fm_run_request *rq)
{
    rq->job = fm_run_jobs_fork(rq->jobs, request_child, rq,
                               FM_REQUEST_TIMEOUT_MS + (rq->ban? FM_REQUEST_BAN_TIMEOUT_MS : 0), 600,
                               on_request_done, rq);
}

/* The constraint written or not, the restart is asked: without it the
 * scheduler places the restart, as it did before there was one. */
static void
on_stay_done(void *data, int status, const char *out, size_t size)
{
    struct fm_run_request *rq = data;

    (void) size;
    rq->job = NULL;
    if (status == FM_RUN_JOB_CANCELLED) {
        return;                         /* the loop stops: nothing to ask */
    }
    fm_run_stay_done(rq->rsc, status == FM_RUN_JOB_TIMEOUT, status, out);
    request_fork(rq);
}

bool
fm_run_request_start(struct fm_run_request *rq, enum fm_action action, bool ban)
{
    if (rq->job != NULL) {
        return false;
    }
    rq->ban = ban;
    if (action == FM_ACTION_RESTART && fm_run_stay_argv(rq->rsc, &rq->stay) == 0) {
        struct fm_run_job *job = fm_run_jobs_exec(rq->jobs, rq->stay.argv, NULL, FM_RUN_STAY_TIMEOUT_MS, 256,
                                                  on_stay_done, rq);

        /* When it could not start, on_stay_done() has sent the request. */
        if (job != NULL) {
            rq->job = job;
        }
        return true;
    }
    request_fork(rq);
    return true;
}
