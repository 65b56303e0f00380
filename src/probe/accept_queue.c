/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a server's accept queue, from the kernel (faultmon/accept_queue.h).
 *
 * Why netlink and not /proc/net/tcp: the file gives a listener's current
 * queue (its rx_queue) but not its backlog, and is text for every socket
 * of the namespace; INET_DIAG gives both numbers (idiag_rqueue and
 * idiag_wqueue of a listener) in binary.  Both cost a walk of the
 * namespace's TCP sockets in the kernel, paid only after a failed or slow
 * cycle.  A connection the server has not accepted has no file yet, hence
 * inode 0: that is how a waiting connection is told from an accepted one.
 */
#include <config.h>

#include <faultmon/accept_queue.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#define FM_ACCEPT_QUEUE_BUF 32768

/* A connection's name across two looks: its client's address and port. */
static uint64_t
sock_id(const struct fm_accept_queue_sock *s)
{
    uint64_t h = UINT64_C(14695981039346656037);
    uint8_t bytes[18];

    memcpy(bytes, s->remote_addr, 16);
    bytes[16] = (uint8_t) (s->remote_port >> 8);
    bytes[17] = (uint8_t) s->remote_port;
    for (size_t i = 0; i < sizeof(bytes); i++) {
        h = (h ^ bytes[i]) * UINT64_C(1099511628211);
    }
    return h;
}

static void
remember(uint64_t *ids, size_t *n, uint64_t id)
{
    if (*n < FM_ACCEPT_QUEUE_IDS) {
        ids[(*n)++] = id;
    }
}

void
fm_accept_queue_add(struct fm_accept_queue *q, uint16_t port, const struct fm_accept_queue_sock *s)
{
    if (s->local_port != port) {
        return;
    }
    switch (s->state) {
        case TCP_LISTEN:
            q->listening = true;
            q->queued += s->rqueue;
            q->backlog += s->wqueue;
            break;
        case TCP_ESTABLISHED:
        case TCP_CLOSE_WAIT:
            /* A client that gave up (its FIN: close-wait) still waits in
             * the queue until the server accepts it. */
            if (s->inode == 0) {
                remember(q->waiting, &q->n_waiting, sock_id(s));
            } else {
                q->accepted++;
                remember(q->taken, &q->n_taken, sock_id(s));
            }
            break;
        case TCP_FIN_WAIT1:
        case TCP_FIN_WAIT2:
        case TCP_CLOSING:
        case TCP_LAST_ACK:
        case TCP_TIME_WAIT:
            /* Only the server's close leads here: it had accepted it. */
            remember(q->taken, &q->n_taken, sock_id(s));
            break;
        default:
            break;
    }
}

/* One reply message of the dump into \p q; returns 1 at its end, 0 to go
 * on, or an errno. */
static int
take_message(struct fm_accept_queue *q, uint16_t port, const struct nlmsghdr *h)
{
    const struct inet_diag_msg *m = NLMSG_DATA(h);
    struct fm_accept_queue_sock s;

    if (h->nlmsg_type == NLMSG_DONE) {
        return 1;
    }
    if (h->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *e = NLMSG_DATA(h);

        return (h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error < 0)? -e->error : EPROTO;
    }
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(*m))) {
        return 0;
    }
    s = (struct fm_accept_queue_sock) {
        .state = m->idiag_state,
        .local_port = ntohs(m->id.idiag_sport),
        .remote_port = ntohs(m->id.idiag_dport),
        .remote_addr = m->id.idiag_dst,
        .rqueue = m->idiag_rqueue,
        .wqueue = m->idiag_wqueue,
        .inode = m->idiag_inode,
    };
    fm_accept_queue_add(q, port, &s);
    return 0;
}

/* Ask for one family's TCP sockets and read the whole dump.  The kernel
 * builds each part of a dump as it is read, so the reads never wait
 * (MSG_DONTWAIT: a dump that stalled would be an error, not a wait). */
static int
read_family(int fd, uint8_t family, uint16_t port, struct fm_accept_queue *q)
{
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 r;
    } req;
    struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
    static char buf[FM_ACCEPT_QUEUE_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));

    memset(&req, 0, sizeof(req));
    req.nlh.nlmsg_len = sizeof(req);
    req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.r.sdiag_family = family;
    req.r.sdiag_protocol = IPPROTO_TCP;
    req.r.idiag_states = (1u << TCP_LISTEN) | (1u << TCP_ESTABLISHED) | (1u << TCP_CLOSE_WAIT)
                         | (1u << TCP_FIN_WAIT1) | (1u << TCP_FIN_WAIT2) | (1u << TCP_CLOSING)
                         | (1u << TCP_LAST_ACK) | (1u << TCP_TIME_WAIT);
    if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *) &nl, sizeof(nl)) < 0) {
        return errno;
    }
    for (;;) {
        ssize_t got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        int len = (int) got;

        if (got <= 0) {
            return (got < 0)? errno : EPROTO;
        }
        for (const struct nlmsghdr *h = (const void *) buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
            int rc = take_message(q, port, h);

            if (rc != 0) {
                return (rc == 1)? 0 : rc;
            }
        }
    }
}

int
fm_accept_queue_read(uint16_t port, struct fm_accept_queue *out)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (fd < 0) {
        return errno;
    }
    rc = read_family(fd, AF_INET, port, out);
    if (rc == 0) {
        rc = read_family(fd, AF_INET6, port, out);
    }
    close(fd);
    return rc;
}

static bool
has_id(const uint64_t *ids, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; i++) {
        if (ids[i] == id) {
            return true;
        }
    }
    return false;
}

/* Whether a connection waiting at the first look was accepted by the second. */
static bool
accepted_since(const struct fm_accept_queue *before, const struct fm_accept_queue *after)
{
    for (size_t i = 0; i < before->n_waiting; i++) {
        if (has_id(after->taken, after->n_taken, before->waiting[i])) {
            return true;
        }
    }
    return false;
}

bool
fm_accept_queue_overloaded(const struct fm_accept_queue *before, const struct fm_accept_queue *after,
                           uint64_t capacity, char *why, size_t why_len)
{
    bool accepting = after->queued == 0 || accepted_since(before, after);

    if (!before->listening || !after->listening || !accepting) {
        return false;
    }
    if (before->queued > 0 && after->queued > 0) {
        snprintf(why, why_len,
                 "%" PRIu32 " connections waiting in the accept queue (backlog %" PRIu32 "), accepted slowly",
                 after->queued, after->backlog);
        return true;
    }
    if (capacity > 0 && after->accepted >= capacity) {
        snprintf(why, why_len, "all %" PRIu64 " connections busy (%" PRIu32 " open, accept queue empty)",
                 capacity, after->accepted);
        return true;
    }
    return false;
}
