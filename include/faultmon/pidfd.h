/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a process's pidfd (src/util/pidfd.c), through the system call
 * rather than glibc's pidfd_open() wrapper, which glibc has only since 2.36
 * (RHEL 8 has 2.28, RHEL 9 2.34): every caller has a fallback for a kernel
 * without pidfds (before Linux 5.3), which is also what a build whose kernel
 * headers do not name the call gets.
 */
#ifndef FAULTMON_PIDFD_H
#define FAULTMON_PIDFD_H

#include <sys/types.h>

/*!
 * \brief A pidfd of \p pid (close-on-exec, readable when it exits).
 * \return the descriptor, or -1 with errno (ENOSYS: no pidfds here; ESRCH:
 *         no such process)
 */
int fm_pidfd_open(pid_t pid);

#endif
