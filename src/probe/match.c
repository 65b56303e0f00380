/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a user's regex on a server's reply, within the run's deadline
 * (the HTTP receive regex, the expect regex of tcp:// and udp://, searched
 * in process when an automaton decides them), and the maintenance regex on the reply of an
 * exchange that passed, where it turns the ok into maintenance.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe_int.h"

/* The least time a match gets when the reply came just before the deadline,
 * so that a reply read in time is not lost to the cost of a fork. */
#define FM_MATCH_GRACE_MS 10

/* The child's side of fm_probe_match(): match, answer, exit. */
static void __attribute__((noreturn))
match_child(struct fm_conn *conn, const regex_t *re, const char *data, size_t len,
            int answer_fd, pid_t parent)
{
    regmatch_t match = { .rm_so = 0, .rm_eo = (regoff_t) len };
    char answer = 0;

    /* The child shares the parent's descriptors, the loop's lock among
     * them: it must not outlive the parent (whose death would leave it
     * holding the lock) nor the deadline by much. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
        _exit(1);
    }
    alarm(fm_deadline_wait_ms(&conn->deadline, fm_now_us()) / 1000 + 2);
    answer = (regexec(re, data, 1, &match, REG_STARTEND) == 0)? 'y' : 'n';
    if (write(answer_fd, &answer, 1) != 1) {
        _exit(1);
    }
    _exit(0);
}

/*
 * regexec() within the run's deadline.  glibc's
 * search is quadratic in the subject for patterns as plain as "a.*b.*x"
 * (9 s on 64 KiB of 'a') and a call cannot be interrupted, so the match runs
 * in a child process, killed at the deadline; a pattern the guard accepts
 * can still be slow, and the server chooses the subject.  Returns 1 on a
 * match, 0 on none, -1 when the deadline came first.  When no child can be
 * made, the match runs here, as before: a shortage of processes must not
 * pass for a failed service.
 *
 * Only the patterns regex_linear.h leaves to regexec() come here
 * (an anchor inside a repeated group, a collating element as a range's
 * endpoint, a control byte or an unmatched ")" as written, patterns over
 * FM_REGEX_LINEAR_MAX_STATES): rare enough that the probe still waits
 * for the child's answer here, bounded by the deadline, rather than
 * suspending on the loop's epoll.  Suspending would need every judge that
 * calls a match (fm_http_judge(), the tcp://, udp://, conversation and DNS
 * judges) to stop mid-verdict and resume on the answer pipe.
 */
int
fm_probe_match(struct fm_conn *conn, const regex_t *re, const char *data, size_t len)
{
    regmatch_t match = { .rm_so = 0, .rm_eo = (regoff_t) len };
    int fds[2] = { -1, -1 };
    pid_t pid = -1;
    pid_t parent = getpid();
    char answer = 0;
    int rc = -1;

    if (pipe2(fds, O_CLOEXEC) == 0) {
        pid = fork();
    }
    if (pid < 0) {
        if (fds[0] >= 0) {
            close(fds[0]);
            close(fds[1]);
        }
        /* REG_STARTEND: the body is not NUL-terminated and may hold NULs. */
        return (regexec(re, data, 1, &match, REG_STARTEND) == 0)? 1 : 0;
    }
    if (pid == 0) {
        match_child(conn, re, data, len, fds[1], parent);
    }
    close(fds[1]);
    for (;;) {
        struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
        int wait_ms = fm_deadline_wait_ms(&conn->deadline, fm_now_us());
        int n = poll(&pfd, 1, (wait_ms < FM_MATCH_GRACE_MS)? FM_MATCH_GRACE_MS : wait_ms);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n > 0 && read(fds[0], &answer, 1) == 1) {
            rc = (answer == 'y')? 1 : 0;
        }
        break;
    }
    close(fds[0]);
    if (rc < 0) {
        kill(pid, SIGKILL);
    }
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        continue;
    }
    return rc;
}


int
fm_probe_match_expect(struct fm_conn *conn, const char *data, size_t len)
{
    const struct fm_probe_opts *opts = conn->run->opts;

    /* An automaton answers as regexec() would (regex_linear.h), in time
     * linear in the reply: no child per read of a reply that comes in
     * pieces. */
    if (opts->have_expect_linear) {
        return fm_regex_linear_search(&opts->expect_linear, data, len)? 1 : 0;
    }
    return fm_probe_match(conn, &opts->expect, data, len);
}

int
fm_probe_match_maintenance(struct fm_conn *conn, const char *data, size_t len)
{
    const struct fm_probe_opts *opts = conn->run->opts;

    if (!opts->have_maintenance_regex) {
        return 0;
    }
    if (opts->have_maintenance_linear) {
        return fm_regex_linear_search(&opts->maintenance_linear, data, len)? 1 : 0;
    }
    return fm_probe_match(conn, &opts->maintenance_regex, data, len);
}

void
fm_probe_finish_maintenance(struct fm_conn *conn, const char *what)
{
    char detail[sizeof(conn->result->detail)];

    snprintf(detail, sizeof(detail), "maintenance: the %s matches '%s' (maintenance_regex)", what,
             conn->run->opts->maintenance_text);
    fm_conn_finish(conn, FM_REASON_MAINTENANCE, 0, detail);
}

void
fm_probe_finish_passed(struct fm_conn *conn, const char *reply, size_t len, const char *detail)
{
    /* Asked only once the exchange passed, so that a reply that fails
     * keeps its failure whatever it says: a signal never hides one. */
    int signalled = fm_probe_match_maintenance(conn, reply, len);

    if (signalled < 0) {
        return;
    }
    if (signalled > 0) {
        fm_probe_finish_maintenance(conn, "reply");
        return;
    }
    fm_conn_finish(conn, FM_REASON_OK, 0, detail);
}
