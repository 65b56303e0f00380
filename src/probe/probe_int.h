/*
 * faultmon: internals shared by the probe engine's files (not installed).
 */
#ifndef FAULTMON_PROBE_INT_H
#define FAULTMON_PROBE_INT_H

#include <netdb.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <openssl/ssl.h>

#include <faultmon/deadline.h>
#include <faultmon/probe.h>

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

/* One target's probe; allocated once per engine and reused every cycle. */
struct fm_conn {
    struct fm_probe_run *run;
    struct fm_target *target;
    struct fm_result *result;
    enum fm_step step;
    int fd;
    uint32_t watched_events;        /* registered with epoll; 0: not yet */
    SSL *ssl;
    SSL_SESSION *session;           /* kept across cycles for resumption */
    bool got_ticket;                /* a new session arrived this cycle */
    size_t sent;
    char *rx;                       /* reply bytes, only while reading */
    size_t rx_len;
    size_t rx_cap;
    size_t rx_final;                /* where the final response starts, after
                                     * interim 1xx responses */
    unsigned interim;               /* interim responses skipped */
    uint64_t ticket_end_us;

    /* Address: fixed for literals, resolved every cycle for names. */
    bool literal;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    struct addrinfo *ai_next;       /* next resolved address to try */
    bool gai_busy;                  /* a lookup is in flight (may outlive a cycle) */
    struct gaicb gai;
    struct gaicb *gai_list[1];
    struct addrinfo gai_hints;
    struct sigevent gai_event;
    char port_text[8];
};

struct fm_probe_run {
    const struct fm_probe_opts *opts;
    struct fm_conn *conns;
    struct fm_result *results;
    size_t n;
    size_t pending;                 /* conns without a verdict this cycle */
    size_t lingering;               /* conns in FM_STEP_TICKET */
    uint64_t linger_end_us;         /* when the newest ticket wait ends */
    int epfd;
    int gai_pipe[2];                /* resolver threads write conn indexes here */
    bool gai_in_flight;             /* some lookup may still call us back */
    SSL_CTX *ssl_ctx;
    struct fm_deadline deadline;
    bool keep_sessions;
};

/* probe_tls.c */
int fm_tls_ctx_new(const struct fm_probe_opts *opts, SSL_CTX **out, char *err, size_t err_len);
int fm_tls_conn_setup(struct fm_conn *conn);
void fm_tls_conn_close(struct fm_conn *conn);
void fm_tls_note_peer(struct fm_conn *conn);

#endif
