/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the replies of the binary protocols, judged by their
 * pure codecs (src/probe/wire.h): PostgreSQL's answer to a StartupMessage
 * (fm_pg_judge()), a MySQL/MariaDB server's first packet
 * (fm_mysql_judge_greeting()), an LDAP BindResponse or StartTLS
 * ExtendedResponse (fm_ldap_judge()), a DNS answer (fm_dns_judge()).
 *
 * Input: one option byte (bits 0-1 the codec, bit 2 the LDAP operation, bits
 * 3-7 the LDAP message id, or for DNS the type, ?rcode= and ?answer=), then
 * the reply.
 *
 * Properties:
 *  - no read outside the reply (ASan), and `used` within it;
 *  - a judged reply is judged on its first `used` bytes alone, and bytes
 *    after it change nothing (the codec never waits past its reply);
 *  - a DNS answer is whole: judged, never "read on";
 *  - what follows a judged reply (fm_pg_judge_after() and its kin) is
 *    judged, never "read on", and nothing after a reply is ok;
 *  - every prefix of a judged reply of a stream protocol is either "read on" or judged the same
 *    way: a reply cut short never passes where the whole does not (a
 *    truncated refusal must never read as health);
 *  - code and text are NUL-terminated in their buffers, one line of code
 *    characters for the code, and empty unless the reply is judged ok or
 *    refused.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "wire.h"

#include "fuzz_common.h"

#define FUZZ_REPLY_MAX 4096

struct fuzz_codec {
    uint8_t which;
    unsigned msgid;
    unsigned op;
    struct fm_dns_expect dns;
};

static const char *const fuzz_dns_types[] = { "A", "AAAA", "MX", "TXT", "SOA", "NS", "CNAME", "SRV" };

/* ?answer=: anything with a digit. */
static int
fuzz_dns_match(void *ctx, const char *text, size_t len)
{
    (void) ctx;
    return (strcspn(text, "0123456789") < len)? 1 : 0;
}

static void
judge(const struct fuzz_codec *c, const unsigned char *data, size_t len,
      struct fm_wire_reply *reply)
{
    switch (c->which) {
        case 0:
            fm_pg_judge(data, len, reply);
            break;
        case 1:
            fm_mysql_judge_greeting(data, len, reply);
            break;
        case 3:
            fm_dns_judge(data, len, &c->dns, reply);
            break;
        default:
            fm_ldap_judge(data, len, c->msgid, c->op, reply);
            break;
    }
}

static void check_reply(const struct fm_wire_reply *reply, size_t len);

/* What follows a judged reply (the *_judge_after() codecs): judged, never
 * "read on" (a cut message is fine so far), within its bytes. */
static void
judge_after(const struct fuzz_codec *c, const unsigned char *data, size_t len)
{
    struct fm_wire_reply after;

    switch (c->which) {
        case 0:
            fm_pg_judge_after(data, len, &after);
            break;
        case 1:
            fm_mysql_judge_after(data, len, &after);
            break;
        case 2:
            fm_ldap_judge_after(data, len, &after);
            break;
        default:
            return;
    }
    check_reply(&after, len);
    FM_FUZZ_CHECK(after.verdict != FM_WIRE_MORE, "what follows a reply waits for more");
    FM_FUZZ_CHECK(len > 0 || after.verdict == FM_WIRE_OK, "nothing after a reply is not ok");
}

static void
check_reply(const struct fm_wire_reply *reply, size_t len)
{
    FM_FUZZ_CHECK(reply->used <= len, "used %zu of %zu bytes", reply->used, len);
    FM_FUZZ_CHECK(memchr(reply->code, '\0', sizeof(reply->code)) != NULL, "code not ended");
    FM_FUZZ_CHECK(memchr(reply->text, '\0', sizeof(reply->text)) != NULL, "text not ended");
    for (const char *p = reply->code; *p != '\0'; p++) {
        FM_FUZZ_CHECK((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z'),
                      "code byte 0x%02x", (unsigned) (unsigned char) *p);
    }
    if (reply->verdict != FM_WIRE_OK && reply->verdict != FM_WIRE_REFUSED) {
        FM_FUZZ_CHECK(reply->code[0] == '\0' && reply->text[0] == '\0',
                      "verdict %d with code '%s'", reply->verdict, reply->code);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fm_fuzz_input in;
    struct fuzz_codec c;
    struct fm_wire_reply whole;
    struct fm_wire_reply again;
    const unsigned char *reply = NULL;
    size_t len = 0;
    uint8_t opts = 0;

    if (size > FUZZ_REPLY_MAX + 1) {
        return -1;
    }
    fm_fuzz_input_init(&in, data, size);
    opts = fm_fuzz_byte(&in);
    c.which = opts & 3;
    c.op = ((opts & 4) != 0)? FM_LDAP_EXTENDED_RESPONSE : FM_LDAP_BIND_RESPONSE;
    c.msgid = (opts >> 3) + 1u;
    c.dns.qtype = (unsigned) fm_dns_type(fuzz_dns_types[(opts >> 2) & 7]);
    c.dns.rcode = ((opts & 0x20) != 0)? (int) ((opts >> 6) & 3) : -1;
    c.dns.match = ((opts & 0x40) != 0)? fuzz_dns_match : NULL;
    c.dns.match_ctx = NULL;
    c.dns.name = ((opts & 0x80) != 0)? "x.test" : NULL;     /* the question checked */
    reply = data + in.pos;
    len = fm_fuzz_left(&in);

    judge(&c, reply, len, &whole);
    check_reply(&whole, len);
    if (c.which == 3) {
        FM_FUZZ_CHECK(whole.verdict != FM_WIRE_MORE, "a DNS answer waits for more");
        return 0;
    }
    if (whole.verdict == FM_WIRE_MORE) {
        return 0;
    }
    judge_after(&c, reply + whole.used, len - whole.used);
    judge(&c, reply, whole.used, &again);
    FM_FUZZ_CHECK(again.verdict == whole.verdict && again.used == whole.used
                  && strcmp(again.code, whole.code) == 0 && strcmp(again.text, whole.text) == 0,
                  "the first %zu bytes judged %d, the whole %d", whole.used, again.verdict,
                  whole.verdict);
    for (size_t cut = 0; cut < whole.used; cut++) {
        struct fm_wire_reply part;

        judge(&c, reply, cut, &part);
        check_reply(&part, cut);
        FM_FUZZ_CHECK(part.verdict == FM_WIRE_MORE || part.verdict == whole.verdict,
                      "the first %zu bytes judged %d, the whole %zu judged %d", cut,
                      part.verdict, whole.used, whole.verdict);
    }
    return 0;
}
