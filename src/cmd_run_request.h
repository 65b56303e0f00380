/*
 * faultmon run: the loop's recovery request (src/cmd_run_request.c), apart
 * from the loop's wiring (src/cmd_run.c): the controller's IPC connects,
 * asks and reads the acknowledgement in a child of the loop, under one
 * deadline, so that a frozen controller (pacemaker-controld SIGSTOPped, or
 * busy) never holds the loop.
 */
#ifndef FAULTMON_CMD_RUN_REQUEST_H
#define FAULTMON_CMD_RUN_REQUEST_H

#include <stdbool.h>

#include <faultmon/pcmk.h>

#include "cmd_run_attrs.h"
#include "cmd_run_jobs.h"

/*! \brief The request ended: \p rc 0 when the controller took it, else
 *         \p err says why (refused, unreachable, no answer in time). */
typedef void (*fm_run_request_done_fn)(void *data, int rc, const char *err);

struct fm_run_request {
    struct fm_run_jobs *jobs;
    struct fm_run_attrs *attrs;         /* for a guard's ban */
    const struct fm_pcmk_resource *rsc;
    struct fm_run_job *job;             /* the request running, or NULL */
    bool ban;                           /* the running request's */
    fm_run_request_done_fn done;
    void *data;
};

/*!
 * \brief Ask the controller to recover rsc, the guarded resource banned
 *        from this node first when \p ban; never more than one at a time.
 * \return false when one runs already (this one is the same outage)
 */
bool fm_run_request_start(struct fm_run_request *rq, bool ban);

#endif
