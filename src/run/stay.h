/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: a restart asked in place stays in place (run/stay.c).
 */
#ifndef FAULTMON_CMD_RUN_STAY_H
#define FAULTMON_CMD_RUN_STAY_H

#include <stdbool.h>
#include <stddef.h>

#include <faultmon/decide.h>
#include <faultmon/pcmk.h>

/* How long the preference for this node lasts: the stop and the start of
 * the restart, with room; it expires by itself. */
#define FM_RUN_STAY_S 120

/* cibadmin's bound: a CIB that does not answer costs the restart its
 * place, never the request (which follows, as when it fails). */
#define FM_RUN_STAY_TIMEOUT_MS 2000

/*
 * Before the controller is asked for a restart (never a failover), this
 * node is made the resource's place for FM_RUN_STAY_S seconds: a location
 * constraint faultmon-stay-RSC, score INFINITY on this node, with a date
 * rule that ends it.
 *
 * The controller records the request as a failed operation and the
 * scheduler recovers the resource; when anything aborts that transition
 * while the resource is stopped (every attribute change does, the loop's
 * own included), the next one places a resource that runs nowhere, where
 * resource-stickiness no longer applies: with equal scores it lands on any
 * node, with a fresh history.  A failed start still moves it (-INFINITY
 * outweighs INFINITY), and so does a failover, which the agent's start
 * refuses here.  When the constraint cannot be written (a Pacemaker Remote
 * node, whose user may not change the CIB) the restart is asked all the
 * same.
 */
struct fm_run_stay {
    char tool[512];
    char xml[2048];
    char *argv[8];                  /* cibadmin's, pointing into the above */
};

/*!
 * \brief The cibadmin call that writes the constraint for \p rsc on its
 *        node, into \p call (the loop runs it: src/run/request.c).
 * \return 0; ENOENT when there is nothing to place (no node, a clone's
 *         instance), EINVAL when a name cannot be written (said in the log)
 */
int fm_run_stay_argv(const struct fm_pcmk_resource *rsc, struct fm_run_stay *call);

/*!
 * \brief Say why the constraint is not written, when cibadmin did not end
 *        with status 0: \p timed_out (killed at FM_RUN_STAY_TIMEOUT_MS), or
 *        \p status (its own, or negative: it could not run) and \p out.
 */
void fm_run_stay_done(const struct fm_pcmk_resource *rsc, bool timed_out, int status, const char *out);

/*!
 * \brief The constraint's XML for resource \p rsc_id on \p node until
 *        \p until_s (Unix time), into \p buf.
 * \return 0, or EINVAL when a name would need escaping (none is made)
 */
int fm_run_stay_xml(const char *rsc_id, const char *node, long long until_s, char *buf, size_t len);

#endif
