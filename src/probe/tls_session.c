/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what TLS keeps between cycles so that the next handshake resumes.
 *
 * One session per server:port, shared by every target of a run that
 * addresses it.  A run has one verify setting and one --tls-sni override, and
 * derives each connection's SNI and verified name from the target's host
 * alone, so host and port fix SNI and verify identity: a session is never
 * offered under another name or another verify setting (sessions never
 * outlive their run).
 *
 * A session is kept as DER without the peer certificate.  Resumption does not
 * verify the certificate again (OpenSSL takes the verify result the session
 * was made with, which the DER keeps), so the parsed certificate, with its
 * decoded key and extensions, was some 5 KiB of the heap per target that
 * nothing read but the expiry date, which the slot keeps as a number.  The DER
 * lives in the slot itself when it fits (it does for the usual tickets), so
 * what a cycle keeps is not scattered over pages that the cycle's
 * connection buffers made resident.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/x509.h>

#include "probe_int.h"

#define FM_TLS_DER_SEQUENCE 0x30
#define FM_TLS_DER_PEER     0xa3    /* [3] EXPLICIT peer, in SSL_SESSION_ASN1 */
#define FM_TLS_SESSION_MAX  65536   /* larger sessions are not kept */

/* Header length of the DER element at p (0 if malformed or not one that an
 * SSL_SESSION holds); its content length in *content_len. */
static size_t
der_header(const unsigned char *p, size_t avail, size_t *content_len)
{
    size_t len = 0;
    size_t hdr = 2;

    if (avail < 2 || (p[0] & 0x1f) == 0x1f) {
        return 0;
    }
    if (p[1] < 0x80) {
        len = p[1];
    } else {
        size_t bytes = p[1] & 0x7f;

        if (bytes == 0 || bytes > 3 || avail < 2 + bytes) {
            return 0;
        }
        for (size_t i = 0; i < bytes; i++) {
            len = (len << 8) | p[2 + i];
        }
        hdr += bytes;
    }
    if (len > avail - hdr) {
        return 0;
    }
    *content_len = len;
    return hdr;
}

/* How many bytes der_put_length() writes for len. */
static size_t
der_length_size(size_t len)
{
    return (len < 0x80)? 1 : (len < 0x100)? 2 : (len < 0x10000)? 3 : 4;
}

/* Write a DER length; returns the bytes written (at most 4). */
static size_t
der_put_length(unsigned char *out, size_t len)
{
    if (len < 0x80) {
        out[0] = (unsigned char) len;
        return 1;
    }
    if (len < 0x100) {
        out[0] = 0x81;
        out[1] = (unsigned char) len;
        return 2;
    }
    if (len < 0x10000) {
        out[0] = 0x82;
        out[1] = (unsigned char) (len >> 8);
        out[2] = (unsigned char) len;
        return 3;
    }
    out[0] = 0x83;
    out[1] = (unsigned char) (len >> 16);
    out[2] = (unsigned char) (len >> 8);
    out[3] = (unsigned char) len;
    return 4;
}

size_t
fm_tls_der_strip_peer(const unsigned char *der, size_t len, unsigned char *out, size_t out_len)
{
    size_t content = 0;
    size_t start = der_header(der, len, &content);
    size_t kept = 0;
    size_t pos = 0;

    if (start == 0 || der[0] != FM_TLS_DER_SEQUENCE || start + content != len) {
        return 0;
    }
    /* First pass: check every element and count what stays. */
    for (pos = start; pos < len; ) {
        size_t elen = 0;
        size_t ehdr = der_header(der + pos, len - pos, &elen);

        if (ehdr == 0) {
            return 0;
        }
        if (der[pos] != FM_TLS_DER_PEER) {
            kept += ehdr + elen;
        }
        pos += ehdr + elen;
    }
    if (1 + der_length_size(kept) + kept > out_len) {
        return 0;
    }
    /* Every write lands at or before what is still to be read, so out may
     * be der: the new header is no longer than the old one. */
    out[0] = FM_TLS_DER_SEQUENCE;
    kept = 1 + der_put_length(out + 1, kept);
    for (pos = start; pos < len; ) {
        size_t elen = 0;
        size_t ehdr = der_header(der + pos, len - pos, &elen);
        bool peer = (der[pos] == FM_TLS_DER_PEER);

        if (!peer) {
            memmove(out + kept, der + pos, ehdr + elen);
            kept += ehdr + elen;
        }
        pos += ehdr + elen;
    }
    return kept;
}

/* Targets that share a session sort next to each other. */
static int
conn_key_cmp(const void *a, const void *b)
{
    const struct fm_conn *ca = *(const struct fm_conn *const *) a;
    const struct fm_conn *cb = *(const struct fm_conn *const *) b;
    int rc = strcmp(ca->target->host, cb->target->host);

    if (rc != 0) {
        return rc;
    }
    return (ca->target->port > cb->target->port) - (ca->target->port < cb->target->port);
}

int
fm_tls_sessions_new(struct fm_probe_run *run)
{
    struct fm_conn **order = calloc(run->n + 1, sizeof(*order));
    size_t n_tls = 0;
    size_t slot = 0;

    if (order == NULL) {
        return ENOMEM;
    }
    for (size_t i = 0; i < run->n; i++) {
        if (run->conns[i].target->use_tls || run->conns[i].target->starttls) {
            order[n_tls++] = &run->conns[i];
        }
    }
    qsort(order, n_tls, sizeof(*order), conn_key_cmp);
    run->n_sessions = 0;
    for (size_t i = 0; i < n_tls; i++) {
        if (i == 0 || conn_key_cmp(&order[i - 1], &order[i]) != 0) {
            run->n_sessions++;
        }
    }
    run->sessions = calloc(run->n_sessions + 1, sizeof(*run->sessions));
    if (run->sessions == NULL) {
        free(order);
        return ENOMEM;
    }
    for (size_t i = 0; i < n_tls; i++) {
        if (i > 0 && conn_key_cmp(&order[i - 1], &order[i]) != 0) {
            slot++;
        }
        run->sessions[slot].host = order[i]->target->host;
        run->sessions[slot].port = order[i]->target->port;
        order[i]->tls_session = &run->sessions[slot];
    }
    free(order);
    return 0;
}

void
fm_tls_session_forget(struct fm_tls_session *slot)
{
    free(slot->der_heap);
    slot->der_heap = NULL;
    slot->der_len = 0;
}

void
fm_tls_sessions_free(struct fm_probe_run *run)
{
    for (size_t i = 0; i < run->n_sessions; i++) {
        fm_tls_session_forget(&run->sessions[i]);
    }
    free(run->sessions);
    run->sessions = NULL;
    run->n_sessions = 0;
    for (size_t i = 0; i < run->n && run->conns != NULL; i++) {
        run->conns[i].tls_session = NULL;
    }
}

int64_t
fm_tls_cert_not_after(const X509 *cert)
{
    struct tm tm;

    if (cert != NULL && ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1) {
        return (int64_t) timegm(&tm);
    }
    return 0;
}

/* Put der into the slot: inline when it fits, else on the heap. */
static int
slot_store(struct fm_tls_session *slot, const unsigned char *der, size_t len)
{
    unsigned char *heap = NULL;

    if (len > sizeof(slot->der)) {
        heap = malloc(len);
        if (heap == NULL) {
            return ENOMEM;
        }
        memcpy(heap, der, len);
    } else {
        memcpy(slot->der, der, len);
    }
    free(slot->der_heap);
    slot->der_heap = heap;
    slot->der_len = len;
    return 0;
}

int
fm_tls_session_keep(struct fm_tls_session *slot, SSL_SESSION *session)
{
    unsigned char *der = NULL;
    const X509 *peer = SSL_SESSION_get0_peer(session);
    int len = i2d_SSL_SESSION(session, &der);   /* one encoding, allocated */
    size_t kept = 0;
    int rc = 0;

    if (len <= 0 || der == NULL) {
        return ENOMEM;
    }
    if (len > FM_TLS_SESSION_MAX) {
        rc = EINVAL;
    } else {
        kept = fm_tls_der_strip_peer(der, (size_t) len, der, (size_t) len);
        /* A DER we cannot read is kept whole: bigger, never wrong. */
        rc = slot_store(slot, der, (kept > 0)? kept : (size_t) len);
    }
    if (rc == 0 && peer != NULL) {
        slot->cert_not_after = fm_tls_cert_not_after(peer);
    }
    OPENSSL_free(der);
    return rc;
}

SSL_SESSION *
fm_tls_session_load(const struct fm_tls_session *slot)
{
    const unsigned char *p = (slot->der_heap != NULL)? slot->der_heap : slot->der;

    if (slot->der_len == 0) {
        return NULL;
    }
    return d2i_SSL_SESSION(NULL, &p, (long) slot->der_len);
}
