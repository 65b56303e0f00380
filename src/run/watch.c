/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop's watch of the service's process (the pid file the
 * agent passes, FAULTMON_WATCH_PIDFILE), on a pidfd on the loop's epoll;
 * where the kernel has no pidfd (before 5.3), on a timer fd that looks at
 * /proc every FM_WATCH_POLL_MS instead.
 */
#include <config.h>

#include <errno.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/log.h>
#include <faultmon/pidfd.h>
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

    fm_ev_unwatch(lp->loop, lp->watch_fd);
    close(lp->watch_fd);
    lp->watch_fd = -1;
    lp->watch_polling = false;
    snprintf(cause, sizeof(cause), "%s (pid %ld) exited", lp->watch.name, lp->watch_pid);
    fm_monitor_event(&lp->mon, cause, false, fm_now_us(), (int64_t) time(NULL), &out);
    if (fm_run_loop_apply(lp, &out)) {
        fm_run_loop_act(lp, &out);
    }
    return -1;
}

/* Without a pidfd: how often the watched process is looked for in /proc.
 * A crash is then seen within this time rather than at once, still far
 * sooner than the next probe. */
#define FM_WATCH_POLL_MS 100

/* Whether \p pid runs (not a zombie), and its start time in clock ticks
 * since boot (field 22 of /proc/PID/stat), which tells it from a later
 * process given the same PID. */
static bool
proc_running(long pid, unsigned long long *start)
{
    char path[64];
    char buf[1024];
    const char *p = NULL;
    FILE *in = NULL;
    size_t n = 0;
    char state = 0;

    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    in = fopen(path, "re");
    if (in == NULL) {
        return false;
    }
    n = fread(buf, 1, sizeof(buf) - 1, in);
    fclose(in);
    buf[n] = '\0';
    p = strrchr(buf, ')');          /* the name may hold blanks and ')' */
    if (p == NULL || sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
                            &state, start) != 2) {
        return false;
    }
    return state != 'Z' && state != 'X';
}

static int32_t
on_watch_tick(int32_t fd, int32_t revents, void *data)
{
    struct fm_loop *lp = data;
    unsigned long long start = 0;
    uint64_t ticks = 0;

    if (read(fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN) {
        fm_log_debug("%s: the watch's timer: %s", lp->resource, strerror(errno));
    }
    if (proc_running(lp->watch_pid, &start) && start == lp->watch_start) {
        return 0;
    }
    return on_watch_exit(fd, revents, data);
}

/* No pidfd here (ENOSYS before Linux 5.3): a timer fd on the same epoll
 * looks at the process every FM_WATCH_POLL_MS; the loop still never sleeps
 * outside its one wait. */
static int
watch_by_timer(struct fm_loop *lp, pid_t pid)
{
    struct itimerspec every = {
        .it_interval = { .tv_nsec = FM_WATCH_POLL_MS * 1000000L },
        .it_value = { .tv_nsec = FM_WATCH_POLL_MS * 1000000L },
    };
    unsigned long long start = 0;
    int fd = -1;

    if (!proc_running((long) pid, &start)) {
        return -1;
    }
    fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0 || timerfd_settime(fd, 0, &every, NULL) != 0
        || fm_ev_watch(lp->loop, fd, EPOLLIN, on_watch_tick, lp) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    lp->watch_start = start;
    lp->watch_polling = true;
    return fd;
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
    fd = fm_pidfd_open(pid);
    if (fd < 0) {
        if (errno != ENOSYS || (fd = watch_by_timer(lp, pid)) < 0) {
            return;
        }
        fm_log_debug("%s: no pidfd on this kernel: %s (pid %ld) looked for every %d ms",
                     lp->resource, lp->watch.name, (long) pid, FM_WATCH_POLL_MS);
    } else if (fm_ev_watch(lp->loop, fd, EPOLLIN, on_watch_exit, lp) != 0) {
        close(fd);
        return;
    }
    lp->watch_fd = fd;
    lp->watch_pid = pid;
}
