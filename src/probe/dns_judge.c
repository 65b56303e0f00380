/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the verdict on a DNS answer (wire.h, RFC 1035), without a
 * socket: the header's rcode, the answers of the type asked, and each
 * answer's data as text for ?answer=REGEX.  c-ares (dns.c) sends the query
 * and retries it over TCP when the answer is truncated; this reads what it
 * hands back.
 */
#include <config.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "wire.h"

#define DNS_HEADER 12
/* Compression pointers followed in one name at most (a loop is malformed). */
#define DNS_MAX_JUMPS 32

static const struct {
    const char *name;
    unsigned value;
} dns_types[] = {
    { "A", 1 }, { "NS", 2 }, { "CNAME", 5 }, { "SOA", 6 }, { "PTR", 12 }, { "MX", 15 },
    { "TXT", 16 }, { "AAAA", 28 }, { "SRV", 33 }, { "CAA", 257 },
};

static const char *const dns_rcodes[] = {
    "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED",
};

int
fm_dns_type(const char *name)
{
    for (size_t i = 0; i < sizeof(dns_types) / sizeof(dns_types[0]); i++) {
        if (strcasecmp(dns_types[i].name, name) == 0) {
            return (int) dns_types[i].value;
        }
    }
    return -1;
}

int
fm_dns_rcode(const char *name)
{
    for (size_t i = 0; i < sizeof(dns_rcodes) / sizeof(dns_rcodes[0]); i++) {
        if (strcasecmp(dns_rcodes[i], name) == 0) {
            return (int) i;
        }
    }
    return -1;
}

static void
rcode_text(unsigned rcode, char *out, size_t out_len)
{
    if (rcode < sizeof(dns_rcodes) / sizeof(dns_rcodes[0])) {
        snprintf(out, out_len, "%s", dns_rcodes[rcode]);
    } else {
        snprintf(out, out_len, "RCODE%u", rcode);
    }
}

/*
 * The name at msg[*pos] as dotted text into out (cut to fit; "." for the
 * root), *pos past it in the record.  False when it runs past the message,
 * loops, or is too long.
 */
static bool
dns_name(const unsigned char *msg, size_t len, size_t *pos, char *out, size_t out_len)
{
    size_t at = *pos;
    size_t o = 0;
    size_t total = 0;
    unsigned jumps = 0;
    bool jumped = false;

    for (;;) {
        unsigned label = 0;

        if (at >= len) {
            return false;
        }
        label = msg[at];
        if ((label & 0xc0) == 0xc0) {
            if (at + 1 >= len || ++jumps > DNS_MAX_JUMPS) {
                return false;
            }
            if (!jumped) {
                *pos = at + 2;
                jumped = true;
            }
            at = ((label & 0x3f) << 8) | msg[at + 1];
            continue;
        }
        if ((label & 0xc0) != 0) {
            return false;   /* the extended label types are not used */
        }
        at++;
        if (label == 0) {
            break;
        }
        total += label + 1;
        if (label > len - at || total > 255) {
            return false;
        }
        for (unsigned i = 0; i < label; i++) {
            char c = (char) msg[at + i];

            /* A dot or backslash inside a label is escaped, as dig shows
             * it, so that "a.b" in one label is never the name a.b. */
            if ((c == '.' || c == '\\') && o + 3 < out_len) {
                out[o++] = '\\';
            }
            if (o + 2 < out_len) {
                out[o++] = c;
            }
        }
        if (o + 2 < out_len) {
            out[o++] = '.';
        }
        at += label;
    }
    if (!jumped) {
        *pos = at;
    }
    if (o > 1) {
        o--;        /* no trailing dot */
    } else if (o == 0 && out_len > 1) {
        out[o++] = '.';
    }
    if (out_len > 0) {
        out[o] = '\0';
    }
    return true;
}

/* The record data [at, at + rdlen) of a type as text; false when malformed. */
static bool
rdata_text(const unsigned char *msg, size_t len, unsigned type, size_t at, size_t rdlen,
           char *out, size_t out_len)
{
    char name[FM_DNS_TEXT_LEN - 8];    /* room for MX's preference */
    size_t pos = at;
    size_t end = at + rdlen;

    out[0] = '\0';
    switch (type) {
        case 1:
        case 28:
            if (rdlen != ((type == 1)? 4u : 16u)) {
                return false;
            }
            return inet_ntop((type == 1)? AF_INET : AF_INET6, msg + at, out,
                             (socklen_t) out_len) != NULL;
        case 2:
        case 5:
        case 12:
            return dns_name(msg, len, &pos, out, out_len) && pos == end;
        case 15:
            if (rdlen < 3) {
                return false;
            }
            pos += 2;
            if (!dns_name(msg, len, &pos, name, sizeof(name)) || pos != end) {
                return false;
            }
            snprintf(out, out_len, "%u %s", ((unsigned) msg[at] << 8) | msg[at + 1], name);
            return true;
        case 16: {
            size_t o = 0;

            while (pos < end) {
                size_t n = msg[pos++];

                if (n > end - pos) {
                    return false;
                }
                for (size_t i = 0; i < n && o + 1 < out_len; i++) {
                    out[o++] = (msg[pos + i] != '\0')? (char) msg[pos + i] : ' ';
                }
                pos += n;
            }
            out[o] = '\0';
            return true;
        }
        case 6:
            if (!dns_name(msg, len, &pos, name, sizeof(name))) {
                return false;
            }
            snprintf(out, out_len, "%s", name);
            return dns_name(msg, len, &pos, name, sizeof(name)) && end >= pos && end - pos == 20;
        default:
            snprintf(out, out_len, "%zu bytes", rdlen);
            return true;
    }
}

/* Whether two names are the same (case-insensitive, a final dot aside). */
static bool
same_name(const char *a, const char *b)
{
    size_t na = strlen(a);
    size_t nb = strlen(b);

    if (na > 1 && a[na - 1] == '.' && (na < 2 || a[na - 2] != '\\')) {
        na--;
    }
    if (nb > 1 && b[nb - 1] == '.' && (nb < 2 || b[nb - 2] != '\\')) {
        nb--;
    }
    return na == nb && strncasecmp(a, b, na) == 0;
}

/*
 * The question section: its first name into qname; false when malformed,
 * or when it is not the name asked (want->name, when set).
 */
static bool
read_questions(const unsigned char *msg, size_t len, unsigned qdcount, size_t *pos,
               const struct fm_dns_expect *want, char *qname, size_t qname_len)
{
    char name[FM_DNS_TEXT_LEN];

    if (qdcount == 0 && want->name != NULL) {
        snprintf(qname, qname_len, "%s", want->name);
    }
    for (unsigned q = 0; q < qdcount; q++) {
        if (!dns_name(msg, len, pos, name, sizeof(name)) || len - *pos < 4) {
            return false;
        }
        *pos += 4;
        if (q == 0) {
            if (want->name != NULL && !same_name(name, want->name)) {
                return false;
            }
            snprintf(qname, qname_len, "%s", name);
        }
    }
    return true;
}

/* One resource record at *pos: its owner, type and data as text. */
static bool
read_record(const unsigned char *msg, size_t len, size_t *pos, char *owner, unsigned *type,
            char *text)
{
    size_t rdlen = 0;

    if (!dns_name(msg, len, pos, owner, FM_DNS_TEXT_LEN) || len - *pos < 10) {
        return false;
    }
    *type = ((unsigned) msg[*pos] << 8) | msg[*pos + 1];
    rdlen = ((size_t) msg[*pos + 8] << 8) | msg[*pos + 9];
    *pos += 10;
    if (rdlen > len - *pos || !rdata_text(msg, len, *type, *pos, rdlen, text, FM_DNS_TEXT_LEN)) {
        return false;
    }
    *pos += rdlen;
    return true;
}

/* The names an answer may be for: the question's, and the CNAME chain
 * from it (in any order in the section, at most DNS_MAX_CHAIN long). */
#define DNS_MAX_CHAIN 8
struct dns_chain {
    char names[DNS_MAX_CHAIN][FM_DNS_TEXT_LEN];
    size_t n;
};

static bool
chain_has(const struct dns_chain *chain, const char *name)
{
    for (size_t i = 0; i < chain->n; i++) {
        if (same_name(chain->names[i], name)) {
            return true;
        }
    }
    return false;
}

/* Follow the CNAMEs whose owner is on the chain; false when malformed. */
static bool
follow_cnames(const unsigned char *msg, size_t len, size_t start, unsigned ancount,
              struct dns_chain *chain)
{
    bool grew = true;

    while (grew && chain->n < DNS_MAX_CHAIN) {
        size_t pos = start;

        grew = false;
        for (unsigned a = 0; a < ancount && chain->n < DNS_MAX_CHAIN; a++) {
            char owner[FM_DNS_TEXT_LEN];
            char text[FM_DNS_TEXT_LEN];
            unsigned type = 0;

            if (!read_record(msg, len, &pos, owner, &type, text)) {
                return false;
            }
            if (type == 5 && chain_has(chain, owner) && !chain_has(chain, text)) {
                snprintf(chain->names[chain->n++], FM_DNS_TEXT_LEN, "%s", text);
                grew = true;
            }
        }
    }
    return true;
}

/* Go through the answers: those of the type for a name on the chain (an
 * answer for another name counts for nothing, as c-ares and glibc drop
 * it), and whether one matches. */
static bool
scan_answers(const unsigned char *msg, size_t len, size_t pos, unsigned ancount,
             const struct fm_dns_expect *want, const struct dns_chain *chain, unsigned *of_type,
             bool *matched, char *first, size_t first_len)
{
    for (unsigned a = 0; a < ancount; a++) {
        char owner[FM_DNS_TEXT_LEN];
        char text[FM_DNS_TEXT_LEN];
        unsigned type = 0;

        if (!read_record(msg, len, &pos, owner, &type, text)) {
            return false;
        }
        if (type != want->qtype || !chain_has(chain, owner)) {
            continue;   /* a CNAME on the way, or a record for another name */
        }
        (*of_type)++;
        if (want->match != NULL && !*matched && want->match(want->match_ctx, text, strlen(text)) == 1) {
            *matched = true;
            snprintf(first, first_len, "%s", text);
        } else if (*of_type == 1 && (want->match == NULL || !*matched)) {
            snprintf(first, first_len, "%s", text);
        }
    }
    return true;
}

void
fm_dns_judge(const unsigned char *msg, size_t len, const struct fm_dns_expect *want,
             struct fm_wire_reply *reply)
{
    unsigned rcode = 0;
    unsigned of_type = 0;
    unsigned ancount = 0;
    bool matched = false;
    size_t pos = DNS_HEADER;
    char first[FM_DNS_TEXT_LEN] = "";
    struct dns_chain chain;

    fm_wire_reply_init(reply);
    reply->used = len;
    chain.n = 1;
    chain.names[0][0] = '\0';
    rcode = (len >= DNS_HEADER)? (msg[3] & 0x0fu) : 0;
    ancount = (len >= DNS_HEADER)? (((unsigned) msg[6] << 8) | msg[7]) : 0;
    if (len < DNS_HEADER || (msg[2] & 0x80) == 0
        || !read_questions(msg, len, ((unsigned) msg[4] << 8) | msg[5], &pos, want,
                           chain.names[0], sizeof(chain.names[0]))
        || !follow_cnames(msg, len, pos, ancount, &chain)
        || !scan_answers(msg, len, pos, ancount, want, &chain, &of_type, &matched, first,
                         sizeof(first))) {
        reply->verdict = FM_WIRE_MALFORMED;
        return;
    }
    if (want->rcode >= 0) {
        /* ?rcode=: that rcode is the answer wanted, answers or not. */
        rcode_text(rcode, reply->code, sizeof(reply->code));
        reply->verdict = (rcode == (unsigned) want->rcode)? FM_WIRE_OK : FM_WIRE_REFUSED;
        fm_wire_copy_text(reply->text, sizeof(reply->text), (const unsigned char *) first, strlen(first));
        return;
    }
    if (rcode != 0) {
        rcode_text(rcode, reply->code, sizeof(reply->code));
        reply->verdict = FM_WIRE_REFUSED;
    } else if (of_type == 0) {
        snprintf(reply->code, sizeof(reply->code), "NODATA");
        reply->verdict = FM_WIRE_REFUSED;
    } else if (want->match != NULL && !matched) {
        snprintf(reply->code, sizeof(reply->code), "NOMATCH");
        fm_wire_copy_text(reply->text, sizeof(reply->text), (const unsigned char *) first, strlen(first));
        reply->verdict = FM_WIRE_REFUSED;
    } else {
        fm_wire_copy_text(reply->text, sizeof(reply->text), (const unsigned char *) first, strlen(first));
        reply->verdict = FM_WIRE_OK;
    }
}
