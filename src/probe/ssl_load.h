/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: OpenSSL, loaded when a probe needs TLS (src/probe/ssl_load.c).
 *
 * A library linked into the faultmon command is loaded by every process of
 * it, and libcrypto alone relocates about 0.4 MiB of tables in each
 * (.data.rel.ro and its GOT): with a loop per resource, 100 loops on a node
 * paid 45 MiB for TLS most of them never use.  So libssl (and libcrypto
 * behind it) is loaded by the first TLS context a process makes
 * (fm_tls_ctx_new), and a loop whose targets are plain never maps it.
 *
 * Every file that calls OpenSSL includes this header (probe_int.h does):
 * after OpenSSL's own headers it names each call faultmon makes after the
 * table of calls loaded from the library, so the code reads as plain
 * OpenSSL.  A call OpenSSL's headers make a macro of (SSL_CTX_set_min_proto_version,
 * OPENSSL_free) expands to one of these.  A call missing from the list is a
 * link error, not a silent direct link: the build links no OpenSSL.
 */
#ifndef FAULTMON_PROBE_SSL_LOAD_H
#define FAULTMON_PROBE_SSL_LOAD_H

#include <stddef.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Every OpenSSL call faultmon makes. */
#define FM_SSL_CALLS \
    FM_SSL_CALL(SSL_CTX_check_private_key) \
    FM_SSL_CALL(SSL_CTX_ctrl) \
    FM_SSL_CALL(SSL_CTX_free) \
    FM_SSL_CALL(SSL_CTX_load_verify_locations) \
    FM_SSL_CALL(SSL_CTX_new) \
    FM_SSL_CALL(SSL_CTX_sess_set_new_cb) \
    FM_SSL_CALL(SSL_CTX_set_alpn_protos) \
    FM_SSL_CALL(SSL_CTX_set_default_verify_paths) \
    FM_SSL_CALL(SSL_CTX_set_verify) \
    FM_SSL_CALL(SSL_CTX_use_PrivateKey_file) \
    FM_SSL_CALL(SSL_CTX_use_certificate_chain_file) \
    FM_SSL_CALL(SSL_SESSION_free) \
    FM_SSL_CALL(SSL_SESSION_get0_peer) \
    FM_SSL_CALL(SSL_connect) \
    FM_SSL_CALL(SSL_ctrl) \
    FM_SSL_CALL(SSL_free) \
    FM_SSL_CALL(SSL_get0_alpn_selected) \
    FM_SSL_CALL(SSL_get0_param) \
    FM_SSL_CALL(SSL_get0_peer_certificate) \
    FM_SSL_CALL(SSL_get_error) \
    FM_SSL_CALL(SSL_get_ex_data) \
    FM_SSL_CALL(SSL_get_verify_result) \
    FM_SSL_CALL(SSL_get_version) \
    FM_SSL_CALL(SSL_is_init_finished) \
    FM_SSL_CALL(SSL_new) \
    FM_SSL_CALL(SSL_read) \
    FM_SSL_CALL(SSL_session_reused) \
    FM_SSL_CALL(SSL_set1_host) \
    FM_SSL_CALL(SSL_set_alpn_protos) \
    FM_SSL_CALL(SSL_set_connect_state) \
    FM_SSL_CALL(SSL_set_ex_data) \
    FM_SSL_CALL(SSL_set_fd) \
    FM_SSL_CALL(SSL_set_session) \
    FM_SSL_CALL(SSL_shutdown) \
    FM_SSL_CALL(SSL_version) \
    FM_SSL_CALL(SSL_write) \
    FM_SSL_CALL(TLS_client_method) \
    FM_SSL_CALL(d2i_SSL_SESSION) \
    FM_SSL_CALL(i2d_SSL_SESSION) \
    FM_SSL_CALL(ASN1_TIME_to_tm) \
    FM_SSL_CALL(CRYPTO_free) \
    FM_SSL_CALL(ERR_clear_error) \
    FM_SSL_CALL(ERR_peek_error) \
    FM_SSL_CALL(ERR_peek_last_error) \
    FM_SSL_CALL(ERR_reason_error_string) \
    FM_SSL_CALL(X509_VERIFY_PARAM_set1_ip_asc) \
    FM_SSL_CALL(X509_get0_notAfter) \
    FM_SSL_CALL(X509_verify_cert_error_string)

/* The calls, typed by OpenSSL's own declarations. */
struct fm_ssl_calls {
#define FM_SSL_CALL(name) __typeof__(name) *name;
    FM_SSL_CALLS
#undef FM_SSL_CALL
};

/*!
 * \brief Load libssl (the soname faultmon was built against) once per
 *        process and look its calls up.
 * \return 0, or -1 with \p err saying why in one line
 */
int fm_ssl_load(char *err, size_t err_len);

/*!
 * \brief The calls; loads them first if no fm_ssl_load() did (a process
 *        that calls OpenSSL without a TLS context: the unit tests), and
 *        exits with the reason if it cannot
 */
const struct fm_ssl_calls *fm_ssl(void);

#ifndef FM_SSL_LOAD_NO_MACROS
#define SSL_CTX_check_private_key(...) (fm_ssl()->SSL_CTX_check_private_key(__VA_ARGS__))
#define SSL_CTX_ctrl(...) (fm_ssl()->SSL_CTX_ctrl(__VA_ARGS__))
#define SSL_CTX_free(...) (fm_ssl()->SSL_CTX_free(__VA_ARGS__))
#define SSL_CTX_load_verify_locations(...) (fm_ssl()->SSL_CTX_load_verify_locations(__VA_ARGS__))
#define SSL_CTX_new(...) (fm_ssl()->SSL_CTX_new(__VA_ARGS__))
#define SSL_CTX_sess_set_new_cb(...) (fm_ssl()->SSL_CTX_sess_set_new_cb(__VA_ARGS__))
#define SSL_CTX_set_alpn_protos(...) (fm_ssl()->SSL_CTX_set_alpn_protos(__VA_ARGS__))
#define SSL_CTX_set_default_verify_paths(...) (fm_ssl()->SSL_CTX_set_default_verify_paths(__VA_ARGS__))
#define SSL_CTX_set_verify(...) (fm_ssl()->SSL_CTX_set_verify(__VA_ARGS__))
#define SSL_CTX_use_PrivateKey_file(...) (fm_ssl()->SSL_CTX_use_PrivateKey_file(__VA_ARGS__))
#define SSL_CTX_use_certificate_chain_file(...) (fm_ssl()->SSL_CTX_use_certificate_chain_file(__VA_ARGS__))
#define SSL_SESSION_free(...) (fm_ssl()->SSL_SESSION_free(__VA_ARGS__))
#define SSL_SESSION_get0_peer(...) (fm_ssl()->SSL_SESSION_get0_peer(__VA_ARGS__))
#define SSL_connect(...) (fm_ssl()->SSL_connect(__VA_ARGS__))
#define SSL_ctrl(...) (fm_ssl()->SSL_ctrl(__VA_ARGS__))
#define SSL_free(...) (fm_ssl()->SSL_free(__VA_ARGS__))
#define SSL_get0_alpn_selected(...) (fm_ssl()->SSL_get0_alpn_selected(__VA_ARGS__))
#define SSL_get0_param(...) (fm_ssl()->SSL_get0_param(__VA_ARGS__))
#define SSL_get0_peer_certificate(...) (fm_ssl()->SSL_get0_peer_certificate(__VA_ARGS__))
#define SSL_get_error(...) (fm_ssl()->SSL_get_error(__VA_ARGS__))
#define SSL_get_ex_data(...) (fm_ssl()->SSL_get_ex_data(__VA_ARGS__))
#define SSL_get_verify_result(...) (fm_ssl()->SSL_get_verify_result(__VA_ARGS__))
#define SSL_get_version(...) (fm_ssl()->SSL_get_version(__VA_ARGS__))
#define SSL_is_init_finished(...) (fm_ssl()->SSL_is_init_finished(__VA_ARGS__))
#define SSL_new(...) (fm_ssl()->SSL_new(__VA_ARGS__))
#define SSL_read(...) (fm_ssl()->SSL_read(__VA_ARGS__))
#define SSL_session_reused(...) (fm_ssl()->SSL_session_reused(__VA_ARGS__))
#define SSL_set1_host(...) (fm_ssl()->SSL_set1_host(__VA_ARGS__))
#define SSL_set_alpn_protos(...) (fm_ssl()->SSL_set_alpn_protos(__VA_ARGS__))
#define SSL_set_connect_state(...) (fm_ssl()->SSL_set_connect_state(__VA_ARGS__))
#define SSL_set_ex_data(...) (fm_ssl()->SSL_set_ex_data(__VA_ARGS__))
#define SSL_set_fd(...) (fm_ssl()->SSL_set_fd(__VA_ARGS__))
#define SSL_set_session(...) (fm_ssl()->SSL_set_session(__VA_ARGS__))
#define SSL_shutdown(...) (fm_ssl()->SSL_shutdown(__VA_ARGS__))
#define SSL_version(...) (fm_ssl()->SSL_version(__VA_ARGS__))
#define SSL_write(...) (fm_ssl()->SSL_write(__VA_ARGS__))
#define TLS_client_method(...) (fm_ssl()->TLS_client_method(__VA_ARGS__))
#define d2i_SSL_SESSION(...) (fm_ssl()->d2i_SSL_SESSION(__VA_ARGS__))
#define i2d_SSL_SESSION(...) (fm_ssl()->i2d_SSL_SESSION(__VA_ARGS__))
#define ASN1_TIME_to_tm(...) (fm_ssl()->ASN1_TIME_to_tm(__VA_ARGS__))
#define CRYPTO_free(...) (fm_ssl()->CRYPTO_free(__VA_ARGS__))
#define ERR_clear_error(...) (fm_ssl()->ERR_clear_error(__VA_ARGS__))
#define ERR_peek_error(...) (fm_ssl()->ERR_peek_error(__VA_ARGS__))
#define ERR_peek_last_error(...) (fm_ssl()->ERR_peek_last_error(__VA_ARGS__))
#define ERR_reason_error_string(...) (fm_ssl()->ERR_reason_error_string(__VA_ARGS__))
#define X509_VERIFY_PARAM_set1_ip_asc(...) (fm_ssl()->X509_VERIFY_PARAM_set1_ip_asc(__VA_ARGS__))
#define X509_get0_notAfter(...) (fm_ssl()->X509_get0_notAfter(__VA_ARGS__))
#define X509_verify_cert_error_string(...) (fm_ssl()->X509_verify_cert_error_string(__VA_ARGS__))
#endif

#endif
