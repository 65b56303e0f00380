/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: run a program and read what it prints, within a deadline
 * (faultmon/spawn.h).  Moved out of src/pcmk/attrd.c, so that the
 * observer's corosync-cfgtool runs as safely as attrd_updater does.
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
#include <sys/wait.h>
#include <unistd.h>

#include <faultmon/clock.h>

extern char **environ;

/* In the child: stdin from /dev/null, stdout and stderr into the pipe, no
 * signal blocked or ignored by the parent, no descriptor of the parent's
 * (the loop's lock) left open in the program. */
static void
spawn_exec(char *const argv[], char *const envp[], int out_fd)
{
    sigset_t none;
    int null_fd = open("/dev/null", O_RDONLY);

    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
    }
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (close_range(3, ~0U, 0) != 0) {
        for (int fd = 3; fd < 1024; fd++) {
            close(fd);
        }
    }
    execve(argv[0], argv, envp);
    dprintf(STDERR_FILENO, "cannot execute %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Read the child's output until it closes the pipe or the deadline passes;
 * what does not fit in \p out is read and dropped (counted in \p size), so
 * that a talkative program never blocks on a full pipe.
 * \return true when the pipe closed in time */
static bool
spawn_collect(int in_fd, uint64_t end_us, char *out, size_t out_len, size_t *size)
{
    size_t used = 0;

    for (;;) {
        struct pollfd pfd = { .fd = in_fd, .events = POLLIN };
        uint64_t now_us = fm_now_us();
        char chunk[512];
        ssize_t got = 0;
        int ready = 0;

        if (now_us >= end_us) {
            return false;
        }
        ready = poll(&pfd, 1, (int) ((end_us - now_us + 999) / 1000));
        if (ready < 0 && errno != EINTR) {
            return false;
        }
        if (ready <= 0) {
            continue;
        }
        got = read(in_fd, chunk, sizeof(chunk));
        if (got == 0) {
            return true;
        }
        if (got > 0) {
            *size += (size_t) got;
        }
        if (got > 0 && out != NULL && out_len > 0) {
            size_t room = out_len - 1 - used;
            size_t take = ((size_t) got < room)? (size_t) got : room;

            memcpy(out + used, chunk, take);
            used += take;
            out[used] = '\0';
        }
    }
}

int
fm_spawn_start(char *const argv[], char *const envp[], pid_t *pid, int *out_fd)
{
    int pipefd[2] = { -1, -1 };
    int rc = 0;

    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        return errno;
    }
    *pid = fork();
    if (*pid == 0) {
        spawn_exec(argv, (envp != NULL)? envp : environ, pipefd[1]);
    }
    rc = errno;
    close(pipefd[1]);
    if (*pid < 0) {
        close(pipefd[0]);
        return rc;
    }
    /* The caller reads it from its event loop, which must never block. */
    fcntl(pipefd[0], F_SETFL, fcntl(pipefd[0], F_GETFL) | O_NONBLOCK);
    *out_fd = pipefd[0];
    return 0;
}

int
fm_spawn_run(char *const argv[], uint64_t timeout_ms, char *out, size_t out_len,
             size_t *out_size)
{
    return fm_spawn_run_env(argv, environ, timeout_ms, out, out_len, out_size);
}

int
fm_spawn_run_env(char *const argv[], char *const envp[], uint64_t timeout_ms, char *out,
                 size_t out_len, size_t *out_size)
{
    int pipefd[2] = { -1, -1 };
    int status = 0;
    bool in_time = false;
    size_t size = 0;
    pid_t pid = 0;

    if (out != NULL && out_len > 0) {
        out[0] = '\0';
    }
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        if (out != NULL) {
            snprintf(out, out_len, "cannot run %s: %s", argv[0], strerror(errno));
        }
        return -1;
    }
    pid = fork();
    if (pid == 0) {
        spawn_exec(argv, envp, pipefd[1]);
    }
    close(pipefd[1]);
    if (pid < 0) {
        if (out != NULL) {
            snprintf(out, out_len, "cannot run %s: %s", argv[0], strerror(errno));
        }
        close(pipefd[0]);
        return -1;
    }
    in_time = spawn_collect(pipefd[0], fm_now_us() + timeout_ms * 1000u, out, out_len, &size);
    close(pipefd[0]);
    if (!in_time) {
        kill(pid, SIGKILL);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        continue;
    }
    if (out_size != NULL) {
        *out_size = size;
    }
    if (!in_time) {
        if (out != NULL) {
            snprintf(out, out_len, "no answer within %llu ms", (unsigned long long) timeout_ms);
        }
        return -1;
    }
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    return WIFSIGNALED(status)? 128 + WTERMSIG(status) : -1;
}
