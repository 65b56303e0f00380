/*
 * faultmon: incremental parsing of an HTTP response, with a cap on size.
 *
 * The parser never allocates: it looks at the bytes the probe has read so far
 * and says whether the reply is complete enough to judge.
 */
#ifndef FAULTMON_HTTP_H
#define FAULTMON_HTTP_H

#include <stdbool.h>
#include <stddef.h>

enum fm_http_parse {
    FM_HTTP_NEED_MORE = 0,  /* read more bytes */
    FM_HTTP_HEADERS_DONE,   /* status line and headers complete */
    FM_HTTP_MALFORMED,      /* not an HTTP response */
};

struct fm_http_reply {
    int status;             /* 100..999 once parsed */
    int version_minor;      /* 0 or 1 */
    size_t header_len;      /* bytes up to and including the blank line */
    bool have_length;
    size_t content_length;
};

/*!
 * \brief Parse what has been read of a response.
 *
 * \param[in]  buf    the bytes read so far (need not be NUL-terminated)
 * \param[in]  len    how many
 * \param[out] reply  filled once the status line (status) and the headers
 *                    (header_len, content length) are complete
 * \return where the parse stands
 */
enum fm_http_parse fm_http_parse_reply(const char *buf, size_t len,
                                       struct fm_http_reply *reply);

#endif
