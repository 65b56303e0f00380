/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: host names, resolved with c-ares on the engine's own loop.
 *
 * No thread per lookup and no lookup per cycle: a name is looked up when its
 * cached answer has expired (resolve_cache.c says how long one is kept), once
 * for every target that names it, with c-ares (the asynchronous resolver of
 * curl and Node.js; it reads /etc/hosts and resolv.conf as glibc does).
 * c-ares's sockets (and the socket pairs of lookups through NSS) are entries
 * of the engine's epoll set, each with a small source of its own, and its
 * timeouts are folded into the engine's
 * wait, so a lookup is bounded by the cycle's one deadline like any other
 * step: a target still waiting for its name then is resolve-timeout, as
 * before, and the lookup is cancelled (nothing of it is cached).
 *
 * The resolver lives as long as the engine, which a loop (faultmon run,
 * faultmon probe --count) makes once and starts again every cycle: the cache
 * outlives the cycles.  It is made only when some target is a name: numeric
 * addresses never reach it.
 */
#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <ares.h>

#include <faultmon/log.h>
#include "probe_int.h"

/* The most addresses kept per name (getaddrinfo-like lists are short; this
 * bounds memory and the connect attempts a deadline has to cover). */
#define FM_RESOLVE_MAX_ADDRS 16
/* Read by c-ares once per channel: a channel is made again when it changes. */
#define FM_RESOLV_CONF "/etc/resolv.conf"
/* Read once per resolver: whether names may need the glibc resolver too. */
#define FM_NSSWITCH_CONF "/etc/nsswitch.conf"

/* A name that c-ares did not find, being looked up through NSS. */
struct nss_pending {
    struct fm_resolve_entry *entry;
    int fd;
};

/* One descriptor of c-ares's or of a lookup through NSS, an entry of the
 * engine's epoll set: its data.ptr. */
struct resolver_sock {
    struct fm_ev_source src;        /* first */
    struct fm_resolver *resolver;
    int fd;
    struct resolver_sock *next;
};

struct fm_resolver {
    ares_channel channel;
    bool have_channel;
    struct fm_ev *ev;               /* the engine's */
    void (*ready)(void *data);      /* after a socket of ours was handled */
    void *ready_data;
    struct resolver_sock *socks;
    size_t in_flight;
    bool closing;                   /* being freed: callbacks touch no conn */
    struct stat conf_st;            /* resolv.conf when the channel was made */
    struct fm_resolve_cache cache;
    bool nss_fallback;              /* nsswitch.conf lists more than files, dns */
    struct nss_pending *nss;        /* lookups through NSS in flight */
    size_t n_nss;
    size_t nss_cap;
};

static bool nss_process_fd(struct fm_resolver *resolver, int fd);

static void
on_sock_ready(struct fm_ev_source *src, uint32_t events)
{
    struct resolver_sock *sock = (struct resolver_sock *) src;
    struct fm_resolver *resolver = sock->resolver;
    bool readable = (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0;
    bool writable = (events & EPOLLOUT) != 0;

    if (!nss_process_fd(resolver, sock->fd)) {
        ares_process_fd(resolver->channel, readable? sock->fd : ARES_SOCKET_BAD,
                        writable? sock->fd : ARES_SOCKET_BAD);
    }
    resolver->ready(resolver->ready_data);
}

static struct resolver_sock *
sock_find(struct fm_resolver *resolver, int fd)
{
    for (struct resolver_sock *sock = resolver->socks; sock != NULL; sock = sock->next) {
        if (sock->fd == fd) {
            return sock;
        }
    }
    return NULL;
}

/* Put \p fd in the engine's set for \p events. \return 0 or an errno */
static int
sock_watch(struct fm_resolver *resolver, int fd, uint32_t events)
{
    struct resolver_sock *sock = sock_find(resolver, fd);
    int rc = 0;

    if (sock != NULL) {
        return fm_ev_mod(resolver->ev, fd, events, &sock->src);
    }
    sock = calloc(1, sizeof(*sock));
    if (sock == NULL) {
        return ENOMEM;
    }
    *sock = (struct resolver_sock) { .src.ready = on_sock_ready, .resolver = resolver, .fd = fd };
    rc = fm_ev_add(resolver->ev, fd, events, &sock->src);
    if (rc != 0) {
        free(sock);
        return rc;
    }
    sock->next = resolver->socks;
    resolver->socks = sock;
    return 0;
}

/* Take \p fd out of the set (and out of the wake-up being handled), before
 * it is closed, or after (\p closed: closing took it out of the set). */
static void
sock_unwatch(struct fm_resolver *resolver, int fd, bool closed)
{
    for (struct resolver_sock **p = &resolver->socks; *p != NULL; p = &(*p)->next) {
        struct resolver_sock *sock = *p;

        if (sock->fd == fd) {
            *p = sock->next;
            fm_ev_del(resolver->ev, closed? -1 : fd, &sock->src);
            free(sock);
            return;
        }
    }
}

/* c-ares opens, closes and changes interest in its sockets through here. */
static void
on_sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
    struct fm_resolver *resolver = data;
    uint32_t events = (readable? EPOLLIN : 0) | (writable? EPOLLOUT : 0);
    int rc = 0;

    if (events == 0) {
        sock_unwatch(resolver, fd, false);
    } else if ((rc = sock_watch(resolver, fd, events)) != 0) {
        /* Unwatched, the lookup ends at c-ares's timeout or the deadline. */
        fm_log_warn("cannot watch a socket of the resolver: %s", strerror(rc));
    }
}

/* Whether resolv.conf is not the file the channel was made from. */
static bool
conf_changed(const struct stat *was, struct stat *now)
{
    if (stat(FM_RESOLV_CONF, now) != 0) {
        memset(now, 0, sizeof(*now));
    }
    return now->st_ino != was->st_ino || now->st_dev != was->st_dev
           || now->st_size != was->st_size || now->st_mtim.tv_sec != was->st_mtim.tv_sec
           || now->st_mtim.tv_nsec != was->st_mtim.tv_nsec;
}

/* A c-ares channel from the system's current configuration. \return ARES_* */
static int
channel_open(struct fm_resolver *resolver, ares_channel *channel)
{
    struct ares_options opts;

    memset(&opts, 0, sizeof(opts));
    opts.sock_state_cb = on_sock_state;
    opts.sock_state_cb_data = resolver;
    conf_changed(&resolver->conf_st, &resolver->conf_st);
    return ares_init_options(channel, &opts, ARES_OPT_SOCK_STATE_CB);
}

/* glibc follows an edited resolv.conf, c-ares 1.18 does not: between
 * lookups, make the channel again when the file changed (a stat() per
 * lookup, that is per name and TTL, not per cycle). */
static void
channel_refresh(struct fm_resolver *resolver)
{
    struct stat now;
    ares_channel fresh;

    if (resolver->in_flight > 0 || !conf_changed(&resolver->conf_st, &now)) {
        return;
    }
    if (channel_open(resolver, &fresh) == ARES_SUCCESS) {
        ares_destroy(resolver->channel);    /* nothing in flight: no callback */
        resolver->channel = fresh;
        fm_log_debug("Name server configuration %s changed: read again", FM_RESOLV_CONF);
    }
}

int
fm_resolver_new(struct fm_resolver **out, struct fm_ev *ev, void (*ready)(void *data), void *data,
                char *err, size_t err_len)
{
    struct fm_resolver *resolver = calloc(1, sizeof(*resolver));
    int rc = 0;

    *out = NULL;
    if (resolver == NULL) {
        return ENOMEM;
    }
    resolver->ev = ev;
    resolver->ready = ready;
    resolver->ready_data = data;
    rc = ares_library_init(ARES_LIB_INIT_ALL);
    if (rc == ARES_SUCCESS) {
        rc = channel_open(resolver, &resolver->channel);
        if (rc != ARES_SUCCESS) {
            ares_library_cleanup();
        }
    }
    if (rc != ARES_SUCCESS) {
        snprintf(err, err_len, "cannot set up name resolution: %s", ares_strerror(rc));
        fm_resolver_free(resolver);
        return (rc == ARES_ENOMEM)? ENOMEM : EINVAL;
    }
    resolver->have_channel = true;
    resolver->nss_fallback = fm_nss_hosts_beyond_dns(FM_NSSWITCH_CONF);
    *out = resolver;
    return 0;
}

void
fm_resolver_free(struct fm_resolver *resolver)
{
    if (resolver == NULL) {
        return;
    }
    resolver->closing = true;
    for (size_t i = 0; i < resolver->n_nss; i++) {
        sock_unwatch(resolver, resolver->nss[i].fd, false);
        close(resolver->nss[i].fd);     /* the thread ends on its own */
    }
    free(resolver->nss);
    if (resolver->have_channel) {
        ares_destroy(resolver->channel);    /* ends lookups in flight (their callbacks run) */
        ares_library_cleanup();
    }
    while (resolver->socks != NULL) {   /* none left by c-ares: never so */
        sock_unwatch(resolver, resolver->socks->fd, false);
    }
    fm_resolve_cache_clear(&resolver->cache);
    free(resolver);
}

struct fm_resolve_entry *
fm_resolver_entry(struct fm_resolver *resolver, const char *name)
{
    return fm_resolve_cache_add(&resolver->cache, name);
}

/* The least TTL of an answer (its CNAMEs' too); 0 when it gives none. */
static int
answer_ttl(const struct ares_addrinfo *ai)
{
    int ttl = -1;

    for (const struct ares_addrinfo_node *node = ai->nodes; node != NULL; node = node->ai_next) {
        if (ttl < 0 || node->ai_ttl < ttl) {
            ttl = node->ai_ttl;
        }
    }
    for (const struct ares_addrinfo_cname *cn = ai->cnames; cn != NULL; cn = cn->next) {
        if (ttl < 0 || cn->ttl < ttl) {
            ttl = cn->ttl;
        }
    }
    return (ttl < 0)? 0 : ttl;
}

/* Keep a lookup's answer. \return 0, or the c-ares status of the failure */
static int
store_answer(struct fm_resolve_entry *entry, int status, struct ares_addrinfo *ai,
             uint64_t now_us)
{
    const struct sockaddr *addrs[FM_RESOLVE_MAX_ADDRS];
    socklen_t lens[FM_RESOLVE_MAX_ADDRS];
    size_t n = 0;

    if (status == ARES_SUCCESS && ai != NULL) {
        for (const struct ares_addrinfo_node *node = ai->nodes;
             node != NULL && n < FM_RESOLVE_MAX_ADDRS; node = node->ai_next) {
            if (node->ai_family == AF_INET || node->ai_family == AF_INET6) {
                addrs[n] = node->ai_addr;
                lens[n] = node->ai_addrlen;
                n++;
            }
        }
        if (n == 0) {
            status = ARES_ENODATA;
        } else if (fm_resolve_cache_store(entry, addrs, lens, n, answer_ttl(ai), now_us) != 0) {
            status = ARES_ENOMEM;
        }
    }
    if (status != ARES_SUCCESS) {
        fm_resolve_cache_fail(entry);
    }
    return status;
}

/* The lookup of \p entry is over (status: ARES_SUCCESS or why not): hand
 * its answer, or its failure, to the targets that waited for it. */
static void
wake_waiters(struct fm_resolver *resolver, struct fm_resolve_entry *entry, bool ok,
             const char *detail)
{
    struct fm_conn *waiters = entry->waiters;

    entry->busy = false;
    entry->waiters = NULL;
    resolver->in_flight--;
    if (ok) {
        fm_log_debug("Resolved %s: %zu addresses, kept %llu s", entry->name, entry->n_addrs,
                     (unsigned long long) ((entry->expires_us - fm_now_us() + 999999) / 1000000));
    }
    for (struct fm_conn *conn = waiters, *next = NULL; conn != NULL; conn = next) {
        next = conn->name_waiter;
        conn->name_waiter = NULL;
        if (conn->step != FM_STEP_RESOLVE) {
            continue;   /* judged already: the deadline passed */
        }
        if (!ok) {
            fm_conn_finish(conn, FM_REASON_RESOLVE_FAILED, 0, detail);
        } else {
            conn->addr_next = 0;
            fm_conn_connect_next(conn, EHOSTUNREACH);
        }
    }
}

/* c-ares did not find the name: ask NSS too when nsswitch.conf has more
 * sources than c-ares reads.  \return true when that lookup is under way */
static bool
nss_fallback_start(struct fm_resolver *resolver, struct fm_resolve_entry *entry, int status)
{
    int fd = -1;

    /* Not when the lookup was cut short or memory ran out; any answer (or
     * refusal) of the name servers, and their silence, is no verdict on a
     * name that another source may know. */
    if (!resolver->nss_fallback || status == ARES_ECANCELLED || status == ARES_EDESTRUCTION
        || status == ARES_ENOMEM) {
        return false;
    }
    if (resolver->n_nss == resolver->nss_cap) {
        size_t cap = (resolver->nss_cap == 0)? 4 : 2 * resolver->nss_cap;
        struct nss_pending *grown = realloc(resolver->nss, cap * sizeof(*grown));

        if (grown == NULL) {
            return false;
        }
        resolver->nss = grown;
        resolver->nss_cap = cap;
    }
    if (fm_nss_lookup_start(entry->name, &fd) != 0) {
        return false;
    }
    if (sock_watch(resolver, fd, EPOLLIN) != 0) {
        close(fd);
        return false;
    }
    resolver->nss[resolver->n_nss].entry = entry;
    resolver->nss[resolver->n_nss].fd = fd;
    resolver->n_nss++;
    fm_log_debug("%s: not found by c-ares (%s); asking NSS (%s)", entry->name,
                 ares_strerror(status), FM_NSSWITCH_CONF);
    return true;
}

static void
on_answer(void *arg, int status, int timeouts, struct ares_addrinfo *ai)
{
    struct fm_resolve_entry *entry = arg;
    struct fm_resolver *resolver = NULL;
    char detail[sizeof(((struct fm_result *) NULL)->detail)];

    (void) timeouts;
    if (entry->waiters != NULL) {
        resolver = entry->waiters->run->resolver;
    }
    status = store_answer(entry, status, ai, fm_now_us());
    if (ai != NULL) {
        ares_freeaddrinfo(ai);
    }
    if (resolver == NULL || resolver->closing) {
        entry->busy = false;
        entry->waiters = NULL;
        return;
    }
    if (status != ARES_SUCCESS && nss_fallback_start(resolver, entry, status)) {
        return;     /* still busy: the waiters wait for NSS */
    }
    snprintf(detail, sizeof(detail), "cannot resolve %s: %s", entry->name, ares_strerror(status));
    wake_waiters(resolver, entry, status == ARES_SUCCESS, detail);
}

/* A lookup through NSS answered (its fd is readable). */
static void
nss_answered(struct fm_resolver *resolver, size_t i)
{
    struct fm_resolve_entry *entry = resolver->nss[i].entry;
    struct sockaddr_storage addrs[FM_NSS_MAX_ADDRS];
    const struct sockaddr *ptrs[FM_NSS_MAX_ADDRS];
    socklen_t lens[FM_NSS_MAX_ADDRS];
    char detail[sizeof(((struct fm_result *) NULL)->detail)];
    const char *why = NULL;
    size_t n = 0;
    int rc = fm_nss_lookup_finish(resolver->nss[i].fd, addrs, lens, &n, &why);

    if (rc == EAGAIN) {
        return;
    }
    sock_unwatch(resolver, resolver->nss[i].fd, true);
    resolver->nss[i] = resolver->nss[--resolver->n_nss];   /* its fd is closed */
    for (size_t k = 0; k < n; k++) {
        ptrs[k] = (const struct sockaddr *) &addrs[k];
    }
    /* NSS gives no TTL: kept as long as an answer without one. */
    if (rc == 0 && fm_resolve_cache_store(entry, ptrs, lens, n, 0, fm_now_us()) != 0) {
        rc = ENOMEM;
        why = strerror(ENOMEM);
    }
    if (rc != 0) {
        fm_resolve_cache_fail(entry);
    }
    snprintf(detail, sizeof(detail), "cannot resolve %s: %s (c-ares and NSS)", entry->name, why);
    wake_waiters(resolver, entry, rc == 0, detail);
}

/* If \p fd is a lookup through NSS, take its answer. \return whether it was */
static bool
nss_process_fd(struct fm_resolver *resolver, int fd)
{
    for (size_t i = 0; i < resolver->n_nss; i++) {
        if (resolver->nss[i].fd == fd) {
            nss_answered(resolver, i);
            return true;
        }
    }
    return false;
}

void
fm_resolve_conn(struct fm_conn *conn, uint64_t now_us)
{
    struct fm_resolve_entry *entry = conn->name;
    struct fm_resolver *resolver = conn->run->resolver;
    struct ares_addrinfo_hints hints;

    fm_conn_step(conn, FM_STEP_RESOLVE);
    if (fm_resolve_cache_fresh(entry, now_us)) {
        conn->addr_next = 0;
        fm_conn_connect_next(conn, EHOSTUNREACH);
        return;
    }
    conn->name_waiter = entry->waiters;
    entry->waiters = conn;
    if (entry->busy) {
        return;     /* one lookup serves every target of the name */
    }
    channel_refresh(resolver);
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    entry->busy = true;
    resolver->in_flight++;
    resolver->cache.lookups++;
    fm_log_debug("Resolving %s (lookup %lu)", entry->name, resolver->cache.lookups);
    /* May answer at once (from /etc/hosts): on_answer then runs here. */
    ares_getaddrinfo(resolver->channel, entry->name, NULL, &hints, on_answer, entry);
}

bool
fm_resolve_next_addr(struct fm_conn *conn)
{
    const struct fm_resolve_entry *entry = conn->name;
    struct sockaddr_in *in4 = (struct sockaddr_in *) &conn->addr;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &conn->addr;

    /* ?family: the addresses of the other family are skipped. */
    while (entry != NULL && conn->addr_next < entry->n_addrs && conn->target->family != AF_UNSPEC
           && entry->addrs[conn->addr_next].ss_family != conn->target->family) {
        conn->addr_next++;
    }
    if (entry == NULL || conn->addr_next >= entry->n_addrs) {
        return false;
    }
    memcpy(&conn->addr, &entry->addrs[conn->addr_next], sizeof(conn->addr));
    conn->addr_len = entry->addr_lens[conn->addr_next];
    conn->addr_next++;
    if (conn->addr.ss_family == AF_INET6) {
        in6->sin6_port = htons(conn->target->port);
    } else {
        in4->sin_port = htons(conn->target->port);
    }
    return true;
}

void
fm_resolve_no_more_addr(struct fm_conn *conn, int last_errno)
{
    const struct fm_resolve_entry *entry = conn->name;
    int family = conn->target->family;
    char detail[sizeof(conn->result->detail)];

    if (family != AF_UNSPEC && entry != NULL && entry->n_addrs > 0) {
        bool any = false;

        for (size_t i = 0; i < entry->n_addrs; i++) {
            any = any || entry->addrs[i].ss_family == family;
        }
        if (!any) {
            /* Say so rather than "no route to host": the name resolves,
             * to addresses that ?family excludes. */
            snprintf(detail, sizeof(detail), "%s has no %s address (?family=%s)", conn->target->host,
                     (family == AF_INET6)? "IPv6" : "IPv4", (family == AF_INET6)? "inet6" : "inet");
            fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, EHOSTUNREACH, detail);
            return;
        }
    }
    fm_conn_finish(conn, FM_REASON_CONNECT_FAILED, last_errno, NULL);
}

void
fm_resolver_process(struct fm_resolver *resolver)
{
    if (resolver == NULL) {
        return;
    }
    if (resolver->in_flight > 0) {
        /* No socket: only c-ares's timeouts (a retry to the next server). */
        ares_process_fd(resolver->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
    }
}

int
fm_resolver_wait_ms(struct fm_resolver *resolver)
{
    struct timeval tv;

    if (resolver == NULL || resolver->in_flight == 0
        || ares_timeout(resolver->channel, NULL, &tv) == NULL) {
        return -1;
    }
    return (int) (tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
}

void
fm_resolver_cancel(struct fm_resolver *resolver)
{
    if (resolver == NULL) {
        return;
    }
    /* The lookups through NSS are abandoned: their threads end in their own
     * time, and their answers, unread, are not cached. */
    while (resolver->n_nss > 0) {
        struct nss_pending *p = &resolver->nss[--resolver->n_nss];

        sock_unwatch(resolver, p->fd, false);
        close(p->fd);
        p->entry->busy = false;
        p->entry->waiters = NULL;
        resolver->in_flight--;
    }
    if (resolver->in_flight > 0) {
        ares_cancel(resolver->channel);     /* on_answer: ARES_ECANCELLED, not cached */
    }
}
