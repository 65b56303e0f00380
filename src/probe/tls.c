/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: TLS as a layer under any TCP probe (OpenSSL): the context, the
 * handshake, I/O, session resumption across cycles; and the handshake check
 * (tls://HOST:PORT, https:// without tls_request), whose verdict is the
 * handshake itself.
 */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sys/epoll.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "probe_int.h"

/* OpenSSL hands us each new session (TLS 1.2 at the end of the handshake,
 * TLS 1.3 with each ticket); keep the newest for the next cycle, in the slot
 * that the targets on this server:port share (tls_session.c). */
static int
tls_new_session(SSL *ssl, SSL_SESSION *session)
{
    struct fm_conn *conn = SSL_get_app_data(ssl);

    if (conn == NULL || !conn->run->keep_sessions || conn->tls_session == NULL) {
        return 0;
    }
    if (fm_tls_session_keep(conn->tls_session, session) == 0) {
        conn->got_ticket = true;
    }
    return 0;   /* OpenSSL keeps its reference: we hold a copy */
}

int
fm_tls_ctx_new(const struct fm_probe_opts *opts, SSL_CTX **out, char *err, size_t err_len)
{
    SSL_CTX *ctx = NULL;
    int rc = 0;

    *out = NULL;
    /* The first TLS context of the process loads OpenSSL (ssl_load.h). */
    if (fm_ssl_load(err, err_len) != 0) {
        return ELIBACC;
    }
    ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) {
        snprintf(err, err_len, "cannot create a TLS context");
        return ENOMEM;
    }
    rc = fm_tls_ctx_client_opts(ctx, opts, err, err_len);
    if (rc != 0) {
        SSL_CTX_free(ctx);
        return rc;
    }
    /* Free the 34 KiB read and write buffers as soon as they are empty. */
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, tls_new_session);
    if (opts->tls_verify) {
        if (opts->ca_file != NULL) {
            if (access(opts->ca_file, R_OK) != 0) {
                /* OpenSSL would say only "system lib": name the file and why. */
                snprintf(err, err_len, "cannot read CA file %s: %s", opts->ca_file, strerror(errno));
                SSL_CTX_free(ctx);
                return EINVAL;
            }
            if (SSL_CTX_load_verify_locations(ctx, opts->ca_file, NULL) != 1) {
                snprintf(err, err_len, "cannot load CA file '%s': %s", opts->ca_file,
                         ERR_reason_error_string(ERR_peek_last_error())
                         ? ERR_reason_error_string(ERR_peek_last_error()) : "unreadable");
                SSL_CTX_free(ctx);
                return EINVAL;
            }
        } else {
            SSL_CTX_set_default_verify_paths(ctx);
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    *out = ctx;
    return 0;
}

static bool
host_is_ip(const char *host)
{
    unsigned char buf[sizeof(struct in6_addr)];

    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

int
fm_tls_conn_setup(struct fm_conn *conn)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    const char *host = conn->target->host;
    const char *sni = (opts->sni != NULL)? opts->sni : (host_is_ip(host)? NULL : host);
    SSL *ssl = SSL_new(conn->run->ssl_ctx);

    if (ssl == NULL) {
        return ENOMEM;
    }
    SSL_set_app_data(ssl, conn);
    if (SSL_set_fd(ssl, conn->fd) != 1) {
        SSL_free(ssl);
        return ENOMEM;
    }
    if (sni != NULL) {
        SSL_set_tlsext_host_name(ssl, sni);
    }
    if (conn->proto->alpn_wire != NULL) {
        /* HTTP/2 over TLS is only what ALPN agrees on (RFC 9113 3.2). */
        SSL_set_alpn_protos(ssl, (const unsigned char *) conn->proto->alpn_wire,
                            (unsigned int) strlen(conn->proto->alpn_wire));
    }
    if (opts->tls_verify) {
        if (opts->sni != NULL || !host_is_ip(host)) {
            SSL_set1_host(ssl, (opts->sni != NULL)? opts->sni : host);
        } else {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
        }
    }
    if (conn->run->keep_sessions && conn->tls_session != NULL) {
        SSL_SESSION *session = fm_tls_session_load(conn->tls_session);

        if (session != NULL) {
            SSL_set_session(ssl, session);
            SSL_SESSION_free(session);  /* the SSL holds its own reference */
        }
    }
    SSL_set_connect_state(ssl);
    conn->ssl = ssl;
    return 0;
}

/* A resumed session carries no certificate (tls_session.c keeps none): its
 * expiry is the one noted when the session was made. */
static void
tls_note_peer(struct fm_conn *conn)
{
    X509 *cert = SSL_get0_peer_certificate(conn->ssl);

    conn->result->cert_not_after = fm_tls_cert_not_after(cert);
    if (cert == NULL && SSL_session_reused(conn->ssl) && conn->tls_session != NULL) {
        conn->result->cert_not_after = conn->tls_session->cert_not_after;
    }
}

void
fm_tls_conn_close(struct fm_conn *conn)
{
    /* A session is resumable only after a clean shutdown; after a fatal
     * error SSL_shutdown must not be called at all. */
    if (SSL_is_init_finished(conn->ssl)) {
        ERR_clear_error();
        SSL_shutdown(conn->ssl);
    }
    SSL_set_app_data(conn->ssl, NULL);
    SSL_free(conn->ssl);
    conn->ssl = NULL;
    ERR_clear_error();
}

/* A handshake that failed: why, as precisely as OpenSSL tells. */
static void
tls_handshake_failed(struct fm_conn *conn, int err)
{
    char detail[sizeof(conn->result->detail)];

    if (SSL_get_verify_result(conn->ssl) != X509_V_OK) {
        snprintf(detail, sizeof(detail), "TLS certificate: %s",
                 X509_verify_cert_error_string(SSL_get_verify_result(conn->ssl)));
        fm_conn_finish(conn, FM_REASON_TLS_VERIFY, 0, detail);
        return;
    }
    if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
        snprintf(detail, sizeof(detail), "TLS handshake: %s",
                 (errno != 0)? strerror(errno) : "connection closed by server");
    } else {
        const char *why = ERR_reason_error_string(ERR_peek_error());

        snprintf(detail, sizeof(detail), "TLS handshake: %s", (why != NULL)? why : "failed");
    }
    fm_conn_finish(conn, FM_REASON_TLS_FAILED, errno, detail);
}

void
fm_tls_handshake(struct fm_conn *conn)
{
    int rc = 0;
    int err = 0;

    ERR_clear_error();
    errno = 0;
    rc = SSL_connect(conn->ssl);
    if (rc == 1) {
        tls_note_peer(conn);
        if (!fm_tls_alpn_agreed(conn)) {
            return;
        }
        conn->proto->on_ready(conn);
        return;
    }
    err = SSL_get_error(conn->ssl, rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        fm_conn_watch(conn, (err == SSL_ERROR_WANT_READ)? EPOLLIN : EPOLLOUT);
        return;
    }
    tls_handshake_failed(conn, err);
}

ssize_t
fm_tls_io(struct fm_conn *conn, bool writing, void *buf, size_t len, char *detail,
          size_t detail_len)
{
    int n = 0;
    const char *why = NULL;

    ERR_clear_error();
    n = writing? SSL_write(conn->ssl, buf, (int) len) : SSL_read(conn->ssl, buf, (int) len);
    if (n > 0) {
        return n;
    }
    switch (SSL_get_error(conn->ssl, n)) {
        case SSL_ERROR_WANT_READ:
            fm_conn_watch(conn, EPOLLIN);
            return -1;
        case SSL_ERROR_WANT_WRITE:
            fm_conn_watch(conn, EPOLLOUT);
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
            why = ERR_reason_error_string(ERR_peek_error());
            snprintf(detail, detail_len, "TLS: %s", (why != NULL)? why : "error");
            return -2;
    }
}

/* The handshake check (tls://, and https:// without tls_request): a
 * completed handshake is healthy. */
static void
tls_check_ready(struct fm_conn *conn)
{
    char detail[sizeof(conn->result->detail)];

    snprintf(detail, sizeof(detail), "%s handshake%s", SSL_get_version(conn->ssl),
             SSL_session_reused(conn->ssl)? " (resumed)" : "");
    fm_conn_finish(conn, FM_REASON_OK, 0, detail);
}

const struct fm_probe_proto fm_probe_proto_tls = {
    .name = "tls",
    .on_ready = tls_check_ready,
};

bool
fm_tls_wants_ticket(const struct fm_conn *conn)
{
    /* TLS 1.3 sessions are single-use: each cycle needs the ticket that the
     * server sends after the handshake, which a handshake-only probe would
     * never read. */
    return conn->ssl != NULL && conn->run->keep_sessions && !conn->got_ticket
           && SSL_version(conn->ssl) >= TLS1_3_VERSION && conn->fd >= 0;
}

bool
fm_tls_read_ticket(struct fm_conn *conn)
{
    char byte = 0;
    int rc = SSL_read(conn->ssl, &byte, 1);

    /* Reading processes the ticket: tls_new_session() keeps it. */
    return rc > 0 || SSL_get_error(conn->ssl, rc) != SSL_ERROR_WANT_READ || conn->got_ticket;
}
