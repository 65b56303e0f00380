/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the DNS probe (dns://SERVER[:PORT]/NAME[?type=A|AAAA|MX|...]
 * [&rcode=...][&answer=REGEX]): a real query of NAME to SERVER, with c-ares
 * (already the resolver's library, resolve.c), over UDP and again over TCP
 * when the answer is truncated (c-ares does that), judged by dns_judge.c:
 * NOERROR with an answer of the type is ok; another rcode (NXDOMAIN,
 * SERVFAIL, REFUSED) or no answer of the type refuses (complete); an ICMP
 * port unreachable is a connect failure (complete); silence is a read
 * timeout at the deadline (partial).
 *
 * Each target keeps its own c-ares channel (its prepared data), asking only
 * its server; the channel's sockets are entries of the engine's epoll set,
 * each with a small source of its own (no epoll fd nested in the engine's),
 * and the conn has no descriptor of its own: the engine's one deadline holds
 * as for any probe, and the verdict takes the sockets out of the set (the
 * protocol's release).  c-ares closes its sockets when no query is left (no
 * STAYOPEN), and a query still running at the deadline is cancelled when
 * the next cycle starts.
 */
#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <ares.h>

#include "probe_int.h"
#include "wire.h"
#include "wire_conv.h"

#define DNS_CLASS_IN 1

struct dns_state;

/* One socket of the channel's, an entry of the engine's epoll set. */
struct dns_sock {
    struct fm_ev_source src;    /* first: the epoll data.ptr */
    struct dns_state *st;
    int fd;
    struct dns_sock *next;
};

struct dns_state {
    ares_channel channel;
    bool have_channel;
    bool ignore;                /* callbacks of a cancel or destroy: no verdict */
    bool freeing;               /* ares_destroy(): the engine may be gone */
    struct fm_ev *ev;           /* the engine's, of the query in flight */
    struct dns_sock *socks;     /* those in ev's set */
    struct fm_conn *conn;       /* of the query in flight */
    char *name;
    struct fm_dns_expect want;
    regex_t answer;
    bool have_answer;
    bool tcp_open;              /* this query's TCP connection carried bytes */
};

static void
dns_state_free(void *prepared)
{
    struct dns_state *st = prepared;

    st->ignore = true;
    st->freeing = true;
    if (st->have_channel) {
        ares_destroy(st->channel);  /* closing its sockets takes them out of any set */
        ares_library_cleanup();
    }
    while (st->socks != NULL) {
        struct dns_sock *sock = st->socks;

        st->socks = sock->next;
        free(sock);
    }
    if (st->have_answer) {
        regfree(&st->answer);
    }
    free(st->name);
    free(st);
}

static int
dns_match(void *ctx, const char *text, size_t len)
{
    struct dns_state *st = ctx;
    regmatch_t m = { .rm_so = 0, .rm_eo = (regoff_t) len };

    return (regexec(&st->answer, text, 1, &m, REG_STARTEND) == 0)? 1 : 0;
}

/* A socket of the channel's is ready: c-ares reads or writes it, and calls
 * dns_answer() when the answer is whole. */
static void
on_dns_sock_ready(struct fm_ev_source *src, uint32_t events)
{
    struct dns_sock *sock = (struct dns_sock *) src;
    struct dns_state *st = sock->st;

    ares_process_fd(st->channel, (events & (EPOLLIN | EPOLLERR | EPOLLHUP))? sock->fd : ARES_SOCKET_BAD,
                    (events & EPOLLOUT)? sock->fd : ARES_SOCKET_BAD);
    if (st->conn != NULL) {
        fm_conn_touched(st->conn);
    }
}

static struct dns_sock *
dns_sock_find(struct dns_state *st, int fd, struct dns_sock ***link)
{
    for (struct dns_sock **p = &st->socks; *p != NULL; p = &(*p)->next) {
        if ((*p)->fd == fd) {
            *link = p;
            return *p;
        }
    }
    return NULL;
}

/* Out of the set (and of the wake-up being handled), before c-ares closes it. */
static void
dns_sock_unwatch(struct dns_state *st, struct dns_sock **link)
{
    struct dns_sock *sock = *link;

    *link = sock->next;
    fm_ev_del(st->ev, sock->fd, &sock->src);
    free(sock);
}

/* c-ares opens and closes its sockets through here: into the engine's set. */
static void
dns_sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
    struct dns_state *st = data;
    uint32_t events = (readable? EPOLLIN : 0) | (writable? EPOLLOUT : 0);
    struct dns_sock **link = NULL;
    struct dns_sock *sock = NULL;

    /* At ares_destroy(), the engine and its set may be freed already. */
    if (st->freeing || st->ev == NULL) {
        return;
    }
    sock = dns_sock_find(st, fd, &link);
    if (events == 0) {
        if (sock != NULL) {
            dns_sock_unwatch(st, link);
        }
        return;
    }
    if (sock != NULL) {
        fm_ev_mod(st->ev, fd, events, &sock->src);
        return;
    }
    sock = calloc(1, sizeof(*sock));
    if (sock == NULL) {
        return;     /* unwatched: the deadline judges the query */
    }
    *sock = (struct dns_sock) { .src.ready = on_dns_sock_ready, .st = st, .fd = fd, .next = st->socks };
    if (fm_ev_add(st->ev, fd, events, &sock->src) != 0) {
        free(sock);
        return;
    }
    st->socks = sock;
}

/* The verdict: the channel's sockets leave the set (a late answer wakes
 * nobody); the query itself is cancelled when the next one starts. */
static void
dns_release(struct fm_conn *conn)
{
    struct dns_state *st = conn->target->prepared;

    while (st != NULL && st->ev != NULL && st->socks != NULL) {
        dns_sock_unwatch(st, &st->socks);
    }
}

/* c-ares's sockets through these, which only note whether a TCP
 * connection carried bytes: then its close is no closed port. */
static bool
dns_is_stream(ares_socket_t fd)
{
    int type = 0;
    socklen_t len = sizeof(type);

    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

static ares_socket_t
dns_socket(int domain, int type, int protocol, void *data)
{
    (void) data;
    /* Whether c-ares configures a socket it is handed differs by version:
     * non-blocking and close-on-exec from the start, whatever it does. */
    return socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
}

static int
dns_close(ares_socket_t fd, void *data)
{
    (void) data;
    return close(fd);
}

static int
dns_sock_connect(ares_socket_t fd, const struct sockaddr *addr, ares_socklen_t len, void *data)
{
    (void) data;
    return connect(fd, addr, len);
}

static ares_ssize_t
dns_recvfrom(ares_socket_t fd, void *buf, size_t len, int flags, struct sockaddr *from,
             ares_socklen_t *from_len, void *data)
{
    struct dns_state *st = data;
    ssize_t n = recvfrom(fd, buf, len, flags, from, from_len);

    if (n > 0 && !st->tcp_open && dns_is_stream(fd)) {
        st->tcp_open = true;
    }
    return n;
}

static ares_ssize_t
dns_sendv(ares_socket_t fd, const struct iovec *vec, int n_vec, void *data)
{
    struct dns_state *st = data;
    ssize_t n = writev(fd, vec, n_vec);

    if (n > 0 && !st->tcp_open && dns_is_stream(fd)) {
        st->tcp_open = true;
    }
    return n;
}

static const struct ares_socket_functions dns_socket_functions = {
    .asocket = dns_socket,
    .aclose = dns_close,
    .aconnect = dns_sock_connect,
    .arecvfrom = dns_recvfrom,
    .asendv = dns_sendv,
};

static int
dns_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct dns_state *st = calloc(1, sizeof(*st));
    const char *type = fm_target_query(target, FM_QUERY_TYPE);
    const char *rcode = fm_target_query(target, FM_QUERY_RCODE);
    const char *answer = fm_target_query(target, FM_QUERY_ANSWER);
    struct ares_options ao;

    if (st == NULL) {
        return ENOMEM;
    }
    if (target->prepared != NULL && target->prepared_free != NULL) {
        target->prepared_free(target->prepared);
    }
    target->prepared = st;
    target->prepared_free = dns_state_free;
    st->name = strdup((target->path != NULL && target->path[0] == '/')? target->path + 1 : "");
    if (st->name == NULL) {
        return ENOMEM;
    }
    /* The table's choices and the regex guard checked these at load time. */
    st->want.name = st->name;
    st->want.qtype = (unsigned) fm_dns_type((type != NULL)? type : "A");
    st->want.rcode = (rcode != NULL)? fm_dns_rcode(rcode) : -1;
    if (answer != NULL) {
        if (regcomp(&st->answer, answer, REG_EXTENDED) != 0) {
            return E2BIG;
        }
        st->have_answer = true;
        st->want.match = dns_match;
        st->want.match_ctx = st;
    }
    memset(&ao, 0, sizeof(ao));
    ao.sock_state_cb = dns_sock_state;
    ao.sock_state_cb_data = st;
    ao.timeout = (int) opts->timeout_ms;    /* one try, bounded by the deadline */
    ao.tries = 1;
    /* NOCHECKRESP: a SERVFAIL or REFUSED answer is handed over as such, not
     * taken for a server to skip (and reported as a closed port). */
    ao.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES | ARES_FLAG_NOCHECKRESP;
    if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS) {
        return ENOMEM;
    }
    if (ares_init_options(&st->channel, &ao, ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS
                          | ARES_OPT_TRIES | ARES_OPT_FLAGS) != ARES_SUCCESS) {
        ares_library_cleanup();
        return ENOMEM;
    }
    st->have_channel = true;
    ares_set_socket_functions(st->channel, &dns_socket_functions, st);
    return 0;
}

static void
dns_answer(void *arg, int status, int timeouts, unsigned char *abuf, int alen)
{
    struct dns_state *st = arg;
    struct fm_conn *conn = st->conn;
    struct fm_wire_reply reply;
    char detail[sizeof(conn->result->detail)];

    (void) timeouts;
    if (st->ignore || conn == NULL || fm_conn_judged(conn)) {
        return;
    }
    if (status == ARES_ECONNREFUSED && st->tcp_open) {
        /* c-ares says so too when the TCP connection it retried on (after a
         * truncated answer) ended without a good one: garbage or another
         * query's id, then a close.  The port is open; the read failed. */
        fm_conn_finish(conn, FM_REASON_READ_FAILED, 0,
                       "query: the server closed the TCP connection without an answer");
        return;
    }
    if (status == ARES_ECONNREFUSED) {
        fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, ECONNREFUSED, "the server's port is closed");
        return;
    }
    if (abuf == NULL || alen <= 0) {
        snprintf(detail, sizeof(detail), "query: %s", ares_strerror(status));
        fm_conn_finish(conn, (status == ARES_ETIMEOUT)? FM_REASON_READ_TIMEOUT
                                                      : FM_REASON_READ_FAILED, 0, detail);
        return;
    }
    fm_dns_judge(abuf, (size_t) alen, &st->want, &reply);
    fm_wire_describe(&reply, "rcode", (const char *) abuf, 0, detail, sizeof(detail));
    switch (reply.verdict) {
        case FM_WIRE_OK:
            fm_conn_finish(conn, FM_REASON_OK, 0, detail);
            break;
        case FM_WIRE_REFUSED:
            fm_conn_finish(conn, FM_REASON_REFUSED, 0, detail);
            break;
        default:
            fm_conn_finish(conn, FM_REASON_READ_MALFORMED, 0, "query: not a DNS answer");
            break;
    }
}

/* The query to the address the engine chose (a literal, or the server's
 * name resolved), its sockets in the engine's set. */
static void
dns_connect(struct fm_conn *conn, int last_errno)
{
    struct dns_state *st = conn->target->prepared;
    struct ares_addr_port_node server;

    /* A name's next address is copied into conn->addr (resolve.c). */
    if (!conn->literal && !fm_resolve_next_addr(conn)) {
        fm_resolve_no_more_addr(conn, last_errno);
        return;
    }
    st->ev = conn->run->ev;
    st->ignore = true;
    ares_cancel(st->channel);   /* a query the last deadline cut off */
    st->ignore = false;
    memset(&server, 0, sizeof(server));
    server.family = conn->addr.ss_family;
    if (server.family == AF_INET) {
        const struct sockaddr_in *in4 = (const struct sockaddr_in *) &conn->addr;

        server.addr.addr4 = in4->sin_addr;
        server.udp_port = server.tcp_port = ntohs(in4->sin_port);
    } else {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) &conn->addr;

        memcpy(&server.addr.addr6, &in6->sin6_addr, sizeof(in6->sin6_addr));
        server.udp_port = server.tcp_port = ntohs(in6->sin6_port);
    }
    if (ares_set_servers_ports(st->channel, &server) != ARES_SUCCESS) {
        fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, ENOMEM, "cannot set up the query");
        return;
    }
    st->conn = conn;
    st->tcp_open = false;
    fm_conn_step(conn, FM_STEP_READ);
    ares_query(st->channel, st->name, DNS_CLASS_IN, (int) st->want.qtype, dns_answer, st);
}

static void
dns_on_io(struct fm_conn *conn)
{
    (void) conn;    /* never: the conn has no descriptor (on_dns_sock_ready()) */
}

static void
dns_on_ready(struct fm_conn *conn)
{
    (void) conn;    /* never: the query starts in dns_connect() */
}

static const char *
dns_timeout_note(const struct fm_conn *conn)
{
    (void) conn;
    return " (waiting for the answer)";
}

const struct fm_probe_proto fm_probe_proto_dns = {
    .name = "dns",
    .prepare = dns_prepare,
    .on_ready = dns_on_ready,
    .on_io = dns_on_io,
    .release = dns_release,
    .timeout_note = dns_timeout_note,
    .connect = dns_connect,
};
