/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the loopback check of the observer (faultmon/loopback.h).
 */
#include <config.h>

#include <faultmon/loopback.h>

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Enough for the checks of a few cycles should a drain be missed. */
#define FM_LOOPBACK_BACKLOG 8

void
fm_loopback_init(struct fm_loopback *lb)
{
    memset(lb, 0, sizeof(*lb));
    lb->listen_fd = -1;
}

int
fm_loopback_open(struct fm_loopback *lb)
{
    socklen_t len = sizeof(lb->addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int rc = 0;

    if (fd < 0) {
        return errno;
    }
    memset(&lb->addr, 0, sizeof(lb->addr));
    lb->addr.sin_family = AF_INET;
    lb->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    lb->addr.sin_port = 0;
    if (bind(fd, (const struct sockaddr *) &lb->addr, sizeof(lb->addr)) != 0
        || listen(fd, FM_LOOPBACK_BACKLOG) != 0
        || getsockname(fd, (struct sockaddr *) &lb->addr, &len) != 0) {
        rc = errno;
        close(fd);
        return rc;
    }
    lb->listen_fd = fd;
    return 0;
}

void
fm_loopback_close(struct fm_loopback *lb)
{
    if (lb->listen_fd >= 0) {
        close(lb->listen_fd);
    }
    lb->listen_fd = -1;
}

void
fm_loopback_drain(const struct fm_loopback *lb)
{
    int fd;

    while ((fd = accept4(lb->listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        close(fd);
    }
}

/* Wait for the handshake of a non-blocking connect. */
static int
wait_connected(int fd, int timeout_ms)
{
    struct pollfd pfd = { .fd = fd, .events = POLLOUT };
    int err = 0;
    socklen_t len = sizeof(err);
    int n;

    do {
        n = poll(&pfd, 1, timeout_ms);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        return errno;
    }
    if (n == 0) {
        return ETIMEDOUT;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        return errno;
    }
    return err;
}

int
fm_loopback_connect(struct fm_loopback *lb, int *fd_out)
{
    int fd = -1;
    int rc = 0;

    if (lb->listen_fd < 0) {
        rc = fm_loopback_open(lb);
        if (rc != 0) {
            return rc;
        }
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return errno;
    }
    if (connect(fd, (const struct sockaddr *) &lb->addr, sizeof(lb->addr)) != 0) {
        rc = errno;
    }
    if (rc == EINPROGRESS) {
        *fd_out = fd;
    } else {
        close(fd);
    }
    return rc;
}

/* fm_loopback_connect(), waited for here. */
int
fm_loopback_check(struct fm_loopback *lb, int timeout_ms)
{
    int fd = -1;
    int rc = fm_loopback_connect(lb, &fd);

    if (rc == EINPROGRESS) {
        rc = wait_connected(fd, timeout_ms);
        close(fd);
    }
    fm_loopback_drain(lb);
    return rc;
}
