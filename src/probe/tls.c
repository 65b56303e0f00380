/*
 * faultmon: TLS as a layer under any TCP probe (OpenSSL).
 */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "probe_int.h"

/* OpenSSL hands us each new session (TLS 1.2 at the end of the handshake,
 * TLS 1.3 with each ticket); keep the newest for the next cycle. */
static int
tls_new_session(SSL *ssl, SSL_SESSION *session)
{
    struct fm_conn *conn = SSL_get_app_data(ssl);

    if (conn == NULL || !conn->run->keep_sessions) {
        return 0;
    }
    if (conn->session != NULL) {
        SSL_SESSION_free(conn->session);
    }
    conn->session = session;
    conn->got_ticket = true;
    return 1;   /* we own the reference now */
}

int
fm_tls_ctx_new(const struct fm_probe_opts *opts, SSL_CTX **out, char *err, size_t err_len)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

    *out = NULL;
    if (ctx == NULL) {
        snprintf(err, err_len, "cannot create a TLS context");
        return ENOMEM;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    /* Free the 34 KiB read and write buffers as soon as they are empty. */
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, tls_new_session);
    if (opts->tls_verify) {
        if (opts->ca_file != NULL) {
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
    if (opts->tls_verify) {
        if (opts->sni != NULL || !host_is_ip(host)) {
            SSL_set1_host(ssl, (opts->sni != NULL)? opts->sni : host);
        } else {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
        }
    }
    if (conn->run->keep_sessions && conn->session != NULL) {
        SSL_set_session(ssl, conn->session);
    }
    SSL_set_connect_state(ssl);
    conn->ssl = ssl;
    return 0;
}

void
fm_tls_note_peer(struct fm_conn *conn)
{
    X509 *cert = SSL_get0_peer_certificate(conn->ssl);
    struct tm tm;

    conn->result->cert_not_after = 0;
    if (cert != NULL && ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1) {
        conn->result->cert_not_after = (int64_t) timegm(&tm);
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
