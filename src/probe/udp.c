/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the UDP probe (udp://HOST:PORT with send_string and
 * expect_regex; F5's UDP monitor): a connected UDP socket sends send_string
 * as one datagram (an empty one without it) and waits for a datagram back,
 * which must match expect_regex when there is one (and must not, with
 * reverse).  On a connected socket the ICMP port unreachable that a closed
 * port answers comes back as ECONNREFUSED: nothing listens, a complete
 * failure like a refused TCP connect.  No answer by the deadline is a read timeout, partial (UDP
 * cannot tell a lost datagram from a slow service).
 */
#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <faultmon/probe_opts.h>
#include <faultmon/text.h>
#include "conv.h"

/* A datagram is read whole: room for the largest, within the read cap. */
#define FM_UDP_RX_BYTES 65536

static void
udp_connect(struct fm_conn *conn, int last_errno)
{
    const struct sockaddr *sa = (const struct sockaddr *) &conn->addr;
    int fd = -1;

    if (!conn->literal && !fm_resolve_next_addr(conn)) {
        fm_resolve_no_more_addr(conn, last_errno);
        return;
    }
    fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
    if (fd < 0) {
        fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, errno, NULL);
        return;
    }
    conn->fd = fd;
    fm_conn_step(conn, FM_STEP_CONNECT);
    if (connect(fd, sa, conn->addr_len) != 0) {
        int err = errno;

        close(conn->fd);
        conn->fd = -1;
        if (!conn->literal && conn->addr_next < conn->name->n_addrs) {
            udp_connect(conn, err);
        } else {
            fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, err, NULL);
        }
        return;
    }
    fm_conn_connected(conn);
}

/* The verdict on the datagram: it must match expect_regex, or with reverse
 * must not (F5's reverse receive string); any datagram passes without one.
 * One that passes and matches maintenance_regex is maintenance. */
static void
udp_judge(struct fm_conn *conn)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    char line[FM_CONV_DETAIL_LINE * 4 + 1];
    char detail[sizeof(conn->result->detail)];
    int matched = opts->have_expect? fm_probe_match_expect(conn, conn->rx, conn->rx_len) : 1;
    enum fm_reason reason = FM_REASON_OK;
    const char *why = "reply";

    if (matched < 0) {
        return;     /* the deadline came first: the engine's timeout */
    }
    if (opts->have_expect && opts->reverse) {
        if (matched > 0) {
            reason = FM_REASON_CONTENT_REVERSE;
            why = "reply matches expect_regex (reverse mode)";
        }
    } else if (matched == 0) {
        reason = FM_REASON_CONTENT_MISMATCH;
        why = "reply does not match expect_regex";
    }
    fm_conv_first_line(conn->rx, conn->rx_len, line, sizeof(line));
    if (snprintf(detail, sizeof(detail), "%s: %s", why, line) >= (int) sizeof(detail)) {
        fm_text_clean(detail, sizeof(detail));
    }
    if (reason == FM_REASON_OK) {
        fm_probe_finish_passed(conn, conn->rx, conn->rx_len, detail);   /* or maintenance */
    } else {
        fm_conn_finish(conn, reason, 0, detail);
    }
}

static void
udp_read(struct fm_conn *conn)
{
    ssize_t n = 0;

    conn->rx_len = 0;
    if (fm_conn_rx_room(conn, FM_UDP_RX_BYTES) != 0) {
        if (!fm_conn_judged(conn)) {
            fm_conn_finish(conn, FM_REASON_READ_FAILED, ENOMEM, NULL);
        }
        return;
    }
    n = recv(conn->fd, conn->rx, conn->rx_cap, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        fm_conn_watch(conn, EPOLLIN);
        return;
    }
    if (n < 0 && errno == ECONNREFUSED) {
        fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, ECONNREFUSED,
                       "port unreachable (ICMP): nothing listens");
        return;
    }
    if (n < 0) {
        fm_conn_finish(conn, FM_REASON_READ_FAILED, errno, NULL);
        return;
    }
    conn->rx_len = (size_t) n;
    conn->rx[conn->rx_len] = '\0';
    udp_judge(conn);
}

static void
udp_on_io(struct fm_conn *conn)
{
    const struct fm_probe_opts *opts = conn->run->opts;

    if (conn->step == FM_STEP_SEND) {
        ssize_t n = send(conn->fd, opts->send, opts->send_len, MSG_NOSIGNAL);

        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            fm_conn_watch(conn, EPOLLOUT);
            return;
        }
        if (n < 0) {
            /* ECONNREFUSED here is the ICMP of an earlier datagram. */
            fm_conn_finish(conn, (errno == ECONNREFUSED)? FM_REASON_CONNECT_FAILED
                                                        : FM_REASON_SEND_FAILED, errno, NULL);
            return;
        }
        fm_conn_step(conn, FM_STEP_READ);
    }
    if (conn->step == FM_STEP_READ) {
        udp_read(conn);
    }
}

static void
udp_on_ready(struct fm_conn *conn)
{
    fm_conn_step(conn, FM_STEP_SEND);
    udp_on_io(conn);
}

const struct fm_probe_proto fm_probe_proto_udp = {
    .name = "udp",
    .on_ready = udp_on_ready,
    .on_io = udp_on_io,
    .connect = udp_connect,
};
