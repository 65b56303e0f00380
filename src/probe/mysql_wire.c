/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the first packet of a MySQL or MariaDB server (wire.h).
 *
 * A packet is a 3-byte little-endian payload length, a sequence number (0
 * for the server's first), and the payload.  The first payload is either
 * the Initial Handshake (protocol 10: the version, a NUL, the connection id,
 * 8 bytes of scramble, a filler, the capability flags, ...) or an ERR packet
 * (0xff, the error number as 2 bytes little-endian, then, from servers that
 * speak protocol 4.1 to a client they have not yet greeted, no SQLSTATE but
 * at most a '#' and five characters, and the message).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "wire.h"

#define MYSQL_HEADER 4
#define MYSQL_PROTOCOL_10 0x0a
#define MYSQL_ERR 0xff
/* After the version's NUL: connection id 4, scramble 8, filler 1,
 * capability flags (low half) 2. */
#define MYSQL_GREETING_TAIL 15
/* A greeting or an error packet is at most a few hundred bytes; a longer
 * first packet is not one. */
#define MYSQL_MAX_FIRST 4096u

/* An ERR packet's payload [p, p + len). */
static void
judge_error(const unsigned char *p, size_t len, struct fm_wire_reply *reply)
{
    unsigned code = 0;
    size_t pos = 3;

    if (len < 3) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    code = (unsigned) p[1] | ((unsigned) p[2] << 8);
    if (len >= 9 && p[3] == '#') {
        pos = 9;    /* the SQLSTATE marker and the SQLSTATE */
    }
    snprintf(reply->code, sizeof(reply->code), "%u", code);
    fm_wire_copy_text(reply->text, sizeof(reply->text), p + pos, len - pos);
    reply->verdict = FM_WIRE_REFUSED;
}

/* An Initial Handshake payload [p, p + len), protocol byte included. */
static void
judge_handshake(const unsigned char *p, size_t len, struct fm_wire_reply *reply)
{
    const unsigned char *nul = memchr(p + 1, '\0', len - 1);
    size_t version_len = 0;

    if (nul == NULL) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    version_len = (size_t) (nul - (p + 1));
    if (version_len == 0 || len - 1 - version_len - 1 < MYSQL_GREETING_TAIL) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    fm_wire_copy_text(reply->text, sizeof(reply->text), p + 1, version_len);
    reply->verdict = FM_WIRE_OK;
}

void
fm_mysql_judge_greeting(const unsigned char *data, size_t len, struct fm_wire_reply *reply)
{
    size_t plen = 0;

    fm_wire_reply_init(reply);
    if (len < MYSQL_HEADER + 1) {
        return;
    }
    plen = (size_t) data[0] | ((size_t) data[1] << 8) | ((size_t) data[2] << 16);
    if (data[3] != 0 || plen == 0 || plen > MYSQL_MAX_FIRST
        || (data[4] != MYSQL_PROTOCOL_10 && data[4] != MYSQL_ERR)) {
        reply->verdict = FM_WIRE_MALFORMED;
        reply->used = MYSQL_HEADER + 1;
        return;
    }
    if (len - MYSQL_HEADER < plen) {
        return;
    }
    reply->used = MYSQL_HEADER + plen;
    if (data[4] == MYSQL_ERR) {
        judge_error(data + MYSQL_HEADER, plen, reply);
    } else {
        judge_handshake(data + MYSQL_HEADER, plen, reply);
    }
}

void
fm_mysql_judge_after(const unsigned char *data, size_t len, struct fm_wire_reply *reply)
{
    size_t plen = 0;

    fm_wire_reply_init(reply);
    reply->used = len;
    if (len == 0) {
        reply->verdict = FM_WIRE_OK;
        return;
    }
    /* The server waits for our handshake response: the only packet it may
     * send first is an error that ends the session (any sequence number). */
    if (len < MYSQL_HEADER + 1 || data[MYSQL_HEADER] != MYSQL_ERR) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    plen = (size_t) data[0] | ((size_t) data[1] << 8) | ((size_t) data[2] << 16);
    if (plen == 0 || plen > MYSQL_MAX_FIRST) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    if (len - MYSQL_HEADER < plen) {
        reply->verdict = FM_WIRE_REFUSED;   /* its words are still coming */
        return;
    }
    judge_error(data + MYSQL_HEADER, plen, reply);
}
