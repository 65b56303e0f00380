/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a process's pidfd, for the callers that watch a process on an
 * epoll (the exec probe, the loop's children, the watched service); see
 * faultmon/pidfd.h for why not glibc's wrapper.
 */
#include <config.h>

#include <faultmon/pidfd.h>

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

int
fm_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int) syscall(SYS_pidfd_open, pid, 0);
#else
    (void) pid;
    errno = ENOSYS;
    return -1;
#endif
}
