/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the pure codecs of the binary protocols (not installed).
 *
 * Each codec builds the bytes a probe sends and judges the bytes a server
 * sends back, without a socket, a clock or an allocation, so that its unit
 * test and its fuzz harness drive exactly what the probe runs:
 *
 *   pgsql_wire.c   PostgreSQL: SSLRequest, StartupMessage, the replies
 *   mysql_wire.c   MySQL/MariaDB: the greeting or the error packet
 *   ldap_ber.c     LDAP: anonymous simple bind, StartTLS, their results
 *   dns_judge.c    DNS: the answer c-ares (dns.c) brings back
 *
 * A reply judge never reads past \p len and never waits for more than the
 * reply it judges: FM_WIRE_MORE means "not yet enough bytes", and the probe
 * gives a read-timeout (partial) at the deadline, or a read-failed (partial)
 * when the server closes first.
 */
#ifndef FAULTMON_PROBE_WIRE_H
#define FAULTMON_PROBE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a reply says about the service. */
enum fm_wire_verdict {
    FM_WIRE_MORE = 0,       /* the reply is not whole yet: read on */
    FM_WIRE_OK,             /* the service answers as a healthy one does */
    FM_WIRE_REFUSED,        /* a well-formed reply that refuses (error packet,
                             * ErrorResponse, resultCode != 0): complete */
    FM_WIRE_MALFORMED,      /* not this protocol: partial, like a garbled
                             * HTTP reply */
};

/* Room for a reply's code (an SQLSTATE, an error number, a resultCode). */
#define FM_WIRE_CODE_LEN 16
/* Room for a reply's words (a message, a server version), unescaped: the
 * caller escapes them (fm_text_escape()) before they reach a message. */
#define FM_WIRE_TEXT_LEN 96

struct fm_wire_reply {
    enum fm_wire_verdict verdict;
    size_t used;                    /* bytes of the input judged */
    char code[FM_WIRE_CODE_LEN];    /* "" or the code, NUL-terminated */
    char text[FM_WIRE_TEXT_LEN];    /* "" or the server's words, NUL-terminated,
                                     * raw bytes (never a NUL inside) */
};

/* pgsql_wire.c */

/* The SSLRequest's length and the answers it gets. */
#define FM_PG_SSL_REQUEST_LEN 8
enum fm_pg_ssl_answer {
    FM_PG_SSL_MORE = 0,     /* no byte yet */
    FM_PG_SSL_YES,          /* 'S': go on with a TLS handshake */
    FM_PG_SSL_NO,           /* 'N': the server has no TLS */
    FM_PG_SSL_OTHER,        /* anything else: judge it with fm_pg_judge() */
};

/*! \brief Write the 8-byte SSLRequest into \p out. */
void fm_pg_ssl_request(unsigned char out[FM_PG_SSL_REQUEST_LEN]);

/*! \brief What the first byte of the answer to an SSLRequest says. */
enum fm_pg_ssl_answer fm_pg_ssl_answer(const unsigned char *data, size_t len);

/*!
 * \brief Build a protocol 3.0 StartupMessage.
 *
 * \param[out] out       the message
 * \param[in]  out_len   room in \p out
 * \param[in]  user      the role to start as (not empty, no NUL)
 * \param[in]  database  the database, NULL or "" for the server's default
 *                       (the role's name)
 * \return its length, or 0 when it does not fit
 */
size_t fm_pg_startup(unsigned char *out, size_t out_len, const char *user,
                     const char *database);

/*!
 * \brief Judge the backend's messages after a StartupMessage.
 *
 * An authentication request (the server asks for a password) is OK when
 * it is one the protocol defines, with its length (MD5 with its salt): the
 * server is up to authenticating us ("authentication request N" as text);
 * another code is MALFORMED.  AuthenticationOk is read on to
 * ReadyForQuery (OK), so an error that comes after it (a database that does
 * not exist, the slots reserved for superusers) is seen.  An ErrorResponse
 * is REFUSED with its SQLSTATE as code (57P03 starting up, 53300 too many
 * clients, 28000 no such role) and its message as text.
 */
void fm_pg_judge(const unsigned char *data, size_t len, struct fm_wire_reply *reply);

/*!
 * \brief Judge what came at once after a judged reply (doc/reference/
 *        protocol-replies.md): OK for nothing, or whole or cut
 *        NoticeResponse, ParameterStatus and NotificationResponse messages
 *        (libpq takes them at any time); REFUSED for an ErrorResponse, with
 *        its SQLSTATE; MALFORMED for anything else.
 */
void fm_pg_judge_after(const unsigned char *data, size_t len, struct fm_wire_reply *reply);

/* mysql_wire.c */

/*!
 * \brief Judge the first packet of a MySQL or MariaDB server.
 *
 * A protocol 10 greeting is OK, its server version as text; an error packet
 * (0xff) is REFUSED with its number as code (1040 too many connections, 1129
 * host blocked) and its message as text; anything else is MALFORMED.
 */
void fm_mysql_judge_greeting(const unsigned char *data, size_t len,
                             struct fm_wire_reply *reply);

/*!
 * \brief Judge what came at once after the greeting (doc/reference/
 *        protocol-replies.md): OK for nothing, REFUSED for an error packet
 *        (the server ends the session), MALFORMED for anything else (the
 *        server must wait for our handshake response).
 */
void fm_mysql_judge_after(const unsigned char *data, size_t len, struct fm_wire_reply *reply);

/* ldap_ber.c */

/* BER tags of the LDAP operations a probe reads the result of (RFC 4511). */
#define FM_LDAP_BIND_RESPONSE 0x61
#define FM_LDAP_EXTENDED_RESPONSE 0x78
#define FM_LDAP_SEARCH_DONE 0x65

/*! \brief The root DSE search (RFC 4512 5.1: base "", scope base,
 *         (objectClass=*), no attributes) as message \p msgid (1-127).
 *  \return its length, or 0 when \p out_len is too short */
size_t fm_ldap_rootdse_request(unsigned char *out, size_t out_len, unsigned msgid);

/*! \brief The anonymous simple BindRequest (LDAPv3) as message \p msgid (1-127).
 *  \return its length, or 0 when \p out_len is too short */
size_t fm_ldap_bind_request(unsigned char *out, size_t out_len, unsigned msgid);

/*! \brief The StartTLS ExtendedRequest (RFC 4511 4.14) as message \p msgid.
 *  \return its length, or 0 when \p out_len is too short */
size_t fm_ldap_starttls_request(unsigned char *out, size_t out_len, unsigned msgid);

/*! \brief The UnbindRequest as message \p msgid.
 *  \return its length, or 0 when \p out_len is too short */
size_t fm_ldap_unbind_request(unsigned char *out, size_t out_len, unsigned msgid);

/*!
 * \brief Judge the LDAPResult of message \p msgid.
 *
 * \p op is the response's tag (FM_LDAP_BIND_RESPONSE, FM_LDAP_SEARCH_DONE,
 * or FM_LDAP_EXTENDED_RESPONSE for StartTLS); before a search's done, its
 * entries and references (at most 8) are read past, and \p reply->used
 * covers them.  resultCode 0 is OK; any other
 * is REFUSED with the code's number and name as code and text
 * ("53", "unwillingToPerform: ..." with the diagnostic message).  A Notice
 * of Disconnection (an unsolicited ExtendedResponse, message 0) is REFUSED
 * with its resultCode too.  Anything that is not BER as RFC 4511 uses it
 * (an indefinite length, a length past 4 bytes, another message) is
 * MALFORMED.
 */
void fm_ldap_judge(const unsigned char *data, size_t len, unsigned msgid, unsigned op,
                   struct fm_wire_reply *reply);

/*!
 * \brief Judge what came at once after a judged result (doc/reference/
 *        protocol-replies.md): OK for nothing, whole or cut messages of
 *        other ids (libldap drops them); REFUSED for a Notice of
 *        Disconnection; MALFORMED for anything that is not an LDAPMessage.
 */
void fm_ldap_judge_after(const unsigned char *data, size_t len, struct fm_wire_reply *reply);

/*! \brief The name of an LDAP resultCode ("unwillingToPerform"), "" if unknown. */
const char *fm_ldap_result_name(unsigned code);

/* dns_judge.c */

/* Room for one answer's data as text (a name, an address, TXT cut). */
#define FM_DNS_TEXT_LEN 264

/* What a DNS answer must say. */
struct fm_dns_expect {
    const char *name;       /* the name asked; NULL: the question's, unchecked */
    unsigned qtype;         /* the type asked (fm_dns_type()) */
    int rcode;              /* ?rcode=: -1 for NOERROR with an answer of the type */
    /* ?answer=: 1 when an answer's text matches, NULL for none */
    int (*match)(void *ctx, const char *text, size_t len);
    void *match_ctx;
};

/*! \brief A type's number ("MX" is 15), -1 if not one a probe asks. */
int fm_dns_type(const char *name);
/*! \brief An rcode's number ("NXDOMAIN" is 3), -1 if unknown. */
int fm_dns_rcode(const char *name);

/*!
 * \brief Judge a whole DNS answer (one message, as c-ares hands it over).
 *
 * OK: NOERROR with at least one answer of the type (one that matches, with
 * ?answer=), or exactly the rcode of ?rcode=; the first such answer's data
 * as text.  An answer counts only when its owner is the question's name or
 * on the CNAME chain from it (an answer for another name is none, as
 * c-ares and glibc drop it); a question that is not \p want->name is
 * MALFORMED.  REFUSED: another rcode (its name as code: NXDOMAIN, SERVFAIL),
 * NODATA (NOERROR, no answer of the type), NOMATCH (no answer matches).
 * MALFORMED: not a DNS answer.  Never MORE: the message is whole.
 */
void fm_dns_judge(const unsigned char *msg, size_t len, const struct fm_dns_expect *want,
                  struct fm_wire_reply *reply);

/* wire.c: what the codecs share */

/*! \brief Copy at most \p len bytes of \p in up to its first NUL into \p out
 *         (NUL-terminated, cut to fit). */
void fm_wire_copy_text(char *out, size_t out_len, const unsigned char *in, size_t len);

/*! \brief Reset \p reply to "read on", nothing judged. */
void fm_wire_reply_init(struct fm_wire_reply *reply);

#endif
