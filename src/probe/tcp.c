/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: TCP, the connection under every probe, and the TCP connect
 * check (tcp://HOST:PORT), whose verdict is the connect itself.
 */
#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "probe_int.h"

/* A failed attempt: try the next resolved address, if any. */
static void
connect_failed(struct fm_conn *conn, int err)
{
    fm_conn_close_fd(conn);
    conn->fd_is_tcp = false;
    if (!conn->literal && conn->addr_next < conn->name->n_addrs) {
        fm_tcp_connect_next(conn, err);
    } else {
        fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, err, NULL);
    }
}

/* Nagle holds back a small write while an earlier one is unacknowledged:
 * it costs tens of ms per TLS resumption (see shared notes on performance)
 * and in any protocol that writes twice before it reads.  A connect check
 * writes nothing, and a plain protocol of one request then reads only:
 * for those TCP_NODELAY would be a system call a probe for nothing. */
static bool
tcp_wants_nodelay(const struct fm_conn *conn)
{
    if (conn->target->use_tls) {
        return true;
    }
    return !conn->proto->one_write_first && conn->target->kind != FM_PROBE_TCP_CONNECT;
}

/*
 * The early send: on loopback and to the node's own addresses the kernel
 * has done the whole handshake by the time connect() returns EINPROGRESS,
 * so the request can go at once, without waiting to be told the socket is
 * writable (an epoll_ctl, a poll and another epoll_ctl a probe).  A
 * connection that is not up yet answers EAGAIN: the probe goes back to
 * waiting for the connect, and this conn does not try again (the server is
 * not near).  A send refused on a connection never seen up is the connect's
 * failure, with the connect's errno (the send took it from the socket), so
 * the verdict is the one the connect would have given.
 */
static bool
tcp_send_early(struct fm_conn *conn)
{
    if (!conn->proto->one_write_first || conn->target->use_tls || conn->early_send_off) {
        return false;
    }
    conn->connect_unconfirmed = true;
    fm_conn_connected(conn);
    return true;
}

/* The early send found the connect in progress: wait for it after all. */
static void
tcp_early_not_up(struct fm_conn *conn)
{
    conn->connect_unconfirmed = false;
    conn->early_send_off = true;
    conn->step = FM_STEP_CONNECT;   /* the wait from here is the connect's */
    fm_conn_watch(conn, EPOLLOUT);
}

void
fm_tcp_connect_next(struct fm_conn *conn, int last_errno)
{
    int fd = -1;
    int one = 1;
    const struct sockaddr *sa = (const struct sockaddr *) &conn->addr;

    /* A name's next address is copied into conn->addr, its port set. */
    if (!conn->literal && !fm_resolve_next_addr(conn)) {
        fm_resolve_no_more_addr(conn, last_errno);
        return;
    }
    /* The last healthy cycle's socket, disconnected (engine.c), has the
     * options this conn sets: it connects again, as a new one would. */
    if (conn->kept_fd >= 0 && conn->kept_family == sa->sa_family) {
        fd = conn->kept_fd;
    } else {
        if (conn->kept_fd >= 0) {
            close(conn->kept_fd);
        }
        fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
        if (fd < 0) {
            conn->kept_fd = -1;
            fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, errno, NULL);
            return;
        }
        if (tcp_wants_nodelay(conn)) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        }
    }
    conn->kept_fd = -1;
    conn->fd_is_tcp = true;
    conn->fd = fd;
    fm_conn_step(conn, FM_STEP_CONNECT);
    if (connect(fd, sa, conn->addr_len) == 0) {
        fm_conn_connected(conn);
        return;
    }
    if (errno == EINPROGRESS) {
        if (!tcp_send_early(conn)) {
            fm_conn_watch(conn, EPOLLOUT);
        }
        return;
    }
    connect_failed(conn, errno);
}

void
fm_tcp_connect_result(struct fm_conn *conn, uint32_t events)
{
    int err = 0;
    socklen_t len = sizeof(err);

    /* Writable with neither error nor hang-up: connected (a socket still in
     * SYN-SENT is never writable).  SO_ERROR is asked only when the connect
     * failed, for the errno that names why: one system call less a probe. */
    if ((events & EPOLLOUT) != 0 && (events & (EPOLLERR | EPOLLHUP)) == 0) {
        fm_conn_connected(conn);
        return;
    }
    if (getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
    }
    if (err != 0) {
        connect_failed(conn, err);
    } else {
        fm_conn_connected(conn);
    }
}

ssize_t
fm_conn_io(struct fm_conn *conn, bool writing, void *buf, size_t len, char *detail,
           size_t detail_len)
{
    ssize_t n = 0;

    if (conn->ssl != NULL) {
        return fm_tls_io(conn, writing, buf, len, detail, detail_len);
    }
    n = writing? send(conn->fd, buf, len, MSG_NOSIGNAL) : recv(conn->fd, buf, len, 0);
    if (n >= 0) {
        conn->connect_unconfirmed = false;
        return n;
    }
    if (conn->connect_unconfirmed) {
        /* The early send: nothing went out, the probe is the connect's. */
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            tcp_early_not_up(conn);
        } else {
            conn->connect_unconfirmed = false;
            conn->step = FM_STEP_CONNECT;
            connect_failed(conn, errno);
        }
        return -1;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        fm_conn_watch(conn, writing? EPOLLOUT : EPOLLIN);
        return -1;
    }
    snprintf(detail, detail_len, "%s", strerror(errno));
    return -2;
}

bool
fm_conn_send_rest(struct fm_conn *conn, char *buf, size_t len)
{
    char detail[sizeof(conn->result->detail)] = "";

    while (conn->sent < len) {
        ssize_t n = 0;

        errno = 0;
        n = fm_conn_io(conn, true, buf + conn->sent, len - conn->sent, detail, sizeof(detail));
        if (n == -1) {
            return false;
        }
        if (n <= 0) {
            fm_conn_finish(conn, FM_REASON_SEND_FAILED, errno,
                           (detail[0] != '\0')? detail : "connection closed while sending");
            return false;
        }
        conn->sent += (size_t) n;
    }
    return true;
}

ssize_t
fm_conn_read_rx(struct fm_conn *conn)
{
    char detail[sizeof(conn->result->detail)] = "";
    ssize_t n = 0;

    errno = 0;
    n = fm_conn_io(conn, false, conn->rx + conn->rx_len, conn->rx_cap - conn->rx_len, detail,
                   sizeof(detail));
    if (n == -2) {
        fm_conn_finish(conn, FM_REASON_READ_FAILED, errno, detail);
        return -1;
    }
    if (n > 0) {
        conn->rx_len += (size_t) n;
        conn->rx[conn->rx_len] = '\0';
    }
    return n;
}

/* The connect check: connected is healthy. */
static void
tcp_check_ready(struct fm_conn *conn)
{
    fm_conn_finish(conn, FM_REASON_OK, 0, "connected");
}

/* With send_string or expect_regex, a tcp:// target talks (tcp_send.c). */
static int
tcp_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    if (opts->send != NULL || opts->have_expect) {
        target->kind = FM_PROBE_TCP_SEND;
    }
    return 0;
}

const struct fm_probe_proto fm_probe_proto_tcp = {
    .name = "tcp",
    .prepare = tcp_prepare,
    .on_ready = tcp_check_ready,
};
