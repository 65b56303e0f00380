/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a plain-text conversation for line protocols (SMTP, POP3, IMAP,
 * FTP, Redis...), as a script of steps built once at load time: each step
 * sends a command (or nothing, for a greeting), reads one reply within a
 * bounded buffer, and has the protocol judge it; a step may start TLS
 * (STARTTLS) after its reply.  conv.c runs every script under the run's one
 * deadline.  The functions that find where a reply ends and judge it take
 * bytes only, so that they are tested without a socket.
 *
 * Classification (the seed's rules): a connect or send failure is complete;
 * a timeout or a failure while reading is partial, and so is a reply that
 * is not the protocol's (malformed) or exceeds the read cap; a reply that
 * says the service refuses (a 5xx banner, -ERR) is complete, with its first
 * line as the detail.
 */
#ifndef FAULTMON_PROBE_CONV_H
#define FAULTMON_PROBE_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "probe_int.h"

#define FM_CONV_MAX_STEPS 8
/* Bytes of a refusing reply's first line kept for the detail. */
#define FM_CONV_DETAIL_LINE 100

enum fm_conv_judgement {
    FM_CONV_OK = 0,
    FM_CONV_REFUSED,        /* the service says no: complete */
    FM_CONV_MALFORMED,      /* not this protocol: partial */
};

/*!
 * \brief Where the first reply in \p buf ends.
 * \return its length (its line ends included), 0 when more bytes are
 *         needed, -1 when the bytes cannot be this protocol's reply
 */
typedef ssize_t (*fm_conv_end_fn)(const char *buf, size_t len, const char *tag);

/*! \brief Judge one complete reply of \p len bytes. */
typedef enum fm_conv_judgement (*fm_conv_judge_fn)(const char *reply, size_t len);

/*!
 * \brief Judge the \p len bytes that came at once after a complete, ok
 *        reply and before the next command (doc/reference/protocol-replies.md):
 *        OK when they are harmless (kept for the next reply), REFUSED when
 *        they say the service is leaving (a 421, -ERR, "* BYE"), MALFORMED
 *        when they are no part of the conversation.
 */
typedef enum fm_conv_judgement (*fm_conv_after_fn)(const char *rest, size_t len);

/*!
 * \brief Describe one complete reply of \p len bytes for a detail (a binary
 *        protocol's code and words, where a line protocol shows its first
 *        line): one line, cleaned, NUL-terminated in \p out.
 */
typedef void (*fm_conv_describe_fn)(const char *reply, size_t len, char *out, size_t out_len);

#define FM_CONV_STARTTLS 0x1u   /* after an ok reply, the TLS handshake */
/* Sent once the verdict is in; its reply (with an end function) is waited
 * for within the deadline, then the connection closed, whatever it says. */
#define FM_CONV_QUIT     0x2u
/* Its reply is where the service signals maintenance (maintenance_regex):
 * a line protocol's greeting, Redis's PONG; the verdict of a conversation
 * that passes is then maintenance (never of one that fails). */
#define FM_CONV_SIGNAL   0x4u

struct fm_conv_step {
    const char *what;           /* names the step in details: "EHLO" */
    char *send;                 /* owned; NULL: read only (a greeting) */
    size_t send_len;
    const char *tag;            /* passed to end(): an IMAP command's tag */
    fm_conv_end_fn end;
    fm_conv_judge_fn judge;
    fm_conv_describe_fn describe;   /* NULL: the reply's first line */
    fm_conv_after_fn after;         /* NULL: what follows is kept unjudged */
    unsigned flags;
};

struct fm_conv_script {
    struct fm_conv_step steps[FM_CONV_MAX_STEPS];
    size_t n;
    size_t detail_step;         /* whose reply's first line an ok shows */
};

/*! \brief Attach an empty script to \p target (its prepared data).
 *  \return the script, NULL when out of memory */
struct fm_conv_script *fm_conv_script_attach(struct fm_target *target);

/*!
 * \brief Add a step.
 * \param[in] send      bytes to send (copied; may hold a password: zeroed
 *                      when freed), NULL for none
 * \return 0, ENOMEM, or E2BIG past FM_CONV_MAX_STEPS
 */
int fm_conv_add(struct fm_conv_script *script, const char *what, const char *send,
                size_t send_len, fm_conv_end_fn end, fm_conv_judge_fn judge, unsigned flags);

/*! \brief How the last step added describes its reply (default: its first
 *         line), for binary protocols. */
void fm_conv_set_describe(struct fm_conv_script *script, fm_conv_describe_fn describe);

/*! \brief How the last step added judges what follows its reply at once. */
void fm_conv_set_after(struct fm_conv_script *script, fm_conv_after_fn after);

/* The conversation's driver: a protocol's on_ready, on_io, timeout_note,
 * on_deadline (a goodbye's reply is not waited for past the deadline). */
void fm_conv_on_ready(struct fm_conn *conn);
void fm_conv_on_io(struct fm_conn *conn);
const char *fm_conv_timeout_note(const struct fm_conn *conn);
void fm_conv_on_deadline(struct fm_conn *conn);

/* Where replies end (fm_conv_end_fn), for the protocols to share. */

/*! \brief One line, ended by LF (CRLF or bare LF); a bare CR is not this
 *         protocol (-1). */
ssize_t fm_conv_end_line(const char *buf, size_t len, const char *tag);
/*! \brief One RESP line, ended by CRLF only; a bare CR or LF is -1. */
ssize_t fm_conv_end_crlf(const char *buf, size_t len, const char *tag);
/*!
 * \brief An SMTP or FTP reply: "DDD text" or "DDD-text" lines up to the
 *        line "DDD " or "DDD" with the same code (RFC 5321 4.2.1, RFC 959 4.2:
 *        FTP's middle lines may be any text).
 */
ssize_t fm_conv_end_coded(const char *buf, size_t len, const char *tag);
/*! \brief IMAP: untagged "* " lines up to the line that starts with \p tag. */
ssize_t fm_conv_end_tagged(const char *buf, size_t len, const char *tag);

/*! \brief A coded reply (SMTP, FTP): 2xx ok, another code refuses, no code is malformed. */
enum fm_conv_judgement fm_conv_judge_2xx(const char *reply, size_t len);

/*! \brief POP3: a "-ERR" line, or a reply up to the line "." (RFC 1939 3). */
ssize_t fm_conv_end_dotted(const char *buf, size_t len, const char *tag);
/*! \brief POP3: a status line "+OK" ok, "-ERR" refuses, each followed by
 *         SP and printable text or by the line end (RFC 1939 3); anything
 *         else is malformed. */
enum fm_conv_judgement fm_conv_judge_pop3(const char *reply, size_t len);
/*! \brief An IMAP greeting: "* OK" or "* PREAUTH" ok, "* BYE" refuses. */
enum fm_conv_judgement fm_conv_judge_imap_greeting(const char *reply, size_t len);
/*! \brief An IMAP command's tagged completion: OK ok, NO or BAD (or an
 *         untagged BYE before it) refuses. */
enum fm_conv_judgement fm_conv_judge_imap_tagged(const char *reply, size_t len);

/* What may follow a complete reply at once (fm_conv_after_fn). */
/*! \brief SMTP, FTP: a 4xx or 5xx (a 421 notice) refuses, anything else is malformed. */
enum fm_conv_judgement fm_conv_after_coded(const char *rest, size_t len);
/*! \brief POP3: -ERR refuses, anything else is malformed. */
enum fm_conv_judgement fm_conv_after_pop3(const char *rest, size_t len);
/*! \brief Redis: an error reply refuses, anything else is malformed. */
enum fm_conv_judgement fm_conv_after_redis(const char *rest, size_t len);
/*! \brief IMAP: untagged lines are ok, "* BYE" refuses, others are malformed. */
enum fm_conv_judgement fm_conv_after_imap(const char *rest, size_t len);

/*! \brief The three-digit code of a coded reply, -1 if none. */
int fm_conv_reply_code(const char *reply, size_t len);

/*!
 * \brief The first line of \p reply, cleaned (controls escaped, URIs'
 *        secrets hidden) and cut to FM_CONV_DETAIL_LINE bytes.
 */
void fm_conv_first_line(const char *reply, size_t len, char *out, size_t out_len);

#endif
