/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the probe engine.  Every target of a run is probed concurrently
 * on one epoll set (an event loop of its own, or the caller's: see
 * fm_probe_run_new_on(); every descriptor is an entry of it directly, none
 * behind a nested epoll fd); one deadline, taken from a monotonic clock when the
 * run starts, bounds every step of every probe, so a server that trickles a
 * byte at a time is cut off at the deadline and never re-armed.
 *
 * The engine only schedules: epoll, the deadline, a slot per target, the
 * resolver, the linger for TLS session tickets.  Connecting is tcp.c's, TLS
 * is tls.c's, and what a probe sends and how its answer is judged belong
 * to the protocol of its kind (fm_probe_protos[] below; see probe_int.h).
 *
 * Size: one concern, the scheduler: slots, the deadline, epoll dispatch and
 * the resolver's hand-off.
 */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <faultmon/log.h>
#include "probe_int.h"

/* How long a finished TLS 1.3 probe may keep its connection open for the
 * session ticket that makes the next cycle's handshake cheap.  It delays no
 * verdict and no cycle: the wait goes on after the cycle is done, until the
 * ticket comes, this time passes, or the next cycle starts. */
#define FM_TICKET_WAIT_US 1000000

/* One row per kind of probe: the protocol that judges it. */
static const struct fm_probe_proto *const fm_probe_protos[FM_PROBE__COUNT] = {
    [FM_PROBE_HEAD] = &fm_probe_proto_http,
    [FM_PROBE_GET] = &fm_probe_proto_http,
    [FM_PROBE_TLS_CONNECT] = &fm_probe_proto_tls,
    [FM_PROBE_TCP_CONNECT] = &fm_probe_proto_tcp,
    /* Issue 12; a kind without a row is refused when the engine is made. */
    [FM_PROBE_TCP_SEND] = &fm_probe_proto_tcp_send,
    [FM_PROBE_UDP] = &fm_probe_proto_udp,
    [FM_PROBE_REDIS] = &fm_probe_proto_redis,
    [FM_PROBE_SMTP] = &fm_probe_proto_smtp,
    [FM_PROBE_POSTGRES] = &fm_probe_proto_postgres,
    [FM_PROBE_MYSQL] = &fm_probe_proto_mysql,
    [FM_PROBE_LDAP] = &fm_probe_proto_ldap,
    [FM_PROBE_DNS] = &fm_probe_proto_dns,
    [FM_PROBE_ICMP] = &fm_probe_proto_icmp,
    [FM_PROBE_POP3] = &fm_probe_proto_pop3,
    [FM_PROBE_IMAP] = &fm_probe_proto_imap,
    [FM_PROBE_FTP] = &fm_probe_proto_ftp,
    [FM_PROBE_EXEC] = &fm_probe_proto_exec,
    [FM_PROBE_H2] = &fm_probe_proto_h2,
    [FM_PROBE_GRPC] = &fm_probe_proto_grpc,
};

static enum fm_reason
step_timeout_reason(enum fm_step step)
{
    switch (step) {
        case FM_STEP_RESOLVE: return fm_reason_for_timeout(FM_LAYER_RESOLVE);
        case FM_STEP_CONNECT: return fm_reason_for_timeout(FM_LAYER_CONNECT);
        case FM_STEP_TLS:     return fm_reason_for_timeout(FM_LAYER_TLS);
        case FM_STEP_SEND:    return fm_reason_for_timeout(FM_LAYER_SEND);
        default:              return fm_reason_for_timeout(FM_LAYER_READ);
    }
}

void
fm_conn_watch(struct fm_conn *conn, uint32_t events)
{
    struct epoll_event ev = { .events = events, .data.ptr = &conn->src };

    if (conn->watched_events == events) {
        return;
    }
    if (epoll_ctl(conn->run->epfd, (conn->watched_events == 0)? EPOLL_CTL_ADD : EPOLL_CTL_MOD,
                  conn->fd, &ev) == 0) {
        conn->watched_events = events;
    }
}

void
fm_conn_close_fd(struct fm_conn *conn)
{
    /* Out of the epoll set first: a close() drops a descriptor from it only
     * when no other copy of its file is left, and a child the loop forked a
     * moment ago (its runner, faultmon/spawn.h) holds copies until it
     * closes them before its exec.  Its events would come on meanwhile with
     * this conn's pointer, as if of the conn's next descriptor. */
    if (conn->watched_events != 0) {
        epoll_ctl(conn->run->epfd, EPOLL_CTL_DEL, conn->fd, NULL);
    }
    close(conn->fd);
    conn->fd = -1;
    conn->watched_events = 0;
}

/*
 * Keep the socket of a healthy probe for the next cycle's: connect() to
 * AF_UNSPEC (connect(2); tcp_disconnect() in the kernel) resets the
 * connection as SO_LINGER 0 and close() would, no TIME_WAIT on our side,
 * empties both queues and frees the local port, and leaves a socket that
 * can connect again.  What it saves a check is the socket's making and
 * freeing (its file, inode and memory accounting) and a system call (no
 * socket, setsockopt or close; a disconnect and an epoll_ctl instead):
 * checks of nginx on loopback back to back cost 35 us of CPU each instead
 * of 38 (2026-12-06, this machine).  Only after a verdict of ok: a
 * failure closes its socket, whatever state the failure left it in.  The
 * socket leaves the epoll set (a disconnected socket reads as hung up).
 */
static bool
conn_keep_socket(struct fm_conn *conn)
{
    static const struct sockaddr unspec = { .sa_family = AF_UNSPEC };

    if (!conn->fd_is_tcp || conn->kept_fd >= 0 || conn->result == NULL
        || fm_reason_class(conn->result->reason) != FM_CLASS_OK) {
        return false;
    }
    if (connect(conn->fd, &unspec, sizeof(unspec)) != 0) {
        return false;
    }
    if (conn->watched_events != 0) {
        epoll_ctl(conn->run->epfd, EPOLL_CTL_DEL, conn->fd, NULL);
    }
    conn->kept_fd = conn->fd;
    conn->kept_family = conn->addr.ss_family;
    return true;
}

/* Release everything of this cycle's probe; `abortive` resets the TCP
 * connection so that no TIME_WAIT is left on our side. */
static void
conn_close(struct fm_conn *conn, bool abortive)
{
    if (conn->proto != NULL && conn->proto->release != NULL) {
        conn->proto->release(conn);
    }
    if (conn->ssl != NULL) {
        fm_tls_conn_close(conn);
    }
    if (conn->fd >= 0) {
        if (abortive && conn_keep_socket(conn)) {
            /* kept, disconnected, for the next cycle */
        } else {
            if (abortive) {
                struct linger lg = { .l_onoff = 1, .l_linger = 0 };

                setsockopt(conn->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
            }
            fm_conn_close_fd(conn);
        }
        conn->fd = -1;
        conn->fd_is_tcp = false;
        conn->watched_events = 0;
        /* An event of the old socket in the wake-up being handled is not
         * for the next one the conn opens. */
        fm_ev_del(conn->run->ev, -1, &conn->src);
    }
    conn->close_orderly = false;
    free(conn->rx);
    conn->rx = NULL;
    conn->rx_len = conn->rx_cap = 0;
    conn->rx_final = 0;
    conn->interim = 0;
}

static void
log_failure(struct fm_conn *conn)
{
    const struct fm_target *t = conn->target;
    const struct fm_result *r = conn->result;

    conn->failed_cycles++;
    if (conn->failure_noted && conn->noted_reason == r->reason) {
        fm_log_debug("Probe of %s still failing (%s, %llu cycles): %s", t->text,
                     fm_reason_name(r->reason), (unsigned long long) conn->failed_cycles, r->detail);
        return;
    }
    conn->failure_noted = true;
    conn->noted_reason = r->reason;
    if (t->kind == FM_PROBE_EXEC) {
        fm_log_warn("Probe %s failed (%s): %s", t->text, fm_reason_name(r->reason), r->detail);
        return;
    }
    switch (fm_reason_layer(r->reason)) {
        case FM_LAYER_RESOLVE:
        case FM_LAYER_CONNECT:
        case FM_LAYER_TLS:
            fm_log_warn("Failed to connect to %s port %d %s", t->host, t->port, r->detail);
            break;
        case FM_LAYER_SEND:
        case FM_LAYER_READ:
            fm_log_warn("Failed to communicate with server %s port %d: %s",
                        t->host, t->port, r->detail);
            break;
        default:
            fm_log_warn("Probe of %s failed (%s): %s", t->text, fm_reason_name(r->reason),
                        r->detail);
            break;
    }
}

/* After a TLS cycle, OpenSSL's per-connection buffers (tens of KiB each,
 * all allocated at once when every target is probed together) are free:
 * note the moment, for a long-lived caller to give them back to the system
 * (fm_probe_run_take_released()), so that memory between cycles stays
 * proportional to the targets, not to the peak of concurrent handshakes.
 * Changing the process's allocator is the caller's business, not ours. */
static void
run_note_released(struct fm_probe_run *run)
{
    if (run->ssl_ctx != NULL && run->pending == 0 && run->lingering == 0) {
        run->released = true;
    }
}

bool
fm_conn_judged(const struct fm_conn *conn)
{
    return conn->step == FM_STEP_DONE || conn->step == FM_STEP_TICKET;
}

void
fm_conn_finish(struct fm_conn *conn, enum fm_reason reason, int sys_errno, const char *detail)
{
    struct fm_result *r = conn->result;
    bool linger_for_ticket = false;
    uint64_t now_us = 0;

    if (fm_conn_judged(conn)) {
        return;
    }
    r->reason = reason;
    r->sys_errno = sys_errno;
    now_us = fm_now_us();
    fm_conn_phase_mark(conn, now_us);   /* the phase the verdict ends */
    r->latency_us = fm_deadline_elapsed_us(&conn->deadline, now_us);
    if (detail != NULL) {
        snprintf(r->detail, sizeof(r->detail), "%s", detail);
    } else if (sys_errno != 0) {
        snprintf(r->detail, sizeof(r->detail), "%s", strerror(sys_errno));
    }
    /* A server may echo a secret back: hidden before anything shows it. */
    fm_target_redact_reply(conn->target, conn->run->opts, r->detail, sizeof(r->detail));
    if (fm_reason_class(reason) != FM_CLASS_OK) {
        log_failure(conn);
    } else if (conn->failure_noted) {
        fm_log_notice("Probe of %s ok again after %llu failed cycle(s)", conn->target->text,
                      (unsigned long long) conn->failed_cycles);
        conn->failure_noted = false;
        conn->failed_cycles = 0;
    }
    conn->run->pending--;
    if (reason != FM_REASON_OK && conn->run->opts->spread) {
        conn->run->hurry = true;        /* the rest of the sweep starts at once */
    }

    /* A healthy TLS 1.3 probe may wait for its session ticket after its
     * verdict, without holding up the cycle. */
    linger_for_ticket = (fm_reason_class(reason) == FM_CLASS_OK && fm_tls_wants_ticket(conn));
    if (linger_for_ticket) {
        conn->step = FM_STEP_TICKET;
        conn->ticket_end_us = now_us + FM_TICKET_WAIT_US;
        conn->run->linger_end_us = conn->ticket_end_us;
        conn->run->lingering++;
        fm_conn_watch(conn, EPOLLIN);
        return;
    }
    conn->step = FM_STEP_DONE;
    conn_close(conn, !conn->close_orderly);
    run_note_released(conn->run);
}

int
fm_conn_rx_room(struct fm_conn *conn, size_t initial)
{
    size_t cap = (conn->rx_cap == 0)? initial : conn->rx_cap * 2;
    char *grown = NULL;

    if (conn->rx_len < conn->rx_cap) {
        return 0;
    }
    if (cap > conn->run->opts->max_reply_bytes) {
        cap = conn->run->opts->max_reply_bytes;
    }
    if (cap <= conn->rx_len) {
        return E2BIG;
    }
    grown = realloc(conn->rx, cap + 1);     /* + 1: kept NUL-terminated */
    if (grown == NULL) {
        fm_conn_finish(conn, FM_REASON_READ_FAILED, ENOMEM, NULL);
        return ENOMEM;
    }
    conn->rx = grown;
    conn->rx_cap = cap;
    return 0;
}

void
fm_conn_finish_ticket(struct fm_conn *conn)
{
    conn->step = FM_STEP_DONE;
    conn->run->lingering--;
    conn_close(conn, !conn->close_orderly);
    run_note_released(conn->run);
}

void
fm_conn_connect_next(struct fm_conn *conn, int last_errno)
{
    if (conn->proto->connect != NULL) {
        conn->proto->connect(conn, last_errno);
    } else {
        fm_tcp_connect_next(conn, last_errno);
    }
}

void
fm_conn_connected(struct fm_conn *conn)
{
    if (!conn->target->use_tls) {
        conn->proto->on_ready(conn);
        return;
    }
    fm_conn_start_tls(conn);
}

void
fm_conn_start_tls(struct fm_conn *conn)
{
    if (fm_tls_conn_setup(conn) != 0) {
        fm_conn_finish(conn, FM_REASON_TLS_FAILED, ENOMEM, "cannot set up TLS");
        return;
    }
    fm_conn_step(conn, FM_STEP_TLS);
    fm_tls_handshake(conn);
}

void
fm_conn_advance(struct fm_conn *conn, uint32_t events)
{
    switch (conn->step) {
        case FM_STEP_CONNECT:
            fm_tcp_connect_result(conn, events);
            break;
        case FM_STEP_TLS:
            fm_tls_handshake(conn);
            break;
        case FM_STEP_SEND:
        case FM_STEP_READ:
            conn->proto->on_io(conn);
            break;
        default:
            break;
    }
}

static int
conn_init(struct fm_probe_run *run, struct fm_conn *conn, struct fm_target *target,
          struct fm_result *result, char *err, size_t err_len)
{
    struct sockaddr_in *in4 = (struct sockaddr_in *) &conn->addr;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &conn->addr;
    const struct fm_probe_proto *proto = fm_probe_protos[target->kind];
    int rc = 0;

    if (proto == NULL) {
        snprintf(err, err_len, "target '%s': %s probes are not available in this build",
                 target->text, fm_probe_kind_name(target->kind));
        return EINVAL;
    }
    conn->src.ready = fm_conn_on_ready;
    conn->run = run;
    conn->target = target;
    conn->result = result;
    conn->fd = -1;
    conn->kept_fd = -1;
    /* Preparing may make the target a simpler kind (an https target without
     * tls_request is a handshake): the protocol is chosen after it. */
    rc = (proto->prepare != NULL)? proto->prepare(target, run->opts) : 0;
    if (rc == E2BIG) {
        snprintf(err, err_len, "target '%s': its request does not fit (a name in it is too long)",
                 target->text);
        return EINVAL;
    }
    if (rc != 0) {
        snprintf(err, err_len, "out of memory");
        return ENOMEM;
    }
    conn->proto = fm_probe_protos[target->kind];
    if (conn->proto == NULL) {
        snprintf(err, err_len, "target '%s': %s probes are not available in this build",
                 target->text, fm_probe_kind_name(target->kind));
        return EINVAL;
    }
    memset(&conn->addr, 0, sizeof(conn->addr));
    if (target->kind == FM_PROBE_EXEC) {
        conn->literal = true;       /* nothing to resolve: it starts a program */
        return 0;
    }
    if (inet_pton(AF_INET, target->host, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons(target->port);
        conn->addr_len = sizeof(*in4);
        conn->literal = true;
    } else if (inet_pton(AF_INET6, target->host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(target->port);
        conn->addr_len = sizeof(*in6);
        conn->literal = true;
    } else {
        /* A name: looked up through the run's resolver cache (resolve.c). */
        if (run->resolver == NULL) {
            rc = fm_probe_run_add_resolver(run, err, err_len);
            if (rc != 0) {
                return rc;
            }
        }
        conn->name = fm_resolver_entry(run->resolver, target->host);
        if (conn->name == NULL) {
            snprintf(err, err_len, "out of memory");
            return ENOMEM;
        }
    }
    return 0;
}

int
fm_probe_run_new(struct fm_target *targets, size_t n, const struct fm_probe_opts *opts,
                 struct fm_probe_run **out, char *err, size_t err_len)
{
    return fm_probe_run_new_on(NULL, NULL, NULL, targets, n, opts, out, err, err_len);
}

int
fm_probe_run_new_on(struct fm_ev *ev, void (*ready)(void *data), void *data,
                    struct fm_target *targets, size_t n, const struct fm_probe_opts *opts,
                    struct fm_probe_run **out, char *err, size_t err_len)
{
    struct fm_probe_run *run = calloc(1, sizeof(*run));
    bool need_tls = false;
    int rc = 0;

    *out = NULL;
    if (run == NULL) {
        return ENOMEM;
    }
    run->opts = opts;
    run->n = n;
    run->epfd = -1;
    run->conns = calloc(n, sizeof(*run->conns));
    run->results = calloc(n, sizeof(*run->results));
    if (run->conns == NULL || run->results == NULL) {
        fm_probe_run_free(run);
        return ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        run->conns[i].fd = -1;  /* so that freeing a half-made engine closes none */
        run->conns[i].kept_fd = -1;
    }
    rc = fm_probe_run_ev_init(run, ev, ready, data);
    if (rc != 0) {
        snprintf(err, err_len, "cannot create the event loop: %s", strerror(rc));
        fm_probe_run_free(run);
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        rc = conn_init(run, &run->conns[i], &targets[i], &run->results[i], err, err_len);
        if (rc != 0) {
            fm_probe_run_free(run);
            return rc;
        }
        run->results[i].target = &targets[i];
        need_tls = need_tls || targets[i].use_tls || targets[i].starttls;
    }
    if (opts->spread) {
        struct utsname node;

        /* Clones on other nodes get other jitters; this node keeps its own. */
        run->spread_seed = fm_spread_seed((uname(&node) == 0)? node.nodename : "");
        run->interval_ms = 1000;
    }
    if (need_tls) {
        rc = fm_tls_ctx_new(opts, &run->ssl_ctx, err, err_len);
        if (rc == 0 && fm_tls_sessions_new(run) != 0) {
            snprintf(err, err_len, "out of memory");
            rc = ENOMEM;
        }
        if (rc != 0) {
            fm_probe_run_free(run);
            return rc;
        }
    }
    *out = run;
    return 0;
}

void
fm_probe_run_set_keep_sessions(struct fm_probe_run *run, bool keep)
{
    run->keep_sessions = keep;
}

void
fm_probe_run_free(struct fm_probe_run *run)
{
    if (run == NULL) {
        return;
    }
    /* Before the conns: ending its lookups calls back with their waiters. */
    fm_resolver_free(run->resolver);
    for (size_t i = 0; i < run->n && run->conns != NULL; i++) {
        struct fm_conn *conn = &run->conns[i];

        conn_close(conn, true);
        if (conn->kept_fd >= 0) {
            close(conn->kept_fd);
            conn->kept_fd = -1;
        }
    }
    fm_tls_sessions_free(run);
    if (run->ssl_ctx != NULL) {
        SSL_CTX_free(run->ssl_ctx);
    }
    if (run->ev != NULL) {
        fm_ev_timer_disarm(run->ev, &run->timer);   /* the spread timer, on a caller's loop */
    }
    fm_probe_run_ev_fini(run);
    free(run->conns);
    free(run->results);
    free(run);
}

void
fm_probe_run_set_interval(struct fm_probe_run *run, uint64_t interval_ms)
{
    run->interval_ms = interval_ms;
}

uint64_t
fm_probe_run_phase_ms(const struct fm_probe_run *run)
{
    return run->opts->spread? fm_spread_lead_ms(run) : 0;
}

/* A probe that has its verdict, or has sent its request in plain TCP and
 * waits for the reply (tcp.c's early send, a connect done at once, UDP):
 * nothing of it can be ready the moment it began, since its server has
 * still to be scheduled.  Anything else (a connect or a handshake under
 * way, a lookup) may be. */
static bool
conn_awaits_reply_only(const struct fm_conn *conn)
{
    return fm_conn_judged(conn)
           || (conn->step == FM_STEP_READ && conn->ssl == NULL && conn->watched_events == EPOLLIN);
}

void
fm_conn_begin(struct fm_conn *conn, uint64_t now_us, const struct fm_deadline *deadline)
{
    fm_conn_result_begin(conn, now_us);
    conn->deadline = *deadline;
    conn->sent = 0;
    conn->phase = 0;
    conn->signalled = false;
    conn->got_ticket = false;
    conn->step = FM_STEP_IDLE;
    if (conn->literal) {
        fm_conn_connect_next(conn, 0);
    } else {
        fm_resolve_conn(conn, now_us);
    }
    if (!conn_awaits_reply_only(conn)) {
        conn->run->poll_after_start = true;
    }
}

int
fm_probe_run_start(struct fm_probe_run *run, uint64_t now_us)
{
    /* A conn still waiting for a ticket from the last cycle gives up now. */
    for (size_t i = 0; i < run->n && run->lingering > 0; i++) {
        if (run->conns[i].step == FM_STEP_TICKET) {
            fm_conn_finish_ticket(&run->conns[i]);
        }
    }
    fm_deadline_init(&run->deadline, now_us, run->opts->timeout_ms);
    run->pending = run->n;
    run->fresh_start = true;
    run->poll_after_start = false;
    if (run->opts->spread) {
        fm_spread_run_start(run, now_us);
        return 0;
    }
    for (size_t i = 0; i < run->n; i++) {
        fm_conn_begin(&run->conns[i], now_us, &run->deadline);
    }
    return 0;
}

void
fm_conn_expire(struct fm_conn *conn)
{
    char detail[sizeof(conn->result->detail)];

    if (conn->proto->on_deadline != NULL) {
        conn->proto->on_deadline(conn);
        if (fm_conn_judged(conn)) {
            return;
        }
    }
    snprintf(detail, sizeof(detail), "no answer within Probe_timeout %llu ms%s",
             (unsigned long long) conn->run->opts->timeout_ms,
             (conn->proto->timeout_note != NULL)? conn->proto->timeout_note(conn) : "");
    fm_conn_finish(conn, step_timeout_reason(conn->step), 0, detail);
}

void
fm_probe_run_expire(struct fm_probe_run *run, uint64_t now_us)
{
    if (run->lingering > 0) {
        for (size_t i = 0; i < run->n; i++) {
            struct fm_conn *conn = &run->conns[i];

            if (conn->step == FM_STEP_TICKET && now_us >= conn->ticket_end_us) {
                fm_conn_finish_ticket(conn);
            }
        }
    }
    if (run->opts->spread) {
        fm_spread_run_tick(run, now_us);   /* each probe has its own deadline */
        return;
    }
    if (run->pending == 0 || !fm_deadline_expired(&run->deadline, now_us)) {
        return;
    }
    for (size_t i = 0; i < run->n; i++) {
        if (!fm_conn_judged(&run->conns[i])) {
            fm_conn_expire(&run->conns[i]);
        }
    }
    fm_resolver_cancel(run->resolver);     /* nothing waits for a lookup now */
}

bool
fm_probe_run_dispatch(struct fm_probe_run *run, uint64_t now_us)
{
    size_t started = run->spread.next;
    bool fresh = run->fresh_start;

    /* The dispatch right after a start looks at once for what the probes'
     * first steps left ready (a connect to a near server is done by now),
     * which spares the caller's loop a wake-up per probe: unless every
     * probe begun waits for its server's reply only, which cannot be there
     * yet.  The caller waits for the fd next, which shows it when it is. */
    run->fresh_start = false;
    if (!fresh || run->poll_after_start) {
        run->poll_after_start = false;
        fm_probe_run_handle_ready(run);
    }
    if (now_us == 0) {
        now_us = fm_now_us();
    }
    fm_probe_run_expire(run, now_us);
    /* A spread tick that started probes looks once more before the caller
     * sleeps, for the same reason.  Burst mode has this pass already:
     * fm_probe_run_start() is followed by a dispatch. */
    if (run->opts->spread && run->spread.next != started && run->poll_after_start) {
        fm_probe_run_handle_ready(run);
        fm_probe_run_expire(run, now_us);
    }
    return fm_probe_run_done(run);
}

bool
fm_probe_run_take_released(struct fm_probe_run *run)
{
    bool released = run->released;

    run->released = false;
    return released;
}

int
fm_probe_run_fd(const struct fm_probe_run *run)
{
    return run->epfd;
}

bool
fm_probe_run_done(const struct fm_probe_run *run)
{
    return run->pending == 0;
}

const struct fm_result *
fm_probe_run_results(const struct fm_probe_run *run, size_t *n)
{
    *n = run->n;
    return run->results;
}

enum fm_class
fm_probe_run_verdict(const struct fm_probe_run *run)
{
    enum fm_class worst = FM_CLASS_OK;

    for (size_t i = 0; i < run->n; i++) {
        enum fm_class cls = fm_result_class(&run->results[i]);

        if (cls > worst) {
            worst = cls;
        }
    }
    return worst;
}
