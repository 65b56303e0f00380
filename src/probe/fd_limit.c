/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the open-file limit a probe engine needs, raised by the program
 * that makes the engine (the engine itself changes nothing in its process).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <faultmon/probe.h>

/* Descriptors beyond one per target: the engine's epoll, the resolver's
 * epoll and c-ares's sockets (one per name server in use),
 * the caller's own files, logging, a regex match's pipe. */
#define FM_PROBE_SPARE_FDS 64

int
fm_probe_reserve_fds(size_t n_targets, char *err, size_t err_len)
{
    struct rlimit lim;
    rlim_t want = (rlim_t) n_targets + FM_PROBE_SPARE_FDS;

    if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= want) {
        return 0;
    }
    if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < want) {
        snprintf(err, err_len, "%zu targets need %llu file descriptors, but the limit is %llu",
                 n_targets, (unsigned long long) want, (unsigned long long) lim.rlim_max);
        return EMFILE;
    }
    lim.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
        int rc = errno;

        snprintf(err, err_len, "cannot raise the file descriptor limit to %llu: %s",
                 (unsigned long long) want, strerror(rc));
        return rc;
    }
    return 0;
}
