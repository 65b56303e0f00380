/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the observer as a suspect (libfmmonitor, libc only).  Before
 * the loop lets a failed cycle ask for recovery, it asks whether the node
 * doing the probing is itself impaired, so that the decision engine can
 * hold the recovery back for observer_hold (see src/decide/excuse.c).
 */
#ifndef FAULTMON_OBSERVER_H
#define FAULTMON_OBSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide_params.h>
#include <faultmon/psi.h>

/* What the observer looks at besides the decision options. */
struct fm_observer_ctx {
    struct fm_psi_source psi;       /* where PSI is read */
    uint64_t late_ms;               /* how late the cycle started */
    const char *state_root;         /* every resource's state directory is
                                       in it (the node budget); NULL: none */
    const char *resource;           /* this loop's */
    int64_t now_wall_s;
    const char *loopback_failure;   /* why the loopback check failed (the
                                       caller ran it); NULL: it passed */
    const char *corosync_evidence;  /* how corosync's links show this node
                                       cut off (the caller read them,
                                       faultmon/corosync_links.h); NULL: they
                                       do not, or no verdict */
};

/* The file in a resource's state directory that marks its last recovery
 * asked, for the node budget of the others. */
#define FM_NODE_BUDGET_MARK "recovered"

/*!
 * \brief Whether this node's own verdict is suspect, and why.
 *
 * Impaired when observer_late is set and the cycle started at least that
 * late, or observer_pressure is set and the highest PSI "some avg10" of
 * cpu, memory and io (the loop's cgroup, else the system's) is at least
 * that many percent, or node_budget is set and at least node_budget - 1
 * other resources of this node marked a recovery within
 * node_budget_window (this one about to ask makes node_budget), or
 * observer_loopback is set and the caller's connect to a listener of its
 * own on 127.0.0.1 failed (ctx->loopback_failure: the node's own network
 * stack is what fails the probes), or observer_corosync is set and the
 * caller found this node's corosync links down to every peer
 * (ctx->corosync_evidence).  Nothing is read when none is set.
 *
 * \param[in]  o        the decision options
 * \param[in]  ctx      what else it looks at
 * \param[out] why      the evidence, one line, when impaired
 * \param[out] budget   set when the evidence is the node budget (the loop
 *                      then marks the node unhealthy); may be NULL
 * \return true when impaired
 */
bool fm_observer_impaired(const struct fm_decide_opts *o, const struct fm_observer_ctx *ctx,
                          char *why, size_t why_len, bool *budget);

/*! \brief Mark a recovery asked in a resource's state directory \p dir.
 *  \return 0 or errno */
int fm_node_budget_mark(const char *dir, int64_t now_wall_s);

/*! \brief How many resources of \p root other than \p self marked a
 *         recovery at or after \p since_wall_s (and not after now). */
unsigned fm_node_budget_count(const char *root, const char *self, int64_t since_wall_s,
                              int64_t now_wall_s);

#endif
