/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the TLS sessions kept between cycles (src/probe/tls_session.c):
 * one slot per server:port, the DER without its peer certificate, and a kept
 * session that resumes a verified handshake (in memory, no socket).
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "probe_int.h"

/* SEQUENCE { INTEGER 1, [3] { OCTET STRING "peer" }, [4] { OCTET STRING "x" } } */
static const unsigned char der_with_peer[] = {
    0x30, 0x10,
    0x02, 0x01, 0x01,
    0xa3, 0x06, 0x04, 0x04, 'p', 'e', 'e', 'r',
    0xa4, 0x03, 0x04, 0x01, 'x',
};
static const unsigned char der_without_peer[] = {
    0x30, 0x08,
    0x02, 0x01, 0x01,
    0xa4, 0x03, 0x04, 0x01, 'x',
};

static void
test_strip_removes_only_the_peer(void **state)
{
    unsigned char out[64];
    size_t n = fm_tls_der_strip_peer(der_with_peer, sizeof(der_with_peer), out, sizeof(out));

    assert_int_equal(n, sizeof(der_without_peer));
    assert_memory_equal(out, der_without_peer, n);
    /* Nothing to strip: the same bytes. */
    n = fm_tls_der_strip_peer(der_without_peer, sizeof(der_without_peer), out, sizeof(out));
    assert_int_equal(n, sizeof(der_without_peer));
    assert_memory_equal(out, der_without_peer, n);
}

static void
test_strip_in_place_and_long_lengths(void **state)
{
    /* A peer of 300 bytes: long-form lengths outside and inside. */
    size_t len = 4 + 3 + 4 + 300 + 5;
    unsigned char *der = calloc(1, len);
    size_t n = 0;

    assert_non_null(der);
    memcpy(der, (const unsigned char[]) { 0x30, 0x82, 0x01, (unsigned char) (len - 4 - 256),
                                          0x02, 0x01, 0x07, 0xa3, 0x82, 0x01, 0x2c }, 11);
    memcpy(der + len - 5, (const unsigned char[]) { 0xa4, 0x03, 0x04, 0x01, 'y' }, 5);
    n = fm_tls_der_strip_peer(der, len, der, len);
    assert_int_equal(n, 2 + 3 + 5);
    assert_memory_equal(der, ((const unsigned char[]) { 0x30, 0x08, 0x02, 0x01, 0x07,
                                                        0xa4, 0x03, 0x04, 0x01, 'y' }), n);
    free(der);
}

static void
test_strip_refuses_what_it_cannot_read(void **state)
{
    unsigned char out[64];
    unsigned char bad[sizeof(der_with_peer)];

    /* Truncated, an inner length past the end, not a SEQUENCE, no room. */
    assert_int_equal(fm_tls_der_strip_peer(der_with_peer, sizeof(der_with_peer) - 1, out,
                                           sizeof(out)), 0);
    memcpy(bad, der_with_peer, sizeof(bad));
    bad[6] = 0x40;
    assert_int_equal(fm_tls_der_strip_peer(bad, sizeof(bad), out, sizeof(out)), 0);
    memcpy(bad, der_with_peer, sizeof(bad));
    bad[0] = 0x31;
    assert_int_equal(fm_tls_der_strip_peer(bad, sizeof(bad), out, sizeof(out)), 0);
    assert_int_equal(fm_tls_der_strip_peer(der_with_peer, sizeof(der_with_peer), out, 9), 0);
    assert_int_equal(fm_tls_der_strip_peer(der_with_peer, 1, out, sizeof(out)), 0);
}

/* Targets on one server:port share a slot; another port, another host, or
 * a plain target do not. */
static void
test_slots_by_server_and_port(void **state)
{
    struct fm_target targets[5] = {
        { .host = (char *) "b.example", .port = 443, .use_tls = true },
        { .host = (char *) "a.example", .port = 443, .use_tls = true },
        { .host = (char *) "a.example", .port = 8443, .use_tls = true },
        { .host = (char *) "a.example", .port = 443, .use_tls = true },
        { .host = (char *) "a.example", .port = 443, .use_tls = false },
    };
    struct fm_conn conns[5];
    struct fm_probe_run run = { .conns = conns, .n = 5 };

    memset(conns, 0, sizeof(conns));
    for (size_t i = 0; i < 5; i++) {
        conns[i].target = &targets[i];
    }
    assert_int_equal(fm_tls_sessions_new(&run), 0);
    assert_int_equal(run.n_sessions, 3);
    assert_ptr_equal(conns[1].tls_session, conns[3].tls_session);
    assert_ptr_not_equal(conns[1].tls_session, conns[2].tls_session);
    assert_ptr_not_equal(conns[1].tls_session, conns[0].tls_session);
    assert_null(conns[4].tls_session);
    assert_string_equal(conns[2].tls_session->host, "a.example");
    assert_int_equal(conns[2].tls_session->port, 8443);
    fm_tls_sessions_free(&run);
    assert_null(run.sessions);
    assert_null(conns[1].tls_session);
}

struct tls_pair {
    EVP_PKEY *key;
    X509 *cert;
    SSL_CTX *server_ctx;
    SSL_CTX *client_ctx;
};

static struct fm_tls_session *kept_slot;

static int
keep_new_session(SSL *ssl, SSL_SESSION *session)
{
    assert_int_equal(fm_tls_session_keep(kept_slot, session), 0);
    return 0;
}

static void
pair_setup(struct tls_pair *p)
{
    X509_NAME *name = NULL;
    X509_STORE *store = NULL;

    p->key = EVP_EC_gen("P-256");
    p->cert = X509_new();
    assert_non_null(p->key);
    assert_non_null(p->cert);
    ASN1_INTEGER_set(X509_get_serialNumber(p->cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(p->cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(p->cert), 86400);
    X509_set_pubkey(p->cert, p->key);
    name = X509_get_subject_name(p->cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *) "localhost",
                               -1, -1, 0);
    X509_set_issuer_name(p->cert, name);
    assert_true(X509_sign(p->cert, p->key, EVP_sha256()) > 0);

    p->server_ctx = SSL_CTX_new(TLS_server_method());
    assert_int_equal(SSL_CTX_use_certificate(p->server_ctx, p->cert), 1);
    assert_int_equal(SSL_CTX_use_PrivateKey(p->server_ctx, p->key), 1);
    /* The client as the engine makes it: verifying against this cert. */
    p->client_ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_session_cache_mode(p->client_ctx,
                                   SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(p->client_ctx, keep_new_session);
    store = SSL_CTX_get_cert_store(p->client_ctx);
    assert_int_equal(X509_STORE_add_cert(store, p->cert), 1);
    SSL_CTX_set_verify(p->client_ctx, SSL_VERIFY_PEER, NULL);
}

static void
pair_free(struct tls_pair *p)
{
    SSL_CTX_free(p->client_ctx);
    SSL_CTX_free(p->server_ctx);
    X509_free(p->cert);
    EVP_PKEY_free(p->key);
}

/* One handshake over a BIO pair, then the client reads the server's TLS 1.3
 * tickets; returns whether it resumed, and the client's verify result. */
static bool
handshake(struct tls_pair *p, const struct fm_tls_session *slot, const char *name,
          long *verify_result, bool *have_peer)
{
    SSL *client = SSL_new(p->client_ctx);
    SSL *server = SSL_new(p->server_ctx);
    BIO *cbio = NULL;
    BIO *sbio = NULL;
    SSL_SESSION *session = fm_tls_session_load(slot);
    bool reused = false;
    char byte = 0;
    int crc = 0;
    int src = 0;

    assert_int_equal(BIO_new_bio_pair(&cbio, 0, &sbio, 0), 1);
    SSL_set_bio(client, cbio, cbio);
    SSL_set_bio(server, sbio, sbio);
    SSL_set1_host(client, name);
    SSL_set_tlsext_host_name(client, name);
    if (session != NULL) {
        SSL_set_session(client, session);
        SSL_SESSION_free(session);
    }
    SSL_set_connect_state(client);
    SSL_set_accept_state(server);
    for (int i = 0; i < 20 && (crc != 1 || src != 1); i++) {
        crc = (crc == 1)? 1 : SSL_do_handshake(client);
        src = (src == 1)? 1 : SSL_do_handshake(server);
    }
    *verify_result = SSL_get_verify_result(client);
    *have_peer = (SSL_get0_peer_certificate(client) != NULL);
    if (crc == 1 && src == 1) {
        reused = SSL_session_reused(client);
        assert_int_equal(SSL_read(client, &byte, 1), -1);   /* takes in the tickets */
    }
    SSL_free(client);
    SSL_free(server);
    return reused;
}

/* A kept session has no certificate, fits its slot, remembers the expiry,
 * and resumes a handshake that the client verifies, with the same result. */
static void
test_kept_session_resumes_verified(void **state)
{
    struct tls_pair p;
    struct fm_tls_session slot;
    long verify = -1;
    bool peer = false;
    SSL_SESSION *loaded = NULL;

    memset(&slot, 0, sizeof(slot));
    kept_slot = &slot;
    pair_setup(&p);
    assert_false(handshake(&p, &slot, "localhost", &verify, &peer));
    assert_int_equal(verify, X509_V_OK);
    assert_true(peer);
    assert_true(slot.der_len > 0);
    assert_null(slot.der_heap);
    assert_int_equal(slot.cert_not_after, fm_tls_cert_not_after(p.cert));
    assert_true(slot.cert_not_after > 0);
    loaded = fm_tls_session_load(&slot);
    assert_non_null(loaded);
    assert_null(SSL_SESSION_get0_peer(loaded));
    assert_int_equal(SSL_SESSION_is_resumable(loaded), 1);
    SSL_SESSION_free(loaded);

    assert_true(handshake(&p, &slot, "localhost", &verify, &peer));
    assert_int_equal(verify, X509_V_OK);
    assert_false(peer);
    /* The new ticket of a resumed handshake is kept too, expiry unchanged. */
    assert_true(handshake(&p, &slot, "localhost", &verify, &peer));
    assert_int_equal(slot.cert_not_after, fm_tls_cert_not_after(p.cert));

    fm_tls_session_forget(&slot);
    assert_int_equal(slot.der_len, 0);
    assert_null(fm_tls_session_load(&slot));
    pair_free(&p);
}

/* Without a session kept, a wrong name fails verification every time: a
 * failed handshake never leaves a session to resume. */
static void
test_failed_verification_keeps_nothing(void **state)
{
    struct tls_pair p;
    struct fm_tls_session slot;
    long verify = X509_V_OK;
    bool peer = false;

    memset(&slot, 0, sizeof(slot));
    kept_slot = &slot;
    pair_setup(&p);
    assert_false(handshake(&p, &slot, "other.example", &verify, &peer));
    assert_int_not_equal(verify, X509_V_OK);
    assert_int_equal(slot.der_len, 0);
    ERR_clear_error();
    pair_free(&p);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strip_removes_only_the_peer),
        cmocka_unit_test(test_strip_in_place_and_long_lengths),
        cmocka_unit_test(test_strip_refuses_what_it_cannot_read),
        cmocka_unit_test(test_slots_by_server_and_port),
        cmocka_unit_test(test_kept_session_resumes_verified),
        cmocka_unit_test(test_failed_verification_keeps_nothing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
