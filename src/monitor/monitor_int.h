/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the monitor's own functions across its files (not for callers).
 *
 * No .c of its name: a pure interface between the monitor's files.
 */
#ifndef FAULTMON_MONITOR_INT_H
#define FAULTMON_MONITOR_INT_H

#include <faultmon/history.h>
#include <faultmon/monitor.h>

/*!
 * \brief Note an outcome in the cycle history (history_note.c): its kind,
 *        the engine's input (a cycle's; NULL for other kinds), the action
 *        decided and FM_HISTORY_F_* flags; the state is mon->st's.
 */
void fm_monitor_note(struct fm_monitor *mon, enum fm_history_kind kind, const struct fm_decide_input *in,
                     enum fm_action action, unsigned int flags, uint64_t now_us, int64_t now_wall_s);

#endif
