/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: start a program for an event loop, tied to the loop's life
 * (fm_spawn_tied(), include/faultmon/spawn.h), for the exec probe.
 *
 * posix_spawn() cannot ask for PR_SET_PDEATHSIG, so a program it started
 * outlived a loop killed with SIGKILL (the agent's stop, Pacemaker's
 * executor past a timeout) until the program's own end.  A fork() can
 * (fm_spawn_start()), but its parent goes on at once while the child still
 * holds copies of every descriptor of the loop's until its execve: a socket
 * the loop closes in that window stays in the loop's epoll set, with its
 * connection's pointer, and its events still arrive.
 *
 * So this is what posix_spawn() itself does, plus the one call: vfork()
 * semantics (the caller is suspended until the program's execve or exit, so
 * no such window exists), then, in the child, only raw system calls, which
 * touch nothing of the memory the child shares with the caller but its own
 * stack frame and one result word (and errno, the caller's thread's).
 * The caller's signals are all blocked
 * across the vfork(), so that no handler of the caller's ever runs in the
 * child on the shared memory.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <faultmon/spawn.h>

/* The kernel's struct sigaction (rt_sigaction(2)), not glibc's: the
 * child makes the system call itself. */
struct tied_ksigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

/* What the child needs, all prepared by the caller before vfork(). */
struct tied_args {
    const char *path;
    char *const *argv;
    char *const *envp;
    int out_fd;
    pid_t parent;
    long close_max;          /* one by one up to here without close_range */
    struct tied_ksigaction dfl;
    volatile int err;        /* the child's errno when it could not exec */
};

static void __attribute__((noreturn))
tied_fail(struct tied_args *a)
{
    a->err = (errno != 0)? errno : ECHILD;
    syscall(SYS_exit_group, 127);
    for (;;) {
    }
}

/* In the child, on the caller's memory: system calls only (no libc call
 * that keeps state, no sanitizer interceptor), each checked where a
 * failure would leave the program other than promised. */
static void __attribute__((noreturn, noinline))
tied_child(struct tied_args *a)
{
    uint64_t none = 0;
    long fd;
    long out = a->out_fd;

    errno = 0;
    if (syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0
        || syscall(SYS_getppid) != a->parent) {
        tied_fail(a);     /* the caller is gone already */
    }
    /* Its own process group, killed whole at the deadline. */
    if (syscall(SYS_setpgid, 0, 0) != 0) {
        tied_fail(a);
    }
    /* Every signal to its default (an ignored one would survive execve).
     * The kernel's structure is written for the architectures whose
     * rt_sigaction takes it as laid out above (x86, arm, powerpc, s390,
     * riscv); elsewhere the call fails, and so does the start, rather than
     * leave an ignored signal ignored. */
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP
            && syscall(SYS_rt_sigaction, sig, &a->dfl, NULL, sizeof(uint64_t)) != 0) {
            tied_fail(a);
        }
    }
    /* stdout and stderr the pipe, stdin /dev/null; the pipe moved above 2
     * first, should the caller run with one of 0-2 closed. */
    if (out < 3) {
        out = syscall(SYS_fcntl, a->out_fd, F_DUPFD_CLOEXEC, 3);
        if (out < 0) {
            tied_fail(a);
        }
    }
    if (syscall(SYS_dup3, out, STDOUT_FILENO, 0) < 0 || syscall(SYS_dup3, out, STDERR_FILENO, 0) < 0) {
        tied_fail(a);
    }
    /* Not close-on-exec: it is 0 itself when the caller had 0 closed, and
     * closed below otherwise. */
    fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY);
    if (fd < 0 || (fd != STDIN_FILENO && syscall(SYS_dup3, fd, STDIN_FILENO, 0) < 0)) {
        tied_fail(a);
    }
    /* No descriptor of the caller's: the loop's are close-on-exec, a
     * library's may not be. */
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
#endif
    {
        for (fd = 3; fd < a->close_max; fd++) {
            (void) syscall(SYS_close, fd);
        }
    }
    (void) syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
    syscall(SYS_execve, a->path, a->argv, a->envp);
    tied_fail(a);
}

int
fm_spawn_tied(const char *path, char *const argv[], char *const envp[], int out_fd, pid_t *pid)
{
    struct tied_args a = {
        .path = path, .argv = argv, .envp = envp, .out_fd = out_fd, .parent = getpid(),
        .err = 0, .dfl = { .handler = SIG_DFL },
    };
    uint64_t all = ~(uint64_t) 0;
    uint64_t old = 0;
    pid_t child;
    int rc;

    a.close_max = sysconf(_SC_OPEN_MAX);
    if (a.close_max <= 0 || a.close_max > 65536) {
        a.close_max = 65536;
    }
    /* Every signal blocked, glibc's own two (32 and 33) included, which
     * sigprocmask() leaves out: the system call itself. */
    if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof(all)) != 0) {
        return errno;
    }
    child = vfork();
    if (child == 0) {
        tied_child(&a);
    }
    rc = (child < 0)? errno : 0;
    (void) syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
    if (child < 0) {
        return rc;
    }
    if (a.err != 0) {
        /* It has exited already (vfork returns at the child's exit): a
         * moment's wait for the zombie. */
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
        }
        return a.err;
    }
    *pid = child;
    return 0;
}
