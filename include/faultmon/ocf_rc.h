/*
 * faultmon: the OCF exit code that tells Pacemaker about a decision.
 *
 * Part of the Pacemaker layer, kept libc-only so that the agent links it:
 * it uses only the enum of <crm/common/results.h>, never libcrmcommon.
 */
#ifndef FAULTMON_OCF_RC_H
#define FAULTMON_OCF_RC_H

#include <crm/common/results.h>     /* enum ocf_exitcode */

#include <faultmon/decide.h>        /* enum fm_action */

/*!
 * \brief The OCF exit code that asks Pacemaker for \p action.
 *
 * restart: 1, failover: 4, degraded: 190, none (or a value out of range): 0.
 * See ocf_rc.c for why these codes.
 *
 * \param[in] action  what the decision engine (or a pending recovery) asks
 * \return the exit code for the agent's monitor
 */
enum ocf_exitcode fm_ocf_rc_for_action(enum fm_action action);

#endif
