/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the PostgreSQL frontend/backend protocol 3.0, as much as a
 * probe needs (wire.h): the SSLRequest, the StartupMessage, and the
 * judgement of what the backend answers to it.
 *
 * Every backend message is a type byte, a big-endian int32 length that
 * counts itself, and the payload.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "wire.h"

/* The protocol's magic numbers (PostgreSQL's pqcomm.h). */
#define PG_SSL_REQUEST_CODE 80877103u   /* 1234 << 16 | 5679 */
#define PG_PROTOCOL_3_0 196608u         /* 3 << 16 */
/* A backend message longer than this is not one a startup gets: the
 * longest is an ErrorResponse, a few hundred bytes. */
#define PG_MAX_MESSAGE 65536u
/* The messages a backend sends before ReadyForQuery. */
#define PG_STARTUP_TYPES "RZESKNv"
/* The application_name the server shows in pg_stat_activity. */
#define PG_APPLICATION "faultmon"

static void
put_u32(unsigned char *out, uint32_t v)
{
    out[0] = (unsigned char) (v >> 24);
    out[1] = (unsigned char) (v >> 16);
    out[2] = (unsigned char) (v >> 8);
    out[3] = (unsigned char) v;
}

static uint32_t
get_u32(const unsigned char *in)
{
    return ((uint32_t) in[0] << 24) | ((uint32_t) in[1] << 16) | ((uint32_t) in[2] << 8)
           | (uint32_t) in[3];
}

void
fm_pg_ssl_request(unsigned char out[FM_PG_SSL_REQUEST_LEN])
{
    put_u32(out, FM_PG_SSL_REQUEST_LEN);
    put_u32(out + 4, PG_SSL_REQUEST_CODE);
}

enum fm_pg_ssl_answer
fm_pg_ssl_answer(const unsigned char *data, size_t len)
{
    if (len == 0) {
        return FM_PG_SSL_MORE;
    }
    switch (data[0]) {
        case 'S':
            return FM_PG_SSL_YES;
        case 'N':
            return FM_PG_SSL_NO;
        default:
            return FM_PG_SSL_OTHER;
    }
}

/* Append a NUL-terminated string; false when it does not fit. */
static bool
put_str(unsigned char *out, size_t out_len, size_t *pos, const char *s)
{
    size_t n = strlen(s) + 1;

    if (n > out_len - *pos) {
        return false;
    }
    memcpy(out + *pos, s, n);
    *pos += n;
    return true;
}

size_t
fm_pg_startup(unsigned char *out, size_t out_len, const char *user, const char *database)
{
    size_t pos = 8;
    bool fits = true;

    if (out_len < pos + 1 || user == NULL || user[0] == '\0') {
        return 0;
    }
    fits = put_str(out, out_len, &pos, "user") && put_str(out, out_len, &pos, user);
    if (fits && database != NULL && database[0] != '\0') {
        fits = put_str(out, out_len, &pos, "database")
               && put_str(out, out_len, &pos, database);
    }
    fits = fits && put_str(out, out_len, &pos, "application_name")
           && put_str(out, out_len, &pos, PG_APPLICATION);
    if (!fits || pos >= out_len) {
        return 0;
    }
    out[pos++] = '\0';
    put_u32(out, (uint32_t) pos);
    put_u32(out + 4, PG_PROTOCOL_3_0);
    return pos;
}

/* An SQLSTATE: five digits or upper-case letters (it becomes the reason). */
static bool
sqlstate(const unsigned char *s, size_t len)
{
    if (len != 5) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'Z'))) {
            return false;
        }
    }
    return true;
}

/*
 * The fields of an ErrorResponse: a code byte, a NUL-terminated string,
 * ..., a final NUL.  'C' is the SQLSTATE, 'M' the message.  False when the
 * fields are not well formed or there is no SQLSTATE.
 */
static bool
error_fields(const unsigned char *p, size_t len, struct fm_wire_reply *reply)
{
    size_t pos = 0;
    bool have_code = false;

    while (pos < len && p[pos] != '\0') {
        unsigned char field = p[pos++];
        const unsigned char *end = memchr(p + pos, '\0', len - pos);
        size_t n = 0;

        if (end == NULL) {
            return false;
        }
        n = (size_t) (end - (p + pos));
        if (field == 'C') {
            if (!sqlstate(p + pos, n)) {
                return false;
            }
            fm_wire_copy_text(reply->code, sizeof(reply->code), p + pos, n);
            have_code = true;
        } else if (field == 'M') {
            fm_wire_copy_text(reply->text, sizeof(reply->text), p + pos, n);
        }
        pos += n + 1;
    }
    /* The list ends with a NUL, and that NUL ends the message. */
    return have_code && pos + 1 == len;
}

/*
 * Whether an AuthenticationSASL body (after its code) is a list of
 * mechanism names, each NUL-terminated, ended by an empty one.
 */
static bool
sasl_mechanisms(const unsigned char *p, size_t len)
{
    size_t pos = 0;
    unsigned n = 0;

    while (pos < len && p[pos] != '\0') {
        const unsigned char *end = memchr(p + pos, '\0', len - pos);

        if (end == NULL) {
            return false;
        }
        pos = (size_t) (end - p) + 1;
        n++;
    }
    return n > 0 && pos + 1 == len;
}

/*
 * Whether an authentication request is one the protocol defines as the
 * first answer to a StartupMessage, with its length: the code is 4 bytes,
 * MD5 adds its 4-byte salt, SASL its mechanisms.  GSSContinue (8) and the
 * SASL continuations (11, 12) come only after a reply of ours.
 */
static bool
auth_request_valid(uint32_t code, const unsigned char *p, size_t len)
{
    switch (code) {
        case 2:     /* KerberosV5 (before PostgreSQL 9.4) */
        case 3:     /* CleartextPassword */
        case 6:     /* SCMCredential (before 9.1) */
        case 7:     /* GSS */
        case 9:     /* SSPI */
            return len == 4;
        case 5:     /* MD5Password, with its salt */
            return len == 8;
        case 10:    /* SASL */
            return sasl_mechanisms(p + 4, len - 4);
        default:
            return false;
    }
}

/* Judge one whole message; false: read on to the next one. */
static bool
judge_message(unsigned char type, const unsigned char *p, size_t len,
              struct fm_wire_reply *reply)
{
    switch (type) {
        case 'R':
            if (len < 4) {
                reply->verdict = FM_WIRE_MALFORMED;
                return true;
            }
            if (get_u32(p) == 0 && len == 4) {
                return false;   /* AuthenticationOk: on to ReadyForQuery */
            }
            if (!auth_request_valid(get_u32(p), p, len)) {
                reply->verdict = FM_WIRE_MALFORMED;     /* 999, an MD5 without salt */
                return true;
            }
            snprintf(reply->text, sizeof(reply->text), "authentication request %lu",
                     (unsigned long) get_u32(p));
            reply->verdict = FM_WIRE_OK;
            return true;
        case 'Z':
            if (len == 1) {
                snprintf(reply->text, sizeof(reply->text), "ready for query");
                reply->verdict = FM_WIRE_OK;
            } else {
                reply->verdict = FM_WIRE_MALFORMED;
            }
            return true;
        case 'E':
            if (error_fields(p, len, reply)) {
                reply->verdict = FM_WIRE_REFUSED;
            } else {
                /* Nothing of a broken reply is shown as the server's. */
                fm_wire_reply_init(reply);
                reply->verdict = FM_WIRE_MALFORMED;
            }
            return true;
        case 'S':   /* ParameterStatus */
        case 'K':   /* BackendKeyData */
        case 'N':   /* NoticeResponse */
        case 'v':   /* NegotiateProtocolVersion */
            return false;
        default:
            reply->verdict = FM_WIRE_MALFORMED;
            return true;
    }
}

void
fm_pg_judge(const unsigned char *data, size_t len, struct fm_wire_reply *reply)
{
    size_t pos = 0;

    fm_wire_reply_init(reply);
    while (pos < len) {
        unsigned char type = data[pos];
        uint32_t mlen = 0;

        /* A byte that starts no message a startup gets is judged at once,
         * not after the deadline. */
        if (memchr(PG_STARTUP_TYPES, type, sizeof(PG_STARTUP_TYPES) - 1) == NULL) {
            reply->verdict = FM_WIRE_MALFORMED;
            reply->used = pos + 1;
            return;
        }
        if (len - pos < 5) {
            break;
        }
        mlen = get_u32(data + pos + 1);
        if (mlen < 4 || mlen > PG_MAX_MESSAGE) {
            reply->verdict = FM_WIRE_MALFORMED;
            reply->used = pos + 5;
            return;
        }
        if (len - pos - 1 < mlen) {
            break;
        }
        if (judge_message(type, data + pos + 5, mlen - 4, reply)) {
            reply->used = pos + 1 + mlen;
            return;
        }
        pos += 1 + (size_t) mlen;
    }
    reply->used = pos;
}

void
fm_pg_judge_after(const unsigned char *data, size_t len, struct fm_wire_reply *reply)
{
    size_t pos = 0;

    fm_wire_reply_init(reply);
    reply->verdict = FM_WIRE_OK;
    while (pos < len) {
        unsigned char type = data[pos];
        uint32_t mlen = 0;

        /* libpq takes these at any time: a notice, a parameter's new value,
         * a notification.  An error (FATAL 57P01 at a shutdown) ends the
         * session; anything else is no backend message. */
        if (type != 'N' && type != 'S' && type != 'A' && type != 'E') {
            reply->verdict = FM_WIRE_MALFORMED;
            return;
        }
        if (len - pos < 5) {
            return;
        }
        mlen = get_u32(data + pos + 1);
        if (mlen < 4 || mlen > PG_MAX_MESSAGE) {
            reply->verdict = FM_WIRE_MALFORMED;
            return;
        }
        if (len - pos - 1 < mlen) {
            return;     /* the rest is still coming; what came is fine */
        }
        if (type == 'E') {
            fm_pg_judge(data + pos, 1 + (size_t) mlen, reply);
            return;
        }
        pos += 1 + (size_t) mlen;
    }
}
