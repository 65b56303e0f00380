/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the exec probe (Probe_command, faultmon probe --exec): an
 * external program is the check, as Kubernetes' exec probe, keepalived's
 * MISC_CHECK and F5's external monitor are.  Its exit status is the verdict,
 * in the convention Nagios and Monitoring Plugins already follow: 0 ok,
 * 1 partial, 2 complete, and any other status or a signal complete, since a
 * check that crashed vouches for nothing.  The first line of its output is
 * the detail.
 *
 * It runs under the one deadline like every probe, on the engine's epoll:
 * its output pipe is read without blocking, then a pidfd says when it has
 * exited.  It never meets a shell (fm_spawn_tied() of the words that
 * target_exec.c checked at load time), its stdin is /dev/null, its
 * environment is written here rather than inherited (the loop's holds the
 * agent's parameters, secrets among them), it dies with the loop, and it
 * runs in a process group of its own, which is killed whole at the
 * deadline and after the program exits, so that nothing it started
 * outlives the check.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/pidfd.h>
#include <faultmon/probe_opts.h>
#include <faultmon/spawn.h>
#include <faultmon/target_exec.h>
#include <faultmon/text.h>
#include "conv.h"

/* Output kept for the detail: the first line is all it shows.  Beyond it
 * the output is read and dropped, so that a chatty program never blocks on
 * a full pipe. */
#define FM_EXEC_OUTPUT_KEEP 4096
#define FM_EXEC_OUTPUT_INITIAL 512
/* Without a pidfd (kernels before 5.3): how often the exit of a program
 * that closed its output early is looked for (a timer fd's tick), until
 * the deadline. */
#define FM_EXEC_POLL_NS 1000000L

struct exec_state {
    char *envp[4];
    char path_env[sizeof("PATH=" FM_EXEC_SEARCH_PATH)];
    char locale_env[sizeof("LC_ALL=C")];
    char timeout_env[48];   /* FAULTMON_TIMEOUT_MS=..., set at each start */
    pid_t pid;              /* the program (and its group), 0: none unreaped */
    int pidfd;              /* while its output is read; then it is conn->fd */
    bool output_done;
};

static void
exec_state_free(void *prepared)
{
    struct exec_state *st = prepared;

    if (st == NULL) {
        return;
    }
    if (st->pid > 0) {
        killpg(st->pid, SIGKILL);
        waitpid(st->pid, NULL, WNOHANG);
    }
    if (st->pidfd >= 0) {
        close(st->pidfd);
    }
    free(st);
}

static int
exec_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct exec_state *st = calloc(1, sizeof(*st));

    (void) opts;
    if (st == NULL) {
        return ENOMEM;
    }
    if (target->prepared != NULL && target->prepared_free != NULL) {
        target->prepared_free(target->prepared);
    }
    st->pidfd = -1;
    memcpy(st->path_env, "PATH=" FM_EXEC_SEARCH_PATH, sizeof(st->path_env));
    memcpy(st->locale_env, "LC_ALL=C", sizeof(st->locale_env));
    st->envp[0] = st->path_env;
    st->envp[1] = st->locale_env;
    st->envp[2] = st->timeout_env;
    st->envp[3] = NULL;
    target->prepared = st;
    target->prepared_free = exec_state_free;
    return 0;
}

/* Start the program with its output on a pipe whose read end is returned;
 * \return 0 or errno */
static int
exec_spawn(struct exec_state *st, char *const argv[], int *out_fd)
{
    int fds[2] = { -1, -1 };
    int rc = 0;

    if (pipe2(fds, O_CLOEXEC) != 0) {
        return errno;
    }
    /* Only our end is non-blocking: a program's writes must block. */
    if (fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
        rc = errno;
        close(fds[0]);
        close(fds[1]);
        return rc;
    }
    rc = fm_spawn_tied(argv[0], argv, st->envp, fds[1], &st->pid);
    close(fds[1]);
    if (rc != 0) {
        st->pid = 0;
        close(fds[0]);
        return rc;
    }
    *out_fd = fds[0];
    return 0;
}

/* Kill what is left of the program's group and reap the program if it has
 * exited.  The group is killed while the program is unreaped, so that its
 * number cannot have been given to another process group yet. */
static void
exec_kill_group(struct exec_state *st)
{
    if (st->pid <= 0) {
        return;
    }
    killpg(st->pid, SIGKILL);
    if (waitpid(st->pid, NULL, WNOHANG) == st->pid) {
        st->pid = 0;
    }
}

/* The verdict from a wait status and the first line of the output. */
static void
exec_judge(struct fm_conn *conn, const siginfo_t *info)
{
    char line[FM_CONV_DETAIL_LINE * 4 + 1];
    char how[48];
    char detail[sizeof(conn->result->detail)];
    enum fm_reason reason = FM_REASON_EXEC_FAILED;

    if (info->si_code == CLD_EXITED) {
        snprintf(how, sizeof(how), "exit %d", info->si_status);
        reason = (info->si_status == 0)? FM_REASON_OK
                 : (info->si_status == 1)? FM_REASON_EXEC_PARTIAL : FM_REASON_EXEC_FAILED;
    } else {
        snprintf(how, sizeof(how), "killed by signal %d (%s)", info->si_status,
                 strsignal(info->si_status));
    }
    fm_conv_first_line((conn->rx != NULL)? conn->rx : "", conn->rx_len, line, sizeof(line));
    if (snprintf(detail, sizeof(detail), "%s%s%s", how, (line[0] != '\0')? ": " : "", line)
        >= (int) sizeof(detail)) {
        fm_text_clean(detail, sizeof(detail));
    }
    fm_conn_finish(conn, reason, 0, detail);
}

/* Whether the program has exited; if so, its group is killed, it is reaped
 * and the verdict given. */
static bool
exec_try_finish(struct fm_conn *conn)
{
    struct exec_state *st = conn->target->prepared;
    siginfo_t info;

    memset(&info, 0, sizeof(info));
    /* WNOWAIT: look without reaping, so that the group can still be killed. */
    if (waitid(P_PID, (id_t) st->pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
        int err = errno;

        st->pid = 0;
        fm_conn_finish(conn, FM_REASON_EXEC_FAILED, err,
                       "the program's exit status is lost (is SIGCHLD ignored?)");
        return true;
    }
    if (info.si_pid == 0) {
        return false;
    }
    exec_kill_group(st);
    exec_judge(conn, &info);
    return true;
}

/* No pidfd: the program closed its output, and it exits now or soon.  A
 * timer fd that ticks every FM_EXEC_POLL_NS on the engine's epoll asks
 * again, never a sleep (the loop has other probes, signals and children
 * to see to); the deadline ends it as any probe.  Without one, the
 * deadline alone. */
static void
exec_wait_without_pidfd(struct fm_conn *conn)
{
    const struct itimerspec tick = {
        .it_interval = { .tv_sec = 0, .tv_nsec = FM_EXEC_POLL_NS },
        .it_value = { .tv_sec = 0, .tv_nsec = FM_EXEC_POLL_NS },
    };
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &conn->src };
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

    if (fd >= 0 && (timerfd_settime(fd, 0, &tick, NULL) != 0
                    || epoll_ctl(conn->run->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)) {
        close(fd);
        fd = -1;
    }
    conn->fd = fd;          /* conn_close() closes it */
    conn->watched_events = (fd >= 0)? EPOLLIN : 0;
}

/* The output has ended: the pidfd, already in the epoll set, becomes the
 * conn's descriptor (conn_close() closes it from now on). */
static void
exec_output_done(struct fm_conn *conn)
{
    struct exec_state *st = conn->target->prepared;

    fm_conn_close_fd(conn);
    st->output_done = true;
    if (st->pidfd >= 0) {
        conn->fd = st->pidfd;
        conn->watched_events = EPOLLIN;
        st->pidfd = -1;
    }
}

/* Read what the pipe holds now, keeping the first FM_EXEC_OUTPUT_KEEP bytes. */
static void
exec_drain(struct fm_conn *conn)
{
    char drop[1024];

    for (;;) {
        bool keep = conn->rx_len < FM_EXEC_OUTPUT_KEEP
                    && fm_conn_rx_room(conn, FM_EXEC_OUTPUT_INITIAL) == 0;
        char *buf = keep? conn->rx + conn->rx_len : drop;
        size_t room = keep? conn->rx_cap - conn->rx_len : sizeof(drop);
        ssize_t n = 0;

        if (fm_conn_judged(conn)) {
            return;     /* out of memory: read-failed was given */
        }
        n = read(conn->fd, buf, room);
        if (n > 0) {
            if (keep) {
                conn->rx_len += (size_t) n;
                conn->rx[conn->rx_len] = '\0';
            }
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            fm_conn_watch(conn, EPOLLIN);
            return;
        }
        exec_output_done(conn);     /* the end, or an error that ends it */
        return;
    }
}

/* The output pipe or the pidfd is ready.  The exit decides, not the end
 * of the output: a program may leave a child behind that holds the pipe
 * open, and its verdict is still its exit status (the group is killed). */
static void
exec_on_io(struct fm_conn *conn)
{
    struct exec_state *st = conn->target->prepared;

    if (!st->output_done) {
        exec_drain(conn);
        if (fm_conn_judged(conn)) {
            return;
        }
    } else if (conn->fd >= 0) {
        uint64_t ticks = 0;

        /* The timer fd of exec_wait_without_pidfd() stays readable until
         * read (a pidfd answers EINVAL: nothing to clear there). */
        if (read(conn->fd, &ticks, sizeof(ticks)) < 0) {
            ticks = 0;
        }
    }
    if (exec_try_finish(conn)) {
        return;
    }
    if (st->output_done && conn->fd < 0) {
        exec_wait_without_pidfd(conn);
    }
}

/* Watch the pidfd beside the pipe; without one (kernels before 5.3, or
 * no room in the epoll set) the program's exit is looked for when its
 * output ends. */
static void
exec_watch_exit(struct fm_conn *conn, struct exec_state *st)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &conn->src };

    st->pidfd = fm_pidfd_open(st->pid);
    if (st->pidfd >= 0 && epoll_ctl(conn->run->epfd, EPOLL_CTL_ADD, st->pidfd, &ev) != 0) {
        close(st->pidfd);
        st->pidfd = -1;
    }
}

/* Called at the start of every cycle instead of a connect. */
static void
exec_start(struct fm_conn *conn, int last_errno)
{
    struct exec_state *st = conn->target->prepared;
    char detail[sizeof(conn->result->detail)];
    uint64_t left_ms = 0;
    int out_fd = -1;
    int rc = 0;

    (void) last_errno;
    if (st->pid > 0) {
        exec_kill_group(st);
        if (st->pid > 0) {
            /* Unkillable (uninterruptible sleep, say on a dead NFS mount):
             * as good as a check that did not answer. */
            snprintf(detail, sizeof(detail), "the last run (pid %ld) has not exited after SIGKILL",
                     (long) st->pid);
            fm_conn_step(conn, FM_STEP_READ);
            fm_conn_finish(conn, FM_REASON_READ_TIMEOUT, 0, detail);
            return;
        }
    }
    left_ms = (uint64_t) fm_deadline_wait_ms(&conn->deadline, fm_now_us());
    snprintf(st->timeout_env, sizeof(st->timeout_env), "FAULTMON_TIMEOUT_MS=%" PRIu64, left_ms);
    st->output_done = false;
    if (conn->target->exec_argv[0][0] != '/') {
        /* Not found at load time: perhaps installed since; never looked
         * up relative to the loop's working directory. */
        char *found = NULL;

        if (fm_exec_program_find(conn->target->exec_argv[0], &found) == 0) {
            free(conn->target->exec_argv[0]);
            conn->target->exec_argv[0] = found;
        }
    }
    rc = (conn->target->exec_argv[0][0] == '/')? exec_spawn(st, conn->target->exec_argv, &out_fd)
                                               : ENOENT;
    if (rc != 0) {
        snprintf(detail, sizeof(detail), (conn->target->exec_argv[0][0] == '/')? "cannot run %s: %s"
                 : "cannot run %s: not in " FM_EXEC_SEARCH_PATH, conn->target->exec_argv[0],
                 strerror(rc));
        fm_text_clean(detail, sizeof(detail));
        fm_conn_finish(conn, FM_REASON_EXEC_FAILED, rc, detail);
        return;
    }
    conn->fd = out_fd;
    fm_conn_step(conn, FM_STEP_READ);
    exec_watch_exit(conn, st);
    exec_on_io(conn);
}

/* Every end of a cycle's probe, the deadline's too: nothing of the program
 * outlives it. */
static void
exec_release(struct fm_conn *conn)
{
    struct exec_state *st = conn->target->prepared;

    if (st == NULL) {
        return;
    }
    exec_kill_group(st);
    if (st->pidfd >= 0) {
        close(st->pidfd);
        st->pidfd = -1;
    }
    st->output_done = false;
}

static const char *
exec_timeout_note(const struct fm_conn *conn)
{
    const struct exec_state *st = conn->target->prepared;

    return (st != NULL && st->pid > 0)? "; the program and its process group were killed" : "";
}

const struct fm_probe_proto fm_probe_proto_exec = {
    .name = "exec",
    .prepare = exec_prepare,
    .on_io = exec_on_io,
    .timeout_note = exec_timeout_note,
    .connect = exec_start,
    .release = exec_release,
};
