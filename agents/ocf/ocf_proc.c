/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: processes: pid files, whether a PID is alive and
 * runs the program it should, waiting for one to end, running a program
 * with a deadline (src/util/spawn.c's runner, never a shell) and starting a
 * daemon.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/parse.h>
#include <faultmon/pidfile.h>
#include <faultmon/spawn.h>

#include "ocf_common.h"

void
fm_ocf_sleep_ms(uint64_t ms)
{
    struct timespec ts = { .tv_sec = (time_t) (ms / 1000u), .tv_nsec = (long) (ms % 1000u) * 1000000L };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        continue;
    }
}

pid_t
fm_ocf_read_pid_file(const char *path)
{
    static bool warned = false;
    struct stat st;
    char err[512] = "";
    pid_t pid = 0;
    /* The loop's rule too (faultmon/pidfile.h): a FIFO there must not hold
     * the agent past its deadline, a link there was not put by httpd. */
    int rc = fm_pidfile_read(path, &pid, err, sizeof(err));

    if (rc == 0) {
        return pid;
    }
    /* An empty file is a daemon between creating it and writing its PID
     * (nginx does both in turn while start waits for it): no warning. */
    if (rc != ENOENT && !warned && !(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)) {
        /* Once per action: the start waits for a pid file in a loop. */
        warned = true;
        fm_ocf_log(LOG_WARNING, "pid file: %s: no PID taken from it", err);
    }
    return 0;
}

/* The fields of /proc/PID/stat after the command's ")": its state letter
 * and its session.  \return false when the process is not readable */
static bool
proc_stat(pid_t pid, char *state, long *session)
{
    char path[64];
    char buf[256];
    ssize_t n = 0;
    int fd = -1;
    char *paren = NULL;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long) pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) {
        return false;
    }
    buf[n] = '\0';
    paren = strrchr(buf, ')');
    /* state, ppid, pgrp, session */
    return paren != NULL && sscanf(paren + 1, " %c %*d %*d %ld", state, session) == 2;
}

/* The state letter of /proc/PID/stat, or 0. */
static char
proc_state(pid_t pid)
{
    char state = 0;
    long session = 0;

    return proc_stat(pid, &state, &session)? state : 0;
}

pid_t
fm_ocf_proc_session(pid_t pid)
{
    char state = 0;
    long session = 0;

    return proc_stat(pid, &state, &session)? (pid_t) session : 0;
}

static const char *
base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return (slash != NULL)? slash + 1 : path;
}

bool
fm_ocf_pid_alive(pid_t pid, const char *exe)
{
    char path[64];
    char target[FM_OCF_PATH_MAX];
    ssize_t n = 0;
    char state = 0;

    if (pid <= 1) {
        return false;
    }
    if (kill(pid, 0) != 0 && errno != EPERM) {
        return false;
    }
    state = proc_state(pid);
    if (state == 'Z' || state == 'X') {
        return false;
    }
    if (exe == NULL || exe[0] == '\0') {
        return true;
    }
    snprintf(path, sizeof(path), "/proc/%ld/exe", (long) pid);
    n = readlink(path, target, sizeof(target) - 1);
    if (n < 0) {
        /* Not ours to read: believe the PID. */
        return errno == EACCES || errno == EPERM;
    }
    target[n] = '\0';
    {
        char *deleted = strstr(target, " (deleted)");

        if (deleted != NULL) {
            *deleted = '\0';
        }
    }
    return strcmp(base_name(target), base_name(exe)) == 0;
}

bool
fm_ocf_wait_gone(pid_t pid, uint64_t timeout_ms)
{
    uint64_t end_us = fm_now_us() + timeout_ms * 1000u;

    for (;;) {
        int status = 0;

        /* Reap it if it is our child, so that it does not linger as a zombie. */
        waitpid(pid, &status, WNOHANG);
        if (!fm_ocf_pid_alive(pid, NULL)) {
            return true;
        }
        if (fm_now_us() >= end_us) {
            return false;
        }
        fm_ocf_sleep_ms(20);
    }
}

int
fm_ocf_mkdir_p(const char *path, mode_t mode)
{
    char buf[FM_OCF_PATH_MAX];
    struct stat st;

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int) sizeof(buf)) {
        return ENAMETOOLONG;
    }
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, mode) != 0 && errno != EEXIST) {
                return errno;
            }
            *p = '/';
        }
    }
    if (mkdir(buf, mode) != 0 && errno != EEXIST) {
        return errno;
    }
    if (stat(buf, &st) != 0) {
        return errno;
    }
    return S_ISDIR(st.st_mode)? 0 : ENOTDIR;
}

/* The one process runner (faultmon/spawn.h), with the agents' contract:
 * on a failure or the deadline, the output stays what the program wrote. */
int
fm_ocf_run(char *const argv[], char *out, size_t out_len, size_t *out_used,
           uint64_t timeout_ms)
{
    extern char **environ;

    return fm_spawn_run_capture(argv, environ, timeout_ms, FM_SPAWN_KEEP_OUTPUT, out, out_len,
                                out_used, NULL);
}

/*
 * What an action must have done but need not wait for (a cibadmin or an
 * attrd_updater: with the CIB or attrd frozen, each waited out its bound on
 * the way to serving, tests/cluster/frozen-daemons.sh) runs in a process
 * of its own that the agent does not wait for: a grandchild in its own
 * session, its standard streams on /dev/null (Pacemaker's executor reads
 * the agent's pipes until they close) and no other descriptor (a lock of
 * the state directory stays the agent's).  The agent waits only for the
 * first fork, which exits at once; the grandchild is init's.
 */
static int
ocf_detach(void)
{
    pid_t child = fork();
    int status = 0;

    if (child < 0) {
        return -1;
    }
    if (child == 0) {
        int devnull = open("/dev/null", O_RDWR);

        if (setsid() < 0 || fork() != 0) {
            _exit(0);
        }
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        fm_spawn_child_reset();
        return 1;
    }
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return 0;
}

void
fm_ocf_detached(void (*fn)(void *arg), void *arg)
{
    int where = ocf_detach();

    if (where == 0) {
        return;
    }
    /* The detached process, or the agent itself when none could be made. */
    fn(arg);
    if (where == 1) {
        _exit(0);
    }
}

int
fm_ocf_spawn_daemon(char *const argv[], pid_t *daemon_pid)
{
    extern char **environ;
    int pipefd[2] = { -1, -1 };
    pid_t child = 0;
    pid_t grandchild = 0;
    int status = 0;

    *daemon_pid = 0;
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        return errno;
    }
    child = fork();
    if (child < 0) {
        int rc = errno;

        close(pipefd[0]);
        close(pipefd[1]);
        return rc;
    }
    if (child == 0) {
        pid_t pid = 0;

        close(pipefd[0]);
        setsid();
        pid = fork();
        if (pid != 0) {
            /* Tell the agent who the daemon is, then leave it to init. */
            if (write(pipefd[1], &pid, sizeof(pid)) < 0) {
                _exit(1);
            }
            _exit(0);
        }
        {
            int devnull = open("/dev/null", O_RDWR);

            dup2(devnull, 0);
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        fm_spawn_child_reset();
        umask(022);
        if (chdir("/") != 0) {
            _exit(127);
        }
        execve(argv[0], argv, environ);
        _exit(127);
    }
    close(pipefd[1]);
    if (read(pipefd[0], &grandchild, sizeof(grandchild)) != (ssize_t) sizeof(grandchild)) {
        grandchild = 0;
    }
    close(pipefd[0]);
    waitpid(child, &status, 0);
    if (grandchild <= 0) {
        return ECHILD;
    }
    *daemon_pid = grandchild;
    return 0;
}
