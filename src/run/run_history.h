/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the cycle history's writer (src/run/run_history.c), apart
 * from the loop's wiring (src/run/loop.c): DIR/history, DIR/history.1 and
 * DIR/history.params (faultmon/history.h).
 */
#ifndef FAULTMON_CMD_RUN_HISTORY_H
#define FAULTMON_CMD_RUN_HISTORY_H

#include <faultmon/history.h>

/*!
 * \brief Append the records the monitor noted, in one write, rotating the
 *        file when it is full; the first time, write history.params.
 *
 * The buffer is emptied whatever happens: a failure is logged once (until a
 * write succeeds again) and costs those records, never the loop.
 */
void fm_run_history_write(struct fm_history_buf *b, const char *dir, const char *resource);

#endif
