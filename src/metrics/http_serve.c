/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what the exporter answers to the bytes a client sent (see
 * faultmon/metrics.h).  Pure: no socket, no clock, so the whole of it is
 * unit-tested; the exporter (src/cmd/cmd_exporter.c) does the I/O.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include <faultmon/metrics.h>

/* The end of the header (a blank line, CRLF or bare LF), or NULL. */
static const char *
header_end(const char *buf, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (buf[i] == '\n' && (buf[i + 1] == '\n'
                               || (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n'))) {
            return buf + i;
        }
    }
    return NULL;
}

/* Whether [p, end) starts with \p word followed by one space. */
static bool
starts_word(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);

    return (size_t) (end - p) > n && memcmp(p, word, n) == 0 && p[n] == ' ';
}

enum fm_metrics_http
fm_metrics_http_judge(const char *buf, size_t len, size_t max_len)
{
    const char *end = NULL;
    const char *line_end = NULL;
    const char *p = buf;
    const char *path = NULL;
    size_t path_len = 0;
    bool head = false;

    end = header_end(buf, (len > max_len)? max_len : len);
    if (end == NULL) {
        return (len >= max_len)? FM_METRICS_HTTP_TOO_LARGE : FM_METRICS_HTTP_MORE;
    }
    line_end = memchr(buf, '\n', (size_t) (end - buf) + 1);
    if (line_end > buf && line_end[-1] == '\r') {
        line_end--;
    }
    /* METHOD SP PATH SP HTTP/1.x */
    if (line_end - buf < 14 || memcmp(line_end - 9, " HTTP/1.", 8) != 0
        || (line_end[-1] != '0' && line_end[-1] != '1')) {
        return FM_METRICS_HTTP_BAD;
    }
    if (starts_word(p, line_end, "GET")) {
        path = p + 4;
    } else if (starts_word(p, line_end, "HEAD")) {
        path = p + 5;
        head = true;
    } else {
        const char *sp = memchr(p, ' ', (size_t) (line_end - p));

        for (const char *q = p; q < sp; q++) {
            if (*q < 'A' || *q > 'Z') {
                return FM_METRICS_HTTP_BAD;
            }
        }
        return (sp == p)? FM_METRICS_HTTP_BAD : FM_METRICS_HTTP_METHOD;
    }
    path_len = (size_t) (line_end - 9 - path);
    if (path_len == 0 || memchr(path, ' ', path_len) != NULL) {
        return FM_METRICS_HTTP_BAD;
    }
    if ((path_len == 8 || (path_len > 8 && path[8] == '?')) && memcmp(path, "/metrics", 8) == 0) {
        return head? FM_METRICS_HTTP_HEAD : FM_METRICS_HTTP_OK;
    }
    if (path[0] == '/' && (path_len == 1 || path[1] == '?')) {
        return head? FM_METRICS_HTTP_INDEX_HEAD : FM_METRICS_HTTP_INDEX;
    }
    return FM_METRICS_HTTP_NOT_FOUND;
}

/* The page at /: where the metrics are, relative so that it works behind a
 * reverse proxy's prefix too (as node_exporter's). */
static const char index_page[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">"
    "<title>faultmon exporter</title></head>\n<body>\n<h1>faultmon exporter</h1>\n"
    "<p>faultmon " PACKAGE_VERSION ": the state of every resource this node's "
    "faultmon loops monitor, in Prometheus' text format.</p>\n"
    "<p><a href=\"metrics\">Metrics</a></p>\n</body>\n</html>\n";

const char *
fm_metrics_http_header(enum fm_metrics_http what, size_t body_len, char *buf, size_t buf_len)
{
    const char *status = "200 OK";
    const char *type = FM_METRICS_CONTENT_TYPE;
    const char *body = "";
    const char *allow = "";

    switch (what) {
        case FM_METRICS_HTTP_OK:
        case FM_METRICS_HTTP_HEAD:
        case FM_METRICS_HTTP_MORE:
            break;
        case FM_METRICS_HTTP_INDEX:
        case FM_METRICS_HTTP_INDEX_HEAD:
            type = "text/html; charset=utf-8";
            body_len = strlen(index_page);
            body = index_page;
            break;
        case FM_METRICS_HTTP_BAD:
            status = "400 Bad Request";
            body = "bad request\n";
            break;
        case FM_METRICS_HTTP_NOT_FOUND:
            status = "404 Not Found";
            body = "only / and /metrics are served\n";
            break;
        case FM_METRICS_HTTP_METHOD:
            status = "405 Method Not Allowed";
            body = "only GET and HEAD\n";
            allow = "Allow: GET, HEAD\r\n";
            break;
        case FM_METRICS_HTTP_TOO_LARGE:
            status = "431 Request Header Fields Too Large";
            body = "request too large\n";
            break;
    }
    if (*body != '\0' && body != index_page) {
        type = "text/plain; charset=utf-8";
        body_len = strlen(body);
    }
    snprintf(buf, buf_len,
             "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
             "Connection: close\r\n\r\n", status, type, body_len, allow);
    return body;
}
