/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: where the exporter listens (see faultmon/metrics.h): the
 * --listen value read strictly (a port out of range was once taken modulo
 * 65536 by getaddrinfo(), so 99999 listened on 34463 without a word), and
 * the socket opened, both address families for ":PORT".
 */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <faultmon/metrics.h>
#include <faultmon/parse.h>

int
fm_metrics_listen_parse(const char *spec, struct fm_metrics_listen *out, char *err, size_t err_len)
{
    const char *colon = strrchr(spec, ':');
    const char *host = spec;
    size_t hlen = 0;
    uint64_t port = 0;

    memset(out, 0, sizeof(*out));
    if (colon == NULL || colon[1] == '\0') {
        snprintf(err, err_len, "--listen '%s': not ADDRESS:PORT, [IPV6]:PORT or :PORT", spec);
        return EINVAL;
    }
    if (fm_parse_u64(colon + 1, 1, 65535, FM_PARSE_DEFAULT, &port) != 0
        || strspn(colon + 1, "0123456789") != strlen(colon + 1)) {
        snprintf(err, err_len, "--listen '%s': port '%s' is not a number from 1 to 65535", spec, colon + 1);
        return EINVAL;
    }
    out->port = (uint16_t) port;
    hlen = (size_t) (colon - spec);
    if (hlen >= 2 && spec[0] == '[' && spec[hlen - 1] == ']') {
        host++;
        hlen -= 2;
    }
    if (hlen >= sizeof(out->host)) {
        snprintf(err, err_len, "--listen '%s': the address is too long", spec);
        return EINVAL;
    }
    memcpy(out->host, host, hlen);
    out->host[hlen] = '\0';
    if (hlen == 0) {
        out->family = AF_UNSPEC;        /* every address, both families */
    } else if (inet_pton(AF_INET, out->host, &(struct in_addr) { 0 }) == 1) {
        out->family = AF_INET;
    } else if (inet_pton(AF_INET6, out->host, &(struct in6_addr) { { { 0 } } }) == 1) {
        out->family = AF_INET6;
    } else {
        snprintf(err, err_len, "--listen '%s': '%s' is not an IPv4 or IPv6 address", spec, out->host);
        return EINVAL;
    }
    return 0;
}

/* A listening socket on \p sa; -1 with errno set. */
static int
open_one(const struct sockaddr *sa, socklen_t sa_len, int v6only)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    int saved = 0;

    if (fd < 0) {
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    /* Explicit either way: net.ipv6.bindv6only must not decide. */
    if (sa->sa_family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
    }
    if (bind(fd, sa, sa_len) != 0 || listen(fd, 128) != 0) {
        saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* What a host without IPv6 answers to an IPv6 socket or bind. */
static bool
no_ipv6(int error)
{
    return error == EAFNOSUPPORT || error == EPROTONOSUPPORT || error == EADDRNOTAVAIL;
}

int
fm_metrics_listen_open(const struct fm_metrics_listen *l, char *where, size_t where_len,
                       char *err, size_t err_len)
{
    struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(l->port),
                               .sin6_addr = IN6ADDR_ANY_INIT };
    struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(l->port),
                              .sin_addr.s_addr = htonl(INADDR_ANY) };
    int fd = -1;

    if (l->family == AF_UNSPEC) {
        /* One IPv6 socket that takes IPv4 too (mapped addresses). */
        fd = open_one((struct sockaddr *) &a6, sizeof(a6), 0);
        if (fd >= 0) {
            snprintf(where, where_len, "http://[::]:%u/metrics (every IPv6 and IPv4 address)", l->port);
            return fd;
        }
        if (!no_ipv6(errno)) {
            snprintf(err, err_len, "cannot listen on :%u: %s", l->port, strerror(errno));
            return -1;
        }
        fd = open_one((struct sockaddr *) &a4, sizeof(a4), 0);
        snprintf(where, where_len, "http://0.0.0.0:%u/metrics (every IPv4 address: no IPv6 on this host)",
                 l->port);
    } else if (l->family == AF_INET6) {
        inet_pton(AF_INET6, l->host, &a6.sin6_addr);
        fd = open_one((struct sockaddr *) &a6, sizeof(a6), 1);
        snprintf(where, where_len, "http://[%s]:%u/metrics", l->host, l->port);
    } else {
        inet_pton(AF_INET, l->host, &a4.sin_addr);
        fd = open_one((struct sockaddr *) &a4, sizeof(a4), 0);
        snprintf(where, where_len, "http://%s:%u/metrics", l->host, l->port);
    }
    if (fd < 0) {
        snprintf(err, err_len, "cannot listen on %s%s%s:%u: %s", (l->family == AF_INET6)? "[" : "",
                 l->host, (l->family == AF_INET6)? "]" : "", l->port, strerror(errno));
    }
    return fd;
}
