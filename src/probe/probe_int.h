/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: internals shared by the probe library's files (not installed).
 *
 * The engine (engine.c) schedules: one epoll instance, one deadline, a slot
 * (struct fm_conn) per target, the resolver.  It brings a connection up
 * (TCP, tcp.c; then TLS when the target's scheme asks for it, tls.c) and
 * hands it to the protocol of the target's kind, which judges it:
 *
 *   kind              protocol (struct fm_probe_proto)
 *   FM_PROBE_HEAD     fm_probe_proto_http   (http.c)
 *   FM_PROBE_GET      fm_probe_proto_http   (http.c)
 *   FM_PROBE_TLS_...  fm_probe_proto_tls    (tls.c: the handshake is the check)
 *   FM_PROBE_TCP_...  fm_probe_proto_tcp    (tcp.c: the connect is the check)
 *   FM_PROBE_SMTP...  fm_probe_proto_smtp   (smtp.c, and one file per protocol:
 *                     a line protocol is a script of steps that conv.c runs)
 *   FM_PROBE_EXEC     fm_probe_proto_exec   (exec.c: a program, no socket)
 *   FM_PROBE_H2       fm_probe_proto_h2     (h2.c over h2_session.c: HTTP/2)
 *   FM_PROBE_GRPC     fm_probe_proto_grpc   (grpc.c over h2_session.c)
 *
 * Adding a protocol is one new file that defines a const struct
 * fm_probe_proto, one row in fm_probe_protos[] (engine.c), a kind in enum
 * fm_probe_kind and its scheme's row in src/core/scheme.c.
 *
 * No .c of its name: a pure interface between the probe library's files.
 */
#ifndef FAULTMON_PROBE_INT_H
#define FAULTMON_PROBE_INT_H

#include <stdbool.h>
#include <regex.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "ssl_load.h"

#include <faultmon/deadline.h>
#include <faultmon/ev.h>
#include <faultmon/probe.h>
#include <faultmon/probe_opts.h>

#include "schedule.h"

enum fm_step {
    FM_STEP_IDLE = 0,
    FM_STEP_RESOLVE,
    FM_STEP_CONNECT,
    FM_STEP_TLS,
    FM_STEP_SEND,
    FM_STEP_READ,
    FM_STEP_TICKET,     /* verdict given; waiting briefly for a TLS 1.3 ticket */
    FM_STEP_DONE,
};

struct fm_conn;
struct fm_resolver;
struct fm_resolve_entry;

/* Bytes of a session's DER kept in its slot; a larger one goes on the heap.
 * A TLS 1.3 session from nginx (OpenSSL) takes 372 without its peer
 * certificate, plus the SNI's length. */
#define FM_TLS_SESSION_INLINE 512

/*
 * The session kept for resumption, one per server:port of a run (see
 * tls_session.c), shared by the conns of the targets that address it.
 */
struct fm_tls_session {
    const char *host;               /* the key, from the first target's */
    uint16_t port;
    int64_t cert_not_after;         /* of the certificate it was made with */
    size_t der_len;                 /* 0: none kept */
    unsigned char *der_heap;        /* the DER when over FM_TLS_SESSION_INLINE */
    unsigned char der[FM_TLS_SESSION_INLINE];
};

/*
 * What a protocol implements.  The engine calls these; every verdict goes
 * through fm_conn_finish().
 */
struct fm_probe_proto {
    const char *name;
    /* Once, when the engine is made (load time): prepare what every cycle
     * sends, such as HTTP's request bytes; may turn the target into a
     * simpler kind (an https target without tls_request is a handshake).
     * NULL: nothing to prepare.  Returns 0 or ENOMEM. */
    int (*prepare)(struct fm_target *target, const struct fm_probe_opts *opts);
    /* The connection is up (TCP connected, and the TLS handshake done for a
     * TLS target): give the verdict, or move to FM_STEP_SEND and go on. */
    void (*on_ready)(struct fm_conn *conn);
    /* The socket is ready in FM_STEP_SEND or FM_STEP_READ (NULL for a
     * protocol whose verdict comes in on_ready). */
    void (*on_io)(struct fm_conn *conn);
    /* Words added to the detail of a timeout in this protocol's steps,
     * "" for none (NULL: none). */
    const char *(*timeout_note)(const struct fm_conn *conn);
    /* Open the socket to conn->addr and start (UDP, ICMP...); NULL: TCP
     * (fm_tcp_connect_next()).  Called again with the errno of the last
     * attempt while a name has addresses left. */
    void (*connect)(struct fm_conn *conn, int last_errno);
    /* The probe of this cycle is over (its verdict given, or the engine
     * freed): release what the protocol holds beyond conn->fd, such as
     * exec's child process.  NULL: nothing. */
    void (*release)(struct fm_conn *conn);
    /* The deadline has come: give a verdict of the protocol's own instead
     * of the timeout (reverse mode's "no match by then"), or none.  NULL:
     * always the timeout. */
    void (*on_deadline)(struct fm_conn *conn);
    /* on_ready begins with the whole request in one write, after which the
     * protocol only reads: its first send may go out while the connect is
     * still reported in progress (tcp.c), and Nagle has nothing to hold
     * back, so no TCP_NODELAY.  Plain TCP only; never for TLS. */
    bool one_write_first;
    /* The ALPN list offered for this protocol over TLS instead of
     * tls_alpn's (wire format, "\x02h2"); NULL: tls_alpn's. */
    const char *alpn_wire;
};

extern const struct fm_probe_proto fm_probe_proto_tcp;
extern const struct fm_probe_proto fm_probe_proto_tls;
extern const struct fm_probe_proto fm_probe_proto_http;
extern const struct fm_probe_proto fm_probe_proto_tcp_send;
extern const struct fm_probe_proto fm_probe_proto_udp;
extern const struct fm_probe_proto fm_probe_proto_redis;
extern const struct fm_probe_proto fm_probe_proto_smtp;
extern const struct fm_probe_proto fm_probe_proto_pop3;
extern const struct fm_probe_proto fm_probe_proto_imap;
extern const struct fm_probe_proto fm_probe_proto_ftp;
extern const struct fm_probe_proto fm_probe_proto_postgres;
extern const struct fm_probe_proto fm_probe_proto_mysql;
extern const struct fm_probe_proto fm_probe_proto_ldap;
extern const struct fm_probe_proto fm_probe_proto_dns;
extern const struct fm_probe_proto fm_probe_proto_icmp;
extern const struct fm_probe_proto fm_probe_proto_exec;
extern const struct fm_probe_proto fm_probe_proto_h2;
extern const struct fm_probe_proto fm_probe_proto_grpc;

/* One target's probe; allocated once per engine and reused every cycle. */
struct fm_conn {
    struct fm_ev_source src;        /* the epoll data.ptr of its descriptor */
    struct fm_probe_run *run;
    struct fm_target *target;
    struct fm_result *result;
    const struct fm_probe_proto *proto;
    enum fm_step step;
    /* This probe's own deadline: the run's in burst mode, Probe_timeout from
     * its own start in spread mode. */
    struct fm_deadline deadline;
    int fd;
    uint32_t watched_events;        /* registered with epoll; 0: not yet */
    /* fd is a TCP socket of tcp.c's (not exec.c's pipe, not a UDP socket):
     * after a healthy probe it may be kept, disconnected, for the next. */
    bool fd_is_tcp;
    /* A socket of the last cycle's, disconnected (connect(AF_UNSPEC)) and
     * out of the epoll set, of address family kept_family; -1: none. */
    int kept_fd;
    int kept_family;
    SSL *ssl;
    struct fm_tls_session *tls_session; /* shared by key, kept across cycles */
    bool got_ticket;                /* a new session arrived this cycle */
    size_t sent;
    char *rx;                       /* reply bytes, only while reading */
    size_t rx_len;
    size_t rx_cap;
    size_t rx_final;                /* where the final response starts, after
                                     * interim 1xx responses */
    unsigned interim;               /* interim responses skipped */
    /* An accepted deviation of the reply (http.c) was logged in this
     * episode: said once until a reply comes without one, or fails. */
    bool deviation_noted;
    /* A failure was logged (a warning) in this episode: the same failure
     * again is a debug line, the first success a notice, so that a target
     * down for an hour is two lines in the cluster's log, not one a cycle. */
    bool failure_noted;
    enum fm_reason noted_reason;
    uint64_t failed_cycles;
    size_t phase;                   /* a conversation's step (conv.c); 0 first */
    void *proto_state;              /* what the protocol holds this cycle (h2.c's
                                     * session), freed by its release */
    bool signalled;                 /* a conversation's greeting matched
                                     * maintenance_regex this cycle */
    bool close_orderly;             /* close with FIN, not RST (a goodbye
                                     * answered: RFC 5321 4.1.1.10) */
    uint64_t ticket_end_us;
    uint64_t phase_mark_us;         /* when the current phase began (phase.c) */
    /* The early send (tcp.c): tried while the connect is in progress, until
     * it finds a connection not up yet (a server that is not near). */
    bool connect_unconfirmed;
    bool early_send_off;

    /* Address: fixed for literals; for a name, each attempt's address is
     * copied here from the name's entry in the resolver cache (resolve.c). */
    bool literal;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    struct fm_resolve_entry *name;  /* NULL for a literal */
    size_t addr_next;               /* next cached address to try */
    struct fm_conn *name_waiter;    /* next conn waiting for the same lookup */
};

struct fm_probe_run {
    const struct fm_probe_opts *opts;
    struct fm_conn *conns;
    struct fm_result *results;
    size_t n;
    size_t pending;                 /* conns without a verdict this cycle */
    /* Set by a start; cleared by the dispatch after it.  poll_after_start:
     * a probe began by then waits for more than its server's reply (see
     * fm_probe_run_dispatch()). */
    bool fresh_start;
    bool poll_after_start;
    size_t lingering;               /* conns in FM_STEP_TICKET */
    uint64_t linger_end_us;         /* when the newest ticket wait ends */
    int epfd;                       /* ev's */
    /* The event loop whose epoll set has every descriptor of the run's:
     * a caller's (fm_probe_run_new_on(); ready is then queued on it after
     * a wake-up that had events of the run's), or own_ev, for a caller that
     * waits on the run alone (fm_probe_run_blocking()...). */
    struct fm_ev *ev;
    bool ev_external;
    bool events_taken;              /* own_ev: the last wait handled all that
                                     * was ready (wait.c) */
    struct fm_ev own_ev;
    struct fm_ev_later ready;
    struct fm_resolver *resolver;   /* NULL when every target is an address */
    SSL_CTX *ssl_ctx;
    struct fm_tls_session *sessions; /* one per server:port of the TLS targets */
    size_t n_sessions;
    struct fm_deadline deadline;
    bool keep_sessions;
    bool released;                  /* every TLS connection of a cycle closed
                                     * since the caller last asked */
    /* Spread mode (opts->spread): the sweep, and the probes it started. */
    struct fm_spread spread;
    uint64_t spread_seed;           /* per node, set when the engine is made */
    uint64_t interval_ms;           /* what a sweep spreads over */
    size_t first_open;              /* no probe below it is running */
    struct fm_ev_timer timer;       /* on a caller's loop: wakes it at the
                                     * next start or deadline (a timer of
                                     * its loop's, no descriptor) */
    bool hurry;                     /* a failure came: start the rest now */
};

/* engine.c: what the protocols and the transports call back */

/*! \brief Close conn->fd, out of the epoll set first (a forked child may
 *         hold a copy of it); conn->fd is -1 after. */
void fm_conn_close_fd(struct fm_conn *conn);

/*! \brief Give the probe its verdict; every verdict goes through here. */
void fm_conn_finish(struct fm_conn *conn, enum fm_reason reason, int sys_errno,
                    const char *detail);
/*! \brief Whether the probe has its verdict this cycle. */
bool fm_conn_judged(const struct fm_conn *conn);
/*! \brief What the conn's descriptor does when ready (its src.ready). */
void fm_conn_on_ready(struct fm_ev_source *src, uint32_t events);
/*! \brief Advance the probe on the events of its descriptor. */
void fm_conn_advance(struct fm_conn *conn, uint32_t events);
/*! \brief The wait for a TLS session ticket is over: close the conn. */
void fm_conn_finish_ticket(struct fm_conn *conn);
/*! \brief The run's epoll set: \p ev's (its caller's loop; \p ready(\p data)
 *         after a wake-up with events of the run's), or, \p ev NULL, an
 *         event loop of its own.  \return 0 or an errno (engine_ev.c) */
int fm_probe_run_ev_init(struct fm_probe_run *run, struct fm_ev *ev, void (*ready)(void *data),
                         void *data);
void fm_probe_run_ev_fini(struct fm_probe_run *run);
/*! \brief Handle what is ready (on its own loop) and c-ares's due timeouts. */
void fm_probe_run_handle_ready(struct fm_probe_run *run);
/*! \brief The run's resolver, made with its first name target. \return 0 or an errno */
int fm_probe_run_add_resolver(struct fm_probe_run *run, char *err, size_t err_len);
/*! \brief Something of the conn's outside its own descriptor was handled
 *         (a DNS probe's c-ares socket): the run's caller dispatches. */
void fm_conn_touched(struct fm_conn *conn);
/*! \brief Wait for these epoll events on the conn's socket. */
void fm_conn_watch(struct fm_conn *conn, uint32_t events);
/*! \brief The transport is up: start TLS, or hand over to the protocol. */
void fm_conn_connected(struct fm_conn *conn);
/*! \brief Open the conn's transport to its next address (the protocol's
 *         connect, TCP by default). */
void fm_conn_connect_next(struct fm_conn *conn, int last_errno);
/*! \brief Start TLS on a connected plain conn (STARTTLS); the protocol's
 *         on_ready is called again once the handshake is done. */
void fm_conn_start_tls(struct fm_conn *conn);
/*!
 * \brief Room for more reply bytes in conn->rx (kept NUL-terminated),
 *        growing from \p initial bytes up to max_reply_bytes.
 * \return 0; E2BIG at the cap (no verdict given); ENOMEM (the verdict,
 *         read-failed, is given)
 */
int fm_conn_rx_room(struct fm_conn *conn, size_t initial);
/*! \brief Cut off every probe still running when the deadline has passed. */
void fm_probe_run_expire(struct fm_probe_run *run, uint64_t now_us);
/*! \brief Start one probe now, with its deadline (the cycle's, or its own). */
void fm_conn_begin(struct fm_conn *conn, uint64_t now_us, const struct fm_deadline *deadline);
/*! \brief Cut off a probe at its deadline: the timeout of the step it is in. */
void fm_conn_expire(struct fm_conn *conn);

/* phase.c: the result while the probe runs */

/*! \brief Clear the result of a probe starting at \p now_us (its deadline's start). */
void fm_conn_result_begin(struct fm_conn *conn, uint64_t now_us);
/*! \brief Move to \p step; the time of the step left goes to its phase
 *         (one clock read, none when the step stays or leaves IDLE). */
void fm_conn_step(struct fm_conn *conn, enum fm_step step);
/*! \brief The time until \p now_us to the phase of the current step (the
 *         verdict's, with the clock read it takes anyway). */
void fm_conn_phase_mark(struct fm_conn *conn, uint64_t now_us);

/* spread.c: the spread mode of the engine (schedule.c says when) */

/*! \brief Begin a sweep: the probes start as they come due. */
void fm_spread_run_start(struct fm_probe_run *run, uint64_t now_us);
/* The first target's offset in a sweep (its jitter), ms. */
uint64_t fm_spread_lead_ms(const struct fm_probe_run *run);
/*! \brief Cut off what is late, start what is due, and the rest after a failure. */
void fm_spread_run_tick(struct fm_probe_run *run, uint64_t now_us);
/*! \brief Milliseconds until the next start or deadline, -1: none. */
int fm_spread_run_wait_ms(const struct fm_probe_run *run, uint64_t now_us);
/*! \brief The spread timer's callback (engine_ev.c): \p data is the run,
 *         whose caller dispatches (and so ticks) after this turn. */
void fm_spread_run_timer_fired(void *data);

/* match.c */

/*!
 * \brief regexec() of a user's regex on a reply, killed at the deadline.
 * \return 1 on a match, 0 on none, -1 when the deadline came first
 */
int fm_probe_match(struct fm_conn *conn, const regex_t *re, const char *data, size_t len);
/*!
 * \brief expect_regex on a tcp:// or udp:// reply: searched here when an
 *        automaton decides the pattern (expect_linear), else by fm_probe_match().
 * \return 1 on a match, 0 on none, -1 when the deadline came first
 */
int fm_probe_match_expect(struct fm_conn *conn, const char *data, size_t len);
/*!
 * \brief Whether a reply asks to be drained: maintenance_regex on it (a
 *        tcp:// or udp:// reply, a line protocol's greeting; HTTP judges its
 *        own in http_judge.c).
 * \return 1 on a match, 0 on none or without maintenance_regex, -1 when
 *         the deadline came first
 */
int fm_probe_match_maintenance(struct fm_conn *conn, const char *data, size_t len);
/*!
 * \brief The verdict FM_REASON_MAINTENANCE: "maintenance: the \p what
 *        matches 'REGEX' (maintenance_regex)".  Only for an exchange that
 *        passed: a signal never hides a failure.
 */
void fm_probe_finish_maintenance(struct fm_conn *conn, const char *what);
/*!
 * \brief Give an exchange that passed its verdict: FM_REASON_OK with
 *        \p detail, or FM_REASON_MAINTENANCE when \p reply matches
 *        maintenance_regex; none when the deadline came first (the engine's
 *        timeout follows).
 */
void fm_probe_finish_passed(struct fm_conn *conn, const char *reply, size_t len,
                            const char *detail);

/* http.c: the HTTP judge on conn->rx, shared by h2.c */

/*! \brief Judge the reply in conn->rx (\p eof: nothing more will come);
 *         \return true once the probe has its verdict */
bool fm_http_judge_conn(struct fm_conn *conn, bool eof);

/* tcp.c: the connection under every probe */

/*! \brief Open a socket to the next address and connect (FM_STEP_CONNECT). */
void fm_tcp_connect_next(struct fm_conn *conn, int last_errno);
/*! \brief The socket became writable while connecting: did it connect? */
void fm_tcp_connect_result(struct fm_conn *conn, uint32_t events);
/*!
 * \brief Send or receive on the plain socket or through TLS.
 * \return >0 bytes, 0 end of stream, -1 would block (the events to wait for
 *         are set), -2 error (errno or \p detail says why)
 */
ssize_t fm_conn_io(struct fm_conn *conn, bool writing, void *buf, size_t len,
                   char *detail, size_t detail_len);
/*!
 * \brief Send what is left of \p buf (from conn->sent); a send error or a
 *        closed connection finishes the probe (send failed).
 * \return true once all is out, false when it waits (the events to wait for
 *         are set) or the probe is finished
 */
bool fm_conn_send_rest(struct fm_conn *conn, char *buf, size_t len);
/*!
 * \brief Read what has come into the free room of conn->rx (kept
 *        NUL-terminated); a read error finishes the probe (read failed).
 * \return >0 bytes added, 0 end of stream, -1 would block or finished
 */
ssize_t fm_conn_read_rx(struct fm_conn *conn);

/* resolve_cache.c: host names and their addresses, kept for a bounded time */

/*! \brief How long an answer without a TTL is kept (also a TTL of 0:
 *         c-ares gives 0 for /etc/hosts answers). */
#define FM_RESOLVE_NO_TTL_S 10
/*! \brief The longest any answer is kept, whatever its TTL. */
#define FM_RESOLVE_MAX_TTL_S 300

/* One host name of the run's targets, shared by every target that names it. */
struct fm_resolve_entry {
    char *name;
    struct sockaddr_storage *addrs; /* port 0: each target sets its own */
    socklen_t *addr_lens;
    size_t n_addrs;                 /* 0: nothing usable is cached */
    uint64_t expires_us;            /* monotonic; usable while now < this */
    bool busy;                      /* a lookup is in flight */
    struct fm_conn *waiters;        /* conns waiting for that lookup */
};

struct fm_resolve_cache {
    struct fm_resolve_entry **entries;
    size_t n;
    size_t cap;
    unsigned long lookups;          /* lookups started, for the debug log */
};

/*! \brief The entry for \p name, added if new. \return NULL: out of memory */
struct fm_resolve_entry *fm_resolve_cache_add(struct fm_resolve_cache *cache, const char *name);
/*! \brief Whether the entry holds addresses usable at \p now_us. */
bool fm_resolve_cache_fresh(const struct fm_resolve_entry *entry, uint64_t now_us);
/*!
 * \brief Keep a successful answer.
 * \param[in] ttl_s  the answer's least TTL in seconds, <= 0 when none
 * \return 0 or ENOMEM (then nothing is cached)
 */
int fm_resolve_cache_store(struct fm_resolve_entry *entry, const struct sockaddr *const *addrs,
                           const socklen_t *lens, size_t n, int ttl_s, uint64_t now_us);
/*! \brief A failed lookup: drop what was cached (a failure is never cached). */
void fm_resolve_cache_fail(struct fm_resolve_entry *entry);
/*! \brief How long an answer with this TTL is kept, in microseconds. */
uint64_t fm_resolve_keep_us(int ttl_s);
void fm_resolve_cache_clear(struct fm_resolve_cache *cache);

/* resolve_nss.c: names that only an NSS module knows (getaddrinfo in a thread) */

#define FM_NSS_MAX_ADDRS 16
/*! \brief Whether a "hosts:" line of nsswitch.conf names a source other
 *         than files and dns (what c-ares reads). */
bool fm_nss_hosts_line_beyond_dns(const char *line);
/*! \brief The same of the file's (last) hosts line; false without one. */
bool fm_nss_hosts_beyond_dns(const char *path);
/*!
 * \brief Look \p name up with getaddrinfo() in a detached thread.
 * \param[out] fd_out  readable when the answer is there; give it to
 *                     fm_nss_lookup_finish(), or close it to abandon
 * \return 0 or an errno
 */
int fm_nss_lookup_start(const char *name, int *fd_out);
/*!
 * \brief Take the answer of a lookup whose fd is readable; closes the fd
 *        unless EAGAIN.
 * \param[out] addrs, lens  up to FM_NSS_MAX_ADDRS addresses (port 0)
 * \return 0, EAGAIN (not yet), ENOENT or EIO (\p why says why)
 */
int fm_nss_lookup_finish(int fd, struct sockaddr_storage *addrs, socklen_t *lens, size_t *n,
                         const char **why);

/* resolve.c: c-ares, its sockets in the engine's epoll */

/*! \brief A resolver whose sockets are entries of \p ev's set; \p ready
 *         (\p data) is called after it handled one of them. */
int fm_resolver_new(struct fm_resolver **out, struct fm_ev *ev, void (*ready)(void *data), void *data,
                    char *err, size_t err_len);
void fm_resolver_free(struct fm_resolver *resolver);
/*! \brief The entry for a target's host name. \return NULL: out of memory */
struct fm_resolve_entry *fm_resolver_entry(struct fm_resolver *resolver, const char *name);
/*! \brief Start a name target's probe: connect now if its name is cached,
 *         else wait for the name's lookup (started once for all its targets). */
void fm_resolve_conn(struct fm_conn *conn, uint64_t now_us);
/*! \brief The next cached address into conn->addr. \return false: none left */
bool fm_resolve_next_addr(struct fm_conn *conn);
/*! \brief No address left to try: the verdict, saying when ?family left none. */
void fm_resolve_no_more_addr(struct fm_conn *conn, int last_errno);
/*! \brief Do the resolver's timed work: c-ares's timeouts (a retry). */
void fm_resolver_process(struct fm_resolver *resolver);
/*! \brief Milliseconds until the resolver's next timeout, -1: none. */
int fm_resolver_wait_ms(struct fm_resolver *resolver);
/*! \brief Drop every lookup in flight (the cycle's deadline passed). */
void fm_resolver_cancel(struct fm_resolver *resolver);

/* tls.c: TLS as a layer under any TCP probe */
int fm_tls_ctx_new(const struct fm_probe_opts *opts, SSL_CTX **out, char *err, size_t err_len);
int fm_tls_conn_setup(struct fm_conn *conn);

/* tls_client.c: the client's certificate, versions and ALPN */

/*! \brief Apply tls_cert_file, tls_key_file, tls_min_version and tls_alpn to
 *         a new context. \return 0, or EINVAL/ENOMEM with err saying why */
int fm_tls_ctx_client_opts(SSL_CTX *ctx, const struct fm_probe_opts *opts, char *err,
                           size_t err_len);
/*! \brief After a handshake: whether the server agreed to an offered ALPN
 *         protocol (true when none was offered); if not, the verdict is given. */
bool fm_tls_alpn_agreed(struct fm_conn *conn);

void fm_tls_conn_close(struct fm_conn *conn);
/*! \brief Drive the handshake (FM_STEP_TLS); on success, the protocol's on_ready. */
void fm_tls_handshake(struct fm_conn *conn);
/*! \brief fm_conn_io() through the conn's TLS session. */
ssize_t fm_tls_io(struct fm_conn *conn, bool writing, void *buf, size_t len,
                  char *detail, size_t detail_len);
/*! \brief Whether a probe with its verdict should wait for a session ticket. */
bool fm_tls_wants_ticket(const struct fm_conn *conn);
/*! \brief Read what came while waiting for a ticket. \return true: wait no more */
bool fm_tls_read_ticket(struct fm_conn *conn);

/* tls_session.c: the sessions kept between cycles */

/*! \brief Give every TLS conn its session slot, shared by server:port. \return 0 or ENOMEM */
int fm_tls_sessions_new(struct fm_probe_run *run);
/*! \brief Free every session slot of the run. */
void fm_tls_sessions_free(struct fm_probe_run *run);
/*!
 * \brief Keep \p session in \p slot (as DER, without its peer certificate).
 * \return 0, ENOMEM, or EINVAL for a session that cannot be kept
 */
int fm_tls_session_keep(struct fm_tls_session *slot, SSL_SESSION *session);
/*! \brief A new SSL_SESSION from the slot, for SSL_set_session(); NULL if none. */
SSL_SESSION *fm_tls_session_load(const struct fm_tls_session *slot);
/*! \brief Drop what the slot keeps. */
void fm_tls_session_forget(struct fm_tls_session *slot);
/*! \brief A certificate's notAfter as UNIX time, 0 if none. */
int64_t fm_tls_cert_not_after(const X509 *cert);
/*!
 * \brief Copy an SSL_SESSION's DER without its peer certificate ([3]).
 * \param[out] out  may be \p der itself
 * \return the length written, 0 if \p der is not a DER it can read or
 *         \p out_len is too short
 */
size_t fm_tls_der_strip_peer(const unsigned char *der, size_t len, unsigned char *out,
                             size_t out_len);

#endif
