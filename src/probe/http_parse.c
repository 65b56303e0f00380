/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: parsing an HTTP response as it arrives.
 *
 * The rules (RFC 9110 and 9112), each with its verdict and the clients that
 * agree, are the table of doc/reference/http-replies.md.  In short: what
 * curl, wget and HAProxy's checks all accept is a deviation (noted in
 * fm_http_reply.deviation; the reply is judged by its status), what any of
 * them refuses is malformed:
 * - the status line is "HTTP/1.0" or "HTTP/1.1", a space (more than one is
 *   a deviation), three digits (100-999), then nothing or a space and a
 *   reason phrase without NUL, CR or other controls;
 * - a line ends with LF or CR LF; a bare CR or a NUL in a header is
 *   malformed, another control character in a header value a deviation;
 * - a header line is a token, a colon, and a value: a line without a colon,
 *   blanks before the colon and an invalid name are malformed; obs-fold (a
 *   line starting with a blank) is a deviation, unless it would continue
 *   the status line, Content-Length or Transfer-Encoding;
 * - Content-Length is digits; repeated or listed values must agree;
 *   Transfer-Encoding must be exactly "chunked"; beside Content-Length or in
 *   an HTTP/1.0 reply it is a framing doubt (fm_http_reply.framing_doubt),
 *   which only a reply with a body must not have;
 * - 1xx replies other than 101 are interim: the caller skips them.
 */
#include <config.h>

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <faultmon/http.h>

/* The longest chunk-size line we accept before calling the body malformed
 * (a status line is bounded by the read cap alone, as curl's and HAProxy's
 * are by their header buffers). */
#define FM_CHUNK_LINE_MAX 1024

static const char *
find_line_end(const char *start, const char *end)
{
    return memchr(start, '\n', (size_t) (end - start));
}

/* The length of a line without its LF and the CR before it, if any.  Any
 * other CR stays in the line, where the character checks reject it as a
 * bare CR (RFC 9112 section 2.2 lets a recipient reject one). */
static size_t
line_content_len(const char *line, const char *eol)
{
    size_t len = (size_t) (eol - line);

    if (len > 0 && line[len - 1] == '\r') {
        len--;
    }
    return len;
}

/* tchar of RFC 9110 section 5.6.2 */
static bool
is_tchar(unsigned char ch)
{
    return isalnum(ch) || (ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

/* field-vchar, SP or HTAB: anything but controls (obs-text is allowed). */
static bool
is_field_char(unsigned char ch)
{
    return ch == '\t' || (ch >= 0x20 && ch != 0x7f);
}

static bool
all_field_chars(const char *start, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (!is_field_char((unsigned char) start[i])) {
            return false;
        }
    }
    return true;
}

static enum fm_http_parse
malformed(struct fm_http_reply *reply, const char *why)
{
    reply->why = why;
    return FM_HTTP_MALFORMED;
}

/* Note the first deviation only: one is enough to say the server is odd. */
static void
deviate(struct fm_http_reply *reply, const char *what)
{
    if (reply->deviation == NULL) {
        reply->deviation = what;
    }
}

/* A header value's characters: NUL and a bare CR are malformed (curl
 * refuses a NUL, HAProxy a CR), another control a deviation.  Returns
 * FM_HTTP_NEED_MORE when the value is fine. */
static enum fm_http_parse
check_value_chars(const char *value, size_t len, struct fm_http_reply *reply)
{
    if (all_field_chars(value, len)) {
        return FM_HTTP_NEED_MORE;
    }
    if (memchr(value, '\0', len) != NULL) {
        return malformed(reply, "NUL in a header");
    }
    if (memchr(value, '\r', len) != NULL) {
        return malformed(reply, "bare CR in a header");
    }
    deviate(reply, "a control character in a header value");
    return FM_HTTP_NEED_MORE;
}

/* Content-Length: 1*DIGIT, or a list of equal values ("42, 42"), which RFC
 * 9110 section 8.6 lets a recipient accept; it must agree with an earlier
 * Content-Length header. */
static enum fm_http_parse
parse_content_length(const char *value, size_t len, struct fm_http_reply *reply)
{
    size_t i = 0;

    if (len == 0) {
        return malformed(reply, "empty Content-Length");
    }
    while (i < len) {
        size_t v = 0;
        size_t digits = 0;

        for (; i < len && isdigit((unsigned char) value[i]); i++, digits++) {
            if (v > (SIZE_MAX - 9) / 10) {
                return malformed(reply, "Content-Length too large");
            }
            v = v * 10 + (size_t) (value[i] - '0');
        }
        if (digits == 0) {
            return malformed(reply, "Content-Length is not a number");
        }
        if (reply->have_length && reply->content_length != v) {
            return malformed(reply, "conflicting Content-Length values");
        }
        reply->have_length = true;
        reply->content_length = v;
        while (i < len && (value[i] == ' ' || value[i] == '\t')) {
            i++;
        }
        if (i < len) {
            if (value[i] != ',') {
                return malformed(reply, "Content-Length is not a number");
            }
            i++;
            while (i < len && (value[i] == ' ' || value[i] == '\t')) {
                i++;
            }
            if (i == len) {
                return malformed(reply, "Content-Length is not a number");
            }
        }
    }
    return FM_HTTP_NEED_MORE;
}

/*
 * One header line (without its line end): check its syntax and note what
 * frames the body.  Returns FM_HTTP_NEED_MORE when the line is fine.
 */
static enum fm_http_parse
parse_field_line(const char *line, size_t len, struct fm_http_reply *reply, bool trailer)
{
    size_t name_len = 0;
    const char *value = NULL;
    size_t value_len = 0;

    if (line[0] == ' ' || line[0] == '\t') {
        /* obs-fold continues the value above: harmless, unless that value
         * frames the body or there is none (the status line). */
        if (reply->last_frames || !reply->seen_field) {
            return malformed(reply, "obs-fold: a header line starting with a blank");
        }
        deviate(reply, "obs-fold (a header line continued on the next)");
        return check_value_chars(line, len, reply);
    }
    reply->seen_field = true;
    while (name_len < len && is_tchar((unsigned char) line[name_len])) {
        name_len++;
    }
    if (name_len == len || memchr(line, ':', len) == NULL) {
        return malformed(reply, "header line without a colon");
    }
    if (line[name_len] != ':') {
        if (line[name_len] == ' ' || line[name_len] == '\t') {
            return malformed(reply, "blank between a header name and its colon");
        }
        return malformed(reply, (line[name_len] == '\0')? "NUL in a header"
                                : "invalid character in a header name");
    }
    if (name_len == 0) {
        return malformed(reply, "empty header name");
    }
    value = line + name_len + 1;
    value_len = len - name_len - 1;
    if (check_value_chars(value, value_len, reply) != FM_HTTP_NEED_MORE) {
        return FM_HTTP_MALFORMED;
    }
    while (value_len > 0 && (value[0] == ' ' || value[0] == '\t')) {
        value++;
        value_len--;
    }
    while (value_len > 0 && (value[value_len - 1] == ' ' || value[value_len - 1] == '\t')) {
        value_len--;
    }
    if (trailer) {
        return FM_HTTP_NEED_MORE;   /* trailers cannot frame the body */
    }
    reply->last_frames = false;
    if (name_len == 14 && strncasecmp(line, "Content-Length", 14) == 0) {
        reply->last_frames = true;
        return parse_content_length(value, value_len, reply);
    }
    if (name_len == 17 && strncasecmp(line, "Transfer-Encoding", 17) == 0) {
        reply->last_frames = true;
        /* Another coding (gzip, chunked) would hide the body from the
         * receive regex, and chunked twice is invalid. */
        if (reply->chunked || value_len != 7 || strncasecmp(value, "chunked", 7) != 0) {
            return malformed(reply, "a Transfer-Encoding other than chunked");
        }
        reply->chunked = true;
    }
    return FM_HTTP_NEED_MORE;
}

/* "HTTP/1.x SSS[ reason]" without its line end; more than one space
 * before the status is a deviation (curl, wget and HAProxy skip them). */
static enum fm_http_parse
parse_status_line(const char *buf, size_t len, struct fm_http_reply *reply)
{
    size_t at = 8;

    while (at < len && buf[at] == ' ') {
        at++;
    }
    if (at > 9) {
        deviate(reply, "more than one space before the status code");
    }
    if (len < at + 3 || at == 8 || (buf[7] != '0' && buf[7] != '1')
        || !isdigit((unsigned char) buf[at]) || !isdigit((unsigned char) buf[at + 1])
        || !isdigit((unsigned char) buf[at + 2]) || buf[at] == '0'
        || (len > at + 3 && buf[at + 3] != ' ')) {
        return malformed(reply, "invalid status line");
    }
    if (!all_field_chars(buf + at + 3, len - at - 3)) {
        return malformed(reply, (memchr(buf + at + 3, '\0', len - at - 3) != NULL)
                                ? "NUL in the status line" : "control character in the status line");
    }
    reply->version_minor = buf[7] - '0';
    reply->status = (buf[at] - '0') * 100 + (buf[at + 1] - '0') * 10 + (buf[at + 2] - '0');
    return FM_HTTP_NEED_MORE;
}

enum fm_http_parse
fm_http_parse_reply(const char *buf, size_t len, struct fm_http_reply *reply)
{
    static const char prefix[] = "HTTP/1.";
    size_t prefix_len = sizeof(prefix) - 1;
    const char *end = buf + len;
    const char *line = buf;
    const char *eol = NULL;
    enum fm_http_parse rc = FM_HTTP_NEED_MORE;

    memset(reply, 0, sizeof(*reply));
    if (len == 0) {
        return FM_HTTP_NEED_MORE;
    }
    /* Reject garbage (and HTTP/0.9's bare body) as soon as the first bytes
     * disagree with "HTTP/1.". */
    if (memcmp(buf, prefix, (len < prefix_len)? len : prefix_len) != 0) {
        return malformed(reply, "not an HTTP/1.x status line");
    }
    eol = find_line_end(buf, end);
    if (eol == NULL) {
        return FM_HTTP_NEED_MORE;
    }
    rc = parse_status_line(buf, line_content_len(buf, eol), reply);
    if (rc != FM_HTTP_NEED_MORE) {
        return rc;
    }

    for (line = eol + 1; line < end; line = eol + 1) {
        size_t line_len = 0;

        eol = find_line_end(line, end);
        if (eol == NULL) {
            return FM_HTTP_NEED_MORE;
        }
        line_len = line_content_len(line, eol);
        if (line_len == 0) {
            reply->header_len = (size_t) (eol + 1 - buf);
            if (reply->status >= 100 && reply->status < 200 && reply->status != 101) {
                return FM_HTTP_INTERIM;
            }
            if (reply->chunked && reply->have_length) {
                reply->framing_doubt = "both Transfer-Encoding and Content-Length";
            } else if (reply->chunked && reply->version_minor == 0) {
                reply->framing_doubt = "Transfer-Encoding in an HTTP/1.0 reply";
            }
            return FM_HTTP_HEADERS_DONE;
        }
        rc = parse_field_line(line, line_len, reply, false);
        if (rc != FM_HTTP_NEED_MORE) {
            reply->why_offset = (size_t) (line - buf);
            return rc;
        }
    }
    return FM_HTTP_NEED_MORE;
}

enum fm_http_framing
fm_http_reply_framing(const struct fm_http_reply *reply, bool head_request)
{
    if (head_request || reply->status < 200 || reply->status == 204 || reply->status == 304) {
        return FM_HTTP_BODY_NONE;
    }
    if (reply->chunked) {
        return FM_HTTP_BODY_CHUNKED;
    }
    if (reply->have_length) {
        return FM_HTTP_BODY_LENGTH;
    }
    return FM_HTTP_BODY_CLOSE;
}

/* chunk-size [ chunk-ext ]: hex digits, then blanks and ";ext" at most. */
static bool
parse_chunk_size(const char *line, size_t len, size_t *size)
{
    size_t v = 0;
    size_t i = 0;

    for (; i < len && isxdigit((unsigned char) line[i]); i++) {
        int digit = isdigit((unsigned char) line[i])? line[i] - '0'
                    : tolower((unsigned char) line[i]) - 'a' + 10;

        if (v > (SIZE_MAX >> 4)) {
            return false;
        }
        v = (v << 4) | (size_t) digit;
    }
    if (i == 0) {
        return false;
    }
    while (i < len && (line[i] == ' ' || line[i] == '\t')) {
        i++;
    }
    if (i < len && (line[i] != ';' || !all_field_chars(line + i, len - i))) {
        return false;
    }
    *size = v;
    return true;
}

enum fm_http_parse
fm_http_chunked(char *body, size_t len, bool decode, size_t *data_len, const char **why)
{
    const char *end = body + len;
    size_t pos = 0;
    struct fm_http_reply scratch;

    *data_len = 0;
    *why = NULL;
    for (;;) {
        const char *eol = find_line_end(body + pos, end);
        size_t size = 0;
        size_t avail = 0;

        if (eol == NULL) {
            if (len - pos > FM_CHUNK_LINE_MAX) {
                *why = "chunk-size line too long";
                return FM_HTTP_MALFORMED;
            }
            return FM_HTTP_NEED_MORE;
        }
        if (!parse_chunk_size(body + pos, line_content_len(body + pos, eol), &size)) {
            *why = "invalid chunk-size line";
            return FM_HTTP_MALFORMED;
        }
        pos = (size_t) (eol + 1 - body);
        if (size == 0) {
            break;
        }
        avail = len - pos;
        if (avail > size) {
            avail = size;
        }
        if (decode && *data_len != pos) {
            memmove(body + *data_len, body + pos, avail);
        }
        *data_len += avail;
        pos += avail;
        if (avail < size || pos == len) {
            return FM_HTTP_NEED_MORE;
        }
        /* The data ends with CR LF (or LF). */
        if (body[pos] == '\r') {
            if (pos + 1 == len) {
                return FM_HTTP_NEED_MORE;
            }
            pos++;
        }
        if (body[pos] != '\n') {
            *why = "chunk data longer than its size";
            return FM_HTTP_MALFORMED;
        }
        pos++;
    }

    /* Trailer fields, then an empty line. */
    memset(&scratch, 0, sizeof(scratch));
    for (;;) {
        const char *eol = find_line_end(body + pos, end);
        size_t line_len = 0;

        if (eol == NULL) {
            return FM_HTTP_NEED_MORE;
        }
        line_len = line_content_len(body + pos, eol);
        if (line_len == 0) {
            return FM_HTTP_BODY_DONE;
        }
        if (parse_field_line(body + pos, line_len, &scratch, true) != FM_HTTP_NEED_MORE) {
            *why = scratch.why;
            return FM_HTTP_MALFORMED;
        }
        pos = (size_t) (eol + 1 - body);
    }
}

bool
fm_http_has_header(const char *buf, size_t header_len, const char *name)
{
    const char *end = buf + header_len;
    const char *line = find_line_end(buf, end);    /* after the status line */
    size_t name_len = strlen(name);

    while (line != NULL && ++line < end) {
        const char *eol = find_line_end(line, end);
        size_t len = (eol != NULL)? line_content_len(line, eol) : 0;

        /* fm_http_parse_reply() let no blank in before the colon through. */
        if (len > name_len && line[name_len] == ':' && strncasecmp(line, name, name_len) == 0) {
            return true;
        }
        line = eol;
    }
    return false;
}
