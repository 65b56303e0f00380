/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: running a program within a deadline (src/util/spawn.c), with
 * /bin/sh scripts given as argument vectors: the whole output and its size,
 * an output past the buffer (read to its end, counted, cut), a NUL in it,
 * the exit status, a signal, a program that is not there, and the deadline;
 * the agents' contract (the output kept at the deadline, the kept count),
 * a grandchild killed with the program at the deadline (its process group),
 * a program that daemonizes, signals the caller ignores, and a descriptor
 * of the caller's (opened without O_CLOEXEC) that the program never sees.
 * The same promises of fm_spawn_tied() (src/util/spawn_tied.c), the exec
 * probe's starter, and its own: execve's errno returned with no child left.
 */
#include <config.h>

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/clock.h>
#include <faultmon/spawn.h>

/* Run `/bin/sh -c SCRIPT` within \p timeout_ms. */
static int
run_sh(const char *script, uint64_t timeout_ms, char *out, size_t out_len, size_t *size)
{
    char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) script, NULL };

    return fm_spawn_run(argv, timeout_ms, out, out_len, size);
}

static void
test_output(void **state)
{
    char out[64];
    size_t size = 0;

    (void) state;
    assert_int_equal(run_sh("printf 'one\\ntwo\\n'; echo err >&2", 2000, out, sizeof(out), &size),
                     0);
    assert_string_equal(out, "one\ntwo\nerr\n");
    assert_int_equal(size, 12);
    assert_int_equal(run_sh("echo no; exit 3", 2000, out, sizeof(out), NULL), 3);
    assert_string_equal(out, "no\n");
    assert_int_equal(run_sh("kill -KILL $$", 2000, out, sizeof(out), NULL), 128 + 9);
    /* A NUL: the text stops there, the size does not. */
    assert_int_equal(run_sh("printf 'a\\n\\000b\\n'", 2000, out, sizeof(out), &size), 0);
    assert_int_equal(size, 5);
    assert_int_equal(strlen(out), 2);
}

/* 100 KiB into 64 bytes: read to the end (no blocked writer), counted. */
static void
test_past_buffer(void **state)
{
    char out[64];
    size_t size = 0;

    (void) state;
    assert_int_equal(run_sh("head -c 102400 /dev/zero | tr '\\000' x", 5000, out, sizeof(out),
                            &size), 0);
    assert_int_equal(size, 102400);
    assert_int_equal(strlen(out), sizeof(out) - 1);
}

static void
test_failures(void **state)
{
    char *argv[] = { (char *) "/nonexistent/faultmon-test-tool", NULL };
    char out[128];
    uint64_t t0 = 0;

    (void) state;
    assert_int_equal(fm_spawn_run(argv, 2000, out, sizeof(out), NULL), 127);
    assert_non_null(strstr(out, "cannot execute /nonexistent/faultmon-test-tool"));
    t0 = fm_now_us();
    assert_int_equal(run_sh("exec sleep 10", 200, out, sizeof(out), NULL), -1);
    assert_string_equal(out, "no answer within 200 ms");
    assert_true(fm_now_us() - t0 < 2000000u);
}

/* The deadline kills the program (the one the runner started, whose PID it
 * printed: gone, not left running), and the agents' flag keeps what it
 * wrote instead of the reason. */
static void
test_deadline_kills(void **state)
{
    char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) "echo $$; exec sleep 10", NULL };
    char out[64];
    char path[64];
    size_t kept = 0;
    uint64_t t0 = fm_now_us();
    FILE *cmdline = NULL;

    (void) state;
    assert_int_equal(fm_spawn_run_capture(argv, NULL, 300, FM_SPAWN_KEEP_OUTPUT, out, sizeof(out),
                                          &kept, NULL), -1);
    assert_true(fm_now_us() - t0 < 2000000u);
    assert_int_equal(kept, strlen(out));
    assert_true(atoi(out) > 0);
    /* Reaped: no process of that PID runs sleep (the number may be reused). */
    snprintf(path, sizeof(path), "/proc/%d/cmdline", atoi(out));
    cmdline = fopen(path, "r");
    if (cmdline != NULL) {
        char text[64] = "";

        if (fgets(text, sizeof(text), cmdline) != NULL) {
            assert_null(strstr(text, "sleep"));
        }
        fclose(cmdline);
    }
}

/* Whether process \p pid is gone (or a zombie), within 2 s. */
static bool
gone_soon(long pid)
{
    char path[64];

    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    for (int i = 0; i < 200; i++) {
        FILE *stat = fopen(path, "r");
        char text[256] = "";
        const char *paren = NULL;

        if (stat == NULL) {
            return true;
        }
        if (fgets(text, sizeof(text), stat) == NULL) {
            text[0] = '\0';
        }
        fclose(stat);
        paren = strrchr(text, ')');
        /* A zombie, or a new process of that number that is not sleep. */
        if (paren == NULL || paren[2] == 'Z' || strstr(text, "(sleep)") == NULL) {
            return true;
        }
        usleep(10000);
    }
    return false;
}

/* A tool that forks (a shell script's stand-in): its grandchild holds the
 * pipe and sleeps.  At the deadline the runner kills the process group it
 * made for the program, so the grandchild goes too, and the runner returns
 * at the deadline, not when the grandchild would have ended. */
static void
test_deadline_kills_grandchild(void **state)
{
    char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) "sleep 30 & echo $!; wait", NULL };
    char out[64];
    uint64_t t0 = fm_now_us();
    long grandchild = 0;

    (void) state;
    /* The output kept (the agents' flag): the grandchild's PID. */
    assert_int_equal(fm_spawn_run_capture(argv, NULL, 300, FM_SPAWN_KEEP_OUTPUT, out, sizeof(out),
                                          NULL, NULL), -1);
    assert_true(fm_now_us() - t0 < 2000000u);
    grandchild = atol(out);
    assert_true(grandchild > 1);
    assert_true(gone_soon(grandchild));
}

/* The program runs in a group of its own, which Pacemaker's kill of the
 * agent's group no longer reaches: it dies with its caller instead. */
static bool
runs_sleep(pid_t pid)
{
    char path[64];
    char comm[32] = "";

    snprintf(path, sizeof(path), "/proc/%ld/comm", (long) pid);
    for (int i = 0; i < 200; i++) {
        FILE *f = fopen(path, "r");

        if (f != NULL && fgets(comm, sizeof(comm), f) != NULL && strcmp(comm, "sleep\n") == 0) {
            fclose(f);
            return true;
        }
        if (f != NULL) {
            fclose(f);
        }
        usleep(10000);
    }
    return false;
}

/* A caller that starts `sleep 30` (by fm_spawn_start(), or fm_spawn_tied()
 * when \p tied), says its PID, and dies: \return that PID. */
static long
program_of_dead_caller(bool tied)
{
    int fds[2] = { -1, -1 };
    char buf[32] = "";
    ssize_t n = 0;
    pid_t caller = 0;

    assert_int_equal(pipe(fds), 0);
    caller = fork();
    assert_true(caller >= 0);
    if (caller == 0) {
        char *argv[] = { (char *) "/bin/sleep", (char *) "30", NULL };
        char *envp[] = { NULL };
        int out[2] = { -1, -1 };
        pid_t pid = 0;
        int rc = 0;

        close(fds[0]);
        if (tied) {
            rc = (pipe2(out, O_CLOEXEC) != 0)? -1 : fm_spawn_tied(argv[0], argv, envp, out[1], &pid);
        } else {
            rc = fm_spawn_start(argv, NULL, &pid, &out[0]);
        }
        if (rc != 0 || !runs_sleep(pid)) {
            _exit(1);
        }
        dprintf(fds[1], "%ld\n", (long) pid);
        if (tied) {
            kill(getpid(), SIGKILL);    /* as a loop killed by the executor */
        }
        _exit(0);       /* dies with its program running */
    }
    close(fds[1]);
    n = read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    assert_int_equal(waitpid(caller, NULL, 0), caller);
    assert_true(n > 0);
    buf[n] = '\0';
    return atol(buf);
}

static void
test_caller_death_kills_program(void **state)
{
    long program = program_of_dead_caller(false);

    (void) state;
    assert_true(program > 1);
    assert_true(gone_soon(program));
}

/* A program that leaves a daemon holding its output (apachectl start):
 * its exit ends the run, not the daemon's deadline. */
static void
test_daemonizing_program(void **state)
{
    char out[64];
    uint64_t t0 = fm_now_us();

    (void) state;
    assert_int_equal(run_sh("(sleep 3 &); echo started", 2500, out, sizeof(out), NULL), 0);
    assert_string_equal(out, "started\n");
    assert_true(fm_now_us() - t0 < 2000000u);
}

/* A signal the caller ignores is the program's default again. */
static void
test_signals_reset(void **state)
{
    char out[64];
    void (*old)(int) = signal(SIGTERM, SIG_IGN);

    (void) state;
    assert_int_equal(run_sh("kill -TERM $$; echo survived", 2000, out, sizeof(out), NULL),
                     128 + SIGTERM);
    signal(SIGTERM, old);
}

/* Output past the buffer: kept count and total size. */
static void
test_capture_counts(void **state)
{
    char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) "yes | head -c 100000", NULL };
    char out[32];
    size_t kept = 0;
    size_t size = 0;

    (void) state;
    assert_int_equal(fm_spawn_run_capture(argv, NULL, 5000, 0, out, sizeof(out), &kept, &size), 0);
    assert_int_equal(kept, sizeof(out) - 1);
    assert_int_equal(strlen(out), sizeof(out) - 1);
    assert_int_equal(size, 100000);
}

/* A descriptor the caller left inheritable (the loop's lock, a socket) is
 * not open in the program: its own /proc/self/fd says so. */
static void
test_no_descriptor_leaks(void **state)
{
    char out[64];
    int fd = open("/dev/null", O_RDONLY);

    (void) state;
    assert_true(fd >= 0);
    assert_int_equal(dup2(fd, 57), 57);
    assert_int_equal(fcntl(57, F_GETFD) & FD_CLOEXEC, 0);
    /* No pipeline: the shell holds a pipeline's pipe (3 and 4) while ls
     * lists its descriptors, as it may or may not by then. */
    assert_int_equal(run_sh("ls /proc/$$/fd", 2000, out, sizeof(out), NULL), 0);
    assert_string_equal(out, "0\n1\n2\n");
    close(57);
    close(fd);
}

/* fm_spawn_tied(): start `/bin/sh -c SCRIPT`, read its output to the end,
 * reap it; \return its wait status */
static int
tied_sh(const char *script, char *out, size_t out_len)
{
    char *argv[] = { (char *) "/bin/sh", (char *) "-c", (char *) script, NULL };
    char *envp[] = { (char *) "PATH=/usr/bin:/bin", NULL };
    int fds[2] = { -1, -1 };
    pid_t pid = 0;
    size_t kept = 0;
    ssize_t n = 0;
    int status = -1;

    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    assert_int_equal(fm_spawn_tied(argv[0], argv, envp, fds[1], &pid), 0);
    close(fds[1]);
    assert_true(pid > 1);
    while ((n = read(fds[0], out + kept, out_len - 1 - kept)) > 0) {
        kept += (size_t) n;
    }
    out[kept] = '\0';
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void
test_tied_runs(void **state)
{
    char out[128];
    int status = 0;

    (void) state;
    status = tied_sh("echo out; echo err >&2; exit 3", out, sizeof(out));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 3);
    assert_string_equal(out, "out\nerr\n");
    /* its own process group, stdin /dev/null, the environment given */
    status = tied_sh("[ \"$(ps -o pgid= -p $$ | tr -d ' ')\" = $$ ] && echo leader;"
                     " readlink /proc/$$/fd/0; echo \"$PATH\"", out, sizeof(out));
    assert_int_equal(status, 0);
    assert_string_equal(out, "leader\n/dev/null\n/usr/bin:/bin\n");
}

/* What the caller blocks, ignores or holds open is not the program's. */
static void
test_tied_reset(void **state)
{
    char out[128];
    sigset_t block;
    sigset_t old;
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    void (*old_hup)(int) = signal(SIGHUP, SIG_IGN);
    int fd = open("/dev/null", O_RDONLY);

    (void) state;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGCHLD);
    assert_int_equal(sigprocmask(SIG_BLOCK, &block, &old), 0);
    assert_true(fd >= 0);
    assert_int_equal(dup2(fd, 57), 57);
    assert_int_equal(tied_sh("grep -E '^Sig(Blk|Ign):' /proc/$$/status | tr -d '\\t';"
                             " ls /proc/$$/fd", out, sizeof(out)), 0);
    assert_string_equal(out, "SigBlk:0000000000000000\nSigIgn:0000000000000000\n0\n1\n2\n");
    close(57);
    close(fd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    signal(SIGPIPE, old_pipe);
    signal(SIGHUP, old_hup);
}

/* A program that cannot be run: execve's reason, and no child to reap. */
static void
test_tied_cannot_run(void **state)
{
    char *argv[] = { (char *) "/nonexistent/check", NULL };
    char *envp[] = { NULL };
    char *dir[] = { (char *) "/etc", NULL };
    int fds[2] = { -1, -1 };
    pid_t pid = 0;

    (void) state;
    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    assert_int_equal(fm_spawn_tied(argv[0], argv, envp, fds[1], &pid), ENOENT);
    assert_int_equal(fm_spawn_tied(dir[0], dir, envp, fds[1], &pid), EACCES);
    assert_int_equal(pid, 0);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    close(fds[0]);
    close(fds[1]);
}

/* The program dies with its caller (PR_SET_PDEATHSIG), which posix_spawn()
 * cannot ask: a loop killed with SIGKILL leaves no check running. */
static void
test_tied_caller_death(void **state)
{
    long program = program_of_dead_caller(true);

    (void) state;
    assert_true(program > 1);
    assert_true(gone_soon(program));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output),
        cmocka_unit_test(test_past_buffer),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_deadline_kills),
        cmocka_unit_test(test_deadline_kills_grandchild),
        cmocka_unit_test(test_caller_death_kills_program),
        cmocka_unit_test(test_daemonizing_program),
        cmocka_unit_test(test_signals_reset),
        cmocka_unit_test(test_capture_counts),
        cmocka_unit_test(test_no_descriptor_leaks),
        cmocka_unit_test(test_tied_runs),
        cmocka_unit_test(test_tied_reset),
        cmocka_unit_test(test_tied_cannot_run),
        cmocka_unit_test(test_tied_caller_death),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
