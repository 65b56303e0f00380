/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the ICMP probe (icmp://HOST, icmp://[IPV6]): one echo request,
 * ok when its echo reply comes back (RFC 792, RFC 4443), as F5's ICMP
 * monitor and relayd's check_icmp.  An unprivileged ICMP socket where
 * net.ipv4.ping_group_range lets the process's group open one (the kernel
 * then matches replies to the socket by its identifier), else a raw socket
 * (root, or CAP_NET_RAW), which sees every ICMP message of the host: replies
 * are matched by identifier, sequence, payload and source.  No reply by the
 * deadline is a read-timeout (partial, as for every protocol that sent and
 * waits); no ICMP socket at all, or a send the kernel refuses (no route),
 * is complete.
 */
#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe_int.h"

#define ICMP_ECHO_REQUEST 8
#define ICMP_ECHO_REPLY 0
#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ICMP_HEADER 8
#define ICMP_PAYLOAD "faultmon-echo-16"     /* 16 bytes */
#define ICMP_PACKET (ICMP_HEADER + sizeof(ICMP_PAYLOAD) - 1)
/* A reply with an IPv4 header of options, or anything else the host gets. */
#define ICMP_RX_MAX 1500

struct icmp_state {
    uint16_t id;            /* raw sockets: ours; ping sockets: the kernel's */
    uint16_t seq;           /* one more every cycle */
    bool raw;
};

static uint16_t
icmp_checksum(const unsigned char *p, size_t len)
{
    uint32_t sum = 0;

    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += ((uint32_t) p[i] << 8) | p[i + 1];
    }
    if ((len & 1) != 0) {
        sum += (uint32_t) p[len - 1] << 8;
    }
    while ((sum >> 16) != 0) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t) ~sum;
}

static int
icmp_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct icmp_state *st = calloc(1, sizeof(*st));

    (void) opts;
    if (st == NULL) {
        return ENOMEM;
    }
    if (target->prepared != NULL && target->prepared_free != NULL) {
        target->prepared_free(target->prepared);
    }
    /* An identifier of this process and target, for raw sockets. */
    st->id = (uint16_t) (((uintptr_t) target >> 4) ^ (uintptr_t) getpid());
    target->prepared = st;
    target->prepared_free = free;
    return 0;
}

/* An ICMP socket of the family: unprivileged first, raw as root. */
static int
icmp_socket(int family, bool *raw)
{
    int proto = (family == AF_INET6)? IPPROTO_ICMPV6 : IPPROTO_ICMP;
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);

    *raw = false;
    if (fd < 0) {
        fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
        *raw = true;
    }
    return fd;
}

static void
icmp_connect(struct fm_conn *conn, int last_errno)
{
    struct icmp_state *st = conn->target->prepared;
    int family = 0;
    unsigned char pkt[ICMP_PACKET];
    char detail[sizeof(conn->result->detail)];
    uint16_t sum = 0;

    /* A name's next address is copied into conn->addr (resolve.c). */
    if (!conn->literal && !fm_resolve_next_addr(conn)) {
        fm_resolve_no_more_addr(conn, last_errno);
        return;
    }
    family = conn->addr.ss_family;
    conn->fd = icmp_socket(family, &st->raw);
    if (conn->fd < 0) {
        snprintf(detail, sizeof(detail), "cannot open an ICMP socket (net.ipv4.ping_group_range "
                 "does not include this group, and no raw socket without root): %s", strerror(errno));
        fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, errno, detail);
        return;
    }
    st->seq++;
    memset(pkt, 0, sizeof(pkt));
    pkt[0] = (family == AF_INET6)? ICMP6_ECHO_REQUEST : ICMP_ECHO_REQUEST;
    pkt[4] = (unsigned char) (st->id >> 8);
    pkt[5] = (unsigned char) st->id;
    pkt[6] = (unsigned char) (st->seq >> 8);
    pkt[7] = (unsigned char) st->seq;
    memcpy(pkt + ICMP_HEADER, ICMP_PAYLOAD, sizeof(ICMP_PAYLOAD) - 1);
    if (family == AF_INET) {
        /* ICMPv6's checksum covers a pseudo-header: the kernel computes it. */
        sum = icmp_checksum(pkt, sizeof(pkt));
        pkt[2] = (unsigned char) (sum >> 8);
        pkt[3] = (unsigned char) sum;
    }
    if (sendto(conn->fd, pkt, sizeof(pkt), 0, (const struct sockaddr *) &conn->addr,
               conn->addr_len) != (ssize_t) sizeof(pkt)) {
        fm_conn_finish(conn, FM_REASON_SEND_FAILED, errno, "echo request");
        return;
    }
    fm_conn_step(conn, FM_STEP_READ);
    fm_conn_watch(conn, EPOLLIN);
}

/* Whether a message from \p from is the reply to this cycle's request. */
static bool
icmp_is_reply(const struct fm_conn *conn, const unsigned char *msg, size_t len,
              const struct sockaddr_storage *from)
{
    const struct icmp_state *st = conn->target->prepared;
    bool v6 = (conn->addr.ss_family == AF_INET6);

    if (!v6 && st->raw) {
        size_t ihl = 0;

        if (len < sizeof(struct ip)) {
            return false;
        }
        ihl = (size_t) (msg[0] & 0x0f) * 4;
        if (ihl < sizeof(struct ip) || ihl > len) {
            return false;
        }
        msg += ihl;
        len -= ihl;
    }
    if (len != ICMP_PACKET || msg[0] != (v6? ICMP6_ECHO_REPLY : ICMP_ECHO_REPLY) || msg[1] != 0
        || (((unsigned) msg[6] << 8) | msg[7]) != st->seq
        || memcmp(msg + ICMP_HEADER, ICMP_PAYLOAD, sizeof(ICMP_PAYLOAD) - 1) != 0) {
        return false;
    }
    if (st->raw && (((unsigned) msg[4] << 8) | msg[5]) != st->id) {
        return false;
    }
    if (v6) {
        return memcmp(&((const struct sockaddr_in6 *) from)->sin6_addr,
                      &((const struct sockaddr_in6 *) &conn->addr)->sin6_addr,
                      sizeof(struct in6_addr)) == 0;
    }
    return ((const struct sockaddr_in *) from)->sin_addr.s_addr
           == ((const struct sockaddr_in *) &conn->addr)->sin_addr.s_addr;
}

static void
icmp_on_io(struct fm_conn *conn)
{
    unsigned char msg[ICMP_RX_MAX];

    for (;;) {
        struct sockaddr_storage from;
        socklen_t from_len = sizeof(from);
        ssize_t n = recvfrom(conn->fd, msg, sizeof(msg), 0, (struct sockaddr *) &from, &from_len);

        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                fm_conn_finish(conn, FM_REASON_READ_FAILED, errno, "echo reply");
            }
            return;
        }
        if (icmp_is_reply(conn, msg, (size_t) n, &from)) {
            fm_conn_finish(conn, FM_REASON_OK, 0, "echo reply");
            return;
        }
    }
}

static void
icmp_on_ready(struct fm_conn *conn)
{
    (void) conn;    /* never: the request goes out in icmp_connect() */
}

static const char *
icmp_timeout_note(const struct fm_conn *conn)
{
    (void) conn;
    return " (waiting for the echo reply)";
}

const struct fm_probe_proto fm_probe_proto_icmp = {
    .name = "icmp",
    .prepare = icmp_prepare,
    .on_ready = icmp_on_ready,
    .on_io = icmp_on_io,
    .timeout_note = icmp_timeout_note,
    .connect = icmp_connect,
};
