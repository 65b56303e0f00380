/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop's lock and pid file (src/run/lock.c), apart
 * from the loop's wiring (src/run/loop.c): one loop a resource, one
 * decision engine.
 */
#ifndef FAULTMON_CMD_RUN_LOCK_H
#define FAULTMON_CMD_RUN_LOCK_H

#include <stdbool.h>
#include <stdint.h>

/*! \brief Say on stderr, in one line, who holds the lock. \return FM_EXIT_LOCKED */
int fm_run_lock_busy(const char *resource, int64_t pid, bool is_loop);

/*! \brief DIR/pid, atomically as every file there. \return 0 or an errno value */
int fm_run_write_pid_file(const char *dir);

/*!
 * \brief Create and lock the state directory \p dir, the lock's fd in \p lock_fd.
 * \return -1 to go on, else the exit status (said on stderr)
 */
int fm_run_lock(const char *dir, const char *resource, int *lock_fd);

#endif
