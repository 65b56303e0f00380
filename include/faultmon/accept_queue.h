/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the kernel's view of a server's listening port, the second
 * witness of overload (src/probe/accept_queue.c).  NETLINK_SOCK_DIAG
 * (INET_DIAG) gives, for the port, the listener's accept queue (idiag_rqueue:
 * connections waiting for accept(); idiag_wqueue: its backlog) and the
 * server's side of each connection, with an inode only once the server
 * accepted it.  Two looks taken apart say whether the server still
 * accepts: a busy server does, slowly; a stopped or deadlocked one does
 * not, and its queue only grows.
 */
#ifndef FAULTMON_ACCEPT_QUEUE_H
#define FAULTMON_ACCEPT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The waiting and taken connections remembered from one look: a queue
 * longer than this is seen in part, which is enough to see progress. */
#define FM_ACCEPT_QUEUE_IDS 512

struct fm_accept_queue {
    bool listening;             /* a listener on the port was seen */
    uint32_t queued;            /* connections in its accept queue (all listeners) */
    uint32_t backlog;           /* its backlog (all listeners) */
    uint32_t accepted;          /* connections the server accepted and holds open */
    size_t n_waiting;           /* connections not yet accepted, by id */
    uint64_t waiting[FM_ACCEPT_QUEUE_IDS];
    size_t n_taken;             /* connections accepted, or closed by the server */
    uint64_t taken[FM_ACCEPT_QUEUE_IDS];
};

/* One socket of a look, as INET_DIAG reports it (what the reader keeps). */
struct fm_accept_queue_sock {
    uint8_t state;              /* TCP_LISTEN, TCP_ESTABLISHED, ... (netinet/tcp.h) */
    uint16_t local_port;
    uint16_t remote_port;
    const uint32_t *remote_addr;    /* 4 words (IPv4 in the first) */
    uint32_t rqueue;
    uint32_t wqueue;
    uint32_t inode;             /* 0: not accepted (or a time-wait) */
};

/*! \brief Add one socket to a look at \p port (sockets of other ports are
 *         left out). */
void fm_accept_queue_add(struct fm_accept_queue *q, uint16_t port, const struct fm_accept_queue_sock *s);

/*!
 * \brief Look at \p port's TCP sockets, IPv4 and IPv6, through
 *        NETLINK_SOCK_DIAG (no waiting: the kernel answers from its tables).
 * \return 0, or an errno (no netlink, a reply cut short)
 */
int fm_accept_queue_read(uint16_t port, struct fm_accept_queue *out);

/*!
 * \brief Whether two looks, \p before then \p after, say "overloaded".
 *
 * The server still accepts (its queue is empty at the second look, or a
 * connection waiting at the first was accepted by the second) and it is
 * full: connections waited in its accept queue at both looks (no worker
 * was free to take them), or the connections it holds fill \p capacity
 * (0: unknown).  A server that accepted nothing while connections waited
 * is stopped or deadlocked: no evidence.
 *
 * \param[out] why  on true, what was seen ("5 connections waiting in the accept queue (backlog 64), accepted slowly")
 */
bool fm_accept_queue_overloaded(const struct fm_accept_queue *before, const struct fm_accept_queue *after,
                                uint64_t capacity, char *why, size_t why_len);

#endif
