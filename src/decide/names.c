/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the decision engine's words for its actions, states and failure
 * classes, as logs, the state file and reasons spell them.
 */
#include <config.h>

#include <faultmon/decide.h>

#include "decide_int.h"

const char *
fm_action_name(enum fm_action action)
{
    switch (action) {
        case FM_ACTION_NONE:     return "none";
        case FM_ACTION_RESTART:  return "restart";
        case FM_ACTION_FAILOVER: return "failover";
        case FM_ACTION_DEGRADED: return "degraded";
    }
    return "unknown";
}

const char *
fm_action_word(enum fm_action action, bool publish_only)
{
    if (publish_only && ((action == FM_ACTION_RESTART) || (action == FM_ACTION_FAILOVER))) {
        return "unhealthy";
    }
    return fm_action_name(action);
}

const char *
fm_state_name(enum fm_state state)
{
    switch (state) {
        case FM_STATE_UP:       return "up";
        case FM_STATE_DEGRADED: return "degraded";
        case FM_STATE_DOWN:     return "down";
        case FM_STATE_FLAPPING: return "flapping";
        case FM_STATE_HELD:     return "held";
    }
    return "unknown";
}

const char *
fm_decide_class_text(enum fm_class cls)
{
    switch (cls) {
        case FM_CLASS_COMPLETE: return "complete failure";
        case FM_CLASS_PARTIAL:  return "partial failure";
        case FM_CLASS_OK:       return "ok";
    }
    return "unknown";
}
