/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the OCF exit code for a decision and for a loop's state, the
 * one place of that rule (see include/faultmon/ocf_rc.h).
 *
 * Why these codes (Pacemaker 2.1.5, lib/pengine/unpack.c, remap_operation()
 * and unpack_rsc_op_failure(); measured on a real cluster too):
 *
 * - restart: PCMK_OCF_UNKNOWN_ERROR (1).  The scheduler treats it as a soft
 *   error: stop and start on the same node, fail-count + 1.  Pacemaker's own
 *   docs call it "hard" in places; the code does not.  With
 *   migration-threshold set, enough soft errors move the resource anyway,
 *   which is Pacemaker's rule and not ours to override.
 * - failover: PCMK_OCF_INSUFFICIENT_PRIV (4).  2, 4 and 5 are all mapped to
 *   PCMK_EXEC_ERROR_HARD ("hard-error": -INFINITY for this node until a
 *   cleanup), so the resource moves to another node.  Not 2
 *   (OCF_ERR_ARGS): it says the parameters are wrong, which sends the
 *   administrator to the configuration.  Not 5 (OCF_ERR_INSTALLED): the
 *   scheduler gives it special meanings that break a failover: a probe
 *   (monitor with interval 0, as after a cleanup) that returns 5 is taken as
 *   "not running here", so a service still running would be left unstopped
 *   while it starts elsewhere; the hard failure is logged only at notice
 *   level; and in an asymmetric cluster it is not even recorded as a failed
 *   action.  4 has none of these special cases; its text ("insufficient
 *   privileges") is wrong, which is why the exit reason says what happened.
 *   Not 6 (OCF_ERR_CONFIGURED): fatal, stops the resource everywhere.
 * - degraded: PCMK_OCF_DEGRADED (190), OCF 1.1's "running but may fail
 *   soon": the scheduler and the controller treat it as 0 (no recovery, no
 *   fail-count) and crm_mon lists it, which is exactly "shown, not
 *   recovered".
 * - none: PCMK_OCF_OK (0).
 */
#include <config.h>

#include <faultmon/ocf_rc.h>

enum ocf_exitcode
fm_ocf_rc_for_action(enum fm_action action)
{
    switch (action) {
        case FM_ACTION_RESTART:  return PCMK_OCF_UNKNOWN_ERROR;
        case FM_ACTION_FAILOVER: return PCMK_OCF_INSUFFICIENT_PRIV;
        case FM_ACTION_DEGRADED: return PCMK_OCF_DEGRADED;
        case FM_ACTION_NONE:     return PCMK_OCF_OK;
    }
    return PCMK_OCF_OK;
}

int
fm_ocf_rc_for_state(enum fm_action pending, enum fm_action action, bool publish_only)
{
    if (publish_only) {
        return PCMK_OCF_OK;         /* httpmon answers 0; its attribute tells */
    }
    /* A pending recovery is asked until it is carried out, whatever the
     * decisions since; an out-of-range value asks for nothing. */
    return (int) fm_ocf_rc_for_action((pending != FM_ACTION_NONE)? pending : action);
}
