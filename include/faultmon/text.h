/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the text of every message a user or Pacemaker reads.  Two rules,
 * each in one function: a secret in a URI never shows (fm_text_redact), and
 * a message is one line of valid UTF-8 (fm_text_escape).  fm_text_clean and
 * fm_text_format apply both; every message path of every program uses them.
 *
 * libc only: compiled into the faultmon program's library and into the OCF
 * agent, which links nothing else.
 */
#ifndef FAULTMON_TEXT_H
#define FAULTMON_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*!
 * \brief Copy \p in with every URI secret replaced by "***".
 *
 * A secret is whatever lies between a scheme-like prefix ("word:" and any
 * slashes, "http://", "http:/", "user:") and the last '@' after it, up to the
 * next URI that white space (and maybe a quote or bracket) sets apart: the
 * user name too (it may be a token, and in a malformed URI nothing tells
 * where it ends).  So "http://user:pw@host/" shows its credentials as three
 * stars, a password holding '/', '?', '#', '@', '%' or a space is hidden
 * whole, and an '@' in a path hides what comes before it.
 *
 * \param[out] out      redacted text, NUL-terminated, cut at \p out_len - 1
 * \param[in]  out_len  size of \p out (may be 0)
 * \param[in]  in       the text (need not be NUL-terminated)
 * \param[in]  in_len   its length
 * \param[in]  cut      \p in is the start of a longer text: a URI that
 *                      reaches its end is hidden to the end, since its '@'
 *                      may have been cut off
 * \return the length of the whole redacted text (as snprintf())
 */
size_t fm_text_redact(char *out, size_t out_len, const char *in, size_t in_len, bool cut);

/*!
 * \brief Copy \p in with every known secret replaced by "***": the one
 *        place where a reply's text loses what a server echoed back.
 *
 * A server may echo a password (a redis answering AUTH with the bytes it
 * got, an HTTP server echoing the Authorization header): each secret is
 * hidden wherever it occurs, also written as "\xHH" escapes, and so are its
 * first or last 4 or more bytes where a line break, a closing quote or the
 * end of the text cut it (a secret split across lines, or cut short by a
 * detail's length).
 *
 * \param[out] out        redacted text, NUL-terminated, cut at \p out_len - 1
 * \param[in]  out_len    size of \p out (may be 0)
 * \param[in]  in         the text (need not be NUL-terminated)
 * \param[in]  in_len     its length
 * \param[in]  secrets    the secrets, as the server got them (NULs end them;
 *                        NULL and "" entries are skipped)
 * \param[in]  n_secrets  how many
 * \return the length of the whole redacted text (as snprintf())
 */
size_t fm_text_redact_secrets(char *out, size_t out_len, const char *in, size_t in_len,
                              const char *const *secrets, size_t n_secrets);

/*!
 * \brief Copy \p in as one line of valid UTF-8.
 *
 * Control characters (C0, DEL, C1), bytes that are not valid UTF-8, and the
 * characters that make a line break or read in another order (U+2028,
 * U+2029, bidirectional overrides and isolates) and those XML forbids
 * (U+FFFE, U+FFFF) become "\xHH" per byte.  A backslash stays as it is:
 * messages quote regular expressions and values back, and those must read as
 * they were given.  The output is cut only between whole characters or
 * escapes.
 *
 * \param[out] out      escaped text, NUL-terminated
 * \param[in]  out_len  size of \p out (may be 0)
 * \param[in]  in       the text (need not be NUL-terminated)
 * \param[in]  in_len   its length
 * \return true when the whole of \p in fitted
 */
bool fm_text_escape(char *out, size_t out_len, const char *in, size_t in_len);

/*!
 * \brief Redact and escape a message in place.
 *
 * A buffer filled to its last byte is taken as possibly cut (see
 * fm_text_redact()), so a message that snprintf() truncated in the middle of
 * a password still hides it.
 *
 * \param[in,out] buf      NUL-terminated message
 * \param[in]     buf_len  size of \p buf
 */
void fm_text_clean(char *buf, size_t buf_len);

/*!
 * \brief Format a message, then redact and escape it (redacting the whole
 *        text before it is cut to \p buf_len).
 */
void fm_text_vformat(char *buf, size_t buf_len, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
void fm_text_format(char *buf, size_t buf_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*!
 * \brief Write an error message the way fm_text_format() does, and return
 *        the error code, so that "return fm_errf(err, err_len, EINVAL, ...);"
 *        is the whole of an error path.
 *
 * The message is redacted and escaped as a whole, then cut to \p err_len.
 *
 * \param[out] err      the message (NULL when the caller wants none)
 * \param[in]  err_len  size of \p err (0 when the caller wants none)
 * \param[in]  rc       what to return
 * \param[in]  fmt      printf() format
 * \return \p rc
 */
int fm_errf(char *err, size_t err_len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*! \brief Bytes the base64 text of \p in_len bytes takes, its NUL included. */
#define FM_BASE64_SIZE(in_len) (4 * (((size_t) (in_len) + 2) / 3) + 1)

/*!
 * \brief Encode \p in as RFC 4648 base64 (the standard alphabet, "=" padding,
 *        no line breaks), as HTTP Basic credentials need it.
 *
 * The output is all or nothing: when \p out is too small it holds "" (if
 * \p out_len > 0), never a prefix that would pass for other credentials.
 * The caller wipes \p out when it held a secret.
 *
 * \param[in]  in       the bytes (may be NULL when \p in_len is 0)
 * \param[in]  in_len   their number
 * \param[out] out      the text, NUL-terminated
 * \param[in]  out_len  size of \p out: at least FM_BASE64_SIZE(\p in_len)
 * \return 0, or ENOSPC when \p out is too small
 */
int fm_base64_encode(const void *in, size_t in_len, char *out, size_t out_len);

/*!
 * \brief Redact and escape a message in place: fm_text_clean() under the name
 *        its older callers use.
 */
static inline void
fm_escape_controls(char *buf, size_t buf_len)
{
    fm_text_clean(buf, buf_len);
}

#endif
