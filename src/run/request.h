/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop's recovery request (src/run/request.c), apart
 * from the loop's wiring (src/run/loop.c): the controller's IPC connects,
 * asks and reads the acknowledgement in a child of the loop, under one
 * deadline, so that a frozen controller (pacemaker-controld SIGSTOPped, or
 * busy) never holds the loop.
 */
#ifndef FAULTMON_CMD_RUN_REQUEST_H
#define FAULTMON_CMD_RUN_REQUEST_H

#include <stdbool.h>

#include <faultmon/pcmk.h>

#include "attrs.h"
#include "jobs.h"
#include "stay.h"

/*! \brief The request ended: \p rc 0 when the controller took it, EACCES
 *         when its controller refused it (a Pacemaker Remote node's), else
 *         -1; \p err says why (refused, unreachable, no answer in time). */
typedef void (*fm_run_request_done_fn)(void *data, int rc, const char *err);

struct fm_run_request {
    struct fm_run_jobs *jobs;
    struct fm_run_attrs *attrs;         /* for a guard's ban */
    const struct fm_pcmk_resource *rsc;
    struct fm_run_job *job;             /* the request (or its stay) running, or NULL */
    bool ban;                           /* the running request's */
    struct fm_run_stay stay;            /* a restart's cibadmin call */
    fm_run_request_done_fn done;
    void *data;
};

/*!
 * \brief Ask the controller to recover rsc for \p action, the guarded
 *        resource banned from this node first when \p ban; a restart's
 *        constraint that keeps it here (run/stay.h) is written first,
 *        by a cibadmin child of the loop: the request follows when it has
 *        ended, failed or been killed at its bound.  Never more than one
 *        request at a time.
 * \return false when one runs already (this one is the same outage)
 */
bool fm_run_request_start(struct fm_run_request *rq, enum fm_action action, bool ban);


#endif
