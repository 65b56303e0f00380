/*
 * faultmon run: a restart asked in place stays in place (cmd_run_stay.c).
 */
#ifndef FAULTMON_CMD_RUN_STAY_H
#define FAULTMON_CMD_RUN_STAY_H

#include <stddef.h>

#include <faultmon/decide.h>
#include <faultmon/pcmk.h>

/* How long the preference for this node lasts: the stop and the start of
 * the restart, with room; it expires by itself. */
#define FM_RUN_STAY_S 120

/*!
 * \brief Ask the controller to recover the resource (fm_pcmk_request_recovery()),
 *        first, for a restart, making this node the resource's place for
 *        FM_RUN_STAY_S seconds: a location constraint faultmon-stay-RSC,
 *        score INFINITY on this node, with a date rule that ends it.
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
int fm_run_request_recovery(const struct fm_pcmk_resource *rsc, enum fm_action action, int timeout_ms,
                            char *err, size_t err_len);

/*!
 * \brief The constraint's XML for resource \p rsc_id on \p node until
 *        \p until_s (Unix time), into \p buf.
 * \return 0, or EINVAL when a name would need escaping (none is made)
 */
int fm_run_stay_xml(const char *rsc_id, const char *node, long long until_s, char *buf, size_t len);

#endif
