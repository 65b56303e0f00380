/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the observer as a suspect (src/run/observe.c), apart
 * from the loop's wiring (src/run/loop.c): before a failed cycle may ask
 * for recovery, is this node itself impaired (its pressure, a late cycle,
 * other resources recovering at once, its own loopback failing, its
 * corosync links down)?  The rules are observer.h's.
 */
#ifndef FAULTMON_CMD_RUN_OBSERVE_H
#define FAULTMON_CMD_RUN_OBSERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide_params.h>
#include <faultmon/loopback.h>
#include <faultmon/observer.h>

#include "attrs.h"
#include "jobs.h"
#include "timer.h"

struct fm_run_observer {
    struct fm_observer_ctx ctx;
    const char *dir;                /* this resource's state directory */
    struct fm_run_attrs *attrs;     /* for the node's health attribute */
    bool marked_unhealthy;          /* #health-faultmon set by this loop */
    struct fm_loopback loopback;    /* observer_loopback's listener, opened
                                       at the first check */
    char loopback_error[128];
    bool corosync_unread;           /* the last corosync-cfgtool gave no
                                       verdict, and the log said so */
    char corosync_evidence[256];
    char cgroup_dir[4096];
    char root[4096];
    struct fm_run_jobs *jobs;       /* the loop's children: corosync-cfgtool */
    struct fm_run_job *corosync_job;
    int loopback_fd;                /* the connect under way, or -1 */
    struct fm_run_timer timer;      /* its deadline */
    unsigned pending;               /* checks not answered yet */
    void (*ready)(void *data);      /* when the last has answered */
    void *ready_data;
};

/*! \brief Set up: the loop's cgroup v2 (PSI), the state directories' root. */
void fm_run_observer_init(struct fm_run_observer *ob, const char *resource, const char *dir,
                          struct fm_run_attrs *attrs);

/*!
 * \brief The question for a cycle: NULL when this node is fine, else the
 *        evidence (in \p buf), logged once per cycle; when the node budget
 *        is the evidence, the node is marked unhealthy (#health-faultmon).
 * \param[in] failed   whether the cycle failed (nothing is read otherwise)
 * \param[in] late_ms  how late it started
 */
/*! \brief Run the checks on the loop's epoll, as \p jobs (the loop's). */
void fm_run_observer_set_jobs(struct fm_run_observer *ob, struct fm_run_jobs *jobs);

/*!
 * \brief Start the checks of a failed cycle (observer_loopback's connect,
 *        corosync-cfgtool), never waiting for them.
 * \return true when some are under way: \p ready is called once they have
 *         answered or run out of time; then fm_run_observe() judges
 */
bool fm_run_observe_begin(struct fm_run_observer *ob, const struct fm_decide_opts *o, bool failed,
                          void (*ready)(void *data), void *data);

/*! \brief Let go of the checks under way (the loop stops). */
void fm_run_observer_clear(struct fm_run_observer *ob);

const char *fm_run_observe(struct fm_run_observer *ob, const struct fm_decide_opts *o, bool failed,
                           uint64_t late_ms, char *buf, size_t buf_len);

/*! \brief This loop asked for a recovery: mark it for the others' budget. */
void fm_run_observer_recovered(struct fm_run_observer *ob);

#endif
