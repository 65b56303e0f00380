/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the Prometheus text exposition format (version 0.0.4) of the
 * state files, for `faultmon metrics` (node_exporter's textfile collector)
 * and `faultmon exporter` (a scrape over HTTP).
 *
 * The renderer reads only what fm_state_read() accepted: it never touches a
 * probe, a socket or the loop, so a scrape can neither slow a cycle nor
 * change a verdict.  Every family is written once, with its HELP and TYPE,
 * its series for every resource together, as the format demands.
 *
 * No .c of its name: the interface of the folder src/metrics/ (render.c,
 * http_serve.c, listen.c).
 */
#ifndef FAULTMON_METRICS_H
#define FAULTMON_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <faultmon/accesslog.h>
#include <faultmon/state.h>

/* The Content-Type of the format. */
#define FM_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* One resource found under the state directory. */
struct fm_metrics_resource {
    char name[FM_RESOURCE_NAME_MAX];
    const struct fm_run_state *st;  /* NULL: no state the reader trusts */
    bool loop_running;              /* a loop holds the state's lock */
    bool loop_died;                 /* none does though one should: the last
                                       died, or the agent's record says the
                                       service was started here (faultmon
                                       status' loop-not-running) */
    bool have_access_log;           /* RESOURCE/accesslog: access_log's rates */
    struct fm_accesslog_rate access_log;
};

/*!
 * \brief Write a label value as the format quotes it: backslash, double
 *        quote and newline escaped; other control characters and bytes that
 *        are not UTF-8 as '?', so that hostile text cannot break a line or
 *        the parser.
 *
 * \param[in] out   where to write (without the surrounding quotes)
 * \param[in] text  the value
 */
void fm_metrics_put_label(FILE *out, const char *text);

/*!
 * \brief Render every family for \p n resources.
 *
 * \param[in] out  where to write
 * \param[in] res  the resources, in the order to show them
 * \param[in] n    their number
 */
void fm_metrics_render(FILE *out, const struct fm_metrics_resource *res, size_t n);

/*!
 * \brief Read every resource's state under the state directory and render
 *        them (what both commands serve).
 *
 * \param[in] out  where to write
 * \return 0, or an errno value when the state directory cannot be listed
 *         (ENOENT: none yet; the families are still written, empty)
 */
int fm_metrics_render_dir(FILE *out);

/* What a request to the exporter gets. */
enum fm_metrics_http {
    FM_METRICS_HTTP_MORE = 0,       /* the header is not complete yet */
    FM_METRICS_HTTP_OK,             /* GET or HEAD /metrics: 200 */
    FM_METRICS_HTTP_HEAD,           /* HEAD /metrics: 200 without a body */
    FM_METRICS_HTTP_BAD,            /* 400: not an HTTP/1.x request line */
    FM_METRICS_HTTP_NOT_FOUND,      /* 404: any other path */
    FM_METRICS_HTTP_METHOD,         /* 405: any other method */
    FM_METRICS_HTTP_TOO_LARGE,      /* 431: header over the limit */
    FM_METRICS_HTTP_INDEX,          /* GET /: 200, a page linking /metrics */
    FM_METRICS_HTTP_INDEX_HEAD,     /* HEAD /: 200 without a body */
};

/*!
 * \brief Judge the bytes a client sent so far.
 *
 * Only the request line matters; the header must end (a blank line) within
 * \p max_len bytes.  Two paths are served, /metrics and / (a page linking
 * it, for a person who opens the exporter's address); every other is 404.  A query string is allowed ("/metrics?x"), as
 * Prometheus never sends one but people do.
 *
 * \param[in] buf      the bytes
 * \param[in] len      their number
 * \param[in] max_len  the most a request may take
 * \return what to answer, or FM_METRICS_HTTP_MORE
 */
enum fm_metrics_http fm_metrics_http_judge(const char *buf, size_t len, size_t max_len);

/*!
 * \brief The status line and headers of the answer to \p what (not MORE),
 *        "Connection: close" included; the caller writes the body after it.
 *
 * \param[in]  what      the judgement
 * \param[in]  body_len  the body's length (the metrics, or the error text)
 * \param[out] buf       the header
 * \param[in]  buf_len   its size
 * \return the text to send as the body: the error's, the page of INDEX
 *         (INDEX_HEAD: its length is in the header, send none); empty for
 *         OK and HEAD (the caller's metrics)
 */
const char *fm_metrics_http_header(enum fm_metrics_http what, size_t body_len,
                                   char *buf, size_t buf_len);

/* Where the exporter listens: --listen ADDRESS:PORT, [IPV6]:PORT or :PORT. */
struct fm_metrics_listen {
    char host[64];                  /* numeric; "" for every address */
    uint16_t port;                  /* 1-65535 */
    int family;                     /* AF_INET, AF_INET6; AF_UNSPEC: both */
};

/*!
 * \brief Read a --listen value: a numeric address (IPv6 in brackets, or
 *        none for every address of both families) and a port of 1-65535.
 *
 * \param[in]  spec  the value
 * \param[out] out   what it says
 * \param[out] err   why not, one line naming the value
 * \return 0 or EINVAL
 */
int fm_metrics_listen_parse(const char *spec, struct fm_metrics_listen *out,
                            char *err, size_t err_len);

/*!
 * \brief Open the listening socket (non-blocking, close-on-exec): for every
 *        address one IPv6 socket that takes IPv4 too (IPV6_V6ONLY 0), or an
 *        IPv4 one on a host without IPv6; an IPv6 address, IPv6 only.
 *
 * \param[in]  l      where
 * \param[out] where  the URL it serves, for the line that says so
 * \param[out] err    why not
 * \return the socket, or -1
 */
int fm_metrics_listen_open(const struct fm_metrics_listen *l, char *where, size_t where_len,
                           char *err, size_t err_len);

#endif
