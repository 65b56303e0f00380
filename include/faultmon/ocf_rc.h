/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the OCF exit code that tells Pacemaker about a decision.
 *
 * In src/core (ocf_rc.c), libc-only so that the agent links it: it uses
 * only the enum of <crm/common/results.h>, never libcrmcommon.  The one
 * place of the rule: the loop (src/pcmk/recovery.c) and the state store
 * (src/core/state.c) both ask fm_ocf_rc_for_state().
 */
#ifndef FAULTMON_OCF_RC_H
#define FAULTMON_OCF_RC_H

#include <crm/common/results.h>     /* enum ocf_exitcode */

#include <stdbool.h>

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

/*!
 * \brief The OCF code the agent's monitor answers for a loop's state: that
 *        of the pending recovery while there is one, else that of the
 *        current action; always 0 when the loop only publishes (httpmon).
 *
 * \param[in] pending       the recovery asked and not yet carried out
 * \param[in] action        the current decision's action
 * \param[in] publish_only  whether the loop only publishes its verdict
 * \return 0, 1, 4 or 190, never anything else
 */
int fm_ocf_rc_for_state(enum fm_action pending, enum fm_action action, bool publish_only);

#endif
