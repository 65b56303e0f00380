/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the HTTP probe (http://, https:// with tls_request, and every
 * Monitor_Uri_List URI): build the request once, when the engine is made;
 * send it, read the reply within the read cap, and have fm_http_judge()
 * (http_judge.c) judge it after every read.  The reply is parsed by
 * http_parse.c.
 */
#include <config.h>

#include <faultmon/http.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <faultmon/log.h>
#include <faultmon/probe_opts.h>
#include <faultmon/regex_linear.h>
#include <faultmon/text.h>
#include "probe_int.h"

#define FM_RX_INITIAL_BYTES 1024
#define FM_USER_AGENT "faultmon/" PACKAGE_VERSION

static bool
has_header(const struct fm_probe_opts *opts, const char *name)
{
    size_t len = strlen(name);

    for (size_t i = 0; i < opts->n_headers; i++) {
        if (strncasecmp(opts->headers[i], name, len) == 0 && opts->headers[i][len] == ':') {
            return true;
        }
    }
    return false;
}

/* The Basic credentials of a URI's user:password.  Returns 0 or ENOMEM. */
static int
put_authorization(FILE *out, const char *userinfo)
{
    size_t raw_len = strlen(userinfo);
    size_t b64_size = FM_BASE64_SIZE(raw_len);
    char *b64 = calloc(b64_size, 1);

    if (b64 == NULL) {
        return ENOMEM;
    }
    (void) fm_base64_encode(userinfo, raw_len, b64, b64_size);
    fprintf(out, "Authorization: Basic %s\r\n", b64);
    explicit_bzero(b64, b64_size);
    free(b64);
    return 0;
}

/* The request line and headers.  Returns 0 or ENOMEM. */
static int
put_request(FILE *out, const struct fm_target *target, const struct fm_probe_opts *opts)
{
    bool is_get = (target->kind == FM_PROBE_GET);
    bool default_port = (target->scheme == FM_SCHEME_HTTP && target->port == 80)
                        || (target->scheme == FM_SCHEME_HTTPS && target->port == 443);
    bool v6 = (strchr(target->host, ':') != NULL);
    const char *method = (opts->method != NULL)? opts->method : (is_get? "GET" : "HEAD");

    /* HEAD is HTTP/1.0 as the seed says; its Host header costs nothing and
     * name-based virtual hosts (and Apache over TLS with SNI) need it. */
    fprintf(out, "%s %s HTTP/1.%d\r\n", method, target->path, is_get? 1 : 0);
    if (!has_header(opts, "Host")) {
        fprintf(out, "Host: %s%s%s", v6? "[" : "", target->host, v6? "]" : "");
        if (!default_port) {
            fprintf(out, ":%u", (unsigned) target->port);
        }
        fputs("\r\n", out);
    }
    if (!has_header(opts, "User-Agent")) {
        fputs("User-Agent: " FM_USER_AGENT "\r\n", out);
    }
    if (target->userinfo != NULL && !has_header(opts, "Authorization")
        && put_authorization(out, target->userinfo) != 0) {
        return ENOMEM;
    }
    if (is_get && !has_header(opts, "Accept")) {
        fputs("Accept: */*\r\n", out);
    }
    fputs("Connection: close\r\n", out);
    for (size_t i = 0; i < opts->n_headers; i++) {
        fprintf(out, "%s\r\n", opts->headers[i]);
    }
    fputs("\r\n", out);
    return 0;
}

int
fm_http_build_request(struct fm_target *target, const struct fm_probe_opts *opts)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = NULL;
    int rc = 0;

    free(target->request);
    target->request = NULL;
    target->request_len = 0;
    target->send_request = (target->kind == FM_PROBE_HEAD || target->kind == FM_PROBE_GET);
    if (target->scheme == FM_SCHEME_HTTPS && target->kind == FM_PROBE_HEAD) {
        /* The seed's secure-server probe is a connect only; the request is
         * an option. */
        target->send_request = opts->tls_request;
        if (!opts->tls_request) {
            target->kind = FM_PROBE_TLS_CONNECT;
        }
    }
    if (!target->send_request) {
        return 0;
    }
    out = open_memstream(&buf, &len);
    if (out == NULL) {
        return ENOMEM;
    }
    rc = put_request(out, target, opts);
    if (fclose(out) != 0 || rc != 0) {
        if (buf != NULL) {
            explicit_bzero(buf, len);
        }
        free(buf);
        return ENOMEM;
    }
    target->request = buf;
    target->request_len = len;
    return 0;
}

/* Whether the request sent is a HEAD, whose reply never has a body. */
static bool
http_sent_head(const struct fm_conn *conn)
{
    const char *method = conn->run->opts->method;

    if (method != NULL) {
        return strcmp(method, "HEAD") == 0;
    }
    return conn->target->kind == FM_PROBE_HEAD;
}

/* An fm_http_match_fn: a regex on the reply, within the deadline (match.c). */
static int
http_match(void *ctx, const regex_t *re, const char *data, size_t len)
{
    struct fm_conn *conn = ctx;

    if (conn->run->opts->body_sink != NULL && re == &conn->run->opts->receive) {
        conn->run->opts->body_sink(conn->run->opts->body_sink_ctx, data, len);
    }
    /* A receive pattern an automaton decides is searched here, in time
     * linear in the subject, with the answer regexec() would give: no child
     * needed.  So is the maintenance regex, asked of every reply that passed. */
    if (re == &conn->run->opts->receive && conn->run->opts->have_receive_linear) {
        return fm_regex_linear_search(&conn->run->opts->receive_linear, data, len)? 1 : 0;
    }
    if (re == &conn->run->opts->maintenance_regex) {
        return fm_probe_match_maintenance(conn, data, len);
    }
    return fm_probe_match(conn, re, data, len);
}

/*
 * A reply that curl, wget and HAProxy accept though it deviates from RFC
 * 9112 (doc/reference/http-replies.md) is judged by its status and
 * expectations; the deviation is in the detail of every such verdict, and
 * logged once per target and episode: again only after a reply without one,
 * or a failure, so that a loop probing every few seconds does not repeat it.
 */
static void
http_note_deviation(struct fm_conn *conn, struct fm_http_verdict *verdict)
{
    size_t used = strlen(verdict->detail);

    if (verdict->deviation == NULL || fm_reason_class(verdict->reason) != FM_CLASS_OK) {
        conn->deviation_noted = false;
        return;
    }
    snprintf(verdict->detail + used, sizeof(verdict->detail) - used, " (accepted: %s)",
             verdict->deviation);
    if (!conn->deviation_noted) {
        fm_log_warn("Reply of %s deviates from HTTP/1.1: %s; accepted as curl, wget and "
                    "HAProxy accept it, and judged by its status", conn->target->text,
                    verdict->deviation);
        conn->deviation_noted = true;
    }
}

/* Judge what has been read; returns true once the probe has its verdict. */
bool
fm_http_judge_conn(struct fm_conn *conn, bool eof)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    bool head = http_sent_head(conn);
    struct fm_http_check check = {
        .expect = fm_probe_opts_expect(opts, conn->target->kind),
        .head_request = head,
        .want_body = (opts->have_receive || opts->have_maintenance_regex)
                     && (conn->target->kind == FM_PROBE_GET || conn->target->kind == FM_PROBE_H2)
                     && !head,
        .max_reply_bytes = opts->max_reply_bytes,
        .receive_window_bytes = opts->receive_window_bytes,
        .match = http_match,
        .match_ctx = conn,
        .receive = opts->have_receive? &opts->receive : NULL,
        .maintenance_status = opts->have_maintenance_status? &opts->maintenance_status : NULL,
        .maintenance_header = opts->maintenance_header,
        .maintenance_re = opts->have_maintenance_regex? &opts->maintenance_regex : NULL,
        .maintenance_text = opts->maintenance_text,
        .receive_text = opts->receive_text,
        .reverse = opts->reverse,
    };
    struct fm_http_rx rx = {
        .buf = conn->rx, .len = conn->rx_len, .final_at = conn->rx_final, .interim = conn->interim,
    };
    struct fm_http_verdict verdict;
    bool judged = fm_http_judge(&check, &rx, eof, &verdict);

    conn->rx_final = rx.final_at;
    conn->interim = rx.interim;
    if (verdict.http_status != 0) {
        conn->result->http_status = verdict.http_status;
    }
    if (!judged) {
        return false;
    }
    if (verdict.reason == FM_REASON_OK && conn->ssl != NULL && SSL_session_reused(conn->ssl)) {
        size_t used = strlen(verdict.detail);

        snprintf(verdict.detail + used, sizeof(verdict.detail) - used, " (resumed)");
    }
    http_note_deviation(conn, &verdict);
    fm_conn_finish(conn, verdict.reason, 0, verdict.detail);
    return true;
}

static void
http_send(struct fm_conn *conn)
{
    if (fm_conn_send_rest(conn, conn->target->request, conn->target->request_len)) {
        fm_conn_step(conn, FM_STEP_READ);
    }
}

/* Make room for more of the reply.  Returns false once the probe has its
 * verdict (the cap is reached, or no memory). */
static bool
http_rx_grow(struct fm_conn *conn)
{
    size_t cap = (conn->rx_cap == 0)? FM_RX_INITIAL_BYTES : conn->rx_cap * 2;
    char *grown = NULL;

    if (cap > conn->run->opts->max_reply_bytes) {
        cap = conn->run->opts->max_reply_bytes;
    }
    if (cap <= conn->rx_len) {
        /* The cap is reached and the reply is still not judged. */
        fm_http_judge_conn(conn, false);
        if (!fm_conn_judged(conn)) {
            fm_conn_finish(conn, FM_REASON_READ_TOO_LARGE, 0, "reply exceeds the read cap");
        }
        return false;
    }
    /* One spare byte keeps the buffer NUL-terminated: regexec() gets
     * REG_STARTEND, but sanitizers' wrappers still strlen(). */
    grown = realloc(conn->rx, cap + 1);
    if (grown == NULL) {
        fm_conn_finish(conn, FM_REASON_READ_FAILED, ENOMEM, NULL);
        return false;
    }
    conn->rx = grown;
    conn->rx_cap = cap;
    return true;
}

static void
http_read(struct fm_conn *conn)
{
    for (;;) {
        ssize_t n = 0;

        if (conn->rx_len == conn->rx_cap && !http_rx_grow(conn)) {
            return;
        }
        n = fm_conn_read_rx(conn);
        if (n == -1) {
            return;
        }
        if (n == 0) {
            fm_http_judge_conn(conn, true);
            return;
        }
        if (fm_http_judge_conn(conn, false)) {
            return;
        }
    }
}

static void
http_on_io(struct fm_conn *conn)
{
    if (conn->step == FM_STEP_SEND) {
        http_send(conn);
        /* Sent just now: in plain TCP no reply can be there yet (the server
         * has still to be scheduled), so wait for one instead of a read that
         * would fail with EAGAIN.  TLS reads at once: the library may hold
         * records already. */
        if (conn->step == FM_STEP_READ && conn->ssl == NULL) {
            fm_conn_watch(conn, EPOLLIN);
            return;
        }
    }
    if (conn->step == FM_STEP_READ) {
        http_read(conn);
    }
}

static void
http_on_ready(struct fm_conn *conn)
{
    fm_conn_step(conn, FM_STEP_SEND);
    http_on_io(conn);
}

static const char *
http_timeout_note(const struct fm_conn *conn)
{
    if (conn->step != FM_STEP_READ || conn->rx_len == 0) {
        return "";
    }
    return (conn->interim > 0)? " (no final reply after interim 1xx replies)" : " (reply incomplete)";
}

const struct fm_probe_proto fm_probe_proto_http = {
    .name = "http",
    .prepare = fm_http_build_request,
    .on_ready = http_on_ready,
    .on_io = http_on_io,
    .timeout_note = http_timeout_note,
    .one_write_first = true,
};
