/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a listener of the loop's own on 127.0.0.1, and a connection to
 * it within a deadline (src/util/loopback.c), for the observer: when even
 * that fails, the node's own network stack (lo down, a firewall rule on
 * lo, a full conntrack table, no free ports or descriptors) is what fails
 * the probes of 127.0.0.1 targets, not the service.  The kernel completes
 * the handshake from the listen backlog, so the check costs no thread and
 * does not depend on the loop being scheduled.
 */
#ifndef FAULTMON_LOOPBACK_H
#define FAULTMON_LOOPBACK_H

#include <netinet/in.h>

struct fm_loopback {
    int listen_fd;                  /* -1 until opened */
    struct sockaddr_in addr;        /* 127.0.0.1 and the port the kernel chose */
};

/*! \brief A closed listener (listen_fd -1). */
void fm_loopback_init(struct fm_loopback *lb);

/*! \brief Listen on 127.0.0.1, on a port the kernel chooses.  \return 0 or errno */
int fm_loopback_open(struct fm_loopback *lb);

void fm_loopback_close(struct fm_loopback *lb);

/*!
 * \brief Connect to the listener (opening it first if it is not open) and
 *        wait at most \p timeout_ms for the handshake; the connections the
 *        listener holds are accepted and closed, so its backlog never fills.
 * \return 0 when the connection completed, else errno (ETIMEDOUT when it
 *         did not complete in time)
 */
int fm_loopback_check(struct fm_loopback *lb, int timeout_ms);

/*!
 * \brief Start a non-blocking connect to the listener (opened first if
 *        need be), for a caller that waits for it on its own epoll.
 * \return 0 (connected, closed), EINPROGRESS (\p fd_out under way, the
 *         caller's to close) or another errno value
 */
int fm_loopback_connect(struct fm_loopback *lb, int *fd_out);

/*! \brief Accept and close what the checks left in the listener's queue. */
void fm_loopback_drain(const struct fm_loopback *lb);

#endif
