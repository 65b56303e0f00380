/*
 * faultmon: the probe engine.  Every target of a run is probed concurrently
 * on one epoll instance; one deadline, taken from a monotonic clock when the
 * run starts, bounds every step of every probe, so a server that trickles a
 * byte at a time is cut off at the deadline and never re-armed.
 */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/err.h>

#include <faultmon/http.h>
#include <faultmon/log.h>
#include "probe_int.h"

#define FM_EPOLL_BATCH 256
#define FM_RX_INITIAL_BYTES 1024
/* How long a finished TLS 1.3 probe may keep its connection open for the
 * session ticket that makes the next cycle's handshake cheap.  It delays no
 * verdict and no cycle: the wait goes on after the cycle is done, until the
 * ticket comes, this time passes, or the next cycle starts. */
#define FM_TICKET_WAIT_US 1000000

static void conn_advance(struct fm_conn *conn);

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

/* Server bytes in a detail string: printable ASCII only, so that logs and
 * JSON stay clean whatever a hostile server sends. */
static void
sanitize_into(char *dst, size_t dst_len, const char *src, size_t src_len)
{
    size_t j = 0;

    for (size_t i = 0; i < src_len && j + 4 < dst_len; i++) {
        unsigned char ch = (unsigned char) src[i];

        if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
            dst[j++] = (char) ch;
        } else {
            j += (size_t) snprintf(dst + j, dst_len - j, "\\x%02x", ch);
        }
    }
    dst[(j < dst_len)? j : dst_len - 1] = '\0';
}

static void
conn_watch(struct fm_conn *conn, uint32_t events)
{
    struct epoll_event ev = { .events = events, .data.ptr = conn };

    if (conn->watched_events == events) {
        return;
    }
    if (epoll_ctl(conn->run->epfd, (conn->watched_events == 0)? EPOLL_CTL_ADD : EPOLL_CTL_MOD,
                  conn->fd, &ev) == 0) {
        conn->watched_events = events;
    }
}

static void
conn_free_addrinfo(struct fm_conn *conn)
{
    if (!conn->literal && !conn->gai_busy && conn->gai.ar_result != NULL) {
        freeaddrinfo(conn->gai.ar_result);
        conn->gai.ar_result = NULL;
    }
    conn->ai_next = NULL;
}

/* Release everything of this cycle's probe; `abortive` resets the TCP
 * connection so that no TIME_WAIT is left on our side. */
static void
conn_close(struct fm_conn *conn, bool abortive)
{
    if (conn->ssl != NULL) {
        fm_tls_conn_close(conn);
    }
    if (conn->fd >= 0) {
        if (abortive) {
            struct linger lg = { .l_onoff = 1, .l_linger = 0 };

            setsockopt(conn->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
        }
        close(conn->fd);    /* also drops it from the epoll set */
        conn->fd = -1;
        conn->watched_events = 0;
    }
    free(conn->rx);
    conn->rx = NULL;
    conn->rx_len = conn->rx_cap = 0;
    conn->rx_final = 0;
    conn->interim = 0;
    conn_free_addrinfo(conn);
}

static void
log_failure(const struct fm_conn *conn)
{
    const struct fm_target *t = conn->target;
    const struct fm_result *r = conn->result;

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

/* After a TLS cycle, give OpenSSL's per-connection buffers (tens of KiB
 * each, all allocated at once when every target is probed together) back to
 * the system, so that memory between cycles stays proportional to the
 * targets, not to the peak of concurrent handshakes. */
static void
run_release_memory(struct fm_probe_run *run)
{
    if (run->ssl_ctx != NULL && run->pending == 0 && run->lingering == 0) {
        malloc_trim(0);
    }
}

/* Give the probe its verdict.  Every verdict goes through here. */
static void
conn_finish(struct fm_conn *conn, enum fm_reason reason, int sys_errno, const char *detail)
{
    struct fm_result *r = conn->result;
    bool linger_for_ticket = false;

    if (conn->step == FM_STEP_DONE || conn->step == FM_STEP_TICKET) {
        return;
    }
    r->reason = reason;
    r->sys_errno = sys_errno;
    r->latency_us = fm_deadline_elapsed_us(&conn->run->deadline, fm_now_us());
    if (detail != NULL) {
        snprintf(r->detail, sizeof(r->detail), "%s", detail);
    } else if (sys_errno != 0) {
        snprintf(r->detail, sizeof(r->detail), "%s", strerror(sys_errno));
    }
    if (reason != FM_REASON_OK) {
        log_failure(conn);
    }
    conn->run->pending--;

    /* TLS 1.3 sessions are single-use: each cycle needs the ticket that
     * the server sends after the handshake, which a handshake-only probe
     * would never read. */
    linger_for_ticket = (reason == FM_REASON_OK && conn->ssl != NULL
                         && conn->run->keep_sessions && !conn->got_ticket
                         && SSL_version(conn->ssl) >= TLS1_3_VERSION
                         && conn->fd >= 0);
    if (linger_for_ticket) {
        conn->step = FM_STEP_TICKET;
        conn->ticket_end_us = fm_now_us() + FM_TICKET_WAIT_US;
        conn->run->linger_end_us = conn->ticket_end_us;
        conn->run->lingering++;
        conn_watch(conn, EPOLLIN);
        return;
    }
    conn->step = FM_STEP_DONE;
    conn_close(conn, true);
    run_release_memory(conn->run);
}

static void
conn_finish_ticket(struct fm_conn *conn)
{
    conn->step = FM_STEP_DONE;
    conn->run->lingering--;
    conn_close(conn, true);
    run_release_memory(conn->run);
}

/* Whether the request sent is a HEAD, whose reply never has a body. */
static bool
conn_sent_head(const struct fm_conn *conn)
{
    const char *method = conn->run->opts->method;

    if (method != NULL) {
        return strcmp(method, "HEAD") == 0;
    }
    return conn->target->kind == FM_PROBE_HEAD;
}

static void
conn_finish_malformed(struct fm_conn *conn, const char *why, const char *at, size_t len)
{
    char detail[sizeof(conn->result->detail)];
    char shown[96];

    sanitize_into(shown, sizeof(shown), at, (len < 24)? len : 24);
    snprintf(detail, sizeof(detail), "malformed reply (%s): \"%s\"", why, shown);
    conn_finish(conn, FM_REASON_READ_MALFORMED, 0, detail);
}

/* Headers still incomplete: only the end of the stream or the read cap
 * decides now.  Returns true once the probe has its verdict. */
static bool
conn_judge_incomplete(struct fm_conn *conn, bool eof)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    char detail[sizeof(conn->result->detail)];

    if (eof) {
        if (conn->interim > 0) {
            snprintf(detail, sizeof(detail),
                     "connection closed after %u interim (1xx) replies, before a final one",
                     conn->interim);
        } else {
            snprintf(detail, sizeof(detail),
                     "connection closed after %zu bytes, before a complete reply", conn->rx_len);
        }
        conn_finish(conn, FM_REASON_READ_FAILED, 0, detail);
        return true;
    }
    if (conn->rx_len >= opts->max_reply_bytes) {
        if (conn->interim > 0) {
            snprintf(detail, sizeof(detail), "%u interim (1xx) replies and no final one within %zu bytes",
                     conn->interim, opts->max_reply_bytes);
        } else {
            snprintf(detail, sizeof(detail), "reply headers exceed %zu bytes", opts->max_reply_bytes);
        }
        conn_finish(conn, FM_REASON_READ_TOO_LARGE, 0, detail);
        return true;
    }
    return false;
}

/*
 * The body bytes the receive regex is to see, once enough has arrived:
 * the whole body or the first receive_window_bytes of it, whichever is
 * shorter (a chunked body is decoded in place first).  Returns false to
 * wait for more; on true, *data and *data_len are set, *truncated says
 * that the server closed before it sent what it announced, and *why is
 * set instead when the body is malformed.
 */
static bool
conn_body_ready(struct fm_conn *conn, const struct fm_http_reply *reply, bool eof,
                const char **data, size_t *data_len, bool *truncated, const char **why)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    char *body = conn->rx + conn->rx_final + reply->header_len;
    size_t body_len = conn->rx_len - conn->rx_final - reply->header_len;
    bool at_cap = (conn->rx_len >= opts->max_reply_bytes);
    bool complete = false;
    size_t have = 0;

    *why = NULL;
    *truncated = false;
    switch (fm_http_reply_framing(reply, conn_sent_head(conn))) {
        case FM_HTTP_BODY_NONE:
            complete = true;
            break;
        case FM_HTTP_BODY_LENGTH:
            have = (body_len < reply->content_length)? body_len : reply->content_length;
            complete = (have == reply->content_length);
            break;
        case FM_HTTP_BODY_CHUNKED: {
            enum fm_http_parse rc = fm_http_chunked(body, body_len, false, &have, why);

            if (rc == FM_HTTP_MALFORMED) {
                return true;
            }
            complete = (rc == FM_HTTP_BODY_DONE);
            break;
        }
        case FM_HTTP_BODY_CLOSE:
            have = body_len;
            complete = eof;
            break;
    }
    if (!complete && have < opts->receive_window_bytes && !eof && !at_cap) {
        return false;
    }
    /* A body cut short by the server is not the page; one cut by our own
     * read cap is judged on what was read, as the cap is ours to choose. */
    *truncated = (!complete && have < opts->receive_window_bytes && eof);
    if (fm_http_reply_framing(reply, conn_sent_head(conn)) == FM_HTTP_BODY_CHUNKED) {
        fm_http_chunked(body, body_len, true, &have, why);
        *why = NULL;    /* a malformed end was caught above or lies beyond */
    }
    *data = body;
    *data_len = (have < opts->receive_window_bytes)? have : opts->receive_window_bytes;
    return true;
}

/* The least time a match gets when the reply came just before the deadline,
 * so that a reply read in time is not lost to the cost of a fork. */
#define FM_MATCH_GRACE_MS 10

/*
 * regexec() within the run's deadline.  glibc's search is quadratic in the
 * subject for patterns as plain as "a.*b.*x" (9 s on 64 KiB of 'a') and a
 * call cannot be interrupted, so the match runs in a child process, killed
 * at the deadline; a pattern the guard accepts can still be slow, and the
 * server chooses the subject.  Returns 1 on a match, 0 on none, -1 when the
 * deadline came first.  When no child can be made, the match runs here, as
 * before: a shortage of processes must not pass for a failed service.
 */
static int
conn_regexec(struct fm_conn *conn, const char *data, size_t data_len)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    regmatch_t match = { .rm_so = 0, .rm_eo = (regoff_t) data_len };
    int fds[2] = { -1, -1 };
    pid_t pid = -1;
    pid_t parent = getpid();
    char answer = 0;
    int rc = -1;

    if (pipe2(fds, O_CLOEXEC) == 0) {
        pid = fork();
    }
    if (pid < 0) {
        if (fds[0] >= 0) {
            close(fds[0]);
            close(fds[1]);
        }
        /* REG_STARTEND: the body is not NUL-terminated and may hold NULs. */
        return (regexec(&opts->receive, data, 1, &match, REG_STARTEND) == 0)? 1 : 0;
    }
    if (pid == 0) {
        /* The child shares the parent's descriptors, the loop's lock among
         * them: it must not outlive the parent (whose death would leave it
         * holding the lock) nor the deadline by much. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
            _exit(1);
        }
        alarm(fm_deadline_wait_ms(&conn->run->deadline, fm_now_us()) / 1000 + 2);
        answer = (regexec(&opts->receive, data, 1, &match, REG_STARTEND) == 0)? 'y' : 'n';
        if (write(fds[1], &answer, 1) != 1) {
            _exit(1);
        }
        _exit(0);
    }
    close(fds[1]);
    for (;;) {
        struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
        int wait_ms = fm_deadline_wait_ms(&conn->run->deadline, fm_now_us());
        int n = poll(&pfd, 1, (wait_ms < FM_MATCH_GRACE_MS)? FM_MATCH_GRACE_MS : wait_ms);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n > 0 && read(fds[0], &answer, 1) == 1) {
            rc = (answer == 'y')? 1 : 0;
        }
        break;
    }
    close(fds[0]);
    if (rc < 0) {
        kill(pid, SIGKILL);
    }
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        continue;
    }
    return rc;
}

/* Judge what has been read; returns true once the probe has its verdict. */
static bool
conn_judge_reply(struct fm_conn *conn, bool eof)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    struct fm_http_reply reply;
    enum fm_http_parse parse = FM_HTTP_NEED_MORE;
    bool want_body = opts->have_receive && conn->target->kind == FM_PROBE_GET
                     && !conn_sent_head(conn);
    const char *data = NULL;
    size_t data_len = 0;
    bool truncated = false;
    char detail[sizeof(conn->result->detail)];

    /* Interim replies (100 Continue, 103 Early Hints...) say nothing about
     * the outcome: read on to the final one, within the read cap and the
     * deadline like any other bytes. */
    for (;;) {
        parse = fm_http_parse_reply(conn->rx + conn->rx_final, conn->rx_len - conn->rx_final, &reply);
        if (parse != FM_HTTP_INTERIM) {
            break;
        }
        conn->rx_final += reply.header_len;
        conn->interim++;
    }
    if (parse == FM_HTTP_MALFORMED) {
        conn_finish_malformed(conn, reply.why, conn->rx + conn->rx_final + reply.why_offset,
                              conn->rx_len - conn->rx_final - reply.why_offset);
        return true;
    }
    if (parse == FM_HTTP_NEED_MORE) {
        return conn_judge_incomplete(conn, eof);
    }

    conn->result->http_status = reply.status;
    /* The status is final once the headers are: a failing one needs no body. */
    if (!fm_status_set_has(fm_probe_opts_expect(opts, conn->target->kind), reply.status)) {
        snprintf(detail, sizeof(detail), "HTTP status %d is not an expected status", reply.status);
        conn_finish(conn, FM_REASON_STATUS, 0, detail);
        return true;
    }
    if (fm_http_reply_framing(&reply, conn_sent_head(conn)) == FM_HTTP_BODY_NONE
        && conn->rx_len > conn->rx_final + reply.header_len) {
        /* A body where none may be (a reply to HEAD, a 204 or 304): the
         * server answered another request than ours, or frames its replies
         * in a way we cannot follow. */
        conn_finish_malformed(conn, "a body where the reply may have none",
                              conn->rx + conn->rx_final + reply.header_len,
                              conn->rx_len - conn->rx_final - reply.header_len);
        return true;
    }
    if (want_body) {
        const char *why = NULL;

        if (!conn_body_ready(conn, &reply, eof, &data, &data_len, &truncated, &why)) {
            return false;
        }
        if (why != NULL) {
            conn_finish_malformed(conn, why, conn->rx + conn->rx_final + reply.header_len,
                                  conn->rx_len - conn->rx_final - reply.header_len);
            return true;
        }
    } else {
        data = conn->rx + conn->rx_final;
        data_len = reply.header_len;
    }
    if (opts->have_receive) {
        bool matched = false;
        int rc = 0;

        if (data_len > opts->receive_window_bytes) {
            data_len = opts->receive_window_bytes;
        }
        rc = conn_regexec(conn, data, data_len);
        if (rc < 0) {
            snprintf(detail, sizeof(detail), "matching '%s' against the reply did not end by the deadline",
                     opts->receive_text);
            conn_finish(conn, FM_REASON_READ_TIMEOUT, 0, detail);
            return true;
        }
        matched = (rc == 1);
        if (matched && opts->reverse) {
            snprintf(detail, sizeof(detail), "reply matches '%s' (reverse mode)", opts->receive_text);
            conn_finish(conn, FM_REASON_CONTENT_REVERSE, 0, detail);
            return true;
        }
        if (!matched && !opts->reverse) {
            snprintf(detail, sizeof(detail), "reply does not match '%s'", opts->receive_text);
            conn_finish(conn, FM_REASON_CONTENT_MISMATCH, 0, detail);
            return true;
        }
    }
    if (truncated) {
        snprintf(detail, sizeof(detail), "connection closed after %zu body bytes, before the end of the body",
                 data_len);
        conn_finish(conn, FM_REASON_READ_FAILED, 0, detail);
        return true;
    }
    snprintf(detail, sizeof(detail), "HTTP %d%s", reply.status,
             (conn->ssl != NULL && SSL_session_reused(conn->ssl))? " (resumed)" : "");
    conn_finish(conn, FM_REASON_OK, 0, detail);
    return true;
}

/* I/O through TLS or the plain socket: >0 bytes, 0 EOF, -1 would block
 * (events set), -2 error (errno or detail set). */
static ssize_t
conn_io(struct fm_conn *conn, bool writing, void *buf, size_t len, char *detail, size_t detail_len)
{
    if (conn->ssl == NULL) {
        ssize_t n = writing? send(conn->fd, buf, len, MSG_NOSIGNAL) : recv(conn->fd, buf, len, 0);

        if (n >= 0) {
            return n;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            conn_watch(conn, writing? EPOLLOUT : EPOLLIN);
            return -1;
        }
        snprintf(detail, detail_len, "%s", strerror(errno));
        return -2;
    }

    ERR_clear_error();
    {
        int n = writing? SSL_write(conn->ssl, buf, (int) len) : SSL_read(conn->ssl, buf, (int) len);
        int err = 0;

        if (n > 0) {
            return n;
        }
        err = SSL_get_error(conn->ssl, n);
        switch (err) {
            case SSL_ERROR_WANT_READ:
                conn_watch(conn, EPOLLIN);
                return -1;
            case SSL_ERROR_WANT_WRITE:
                conn_watch(conn, EPOLLOUT);
                return -1;
            case SSL_ERROR_ZERO_RETURN:
                return 0;
            case SSL_ERROR_SYSCALL:
                if (ERR_peek_error() == 0 && errno == 0) {
                    return 0;   /* EOF without close_notify */
                }
                snprintf(detail, detail_len, "%s", (errno != 0)? strerror(errno) : "TLS I/O error");
                return -2;
            default:
                snprintf(detail, detail_len, "TLS: %s", ERR_reason_error_string(ERR_peek_error())
                         ? ERR_reason_error_string(ERR_peek_error()) : "error");
                return -2;
        }
    }
}

static void
conn_send(struct fm_conn *conn)
{
    char detail[sizeof(conn->result->detail)] = "";

    while (conn->sent < conn->target->request_len) {
        ssize_t n = 0;

        errno = 0;
        n = conn_io(conn, true, conn->target->request + conn->sent,
                    conn->target->request_len - conn->sent, detail, sizeof(detail));
        if (n == -1) {
            return;
        }
        if (n <= 0) {
            conn_finish(conn, FM_REASON_SEND_FAILED, errno,
                        (detail[0] != '\0')? detail : "connection closed while sending");
            return;
        }
        conn->sent += (size_t) n;
    }
    conn->step = FM_STEP_READ;
    conn_advance(conn);
}

static void
conn_read(struct fm_conn *conn)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    char detail[sizeof(conn->result->detail)] = "";

    for (;;) {
        ssize_t n = 0;

        if (conn->rx_len == conn->rx_cap) {
            size_t cap = (conn->rx_cap == 0)? FM_RX_INITIAL_BYTES : conn->rx_cap * 2;
            char *grown = NULL;

            if (cap > opts->max_reply_bytes) {
                cap = opts->max_reply_bytes;
            }
            if (cap <= conn->rx_len) {
                /* The cap is reached and the reply is still not judged. */
                conn_judge_reply(conn, false);
                if (conn->step != FM_STEP_DONE && conn->step != FM_STEP_TICKET) {
                    conn_finish(conn, FM_REASON_READ_TOO_LARGE, 0, "reply exceeds the read cap");
                }
                return;
            }
            /* One spare byte keeps the buffer NUL-terminated: regexec()
             * gets REG_STARTEND, but sanitizers' wrappers still strlen(). */
            grown = realloc(conn->rx, cap + 1);
            if (grown == NULL) {
                conn_finish(conn, FM_REASON_READ_FAILED, ENOMEM, NULL);
                return;
            }
            conn->rx = grown;
            conn->rx_cap = cap;
        }
        errno = 0;
        n = conn_io(conn, false, conn->rx + conn->rx_len, conn->rx_cap - conn->rx_len,
                    detail, sizeof(detail));
        if (n == -1) {
            return;
        }
        if (n == -2) {
            conn_finish(conn, FM_REASON_READ_FAILED, errno, detail);
            return;
        }
        if (n == 0) {
            conn_judge_reply(conn, true);
            return;
        }
        conn->rx_len += (size_t) n;
        conn->rx[conn->rx_len] = '\0';
        if (conn_judge_reply(conn, false)) {
            return;
        }
    }
}

static void
conn_tls_handshake(struct fm_conn *conn)
{
    int rc = 0;
    int err = 0;
    char detail[sizeof(conn->result->detail)];

    ERR_clear_error();
    errno = 0;
    rc = SSL_connect(conn->ssl);
    if (rc == 1) {
        fm_tls_note_peer(conn);
        if (conn->target->send_request) {
            conn->step = FM_STEP_SEND;
            conn_advance(conn);
        } else {
            snprintf(detail, sizeof(detail), "%s handshake%s", SSL_get_version(conn->ssl),
                     SSL_session_reused(conn->ssl)? " (resumed)" : "");
            conn_finish(conn, FM_REASON_OK, 0, detail);
        }
        return;
    }
    err = SSL_get_error(conn->ssl, rc);
    if (err == SSL_ERROR_WANT_READ) {
        conn_watch(conn, EPOLLIN);
        return;
    }
    if (err == SSL_ERROR_WANT_WRITE) {
        conn_watch(conn, EPOLLOUT);
        return;
    }
    if (SSL_get_verify_result(conn->ssl) != X509_V_OK) {
        snprintf(detail, sizeof(detail), "TLS certificate: %s",
                 X509_verify_cert_error_string(SSL_get_verify_result(conn->ssl)));
        conn_finish(conn, FM_REASON_TLS_VERIFY, 0, detail);
        return;
    }
    if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
        snprintf(detail, sizeof(detail), "TLS handshake: %s",
                 (errno != 0)? strerror(errno) : "connection closed by server");
    } else {
        const char *why = ERR_reason_error_string(ERR_peek_error());

        snprintf(detail, sizeof(detail), "TLS handshake: %s", (why != NULL)? why : "failed");
    }
    conn_finish(conn, FM_REASON_TLS_FAILED, errno, detail);
}

static void
conn_connected(struct fm_conn *conn)
{
    conn_free_addrinfo(conn);
    if (conn->target->use_tls) {
        if (fm_tls_conn_setup(conn) != 0) {
            conn_finish(conn, FM_REASON_TLS_FAILED, ENOMEM, "cannot set up TLS");
            return;
        }
        conn->step = FM_STEP_TLS;
    } else if (conn->target->send_request) {
        conn->step = FM_STEP_SEND;
    } else {
        conn_finish(conn, FM_REASON_OK, 0, "connected");
        return;
    }
    conn_advance(conn);
}

static void
conn_connect_next(struct fm_conn *conn, int last_errno)
{
    int fd = -1;
    int one = 1;
    const struct sockaddr *sa = (const struct sockaddr *) &conn->addr;
    socklen_t sa_len = conn->addr_len;

    if (!conn->literal) {
        if (conn->ai_next == NULL) {
            conn_finish(conn, FM_REASON_CONNECT_FAILED, last_errno, NULL);
            return;
        }
        sa = conn->ai_next->ai_addr;
        sa_len = conn->ai_next->ai_addrlen;
        conn->ai_next = conn->ai_next->ai_next;
    }
    fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (fd < 0) {
        conn_finish(conn, FM_REASON_CONNECT_FAILED, errno, NULL);
        return;
    }
    /* Without TCP_NODELAY, Nagle and delayed ACKs cost tens of ms per TLS
     * resumption (see shared notes on performance). */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    conn->fd = fd;
    conn->step = FM_STEP_CONNECT;
    if (connect(fd, sa, sa_len) == 0) {
        conn_connected(conn);
        return;
    }
    if (errno == EINPROGRESS) {
        conn_watch(conn, EPOLLOUT);
        return;
    }
    {
        int err = errno;

        close(fd);
        conn->fd = -1;
        conn->watched_events = 0;
        if (!conn->literal && conn->ai_next != NULL) {
            conn_connect_next(conn, err);
        } else {
            conn_finish(conn, FM_REASON_CONNECT_FAILED, err, NULL);
        }
    }
}

static void
conn_connect_result(struct fm_conn *conn)
{
    int err = 0;
    socklen_t len = sizeof(err);

    if (getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
    }
    if (err == 0) {
        conn_connected(conn);
        return;
    }
    close(conn->fd);
    conn->fd = -1;
    conn->watched_events = 0;
    if (!conn->literal && conn->ai_next != NULL) {
        conn_connect_next(conn, err);
    } else {
        conn_finish(conn, FM_REASON_CONNECT_FAILED, err, NULL);
    }
}

static void
conn_advance(struct fm_conn *conn)
{
    switch (conn->step) {
        case FM_STEP_CONNECT: conn_connect_result(conn); break;
        case FM_STEP_TLS:     conn_tls_handshake(conn); break;
        case FM_STEP_SEND:    conn_send(conn); break;
        case FM_STEP_READ:    conn_read(conn); break;
        default: break;
    }
}

/* Runs in a glibc resolver thread: only hand the conn back to the loop. */
static void
gai_notify(union sigval value)
{
    struct fm_conn *conn = value.sival_ptr;
    uint32_t index = (uint32_t) (conn - conn->run->conns);
    ssize_t rc = write(conn->run->gai_pipe[1], &index, sizeof(index));

    (void) rc;
}

static void
conn_resolve(struct fm_conn *conn)
{
    conn->step = FM_STEP_RESOLVE;
    if (conn->gai_busy) {
        return;     /* last cycle's lookup is still running: wait for it */
    }
    memset(&conn->gai, 0, sizeof(conn->gai));
    conn->gai.ar_name = conn->target->host;
    conn->gai.ar_service = conn->port_text;
    conn->gai.ar_request = &conn->gai_hints;
    conn->gai_list[0] = &conn->gai;
    conn->gai_busy = true;
    conn->run->gai_in_flight = true;
    if (getaddrinfo_a(GAI_NOWAIT, conn->gai_list, 1, &conn->gai_event) != 0) {
        conn->gai_busy = false;
        conn_finish(conn, FM_REASON_RESOLVE_FAILED, 0, "cannot start name resolution");
    }
}

static void
gai_collect(struct fm_probe_run *run)
{
    uint32_t index = 0;

    while (read(run->gai_pipe[0], &index, sizeof(index)) == (ssize_t) sizeof(index)) {
        struct fm_conn *conn = NULL;
        int rc = 0;

        if (index >= run->n) {
            continue;
        }
        conn = &run->conns[index];
        conn->gai_busy = false;
        rc = gai_error(&conn->gai);
        if (conn->step != FM_STEP_RESOLVE) {
            conn_free_addrinfo(conn);   /* a late answer for a finished cycle */
            continue;
        }
        if (rc != 0) {
            char detail[sizeof(conn->result->detail)];

            snprintf(detail, sizeof(detail), "cannot resolve %s: %s", conn->target->host,
                     gai_strerror(rc));
            conn_finish(conn, FM_REASON_RESOLVE_FAILED, 0, detail);
            continue;
        }
        conn->ai_next = conn->gai.ar_result;
        conn_connect_next(conn, EHOSTUNREACH);
    }
}

static int
conn_init(struct fm_probe_run *run, struct fm_conn *conn, struct fm_target *target,
          struct fm_result *result)
{
    struct sockaddr_in *in4 = (struct sockaddr_in *) &conn->addr;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &conn->addr;

    conn->run = run;
    conn->target = target;
    conn->result = result;
    conn->fd = -1;
    memset(&conn->addr, 0, sizeof(conn->addr));
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
        snprintf(conn->port_text, sizeof(conn->port_text), "%u", (unsigned) target->port);
        conn->gai_hints.ai_family = AF_UNSPEC;
        conn->gai_hints.ai_socktype = SOCK_STREAM;
        conn->gai_hints.ai_protocol = IPPROTO_TCP;
        conn->gai_event.sigev_notify = SIGEV_THREAD;
        conn->gai_event.sigev_notify_function = gai_notify;
        conn->gai_event.sigev_value.sival_ptr = conn;
    }
    return 0;
}

/* Every target holds a socket during a cycle: make sure the process may
 * open them all, or running out of descriptors would look like a failed
 * service (the soft limit is often 1024, the hard one far higher). */
static int
run_reserve_fds(size_t n, char *err, size_t err_len)
{
    struct rlimit lim;
    rlim_t want = (rlim_t) n + 64;

    if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= want) {
        return 0;
    }
    if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < want) {
        snprintf(err, err_len, "%zu targets need %llu file descriptors, but the limit is %llu",
                 n, (unsigned long long) want, (unsigned long long) lim.rlim_max);
        return EMFILE;
    }
    lim.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
        snprintf(err, err_len, "cannot raise the file descriptor limit to %llu: %s",
                 (unsigned long long) want, strerror(errno));
        return errno;
    }
    return 0;
}

int
fm_probe_run_new(struct fm_target *targets, size_t n, const struct fm_probe_opts *opts,
                 struct fm_probe_run **out, char *err, size_t err_len)
{
    struct fm_probe_run *run = calloc(1, sizeof(*run));
    bool need_tls = false;
    int rc = 0;

    *out = NULL;
    if (run == NULL) {
        return ENOMEM;
    }
    rc = run_reserve_fds(n, err, err_len);
    if (rc != 0) {
        free(run);
        return rc;
    }
    run->opts = opts;
    run->n = n;
    run->epfd = -1;
    run->gai_pipe[0] = run->gai_pipe[1] = -1;
    run->conns = calloc(n, sizeof(*run->conns));
    run->results = calloc(n, sizeof(*run->results));
    if (run->conns == NULL || run->results == NULL) {
        fm_probe_run_free(run);
        return ENOMEM;
    }
    run->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (run->epfd < 0 || pipe2(run->gai_pipe, O_NONBLOCK | O_CLOEXEC) != 0) {
        rc = errno;
        snprintf(err, err_len, "cannot create the event loop: %s", strerror(rc));
        fm_probe_run_free(run);
        return rc;
    }
    {
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

        epoll_ctl(run->epfd, EPOLL_CTL_ADD, run->gai_pipe[0], &ev);
    }
    for (size_t i = 0; i < n; i++) {
        conn_init(run, &run->conns[i], &targets[i], &run->results[i]);
        run->results[i].target = &targets[i];
        need_tls = need_tls || targets[i].use_tls;
    }
    if (need_tls) {
        rc = fm_tls_ctx_new(opts, &run->ssl_ctx, err, err_len);
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
    for (size_t i = 0; i < run->n && run->conns != NULL; i++) {
        struct fm_conn *conn = &run->conns[i];

        if (conn->gai_busy) {
            /* A resolver thread still holds this conn and will write to our
             * pipe: cancel, and if the lookup cannot be cancelled, leave the
             * engine allocated rather than let the thread touch freed memory. */
            if (gai_cancel(&conn->gai) != EAI_CANCELED) {
                return;
            }
            conn->gai_busy = false;
        }
    }
    for (size_t i = 0; i < run->n && run->conns != NULL; i++) {
        struct fm_conn *conn = &run->conns[i];

        conn_close(conn, true);
        if (conn->session != NULL) {
            SSL_SESSION_free(conn->session);
        }
    }
    if (run->ssl_ctx != NULL) {
        SSL_CTX_free(run->ssl_ctx);
    }
    if (run->epfd >= 0) {
        close(run->epfd);
    }
    for (int i = 0; i < 2; i++) {
        if (run->gai_pipe[i] >= 0) {
            close(run->gai_pipe[i]);
        }
    }
    free(run->conns);
    free(run->results);
    free(run);
}

int
fm_probe_run_start(struct fm_probe_run *run, uint64_t now_us)
{
    /* A conn still waiting for a ticket from the last cycle gives up now. */
    for (size_t i = 0; i < run->n && run->lingering > 0; i++) {
        if (run->conns[i].step == FM_STEP_TICKET) {
            conn_finish_ticket(&run->conns[i]);
        }
    }
    fm_deadline_init(&run->deadline, now_us, run->opts->timeout_ms);
    run->pending = run->n;
    for (size_t i = 0; i < run->n; i++) {
        struct fm_conn *conn = &run->conns[i];
        struct fm_result *r = conn->result;

        r->reason = FM_REASON_OK;
        r->http_status = 0;
        r->sys_errno = 0;
        r->latency_us = 0;
        r->detail[0] = '\0';
        conn->sent = 0;
        conn->got_ticket = false;
        conn->step = FM_STEP_IDLE;
        if (conn->literal) {
            conn_connect_next(conn, 0);
        } else {
            conn_resolve(conn);
        }
    }
    return 0;
}

static void
run_expire(struct fm_probe_run *run, uint64_t now_us)
{
    if (run->lingering > 0) {
        for (size_t i = 0; i < run->n; i++) {
            struct fm_conn *conn = &run->conns[i];

            if (conn->step == FM_STEP_TICKET && now_us >= conn->ticket_end_us) {
                conn_finish_ticket(conn);
            }
        }
    }
    if (run->pending == 0 || !fm_deadline_expired(&run->deadline, now_us)) {
        return;
    }
    for (size_t i = 0; i < run->n; i++) {
        struct fm_conn *conn = &run->conns[i];
        char detail[sizeof(conn->result->detail)];

        if (conn->step == FM_STEP_DONE || conn->step == FM_STEP_TICKET) {
            continue;
        }
        snprintf(detail, sizeof(detail), "no answer within Probe_timeout %llu ms%s",
                 (unsigned long long) run->opts->timeout_ms,
                 (conn->step != FM_STEP_READ || conn->rx_len == 0)? ""
                 : (conn->interim > 0)? " (no final reply after interim 1xx replies)" : " (reply incomplete)");
        conn_finish(conn, step_timeout_reason(conn->step), 0, detail);
    }
}

bool
fm_probe_run_dispatch(struct fm_probe_run *run, uint64_t now_us)
{
    struct epoll_event events[FM_EPOLL_BATCH];
    int n = 0;

    do {
        n = epoll_wait(run->epfd, events, FM_EPOLL_BATCH, 0);
        for (int i = 0; i < n; i++) {
            struct fm_conn *conn = events[i].data.ptr;

            if (conn == NULL) {
                gai_collect(run);
            } else if (conn->step == FM_STEP_TICKET) {
                char byte = 0;
                int rc = SSL_read(conn->ssl, &byte, 1);

                /* Reading processes the session ticket (see probe_tls.c). */
                if (rc <= 0 && SSL_get_error(conn->ssl, rc) == SSL_ERROR_WANT_READ
                    && !conn->got_ticket) {
                    continue;
                }
                conn_finish_ticket(conn);
            } else if (conn->step != FM_STEP_DONE && conn->fd >= 0) {
                conn_advance(conn);
            }
        }
    } while (n == FM_EPOLL_BATCH);
    run_expire(run, (now_us > 0)? now_us : fm_now_us());
    return fm_probe_run_done(run);
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

int
fm_probe_run_wait_ms(const struct fm_probe_run *run, uint64_t now_us)
{
    int wait_ms = (run->pending > 0)? fm_deadline_wait_ms(&run->deadline, now_us) : -1;

    if (run->lingering > 0) {
        /* Wake when the last ticket wait ends; earlier ones end with it. */
        int linger_ms = (now_us >= run->linger_end_us)? 0
                        : (int) ((run->linger_end_us - now_us + 999) / 1000);

        if (wait_ms < 0 || linger_ms < wait_ms) {
            wait_ms = linger_ms;
        }
    }
    return wait_ms;
}

int
fm_probe_run_idle_until(struct fm_probe_run *run, uint64_t until_us)
{
    for (uint64_t now_us = fm_now_us(); now_us < until_us; now_us = fm_now_us()) {
        struct epoll_event ev;
        int wait_ms = fm_probe_run_wait_ms(run, now_us);
        int until_ms = (int) ((until_us - now_us + 999) / 1000);

        if (wait_ms < 0 || wait_ms > until_ms) {
            wait_ms = until_ms;
        }
        if (epoll_wait(run->epfd, &ev, 1, wait_ms) < 0 && errno != EINTR) {
            return errno;
        }
        fm_probe_run_dispatch(run, fm_now_us());
    }
    return 0;
}

int
fm_probe_run_blocking(struct fm_probe_run *run)
{
    int rc = fm_probe_run_start(run, fm_now_us());

    if (rc != 0) {
        return rc;
    }
    while (!fm_probe_run_dispatch(run, fm_now_us())) {
        struct epoll_event ev;
        int wait_ms = fm_probe_run_wait_ms(run, fm_now_us());

        /* Only to sleep until something is ready: dispatch does the work. */
        if (epoll_wait(run->epfd, &ev, 1, wait_ms) < 0 && errno != EINTR) {
            return errno;
        }
    }
    return 0;
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
