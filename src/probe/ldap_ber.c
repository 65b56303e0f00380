/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: LDAPv3 as much as a probe needs (wire.h, RFC 4511): the
 * anonymous simple bind, root DSE search, StartTLS and unbind requests, and
 * the LDAPResult of the response (past a search's entries), in the BER
 * subset LDAP allows (definite lengths only).
 *
 *   LDAPMessage ::= SEQUENCE { messageID INTEGER, protocolOp CHOICE {...} }
 *   LDAPResult  ::= SEQUENCE { resultCode ENUMERATED, matchedDN OCTET STRING,
 *                              diagnosticMessage OCTET STRING, ... }
 */
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "wire.h"

#define BER_INTEGER 0x02
#define BER_OCTET_STRING 0x04
#define BER_ENUMERATED 0x0a
#define BER_SEQUENCE 0x30
#define LDAP_BIND_REQUEST 0x60
#define LDAP_UNBIND_REQUEST 0x42
#define LDAP_EXTENDED_REQUEST 0x77
#define LDAP_AUTH_SIMPLE 0x80
#define LDAP_EXT_NAME 0x80
#define LDAP_STARTTLS_OID "1.3.6.1.4.1.1466.20037"
#define LDAP_SEARCH_REQUEST 0x63
#define LDAP_SEARCH_ENTRY 0x64
#define LDAP_SEARCH_REFERENCE 0x73
/* Entries (or references) a root DSE search may bring before its done:
 * a base search gives one; more is not a server we understand. */
#define LDAP_MAX_ENTRIES 8
/* A result a probe gets is small; a longer message is not one. */
#define LDAP_MAX_MESSAGE 65536u

/* A request of fixed bytes whose message ID (one byte, 1-127) is byte 4:
 * SEQUENCE, its length, INTEGER, 0x01, the ID. */
static size_t
put_request(unsigned char *out, size_t out_len, const unsigned char *bytes, size_t len,
            unsigned msgid)
{
    if (out_len < len || msgid == 0 || msgid > 127) {
        return 0;
    }
    memcpy(out, bytes, len);
    out[4] = (unsigned char) msgid;
    return len;
}

size_t
fm_ldap_bind_request(unsigned char *out, size_t out_len, unsigned msgid)
{
    const unsigned char bind[] = {
        BER_SEQUENCE, 0x0c, BER_INTEGER, 0x01, 0x00,
        LDAP_BIND_REQUEST, 0x07,
        BER_INTEGER, 0x01, 0x03,        /* version 3 */
        BER_OCTET_STRING, 0x00,         /* name: "" (anonymous) */
        LDAP_AUTH_SIMPLE, 0x00,         /* simple: "" */
    };

    return put_request(out, out_len, bind, sizeof(bind), msgid);
}

size_t
fm_ldap_starttls_request(unsigned char *out, size_t out_len, unsigned msgid)
{
    const size_t oid_len = sizeof(LDAP_STARTTLS_OID) - 1;
    const size_t len = 9 + oid_len;

    if (out_len < len || msgid == 0 || msgid > 127) {
        return 0;
    }
    out[0] = BER_SEQUENCE;
    out[1] = (unsigned char) (len - 2);
    out[2] = BER_INTEGER;
    out[3] = 0x01;
    out[4] = (unsigned char) msgid;
    out[5] = LDAP_EXTENDED_REQUEST;
    out[6] = (unsigned char) (oid_len + 2);
    out[7] = LDAP_EXT_NAME;
    out[8] = (unsigned char) oid_len;
    memcpy(out + 9, LDAP_STARTTLS_OID, oid_len);
    return len;
}

size_t
fm_ldap_unbind_request(unsigned char *out, size_t out_len, unsigned msgid)
{
    const unsigned char unbind[] = {
        BER_SEQUENCE, 0x05, BER_INTEGER, 0x01, 0x00, LDAP_UNBIND_REQUEST, 0x00,
    };

    return put_request(out, out_len, unbind, sizeof(unbind), msgid);
}

size_t
fm_ldap_rootdse_request(unsigned char *out, size_t out_len, unsigned msgid)
{
    /* RFC 4512 5.1: baseObject "", scope baseObject, (objectClass=*); the
     * attribute list "1.1" asks for no attribute, and typesOnly for no
     * value: the answer is whether the server answers at all. */
    const unsigned char search[] = {
        BER_SEQUENCE, 0x2a, BER_INTEGER, 0x01, 0x00,
        LDAP_SEARCH_REQUEST, 0x25,
        BER_OCTET_STRING, 0x00,                 /* baseObject: "" */
        BER_ENUMERATED, 0x01, 0x00,             /* scope: baseObject */
        BER_ENUMERATED, 0x01, 0x00,             /* derefAliases: never */
        BER_INTEGER, 0x01, 0x00,                /* sizeLimit: none */
        BER_INTEGER, 0x01, 0x00,                /* timeLimit: none (ours bounds it) */
        0x01, 0x01, 0xff,                       /* typesOnly: TRUE */
        0x87, 0x0b, 'o', 'b', 'j', 'e', 'c', 't', 'C', 'l', 'a', 's', 's',  /* present */
        BER_SEQUENCE, 0x05, BER_OCTET_STRING, 0x03, '1', '.', '1',
    };

    if (out_len < sizeof(search) || msgid == 0 || msgid > 127) {
        return 0;
    }
    memcpy(out, search, sizeof(search));
    out[4] = (unsigned char) msgid;
    return sizeof(search);
}

/*
 * One tag and definite length at p[*pos]: 1 with the value's length in
 * \p vlen and *pos at the value, 0 when [p, p + len) ends first, -1 when it
 * is not the tag or not a length LDAP allows (*pos past the byte that says
 * so).
 */
static int
ber_header(const unsigned char *p, size_t len, size_t *pos, unsigned tag, size_t *vlen)
{
    size_t at = *pos;
    size_t n = 0;
    size_t v = 0;

    if (at >= len) {
        return 0;
    }
    if (p[at++] != tag) {
        *pos = at;
        return -1;
    }
    if (at >= len) {
        return 0;
    }
    if (p[at] < 0x80) {
        v = p[at++];
    } else {
        n = p[at++] & 0x7f;
        if (n == 0 || n > 4) {
            *pos = at;
            return -1;  /* indefinite, or longer than LDAP needs */
        }
        for (size_t i = 0; i < n; i++) {
            if (at >= len) {
                return 0;
            }
            v = (v << 8) | p[at++];
        }
    }
    *pos = at;
    *vlen = v;
    return 1;
}

/* A non-negative INTEGER or ENUMERATED of at most 4 bytes, whole inside
 * [p, p + end). */
static bool
ber_uint(const unsigned char *p, size_t end, size_t *pos, unsigned tag, unsigned long *value)
{
    size_t vlen = 0;

    if (ber_header(p, end, pos, tag, &vlen) != 1 || vlen == 0 || vlen > 4
        || vlen > end - *pos || (p[*pos] & 0x80) != 0) {
        return false;
    }
    *value = 0;
    for (size_t i = 0; i < vlen; i++) {
        *value = (*value << 8) | p[(*pos)++];
    }
    return true;
}

/* An OCTET STRING whole inside [p, p + end): where it starts and its length. */
static bool
ber_string(const unsigned char *p, size_t end, size_t *pos, size_t *start, size_t *slen)
{
    if (ber_header(p, end, pos, BER_OCTET_STRING, slen) != 1 || *slen > end - *pos) {
        return false;
    }
    *start = *pos;
    *pos += *slen;
    return true;
}

/* The LDAPResult inside the protocolOp [p + pos, p + end). */
static void
judge_result(const unsigned char *p, size_t pos, size_t end, struct fm_wire_reply *reply)
{
    unsigned long code = 0;
    size_t dn = 0;
    size_t dn_len = 0;
    size_t msg = 0;
    size_t msg_len = 0;
    const char *name = NULL;

    if (!ber_uint(p, end, &pos, BER_ENUMERATED, &code)
        || !ber_string(p, end, &pos, &dn, &dn_len)
        || !ber_string(p, end, &pos, &msg, &msg_len)) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    snprintf(reply->code, sizeof(reply->code), "%lu", code);
    name = fm_ldap_result_name((unsigned) code);
    {
        size_t n = strlen(name);

        memcpy(reply->text, name, n + 1);
        /* The server's words after the code's name; cut to fit. */
        if (msg_len > 0 && n + 2 < sizeof(reply->text)) {
            if (n > 0) {
                memcpy(reply->text + n, ": ", 3);
                n += 2;
            }
            fm_wire_copy_text(reply->text + n, sizeof(reply->text) - n, p + msg, msg_len);
        }
    }
    reply->verdict = (code == 0)? FM_WIRE_OK : FM_WIRE_REFUSED;
}

/* One LDAPMessage at the start of data; *entry is set (and the message
 * skipped) for a search's entry or reference when op is its done. */
static void
judge_message(const unsigned char *data, size_t len, unsigned msgid, unsigned op,
              struct fm_wire_reply *reply, bool *entry)
{
    size_t pos = 0;
    size_t body = 0;
    size_t end = 0;
    size_t op_len = 0;
    unsigned long id = 0;
    int rc = 0;

    fm_wire_reply_init(reply);
    rc = ber_header(data, len, &pos, BER_SEQUENCE, &body);
    if (rc == 0) {
        return;
    }
    if (rc < 0 || body > LDAP_MAX_MESSAGE) {
        reply->verdict = FM_WIRE_MALFORMED;
        reply->used = pos;
        return;
    }
    if (len - pos < body) {
        return;
    }
    end = pos + body;
    reply->used = end;
    if (!ber_uint(data, end, &pos, BER_INTEGER, &id)) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    /* A Notice of Disconnection (RFC 4511 4.4.1) comes as message 0. */
    if (id == 0 && pos < end && data[pos] == FM_LDAP_EXTENDED_RESPONSE) {
        op = FM_LDAP_EXTENDED_RESPONSE;
    } else if (id != msgid) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    if (op == FM_LDAP_SEARCH_DONE && id == msgid && pos < end
        && (data[pos] == LDAP_SEARCH_ENTRY || data[pos] == LDAP_SEARCH_REFERENCE)) {
        *entry = true;
        return;
    }
    if (ber_header(data, end, &pos, op, &op_len) != 1 || op_len > end - pos) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    judge_result(data, pos, pos + op_len, reply);
    if (id == 0 && reply->verdict == FM_WIRE_OK) {
        reply->verdict = FM_WIRE_REFUSED;   /* the server hangs up all the same */
    }
}

void
fm_ldap_judge(const unsigned char *data, size_t len, unsigned msgid, unsigned op,
              struct fm_wire_reply *reply)
{
    size_t off = 0;

    for (unsigned entries = 0;; entries++) {
        bool entry = false;

        judge_message(data + off, len - off, msgid, op, reply, &entry);
        if (!entry) {
            if (reply->verdict != FM_WIRE_MORE) {
                reply->used += off;
            }
            return;
        }
        if (entries >= LDAP_MAX_ENTRIES) {
            fm_wire_reply_init(reply);
            reply->verdict = FM_WIRE_MALFORMED;
            reply->used = off;
            return;
        }
        off += reply->used;
    }
}

void
fm_ldap_judge_after(const unsigned char *data, size_t len, struct fm_wire_reply *reply)
{
    size_t off = 0;

    fm_wire_reply_init(reply);
    reply->verdict = FM_WIRE_OK;
    while (off < len) {
        size_t pos = 0;
        size_t body = 0;
        size_t end = 0;
        unsigned long id = 0;
        int rc = ber_header(data + off, len - off, &pos, BER_SEQUENCE, &body);
        bool entry = false;

        if (rc == 0 || (rc > 0 && body <= LDAP_MAX_MESSAGE && len - off - pos < body)) {
            return;     /* still coming; what came is fine so far */
        }
        end = pos + body;
        if (rc < 0 || body > LDAP_MAX_MESSAGE
            || !ber_uint(data + off, end, &pos, BER_INTEGER, &id)) {
            reply->verdict = FM_WIRE_MALFORMED;
            return;
        }
        if (id == 0) {
            /* Only a Notice of Disconnection comes as message 0: it refuses
             * (anything else as message 0 is malformed). */
            judge_message(data + off, len - off, UINT_MAX, FM_LDAP_EXTENDED_RESPONSE, reply,
                          &entry);
            return;
        }
        /* A message for another id: libldap drops what it did not ask for. */
        off += end;
    }
}

const char *
fm_ldap_result_name(unsigned code)
{
    static const struct {
        unsigned code;
        const char *name;
    } names[] = {
        { 0, "success" }, { 1, "operationsError" }, { 2, "protocolError" },
        { 3, "timeLimitExceeded" }, { 4, "sizeLimitExceeded" },
        { 7, "authMethodNotSupported" }, { 8, "strongerAuthRequired" },
        { 11, "adminLimitExceeded" }, { 13, "confidentialityRequired" },
        { 32, "noSuchObject" }, { 48, "inappropriateAuthentication" },
        { 49, "invalidCredentials" }, { 50, "insufficientAccessRights" },
        { 51, "busy" }, { 52, "unavailable" }, { 53, "unwillingToPerform" },
        { 80, "other" },
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (names[i].code == code) {
            return names[i].name;
        }
    }
    return "";
}
