/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the TCP send/expect probe (tcp://HOST:PORT with send_string
 * and/or expect_regex; F5's TCP send/receive, HAProxy's tcp-check
 * send/expect): send the bytes, read the reply until expect_regex matches
 * it (fm_probe_match_expect(), match.c: in linear time when an automaton
 * decides the pattern, else the deadline-bound matcher).  Without expect_regex
 * the probe is ok once the bytes are sent; without send_string it reads
 * what the server says first (a banner).  With both, the expectation
 * judges the answer to the request, never a banner: the probe lets the
 * server greet for FM_TCP_BANNER_WAIT_MS first and reads past what it says
 * (a server that greets "valid" and never answers fails '^valid').
 *
 * A reply that ends (the server closes) without a match is a content
 * mismatch: complete, like a page without its receive string.  With
 * reverse, a match is the failure (content-reverse, complete) and a reply
 * that ends, or is still open at the deadline, without one passes.  A reply that passes and matches
 * maintenance_regex signals maintenance (match.c).  A reply
 * that fills the read cap without a match is too large, and one that is
 * still coming at the deadline timed out: partial, as for HTTP.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <faultmon/probe_opts.h>
#include <faultmon/text.h>
#include "conv.h"
#include "probe_int.h"

#define FM_TCP_RX_INITIAL_BYTES 512
/* How long a probe with both send_string and expect_regex lets a server
 * greet before it sends (at most a quarter of Probe_timeout): what comes
 * in that time is a banner, never matched (doc/reference/protocol-replies.md). */
#define FM_TCP_BANNER_WAIT_MS 100u

/* A target's banner wait (its prepared data): a timer in the run's epoll,
 * which wakes the conn as its socket would. */
struct tcp_send_state {
    int timer_fd;               /* -1: no banner wait running */
    size_t banner_len;          /* bytes of banner read past this cycle */
};

static void
tcp_send_state_free(void *prepared)
{
    struct tcp_send_state *st = prepared;

    if (st->timer_fd >= 0) {
        close(st->timer_fd);
    }
    free(st);
}

static struct tcp_send_state *
tcp_send_state(struct fm_conn *conn)
{
    struct fm_target *target = conn->target;

    if (target->prepared == NULL) {
        struct tcp_send_state *st = calloc(1, sizeof(*st));

        if (st == NULL) {
            return NULL;
        }
        st->timer_fd = -1;
        target->prepared = st;
        target->prepared_free = tcp_send_state_free;
    }
    return target->prepared;
}

/* A verdict whose detail is "WHY: the reply's first line"; an ok one is
 * maintenance instead when the reply matches maintenance_regex. */
static void
tcp_send_finish(struct fm_conn *conn, enum fm_reason reason, const char *why)
{
    char line[FM_CONV_DETAIL_LINE * 4 + 1];
    char detail[sizeof(conn->result->detail)];

    fm_conv_first_line(conn->rx, conn->rx_len, line, sizeof(line));
    if (snprintf(detail, sizeof(detail), "%s: %s", why, line) >= (int) sizeof(detail)) {
        fm_text_clean(detail, sizeof(detail));
    }
    if (reason == FM_REASON_OK) {
        fm_probe_finish_passed(conn, conn->rx, conn->rx_len, detail);
    } else {
        fm_conn_finish(conn, reason, 0, detail);
    }
}

/*
 * The verdict once the reply has matched or ended; returns true while the
 * reply is still to be read on.  With reverse, a match is the failure
 * (F5's reverse receive string), and only a reply that ends without one
 * passes: one still coming at the deadline may yet match.
 */
static bool
tcp_send_judge(struct fm_conn *conn, bool eof)
{
    bool reverse = conn->run->opts->reverse;
    int matched = fm_probe_match_expect(conn, conn->rx, conn->rx_len);

    if (matched < 0) {
        return false;       /* the deadline came first: the engine's timeout */
    }
    if (matched > 0) {
        if (reverse) {
            tcp_send_finish(conn, FM_REASON_CONTENT_REVERSE,
                            "reply matches expect_regex (reverse mode)");
        } else {
            tcp_send_finish(conn, FM_REASON_OK, "reply matches");
        }
        return false;
    }
    if (!eof) {
        return true;        /* no match yet: read on, within the deadline */
    }
    if (reverse) {
        tcp_send_finish(conn, FM_REASON_OK, "reply ends without a match (reverse mode)");
    } else {
        tcp_send_finish(conn, FM_REASON_CONTENT_MISMATCH, "reply does not match expect_regex");
    }
    return false;
}

static void
tcp_send_read(struct fm_conn *conn)
{
    char detail[sizeof(conn->result->detail)] = "";

    while (!fm_conn_judged(conn)) {
        ssize_t n = 0;
        int rc = fm_conn_rx_room(conn, FM_TCP_RX_INITIAL_BYTES);

        if (rc == E2BIG) {
            snprintf(detail, sizeof(detail), "no match in the first %zu bytes of the reply",
                     conn->rx_len);
            fm_conn_finish(conn, FM_REASON_READ_TOO_LARGE, 0, detail);
        }
        if (rc != 0) {
            return;
        }
        n = fm_conn_read_rx(conn);
        if (n == -1) {
            return;
        }
        if (n == 0 && conn->rx_len == 0) {
            fm_conn_finish(conn, FM_REASON_READ_FAILED, 0, "connection closed before a reply");
            return;
        }
        if (!tcp_send_judge(conn, n == 0)) {
            return;
        }
    }
}

/* End the banner wait: the timer out of the epoll and closed. */
static void
tcp_send_banner_stop(struct tcp_send_state *st)
{
    if (st != NULL && st->timer_fd >= 0) {
        close(st->timer_fd);    /* also drops it from the epoll set */
        st->timer_fd = -1;
    }
}

/* Start the banner wait; false when there is none to run (no room for a
 * timer: the request goes at once, as before). */
static bool
tcp_send_banner_start(struct fm_conn *conn)
{
    struct tcp_send_state *st = tcp_send_state(conn);
    uint64_t wait_ms = conn->run->opts->timeout_ms / 4;
    struct itimerspec its;
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &conn->src };

    if (st == NULL) {
        return false;
    }
    st->banner_len = 0;
    tcp_send_banner_stop(st);
    if (wait_ms > FM_TCP_BANNER_WAIT_MS) {
        wait_ms = FM_TCP_BANNER_WAIT_MS;
    }
    memset(&its, 0, sizeof(its));
    its.it_value.tv_sec = (time_t) (wait_ms / 1000u);
    its.it_value.tv_nsec = (long) (wait_ms % 1000u) * 1000000L + 1;
    st->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (st->timer_fd < 0 || timerfd_settime(st->timer_fd, 0, &its, NULL) != 0
        || epoll_ctl(conn->run->epfd, EPOLL_CTL_ADD, st->timer_fd, &ev) != 0) {
        tcp_send_banner_stop(st);
        return false;
    }
    fm_conn_step(conn, FM_STEP_READ);
    fm_conn_watch(conn, EPOLLIN);
    return true;
}

/*
 * While the banner wait runs: read what the server says first and drop
 * it (a greeting is no answer to the request), and when the timer has
 * fired, go on to the send.  False while the wait goes on or once judged.
 */
static bool
tcp_send_banner(struct fm_conn *conn)
{
    struct tcp_send_state *st = conn->target->prepared;
    char buf[4096];
    char detail[sizeof(conn->result->detail)] = "";
    uint64_t fired = 0;

    for (;;) {
        ssize_t n = 0;

        errno = 0;
        n = fm_conn_io(conn, false, buf, sizeof(buf), detail, sizeof(detail));
        if (n == -1) {
            break;
        }
        if (n <= 0) {
            tcp_send_banner_stop(st);
            fm_conn_finish(conn, FM_REASON_READ_FAILED, (n < 0)? errno : 0,
                           (n < 0)? detail : (st->banner_len > 0)
                           ? "connection closed after a banner, before the request"
                           : "connection closed before the request");
            return false;
        }
        st->banner_len += (size_t) n;
    }
    if (read(st->timer_fd, &fired, sizeof(fired)) != (ssize_t) sizeof(fired)) {
        return false;   /* not yet */
    }
    tcp_send_banner_stop(st);
    fm_conn_step(conn, FM_STEP_SEND);
    return true;
}

static void
tcp_send_on_io(struct fm_conn *conn)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    struct tcp_send_state *st = conn->target->prepared;
    char detail[sizeof(conn->result->detail)] = "";

    if (st != NULL && st->timer_fd >= 0 && !tcp_send_banner(conn)) {
        return;
    }

    if (conn->step == FM_STEP_SEND && !fm_conn_send_rest(conn, opts->send, opts->send_len)) {
        return;
    }
    if (conn->step == FM_STEP_SEND) {
        if (!opts->have_expect) {
            snprintf(detail, sizeof(detail), "sent %zu bytes", opts->send_len);
            fm_conn_finish(conn, FM_REASON_OK, 0, detail);
            return;
        }
        fm_conn_step(conn, FM_STEP_READ);
    }
    tcp_send_read(conn);
}

static void
tcp_send_on_ready(struct fm_conn *conn)
{
    const struct fm_probe_opts *opts = conn->run->opts;

    /* With a request and an expectation, the expectation judges the answer
     * to the request: a banner sent first is read past, not matched. */
    if (opts->send != NULL && opts->have_expect && tcp_send_banner_start(conn)) {
        tcp_send_on_io(conn);
        return;
    }
    fm_conn_step(conn, (opts->send != NULL)? FM_STEP_SEND : FM_STEP_READ);
    tcp_send_on_io(conn);
}

static void
tcp_send_release(struct fm_conn *conn)
{
    tcp_send_banner_stop(conn->target->prepared);
}

/* Reverse mode at the deadline: a server that answered and has kept its
 * connection open (a banner, a prompt) without a match passes, as F5's
 * reverse receive string does; one that said nothing still times out. */
static void
tcp_send_on_deadline(struct fm_conn *conn)
{
    if (conn->run->opts->reverse && conn->step == FM_STEP_READ && conn->rx_len > 0) {
        tcp_send_finish(conn, FM_REASON_OK, "no match by the deadline (reverse mode)");
    }
}

static const char *
tcp_send_timeout_note(const struct fm_conn *conn)
{
    const struct tcp_send_state *st = conn->target->prepared;

    if (st != NULL && st->timer_fd >= 0) {
        return " (waiting for a banner before the request)";
    }
    if (conn->step != FM_STEP_READ || conn->rx_len == 0) {
        return "";
    }
    return " (the reply so far does not match)";
}

const struct fm_probe_proto fm_probe_proto_tcp_send = {
    .name = "tcp-send",
    .on_ready = tcp_send_on_ready,
    .on_deadline = tcp_send_on_deadline,
    .on_io = tcp_send_on_io,
    .timeout_note = tcp_send_timeout_note,
    .release = tcp_send_release,
};
