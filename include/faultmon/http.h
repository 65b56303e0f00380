/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: incremental parsing of an HTTP response, with a cap on size.
 *
 * The parser never allocates: it looks at the bytes the probe has read so far
 * and says whether the reply is complete enough to judge.  It is strict on
 * purpose: a fault monitor must never take a reply it cannot fully understand
 * for a healthy one, so anything RFC 9110/9112 forbids, or that could be read
 * in two ways (obs-fold, conflicting Content-Length, Transfer-Encoding beside
 * Content-Length, control characters), makes the reply malformed.
 */
#ifndef FAULTMON_HTTP_H
#define FAULTMON_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include <faultmon/probe_opts.h>
#include <faultmon/result.h>
#include <faultmon/status_set.h>
#include <faultmon/target.h>

enum fm_http_parse {
    FM_HTTP_NEED_MORE = 0,  /* read more bytes */
    FM_HTTP_HEADERS_DONE,   /* a final response's status line and headers */
    FM_HTTP_MALFORMED,      /* not an HTTP response we can trust (why says why) */
    FM_HTTP_INTERIM,        /* a complete interim 1xx response (not 101): skip
                             * header_len bytes and parse what follows */
    FM_HTTP_BODY_DONE,      /* fm_http_chunked(): the last chunk has been read */
};

/* How the body of a final response ends (RFC 9112 section 6.3). */
enum fm_http_framing {
    FM_HTTP_BODY_NONE = 0,  /* reply to HEAD, 1xx, 204 or 304: no body */
    FM_HTTP_BODY_LENGTH,    /* Content-Length bytes */
    FM_HTTP_BODY_CHUNKED,   /* Transfer-Encoding: chunked */
    FM_HTTP_BODY_CLOSE,     /* until the server closes the connection */
};

struct fm_http_reply {
    int status;             /* 100..999 once parsed */
    int version_minor;      /* 0 or 1 */
    size_t header_len;      /* bytes up to and including the blank line */
    bool have_length;
    size_t content_length;
    bool chunked;           /* Transfer-Encoding: chunked */
    const char *why;        /* static text: why the reply is malformed */
    size_t why_offset;      /* where the line that is malformed starts */
    /* static text: the first deviation from RFC 9112 that curl, wget and
     * HAProxy's checks all accept (doc/reference/http-replies.md): the
     * reply is judged by its status, and the deviation noted */
    const char *deviation;
    /* static text: framing that only a reply with a body must get right
     * (Transfer-Encoding beside Content-Length, or in HTTP/1.0): malformed
     * when a body follows, a deviation for HEAD, 204 and 304 */
    const char *framing_doubt;
    bool seen_field;        /* a header line was read (obs-fold may follow) */
    bool last_frames;       /* the last one was Content-Length or
                             * Transfer-Encoding (no obs-fold may follow) */
};

/*!
 * \brief Parse what has been read of one response.
 *
 * A reply may start with interim responses (1xx other than 101, RFC 9110
 * section 15.2); each is returned as FM_HTTP_INTERIM, and the caller parses
 * on from \p buf + header_len: only the final response is judged.
 *
 * \param[in]  buf    the bytes read so far (need not be NUL-terminated)
 * \param[in]  len    how many
 * \param[out] reply  filled once the status line (status) and the headers
 *                    (header_len, framing) are complete; why on MALFORMED
 * \return where the parse stands
 */
enum fm_http_parse fm_http_parse_reply(const char *buf, size_t len,
                                       struct fm_http_reply *reply);

/*!
 * \brief How the body of a parsed final response is delimited.
 *
 * \param[in] reply         a reply for which fm_http_parse_reply() returned
 *                          FM_HTTP_HEADERS_DONE
 * \param[in] head_request  whether the request was HEAD (no body then)
 * \return the framing
 */
/*!
 * \brief Whether the headers of a parsed response hold a field \p name
 *        (compared without regard to case).
 *
 * \param[in] buf         the response, from its status line
 * \param[in] header_len  fm_http_reply.header_len
 * \param[in] name        the field name
 */
bool fm_http_has_header(const char *buf, size_t header_len, const char *name);

enum fm_http_framing fm_http_reply_framing(const struct fm_http_reply *reply,
                                           bool head_request);

/*!
 * \brief Walk a chunked body read so far, optionally decoding it in place.
 *
 * \param[in,out] body      the bytes after the headers
 * \param[in]     len       how many
 * \param[in]     decode    move the chunk data to the start of \p body (the
 *                          encoded bytes are overwritten: do it once, to judge)
 * \param[out]    data_len  data bytes found so far (of complete and partial
 *                          chunks)
 * \param[out]    why       static text when the body is malformed
 * \return FM_HTTP_BODY_DONE after the last chunk and its trailers,
 *         FM_HTTP_NEED_MORE, or FM_HTTP_MALFORMED
 */
enum fm_http_parse fm_http_chunked(char *body, size_t len, bool decode,
                                   size_t *data_len, const char **why);

/*!
 * \brief Build the request bytes of an HTTP target from the options, once,
 *        at load time (fm_probe_run_new() does it for every target).
 *
 * An https target without tls_request becomes a handshake only
 * (FM_PROBE_TLS_CONNECT, nothing to send), as the seed's secure probe is.
 *
 * \param[in,out] target  sets request, request_len, send_request (and kind)
 * \param[in]     opts    method, headers, tls_request
 * \return 0, or ENOMEM
 */
int fm_http_build_request(struct fm_target *target, const struct fm_probe_opts *opts);

/*!
 * \brief Match a regex (the receive or the maintenance regex) against
 *        \p len bytes at \p data.
 * \return 1 on a match, 0 on none, -1 when the deadline came first
 */
typedef int (*fm_http_match_fn)(void *ctx, const regex_t *re, const char *data, size_t len);

/* What a reply is judged against: the options and the target, as they stand
 * for one probe. */
struct fm_http_check {
    const struct fm_status_set *expect;   /* the statuses that pass */
    bool head_request;          /* the request was HEAD: no body may come */
    bool want_body;             /* the regex sees the body (a GET), not the
                                 * headers */
    size_t max_reply_bytes;     /* the read cap */
    size_t receive_window_bytes;/* body bytes the regex sees */
    fm_http_match_fn match;     /* runs receive and maintenance regexes */
    const regex_t *receive;     /* NULL: no receive regex */
    void *match_ctx;
    const char *receive_text;   /* the regex as written, for details */
    bool reverse;               /* a match means failure */
    /* Service-signalled maintenance (verdict FM_REASON_MAINTENANCE): */
    const struct fm_status_set *maintenance_status; /* NULL: none */
    const char *maintenance_header; /* a header whose presence says it; NULL */
    const regex_t *maintenance_re;  /* a match in the regex window; NULL */
    const char *maintenance_text;   /* that regex as written */
};

/* The reply read so far, and how far the judge has walked it. */
struct fm_http_rx {
    char *buf;                  /* the bytes (a chunked body is decoded in
                                 * place once it is judged) */
    size_t len;
    size_t final_at;            /* where the final response starts, after
                                 * interim 1xx responses; 0 at first */
    unsigned interim;           /* interim responses skipped; 0 at first */
};

struct fm_http_verdict {
    enum fm_reason reason;
    int http_status;            /* the final status once read, else 0 (set
                                 * even while more is to be read) */
    const char *deviation;      /* static text: an accepted deviation, or NULL */
    char detail[160];
};

/*!
 * \brief Judge an HTTP reply as far as it has been read (no socket needed).
 *
 * Skips interim replies, checks the status against the expected set, waits
 * for as much of the body as the regex is to see, then matches it (through
 * \p check->match, which the probe runs under the deadline) in normal or
 * reverse mode.  Call it again with the same \p rx after each read.
 *
 * \param[in]     check    what to judge against
 * \param[in,out] rx       the bytes read; final_at and interim advance
 * \param[in]     eof      the server has closed: nothing more will come
 * \param[out]    verdict  reason and detail once judged; http_status always
 * \return true once the reply has its verdict, false to read more
 */
bool fm_http_judge(const struct fm_http_check *check, struct fm_http_rx *rx, bool eof,
                   struct fm_http_verdict *verdict);

#endif
