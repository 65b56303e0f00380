/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: processes: pid files, whether a PID is alive and
 * runs the program it should, waiting for one to end, running a program
 * with a deadline (fork and execve, never a shell) and starting a daemon.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
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

/* In a child between fork and exec: the default signal handling, no
 * inherited descriptors but 0-2. */
static void
child_reset(void)
{
    sigset_t none;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++) {
        signal(sig, SIG_DFL);
    }
    if (close_range(3, ~0U, 0) != 0) {
        for (int fd = 3; fd < 1024; fd++) {
            close(fd);
        }
    }
}

/* Where fm_ocf_run() keeps a program's output: as much as fits. */
struct run_output {
    char *buf;              /* NULL: the output is read and dropped */
    size_t len;
    size_t used;
    size_t *used_out;       /* the caller's count, kept current */
};

static void
keep_output(struct run_output *o, const char *chunk, size_t n)
{
    size_t take = 0;

    if (o->buf == NULL || o->used + 1 >= o->len) {
        return;
    }
    take = (n < o->len - 1 - o->used)? n : o->len - 1 - o->used;
    memcpy(o->buf + o->used, chunk, take);
    o->used += take;
    o->buf[o->used] = '\0';
    if (o->used_out != NULL) {
        *o->used_out = o->used;
    }
}

/* In the child: stdin from /dev/null, stdout and stderr into the pipe. */
static void __attribute__((noreturn))
exec_with_output(char *const argv[], int write_fd)
{
    extern char **environ;
    int devnull = open("/dev/null", O_RDONLY);

    dup2(devnull, 0);
    dup2(write_fd, 1);
    dup2(write_fd, 2);
    child_reset();
    execve(argv[0], argv, environ);
    fprintf(stderr, "cannot execute %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/*
 * Read until the program has exited and the pipe is drained; a program that
 * daemonizes may leave the pipe open in its grandchild, so its exit, not the
 * pipe's end, ends the wait.  Past end_us it is killed.
 *
 * \return false when it was killed for the deadline
 */
static bool
collect_until_exit(pid_t pid, int read_fd, uint64_t end_us, struct run_output *o, int *status)
{
    bool exited = false;

    for (;;) {
        struct pollfd pfd = { .fd = read_fd, .events = POLLIN };
        uint64_t now_us = fm_now_us();
        char chunk[1024];
        ssize_t n = 0;

        if (!exited) {
            pid_t got = waitpid(pid, status, WNOHANG);

            exited = (got == pid);
        }
        if (!exited && now_us >= end_us) {
            kill(pid, SIGKILL);
            waitpid(pid, status, 0);
            return false;
        }
        if (poll(&pfd, 1, exited? 0 : 20) > 0) {
            n = read(read_fd, chunk, sizeof(chunk));
            if (n > 0) {
                keep_output(o, chunk, (size_t) n);
                continue;
            }
            if (n == 0 && exited) {
                return true;
            }
        } else if (exited) {
            return true;
        }
    }
}

int
fm_ocf_run(char *const argv[], char *out, size_t out_len, size_t *out_used,
           uint64_t timeout_ms)
{
    int pipefd[2] = { -1, -1 };
    uint64_t end_us = fm_now_us() + timeout_ms * 1000u;
    struct run_output o = { .buf = out, .len = out_len, .used = 0, .used_out = out_used };
    bool finished = false;
    int status = 0;
    pid_t pid = 0;

    if (out != NULL && out_len > 0) {
        out[0] = '\0';
    }
    if (out_used != NULL) {
        *out_used = 0;
    }
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        exec_with_output(argv, pipefd[1]);
    }
    close(pipefd[1]);
    fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
    finished = collect_until_exit(pid, pipefd[0], end_us, &o, &status);
    close(pipefd[0]);
    if (!finished) {
        return -1;
    }
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return -1;
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
int
fm_ocf_detach(void)
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
        child_reset();
        return 1;
    }
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return 0;
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
        child_reset();
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
