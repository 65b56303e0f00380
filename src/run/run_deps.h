/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the service's dependencies (Dependency_list) across the
 * cluster (src/run/run_deps.c), apart from the loop's wiring
 * (src/run/loop.c): each cycle this node's view of each dependency is
 * published when it changes, and before a failed cycle may ask for
 * recovery the others' views are read and judged (faultmon/deps.h).
 */
#ifndef FAULTMON_CMD_RUN_DEPS_H
#define FAULTMON_CMD_RUN_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/deps.h>
#include <faultmon/monitor.h>
#include <faultmon/result.h>
#include <faultmon/target.h>

#include "jobs.h"

struct fm_run_dep {
    const struct fm_target *target;
    char attr[FM_DEPS_ATTR_MAX];
    int shown;                      /* what this node published: -1 nothing,
                                       0 up, 1 down */
    uint64_t down_since_us;         /* CLOCK_MONOTONIC; 0: up */
    uint64_t shown_us;              /* when it was last published */
    struct fm_run_deps *dp;
    struct fm_run_job *publishing;  /* the update running, or NULL */
    int publishing_value;
    uint64_t publishing_us;         /* when it started */
    bool asked;                     /* an update ran: attrd may hold a view */
    int want;                       /* the latest view: 0 up, 1 down */
    struct fm_run_job *querying;    /* the query of the others' views */
    bool answered;                  /* since it went down: verdict, views */
    bool readable;                  /* the answer was attrd's (not garbled) */
    enum fm_dep_verdict verdict;
    struct fm_deps_views views;
};

struct fm_run_deps {
    const char *resource;
    size_t n;
    struct fm_run_dep dep[FM_DEPS_MAX];
    bool publish;                   /* the loop runs under a cluster */
    uint64_t settle_us;             /* how long a view takes to reach the
                                       others and theirs to come back */
    char node[256];                 /* this node's name, as attrd names it */
    char everywhere[128];           /* the verdicts of the last cycle */
    char here[128];
    struct fm_run_jobs *jobs;       /* the loop's children: attrd_updater */
};

/*!
 * \brief Find the dependencies among \p targets.
 * \param[in] publish      talk to the cluster (publish and read the views)
 * \param[in] interval_ms  the loops' probe interval (they share it)
 */
void fm_run_deps_init(struct fm_run_deps *dp, const char *resource, const struct fm_target *targets,
                      size_t n_targets, bool publish, uint64_t interval_ms);

/*! \brief Run attrd_updater as \p jobs (the loop's), never waiting for it. */
void fm_run_deps_set_jobs(struct fm_run_deps *dp, struct fm_run_jobs *jobs);

/*! \brief Whether a result of the service's own targets failed. */
bool fm_run_deps_service_failed(const struct fm_result *results, size_t n);

/*!
 * \brief One cycle: publish this node's changed views; when the service
 *        failed and a dependency did, set cycle->dependency_everywhere or
 *        cycle->dependency_here from the others' views.
 */
void fm_run_deps_cycle(struct fm_run_deps *dp, bool service_failed, struct fm_monitor_cycle *cycle);

/*!
 * \brief The loop stops: delete the views this node published, which no one
 *        else would bring up to date (an httpmon clone on this node publishes
 *        its own again when it changes).  The deletes run as the loop's
 *        children, together, never waited for; the loop stops once they end.
 */
void fm_run_deps_withdraw(struct fm_run_deps *dp);

#endif
