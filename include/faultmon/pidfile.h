/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: reading a daemon's pid file (httpd's).
 *
 * The agents (to find httpd) and `faultmon run` (to watch it) read the same
 * file under the same rule.  libc only.
 */
#ifndef FAULTMON_PIDFILE_H
#define FAULTMON_PIDFILE_H

#include <stddef.h>
#include <sys/types.h>

/* The largest pid file taken: "PID\n" with room to spare. */
#define FM_PIDFILE_MAX_BYTES 32

/*!
 * \brief Read the PID in a pid file ("PID\n" as httpd writes it, or without
 *        the newline).
 *
 * Through fm_kvfile_load() (kvfile.h): the path must name a regular file,
 * opened without following a symbolic link or blocking, so that a FIFO put
 * there never blocks the caller (the loop would stop probing, the agent
 * outlive its deadline), and a link there (httpd writes its pid file
 * itself, never as a link) is refused.
 *
 * \param[in]  path     the pid file
 * \param[out] pid      the PID (from 2), set only on success
 * \param[out] err      why not, in one line naming the path (may be NULL)
 * \param[in]  err_len  size of \p err
 * \return 0; ENOENT when there is no such file; ENOMEM; EINVAL otherwise
 *         (not a regular file, a link, too long, or no PID in it)
 */
int fm_pidfile_read(const char *path, pid_t *pid, char *err, size_t err_len);

#endif
