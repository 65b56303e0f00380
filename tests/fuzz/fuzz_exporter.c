/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: what the exporter reads from the network and the
 * command line (src/metrics/http_serve.c, src/metrics/listen.c).
 *
 * Input: 1 option byte (even: a request; odd: a --listen value), then the
 * bytes.
 *
 * Properties:
 *  - a request is judged on its bytes only (ASan: no read past them); MORE
 *    only while no header end is within the limit and the limit is not
 *    reached, TOO_LARGE only at the limit; the judgement of a whole request
 *    does not change with bytes after it; every answer's header is one
 *    Content-Length and ends in a blank line;
 *  - a --listen value accepted has a port of 1-65535 and a numeric host of
 *    its family (none for every address); a refused one says why, naming
 *    the value.
 */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <faultmon/metrics.h>

#include "fuzz_common.h"

#define FUZZ_EXPORTER_MAX 4096

static void
request(const uint8_t *data, size_t len, size_t max_len)
{
    char *copy = malloc(len + 16);
    enum fm_metrics_http what;
    char header[512];
    const char *body = NULL;

    FM_FUZZ_CHECK(copy != NULL, "out of memory");
    memcpy(copy, data, len);
    what = fm_metrics_http_judge(copy, len, max_len);
    FM_FUZZ_CHECK(what <= FM_METRICS_HTTP_INDEX_HEAD, "judgement %d", (int) what);
    FM_FUZZ_CHECK(what != FM_METRICS_HTTP_TOO_LARGE || len >= max_len, "too large below the limit");
    FM_FUZZ_CHECK(what != FM_METRICS_HTTP_MORE || len < max_len, "more at the limit");
    if (what != FM_METRICS_HTTP_MORE && what != FM_METRICS_HTTP_TOO_LARGE && len + 16 <= max_len) {
        memcpy(copy + len, "GET / HTTP/1.1\r\n", 16);
        FM_FUZZ_CHECK(fm_metrics_http_judge(copy, len + 16, max_len) == what,
                      "bytes after the request changed its judgement");
    }
    if (what != FM_METRICS_HTTP_MORE) {
        body = fm_metrics_http_header(what, 1234, header, sizeof(header));
        FM_FUZZ_CHECK(body != NULL && strstr(header, "Content-Length: ") != NULL
                      && strstr(header, "\r\n\r\n") != NULL, "header of %d", (int) what);
    }
    free(copy);
}

static void
listen_value(const char *spec)
{
    struct fm_metrics_listen l;
    char err[256] = "";
    unsigned char addr[sizeof(struct in6_addr)];

    if (fm_metrics_listen_parse(spec, &l, err, sizeof(err)) != 0) {
        /* fm_cli_error() makes it one line, whatever the value holds. */
        FM_FUZZ_CHECK(err[0] != '\0' && strncmp(err, "--listen '", 10) == 0, "error '%s'", err);
        return;
    }
    FM_FUZZ_CHECK(l.port >= 1, "port 0 accepted from '%s'", spec);
    if (l.family == AF_UNSPEC) {
        FM_FUZZ_CHECK(l.host[0] == '\0', "every address with a host '%s'", l.host);
    } else {
        FM_FUZZ_CHECK((l.family == AF_INET || l.family == AF_INET6)
                      && inet_pton(l.family, l.host, addr) == 1, "host '%s' of family %d", l.host, l.family);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size_bytes)
{
    struct fm_fuzz_input in;
    uint8_t option = 0;
    char *rest = NULL;

    if (size_bytes > FUZZ_EXPORTER_MAX) {
        return -1;
    }
    fm_fuzz_input_init(&in, data, size_bytes);
    option = fm_fuzz_byte(&in);
    if ((option & 1) == 0) {
        /* A limit of 64 bytes to 8 KiB, so that the limit is reached too. */
        request(data + in.pos, fm_fuzz_left(&in), 64 + (size_t) (option >> 1) * 64);
        return 0;
    }
    rest = fm_fuzz_rest(&in);
    listen_value(rest);
    free(rest);
    return 0;
}
