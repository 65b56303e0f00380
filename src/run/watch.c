/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop's watch of the service's process (the pid file the
 * agent passes, FAULTMON_WATCH_PIDFILE), on a pidfd on the loop's epoll.
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/pidfd.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/log.h>
#include <faultmon/pidfile.h>

#include "loop.h"

/*
 * The watched process (httpd's parent, named by the pid file the agent
 * passes) exited: a complete failure, found at once rather than at the next
 * probe, under the same rules and once (see loop_check_event()).  Apache's
 * graceful and full restarts keep the parent's PID, and the agent stops the
 * loop before httpd, so an exit seen here is a crash.
 */
static int32_t
on_watch_exit(int32_t fd, int32_t revents, void *data)
{
    struct fm_loop *lp = data;
    struct fm_monitor_out out;
    char cause[128];

    qb_loop_poll_del(lp->loop, lp->watch_fd);
    close(lp->watch_fd);
    lp->watch_fd = -1;
    snprintf(cause, sizeof(cause), "%s (pid %ld) exited", lp->watch.name, lp->watch_pid);
    fm_monitor_event(&lp->mon, cause, false, fm_now_us(), (int64_t) time(NULL), &out);
    if (fm_run_loop_apply(lp, &out)) {
        fm_run_loop_act(lp, &out);
    }
    return -1;
}

/* Watch the process of the pid file, once it names a live one.  Read as
 * the agents read it (faultmon/pidfile.h): a FIFO there must not block the
 * loop, which would stop probing; why it watches nothing is said once. */
void
fm_run_loop_watch(struct fm_loop *lp)
{
    char err[512];
    pid_t pid = 0;
    int fd = -1;
    int rc = 0;

    if (lp->watch.pid_file == NULL || lp->watch_fd >= 0) {
        return;
    }
    rc = fm_pidfile_read(lp->watch.pid_file, &pid, err, sizeof(err));
    if (rc != 0 && rc != ENOENT && rc != lp->watch_rc) {
        fm_log_warn("%s: no process to watch: %s", lp->resource, err);
    }
    lp->watch_rc = rc;
    if (rc != 0 || pid == lp->watch_pid) {
        return;                     /* none, or one that has exited already */
    }
    fd = pidfd_open((pid_t) pid, 0);
    if (fd < 0) {
        return;
    }
    if (qb_loop_poll_add(lp->loop, QB_LOOP_HIGH, fd, POLLIN, lp, on_watch_exit) != 0) {
        close(fd);
        return;
    }
    lp->watch_fd = fd;
    lp->watch_pid = pid;
}
