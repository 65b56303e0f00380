/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the node attributes the loop keeps (src/run/attrs.c),
 * apart from the loop's wiring (src/run/loop.c): the reason of a recovery
 * (faultmon-RESOURCE-reason), the state and the weight, through
 * attrd_updater.
 */
#ifndef FAULTMON_CMD_RUN_ATTRS_H
#define FAULTMON_CMD_RUN_ATTRS_H

#include <stdbool.h>
#include <stdint.h>

#include <faultmon/monitor.h>
#include <faultmon/node_attrs.h>
#include <faultmon/pcmk.h>
#include <faultmon/state.h>

#include "jobs.h"

/* One loop's attributes. */
/* The attributes this loop sets, each with at most one update running. */
#define FM_RUN_ATTR_SLOTS 8

struct fm_run_attrs;

struct fm_run_attr_slot {
    struct fm_run_attrs *ra;
    char name[FM_RESOURCE_NAME_MAX + 32];   /* "": free */
    struct fm_run_job *job;                 /* the update running, or NULL */
    bool running_delete;                    /* what it sets */
    char running_value[FM_MONITOR_TEXT_MAX];
    const char *running_dampen;
    uint64_t running_timeout_ms;
    bool retrying;                          /* it timed out or failed: said */
    bool failed;                            /* the running value failed: asked */
    uint64_t retry_at_us;                   /* again at the first cycle after */
    uint64_t backoff_ms;                    /* this, doubling up to a minute */
    bool queued;                            /* the latest value waits for it */
    bool queued_delete;
    char queued_value[FM_MONITOR_TEXT_MAX];
    const char *queued_dampen;
    uint64_t queued_timeout_ms;
};

struct fm_run_attrs {
    const char *resource;
    bool enabled;                   /* the loop talks to the cluster */
    struct fm_node_attrs shown;     /* what the cluster was told */
    struct fm_run_jobs *jobs;       /* the loop's children */
    bool stopping;                  /* the deletes of the stop run: no more */
    struct fm_run_attr_slot slot[FM_RUN_ATTR_SLOTS];
};

/*! \brief The reason of a recovery, whole (exit reasons are cut at 128 bytes). */
void fm_run_attrs_reason(struct fm_run_attrs *ra, const char *reason);

/*!
 * \brief The state and the weight of \p st, when due (faultmon/node_attrs.h).
 * \param[in] now_us  CLOCK_MONOTONIC
 */
void fm_run_attrs_publish(struct fm_run_attrs *ra, const struct fm_run_state *st, uint64_t now_us);

/*! \brief Set a node-level attribute (#health-faultmon), without dampening,
 *         when the loop talks to the cluster. */
void fm_run_attrs_node_health(struct fm_run_attrs *ra, const char *name, const char *value);

/*!
 * \brief A guard's failover: the guarded resource's fail-count on this node
 *        to INFINITY (faultmon/pcmk.h), before the fail request, so that
 *        the transition it starts moves the resource instead of restarting it.
 */
void fm_run_attrs_ban(struct fm_run_attrs *ra, const struct fm_pcmk_resource *rsc);

/*! \brief A clean stop: delete the state and the weight, if set. */
void fm_run_attrs_remove(struct fm_run_attrs *ra);

#endif
