/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: run a program and read what it prints, within a deadline
 * (faultmon/spawn.h): the one process runner of the loop, the commands and
 * the agents (agents/ocf/ocf_proc.c's fm_ocf_run() is this runner), so that
 * fork, exec, the pipe, the closed descriptors, the deadline and the kill
 * are written once.
 */
#include <config.h>

#include <faultmon/spawn.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <faultmon/clock.h>

extern char **environ;

void
fm_spawn_child_reset(void)
{
    sigset_t none;
    long closed = -1;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++) {
        signal(sig, SIG_DFL);
    }
    /* Through syscall(2): glibc declares close_range() from 2.34 only, and
     * kernel headers before 5.9 have no number for it (then, and on a
     * kernel without it, one by one up to the limit). */
#ifdef SYS_close_range
    closed = syscall(SYS_close_range, 3U, ~0U, 0U);
#endif
    if (closed != 0) {
        long max = sysconf(_SC_OPEN_MAX);

        for (long fd = 3; fd < ((max > 0 && max < 65536)? max : 65536); fd++) {
            close((int) fd);
        }
    }
}

/* In the child: its own process group (what it forks can be killed with it
 * at the deadline: fm_spawn_kill()), killed when the caller dies (its own
 * group no longer shares the caller's fate: Pacemaker's executor kills an
 * agent that overran its timeout by its process group, and the deadline
 * dies with the caller), stdin from /dev/null, stdout and
 * stderr into the pipe, no signal blocked or ignored by the parent, no
 * descriptor of the parent's (the loop's lock) left open in the program.
 * No program run here reads the terminal (stdin is /dev/null, the output a
 * pipe), so leaving the terminal's foreground group costs none of them. */
static void __attribute__((noreturn))
spawn_exec(char *const argv[], char *const envp[], int out_fd, pid_t parent)
{
    int null_fd = -1;

    (void) setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
        _exit(127);
    }
    null_fd = open("/dev/null", O_RDONLY);

    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
    }
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    fm_spawn_child_reset();
    execve(argv[0], argv, envp);
    dprintf(STDERR_FILENO, "cannot execute %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* One run: the child, its pipe, and what it printed so far. */
struct spawn_run {
    pid_t pid;
    int fd;                 /* the pipe's read end, -1 once it closed */
    bool exited;            /* reaped: status holds how it ended */
    int status;
    char *out;              /* NULL: the output is read and dropped */
    size_t out_len;
    size_t kept;            /* bytes in out */
    size_t size;            /* bytes printed in all */
};

/* What fits of \p chunk into the run's buffer, NUL-terminated. */
static void
spawn_keep(struct spawn_run *r, const char *chunk, size_t n)
{
    size_t take = 0;

    r->size += n;
    if (r->out == NULL || r->kept + 1 >= r->out_len) {
        return;
    }
    take = (n < r->out_len - 1 - r->kept)? n : r->out_len - 1 - r->kept;
    memcpy(r->out + r->kept, chunk, take);
    r->kept += take;
    r->out[r->kept] = '\0';
}

/*
 * Read the output until the program has exited and what it wrote is read;
 * what does not fit is read and dropped (counted), so that a talkative
 * program never blocks on a full pipe.  Its exit, not the pipe's end, ends
 * the wait: a program that daemonizes leaves the pipe open in its daemon,
 * whose later output is not waited for.
 *
 * \return false when the deadline came first
 */
static bool
spawn_collect(struct spawn_run *r, uint64_t end_us)
{
    for (;;) {
        struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
        uint64_t now_us = fm_now_us();
        int wait_ms = 0;
        char chunk[1024];
        ssize_t got = 0;

        if (!r->exited) {
            r->exited = (waitpid(r->pid, &r->status, WNOHANG) == r->pid);
        }
        if (r->exited && r->fd < 0) {
            return true;
        }
        if (now_us >= end_us) {
            return r->exited;
        }
        /* Exited: drain what is there.  Running: wake to look for its exit
         * (soon once its output has ended: it is exiting). */
        wait_ms = r->exited? 0 : (r->fd < 0)? 2 : 20;
        if ((uint64_t) wait_ms * 1000u > end_us - now_us) {
            wait_ms = (int) ((end_us - now_us + 999) / 1000);
        }
        if (poll(&pfd, (r->fd < 0)? 0 : 1, wait_ms) <= 0) {
            if (r->exited) {
                return true;
            }
            continue;
        }
        got = read(r->fd, chunk, sizeof(chunk));
        if (got > 0) {
            spawn_keep(r, chunk, (size_t) got);
        } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
            close(r->fd);
            r->fd = -1;
        }
    }
}

void
fm_spawn_kill(pid_t pid)
{
    /* Never 0 or -1 (the caller's group, every process), and a group only
     * where pid leads one: a child started here, unreaped, so its PID and
     * its group's ID cannot have been reused.  A child forked otherwise
     * (the loop's forked jobs) is in its parent's group: it alone. */
    if (pid <= 1) {
        return;
    }
    if (getpgid(pid) == pid) {
        kill(-pid, SIGKILL);
    } else {
        kill(pid, SIGKILL);
    }
}

int
fm_spawn_start(char *const argv[], char *const envp[], pid_t *pid, int *out_fd)
{
    int pipefd[2] = { -1, -1 };
    pid_t parent = 0;
    int rc = 0;

    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        return errno;
    }
    parent = getpid();
    *pid = fork();
    if (*pid == 0) {
        spawn_exec(argv, (envp != NULL)? envp : environ, pipefd[1], parent);
    }
    rc = errno;
    close(pipefd[1]);
    if (*pid < 0) {
        close(pipefd[0]);
        return rc;
    }
    /* The child does the same: whichever runs first, the group exists
     * before the caller may kill it (EACCES once the child has exec'd:
     * it made the group itself). */
    (void) setpgid(*pid, *pid);
    /* The caller reads it from its event loop, which must never block. */
    fcntl(pipefd[0], F_SETFL, fcntl(pipefd[0], F_GETFL) | O_NONBLOCK);
    *out_fd = pipefd[0];
    return 0;
}

int
fm_spawn_run(char *const argv[], uint64_t timeout_ms, char *out, size_t out_len,
             size_t *out_size)
{
    return fm_spawn_run_capture(argv, environ, timeout_ms, 0, out, out_len, NULL, out_size);
}

int
fm_spawn_run_env(char *const argv[], char *const envp[], uint64_t timeout_ms, char *out,
                 size_t out_len, size_t *out_size)
{
    return fm_spawn_run_capture(argv, envp, timeout_ms, 0, out, out_len, NULL, out_size);
}

int
fm_spawn_run_capture(char *const argv[], char *const envp[], uint64_t timeout_ms,
                     unsigned int flags, char *out, size_t out_len, size_t *out_kept,
                     size_t *out_size)
{
    struct spawn_run r = { .fd = -1, .out = out, .out_len = out_len };
    bool say_why = (flags & FM_SPAWN_KEEP_OUTPUT) == 0 && out != NULL;
    uint64_t end_us = fm_now_us() + timeout_ms * 1000u;
    bool in_time = false;
    int rc = fm_spawn_start(argv, envp, &r.pid, &r.fd);

    if (out != NULL && out_len > 0) {
        out[0] = '\0';
    }
    if (rc != 0) {
        if (say_why) {
            snprintf(out, out_len, "cannot run %s: %s", argv[0], strerror(rc));
        }
        r.pid = 0;
    } else {
        in_time = spawn_collect(&r, end_us);
    }
    if (r.fd >= 0) {
        close(r.fd);
    }
    if (r.pid > 0 && !r.exited) {
        /* Its group: a grandchild (a script's) may hold the pipe. */
        fm_spawn_kill(r.pid);
        while (waitpid(r.pid, &r.status, 0) < 0 && errno == EINTR) {
            continue;
        }
    }
    if (out_kept != NULL) {
        *out_kept = r.kept;
    }
    if (out_size != NULL) {
        *out_size = r.size;
    }
    if (rc != 0) {
        return -1;
    }
    if (!in_time) {
        if (say_why) {
            snprintf(out, out_len, "no answer within %llu ms", (unsigned long long) timeout_ms);
        }
        return -1;
    }
    if (WIFEXITED(r.status)) {
        return WEXITSTATUS(r.status);
    }
    return WIFSIGNALED(r.status)? 128 + WTERMSIG(r.status) : -1;
}
