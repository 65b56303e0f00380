/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the bytes of line protocols' replies (conv.h): where a reply
 * ends, its code, its first line for a detail.  Pure functions of bytes,
 * tested without a socket (tests/unit/test_conv_parse.c) and fuzzed
 * (tests/fuzz/fuzz_conv.c).
 */
#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <faultmon/text.h>
#include "conv.h"

/* The length of the line at buf (its LF included), 0 when no LF yet. */
static size_t
line_len(const char *buf, size_t len)
{
    const char *lf = memchr(buf, '\n', len);

    return (lf != NULL)? (size_t) (lf - buf) + 1 : 0;
}

/*
 * Whether the bytes hold a bare CR: one followed by anything but LF.  A
 * line ends with CRLF (or LF, which the mainstream clients of these
 * protocols accept), never with a lone CR: "220\rGARBAGE" is no 220
 * (doc/reference/protocol-replies.md).  A CR that is the last byte so far
 * may yet be followed by its LF.
 */
static bool
has_bare_cr(const char *buf, size_t len)
{
    for (const char *cr = memchr(buf, '\r', len); cr != NULL;
         cr = memchr(cr + 1, '\r', len - (size_t) (cr + 1 - buf))) {
        if ((size_t) (cr + 1 - buf) < len && cr[1] != '\n') {
            return true;
        }
    }
    return false;
}

/* The line at buf, checked: its length (its LF included), 0 when no LF yet,
 * -1 when it holds a bare CR (every reader of a line starts so). */
static ssize_t
checked_line(const char *buf, size_t len)
{
    size_t n = line_len(buf, len);

    if (has_bare_cr(buf, (n > 0)? n : len)) {
        return -1;
    }
    return (ssize_t) n;
}

ssize_t
fm_conv_end_line(const char *buf, size_t len, const char *tag)
{
    (void) tag;
    return checked_line(buf, len);
}

ssize_t
fm_conv_end_crlf(const char *buf, size_t len, const char *tag)
{
    ssize_t n = checked_line(buf, len);

    (void) tag;
    if (n < 0) {
        return -1;
    }
    /* RESP: every line ends with CRLF; a bare LF ends none (hiredis). */
    if (n > 0 && (n < 2 || buf[n - 2] != '\r')) {
        return -1;
    }
    return n;
}

int
fm_conv_reply_code(const char *reply, size_t len)
{
    if (len < 3 || !isdigit((unsigned char) reply[0]) || !isdigit((unsigned char) reply[1])
        || !isdigit((unsigned char) reply[2])) {
        return -1;
    }
    if (len > 3 && reply[3] != ' ' && reply[3] != '-' && reply[3] != '\r' && reply[3] != '\n') {
        return -1;
    }
    return (reply[0] - '0') * 100 + (reply[1] - '0') * 10 + (reply[2] - '0');
}

/* Whether a line is the last of a coded reply whose code is `code`. */
static bool
coded_last_line(const char *line, size_t len, int code)
{
    return fm_conv_reply_code(line, len) == code && (len == 3 || line[3] != '-');
}

ssize_t
fm_conv_end_coded(const char *buf, size_t len, const char *tag)
{
    size_t first = line_len(buf, len);
    int code = fm_conv_reply_code(buf, len);
    size_t at = 0;

    (void) tag;
    if (code < 0) {
        /* Enough bytes to tell that this is no code: not the protocol. */
        return (len >= 4 || first > 0)? -1 : 0;
    }
    if (has_bare_cr(buf, (first > 0)? first : len)) {
        return -1;
    }
    if (first == 0) {
        return 0;
    }
    if (coded_last_line(buf, first, code)) {
        return (ssize_t) first;
    }
    for (at = first; at < len;) {
        ssize_t line = checked_line(buf + at, len - at);
        size_t n = (size_t) line;

        if (line <= 0) {
            return line;
        }
        at += n;
        if (coded_last_line(buf + at - n, n, code)) {
            return (ssize_t) at;
        }
    }
    return 0;
}

ssize_t
fm_conv_end_tagged(const char *buf, size_t len, const char *tag)
{
    size_t tag_len = strlen(tag);

    for (size_t at = 0; at < len;) {
        ssize_t line = checked_line(buf + at, len - at);
        size_t n = (size_t) line;

        if (line <= 0) {
            return line;
        }
        at += n;
        if (n > tag_len && memcmp(buf + at - n, tag, tag_len) == 0 && buf[at - n + tag_len] == ' ') {
            return (ssize_t) at;
        }
        /* Untagged ("* ") and continuation ("+ ") lines come before it. */
        if (buf[at - n] != '*' && buf[at - n] != '+') {
            return -1;
        }
    }
    return 0;
}

void
fm_conv_first_line(const char *reply, size_t len, char *out, size_t out_len)
{
    size_t n = 0;

    while (n < len && reply[n] != '\r' && reply[n] != '\n') {
        n++;
    }
    if (n > FM_CONV_DETAIL_LINE) {
        n = FM_CONV_DETAIL_LINE;
    }
    if (out_len == 0) {
        return;
    }
    /* fm_text_escape() makes it one line of valid UTF-8 whatever the
     * server sent (NULs included); fm_text_clean() hides URIs' secrets. */
    (void) fm_text_escape(out, out_len, reply, n);
    fm_text_clean(out, out_len);
}

enum fm_conv_judgement
fm_conv_judge_2xx(const char *reply, size_t len)
{
    int code = fm_conv_reply_code(reply, len);

    if (code < 100) {
        return FM_CONV_MALFORMED;
    }
    /* 4xx and 5xx refuse; a 1xx or 3xx where a greeting or an answer to
     * EHLO belongs is no service either. */
    return (code >= 200 && code < 300)? FM_CONV_OK : FM_CONV_REFUSED;
}

ssize_t
fm_conv_end_dotted(const char *buf, size_t len, const char *tag)
{
    size_t first = line_len(buf, len);

    (void) tag;
    if (has_bare_cr(buf, (first > 0)? first : len)) {
        return -1;
    }
    if (first == 0) {
        return 0;
    }
    /* An error is one line; a positive reply to a multi-line command ends
     * with a line holding only "." (RFC 1939 3). */
    if (len >= 4 && memcmp(buf, "-ERR", 4) == 0) {
        return (ssize_t) first;
    }
    for (size_t at = first; at < len;) {
        ssize_t line = checked_line(buf + at, len - at);
        size_t n = (size_t) line;

        if (line <= 0) {
            return line;
        }
        if ((n == 3 && memcmp(buf + at, ".\r\n", 3) == 0) || (n == 2 && memcmp(buf + at, ".\n", 2) == 0)) {
            return (ssize_t) (at + n);
        }
        at += n;
    }
    return 0;
}

/*
 * Whether [text, text + len) is a status line's text up to its line end:
 * nothing, or a SP and printable text (RFC 1939 3: "+OK" SP text CRLF),
 * then CRLF or LF.  Bytes from 0x80 pass (a server's UTF-8 words); a NUL
 * or another control byte does not.
 */
static bool
status_text(const char *text, size_t len)
{
    size_t n = 0;

    if (len > 0 && text[0] == ' ') {
        n = 1;
    }
    for (; n < len; n++) {
        unsigned char c = (unsigned char) text[n];

        if (c == '\r' || c == '\n') {
            break;
        }
        if (n == 0 || c < 0x20 || c == 0x7f) {
            return false;   /* "+OKGARBAGE", "+OK \x00" */
        }
    }
    return n < len && (text[n] == '\n' || (text[n] == '\r' && n + 1 < len && text[n + 1] == '\n'));
}

enum fm_conv_judgement
fm_conv_judge_pop3(const char *reply, size_t len)
{
    if (len >= 3 && memcmp(reply, "+OK", 3) == 0) {
        return status_text(reply + 3, len - 3)? FM_CONV_OK : FM_CONV_MALFORMED;
    }
    if (len >= 4 && memcmp(reply, "-ERR", 4) == 0) {
        return status_text(reply + 4, len - 4)? FM_CONV_REFUSED : FM_CONV_MALFORMED;
    }
    return FM_CONV_MALFORMED;
}

/* "OK", "NO", "BAD"... at `word`, up to a blank or the line's end. */
static bool
imap_word_is(const char *word, size_t len, const char *want)
{
    size_t want_len = strlen(want);

    return len >= want_len && strncasecmp(word, want, want_len) == 0
           && (len == want_len || word[want_len] == ' ' || word[want_len] == '\r'
               || word[want_len] == '\n');
}

enum fm_conv_judgement
fm_conv_judge_imap_greeting(const char *reply, size_t len)
{
    if (len < 2 || reply[0] != '*' || reply[1] != ' ') {
        return FM_CONV_MALFORMED;
    }
    if (imap_word_is(reply + 2, len - 2, "OK") || imap_word_is(reply + 2, len - 2, "PREAUTH")) {
        return FM_CONV_OK;
    }
    return imap_word_is(reply + 2, len - 2, "BYE")? FM_CONV_REFUSED : FM_CONV_MALFORMED;
}

/* Whether the line at `line` is an untagged BYE: the server is leaving. */
static bool
imap_bye(const char *line, size_t len)
{
    return len >= 2 && line[0] == '*' && line[1] == ' ' && imap_word_is(line + 2, len - 2, "BYE");
}

enum fm_conv_judgement
fm_conv_judge_imap_tagged(const char *reply, size_t len)
{
    size_t last = 0;
    const char *blank = NULL;

    /* The tagged line is the last (fm_conv_end_tagged() ended the reply
     * there); an untagged BYE before it says the server is closing. */
    for (size_t i = 0; i + 1 < len; i++) {
        if (reply[i] == '\n') {
            last = i + 1;
        }
        if ((i == 0 || reply[i - 1] == '\n') && imap_bye(reply + i, len - i)) {
            return FM_CONV_REFUSED;
        }
    }
    blank = memchr(reply + last, ' ', len - last);
    if (blank == NULL) {
        return FM_CONV_MALFORMED;
    }
    blank++;
    if (imap_word_is(blank, len - (size_t) (blank - reply), "OK")) {
        return FM_CONV_OK;
    }
    if (imap_word_is(blank, len - (size_t) (blank - reply), "NO")
        || imap_word_is(blank, len - (size_t) (blank - reply), "BAD")) {
        return FM_CONV_REFUSED;
    }
    return FM_CONV_MALFORMED;
}

/* What follows a complete reply at once (conv.h, fm_conv_after_fn); the
 * rules are doc/reference/protocol-replies.md's. */

enum fm_conv_judgement
fm_conv_after_coded(const char *rest, size_t len)
{
    /* RFC 5321 3.8 and RFC 959 5.4: a 421 (or any 4xx, 5xx) may come at
     * any time, and says the service is closing. */
    return (fm_conv_reply_code(rest, len) >= 400)? FM_CONV_REFUSED : FM_CONV_MALFORMED;
}

enum fm_conv_judgement
fm_conv_after_pop3(const char *rest, size_t len)
{
    return (len >= 4 && memcmp(rest, "-ERR", 4) == 0)? FM_CONV_REFUSED : FM_CONV_MALFORMED;
}

enum fm_conv_judgement
fm_conv_after_redis(const char *rest, size_t len)
{
    return (len > 0 && rest[0] == '-')? FM_CONV_REFUSED : FM_CONV_MALFORMED;
}

enum fm_conv_judgement
fm_conv_after_imap(const char *rest, size_t len)
{
    /* RFC 3501 5.3: untagged data may come at any time; the next
     * command's reply reads it.  A BYE says the server is closing. */
    for (size_t at = 0; at < len;) {
        size_t n = line_len(rest + at, len - at);

        if (rest[at] != '*' || (at + 1 < len && rest[at + 1] != ' ')) {
            return FM_CONV_MALFORMED;
        }
        if (imap_bye(rest + at, len - at)) {
            return FM_CONV_REFUSED;
        }
        if (n == 0) {
            break;
        }
        at += n;
    }
    return FM_CONV_OK;
}
