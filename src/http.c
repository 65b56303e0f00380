/*
 * faultmon: parsing an HTTP response as it arrives.
 */
#include <config.h>

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <faultmon/http.h>

/* The longest status line we accept before calling the reply malformed. */
#define FM_STATUS_LINE_MAX 1024

static const char *
find_line_end(const char *start, const char *end)
{
    return memchr(start, '\n', (size_t) (end - start));
}

static void
parse_content_length(const char *line, size_t len, struct fm_http_reply *reply)
{
    static const char name[] = "content-length:";
    size_t value = 0;
    size_t i = sizeof(name) - 1;

    if (len < i || strncasecmp(line, name, i) != 0) {
        return;
    }
    while (i < len && (line[i] == ' ' || line[i] == '\t')) {
        i++;
    }
    if (i >= len || !isdigit((unsigned char) line[i])) {
        return;
    }
    for (; i < len && isdigit((unsigned char) line[i]); i++) {
        if (value > (SIZE_MAX - 9) / 10) {
            return;
        }
        value = value * 10 + (size_t) (line[i] - '0');
    }
    reply->have_length = true;
    reply->content_length = value;
}

enum fm_http_parse
fm_http_parse_reply(const char *buf, size_t len, struct fm_http_reply *reply)
{
    static const char prefix[] = "HTTP/1.";
    size_t prefix_len = sizeof(prefix) - 1;
    const char *end = buf + len;
    const char *line = buf;
    const char *eol = NULL;

    memset(reply, 0, sizeof(*reply));
    /* Reject garbage as soon as the first bytes disagree with "HTTP/1.". */
    if (memcmp(buf, prefix, (len < prefix_len)? len : prefix_len) != 0) {
        return FM_HTTP_MALFORMED;
    }
    eol = find_line_end(buf, end);
    if (eol == NULL) {
        return (len > FM_STATUS_LINE_MAX)? FM_HTTP_MALFORMED : FM_HTTP_NEED_MORE;
    }
    /* "HTTP/1.x SSS[ reason]" */
    if (eol - buf < 12 || (buf[7] != '0' && buf[7] != '1') || buf[8] != ' '
        || !isdigit((unsigned char) buf[9]) || !isdigit((unsigned char) buf[10])
        || !isdigit((unsigned char) buf[11]) || buf[9] == '0'
        || (eol - buf > 12 && buf[12] != ' ' && buf[12] != '\r')) {
        return FM_HTTP_MALFORMED;
    }
    reply->version_minor = buf[7] - '0';
    reply->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');

    for (line = eol + 1; line < end; line = eol + 1) {
        size_t line_len = 0;

        eol = find_line_end(line, end);
        if (eol == NULL) {
            return FM_HTTP_NEED_MORE;
        }
        line_len = (size_t) (eol - line);
        if (line_len > 0 && line[line_len - 1] == '\r') {
            line_len--;
        }
        if (line_len == 0) {
            reply->header_len = (size_t) (eol + 1 - buf);
            return FM_HTTP_HEADERS_DONE;
        }
        if (memchr(line, '\0', line_len) != NULL) {
            return FM_HTTP_MALFORMED;
        }
        parse_content_length(line, line_len, reply);
    }
    return FM_HTTP_NEED_MORE;
}
