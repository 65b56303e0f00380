/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what a TLS client says of itself in every handshake (probe
 * library): the certificate it shows a server that asks for one (mutual
 * TLS), the oldest version it accepts, the ALPN protocols it offers, and,
 * when tls_alpn_require asks for it, the check that the server selected one
 * of the required ones (an offer alone is an offer: RFC 7301 lets a server
 * ignore it, and one that does still serves).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "probe_int.h"

static const char *
tls_last_error(void)
{
    const char *why = ERR_reason_error_string(ERR_peek_last_error());

    return (why != NULL)? why : "unreadable";
}

/* Whether the wire-form list holds the protocol name. */
static bool
alpn_list_has(const unsigned char *wire, size_t wire_len, const unsigned char *proto,
              unsigned int proto_len)
{
    for (size_t at = 0; at < wire_len; at += 1 + wire[at]) {
        if (wire[at] == proto_len && at + 1 + proto_len <= wire_len
            && memcmp(wire + at + 1, proto, proto_len) == 0) {
            return true;
        }
    }
    return false;
}

/* The ALPN offer: tls_alpn, then the required protocols it lacks.
 * Returns 0, or -1 when OpenSSL refuses the list or no memory. */
static int
tls_set_alpn_offer(SSL_CTX *ctx, const struct fm_probe_opts *opts)
{
    size_t len = opts->alpn_wire_len;
    unsigned char *offer = NULL;
    int rc = 0;

    if (opts->alpn_wire_len + opts->alpn_require_wire_len == 0) {
        return 0;
    }
    offer = malloc(opts->alpn_wire_len + opts->alpn_require_wire_len);
    if (offer == NULL) {
        return -1;
    }
    if (opts->alpn_wire_len > 0) {
        memcpy(offer, opts->alpn_wire, opts->alpn_wire_len);
    }
    for (size_t at = 0; at < opts->alpn_require_wire_len; at += 1 + opts->alpn_require_wire[at]) {
        const unsigned char *name = opts->alpn_require_wire + at;

        if (!alpn_list_has(offer, len, name + 1, name[0])) {
            memcpy(offer + len, name, 1 + (size_t) name[0]);
            len += 1 + (size_t) name[0];
        }
    }
    rc = (SSL_CTX_set_alpn_protos(ctx, offer, (unsigned int) len) == 0)? 0 : -1;
    free(offer);
    return rc;
}

int
fm_tls_ctx_client_opts(SSL_CTX *ctx, const struct fm_probe_opts *opts, char *err, size_t err_len)
{
    const char *key_file = (opts->key_file != NULL)? opts->key_file : opts->cert_file;

    SSL_CTX_set_min_proto_version(ctx, (opts->tls_min_version == FM_TLS_MIN_1_3)
                                       ? TLS1_3_VERSION : TLS1_2_VERSION);
    if (tls_set_alpn_offer(ctx, opts) != 0) {
        snprintf(err, err_len, "cannot set the ALPN list '%s%s%s'",
                 (opts->alpn_text != NULL)? opts->alpn_text : "",
                 (opts->alpn_text != NULL && opts->alpn_require_text != NULL)? "," : "",
                 (opts->alpn_require_text != NULL)? opts->alpn_require_text : "");
        return ENOMEM;
    }
    if (opts->cert_file == NULL) {
        return 0;
    }
    /* Read at load time, once: a file that changes later takes a restart,
     * as a CA file does. */
    if (SSL_CTX_use_certificate_chain_file(ctx, opts->cert_file) != 1) {
        snprintf(err, err_len, "cannot load client certificate '%s': %s", opts->cert_file,
                 tls_last_error());
        return EINVAL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1) {
        if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
            snprintf(err, err_len, "the private key '%s' does not match the certificate '%s'",
                     key_file, opts->cert_file);
            return EINVAL;
        }
        snprintf(err, err_len, "cannot load the private key '%s' (PEM, unencrypted): %s",
                 key_file, tls_last_error());
        return EINVAL;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        snprintf(err, err_len, "the private key '%s' does not match the certificate '%s'",
                 key_file, opts->cert_file);
        return EINVAL;
    }
    return 0;
}

static bool
alpn_is(const unsigned char *proto, unsigned int proto_len, const char *name)
{
    return proto_len == strlen(name) && memcmp(proto, name, proto_len) == 0;
}

bool
fm_tls_alpn_agreed(struct fm_conn *conn)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    const unsigned char *proto = NULL;
    unsigned int proto_len = 0;
    char detail[sizeof(conn->result->detail)];

    if (opts->alpn_wire_len + opts->alpn_require_wire_len == 0) {
        return true;
    }
    SSL_get0_alpn_selected(conn->ssl, &proto, &proto_len);
    if (proto_len > 0 && conn->proto == &fm_probe_proto_http
        && !alpn_is(proto, proto_len, "http/1.1") && !alpn_is(proto, proto_len, "http/1.0")) {
        /* The HTTP check speaks HTTP/1.x: its request would be garbage to a
         * server that now expects, say, HTTP/2 frames. */
        snprintf(detail, sizeof(detail),
                 "TLS: the server chose ALPN '%.*s', but the HTTP check speaks HTTP/1.x "
                 "(offer only http/1.1)", (int) proto_len, (const char *) proto);
        fm_conn_finish(conn, FM_REASON_TLS_FAILED, 0, detail);
        return false;
    }
    if (opts->alpn_require_wire_len == 0
        || alpn_list_has(opts->alpn_require_wire, opts->alpn_require_wire_len, proto, proto_len)) {
        /* A server may ignore the offer (RFC 7301 section 3.2): it still
         * serves, in the protocol it would serve anyway. */
        return true;
    }
    if (proto_len == 0) {
        snprintf(detail, sizeof(detail),
                 "TLS: the server selected no ALPN protocol; tls_alpn_require asks for '%s'",
                 opts->alpn_require_text);
    } else {
        snprintf(detail, sizeof(detail),
                 "TLS: the server selected ALPN '%.*s'; tls_alpn_require asks for '%s'",
                 (int) proto_len, (const char *) proto, opts->alpn_require_text);
    }
    fm_conn_finish(conn, FM_REASON_TLS_FAILED, 0, detail);
    return false;
}
