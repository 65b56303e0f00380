/*
 * faultmon: the TCP send/expect probe (tcp://HOST:PORT with send_string
 * and/or expect_regex; F5's TCP send/receive, HAProxy's tcp-check
 * send/expect): send the bytes, read the reply until expect_regex matches
 * it (fm_probe_match_expect(), match.c: in linear time for a plain pattern,
 * else the deadline-bound matcher).  Without expect_regex
 * the probe is ok once the bytes are sent; without send_string it reads
 * what the server says first (a banner).
 *
 * A reply that ends (the server closes) without a match is a content
 * mismatch: complete, like a page without its receive string.  With
 * reverse, a match is the failure (content-reverse, complete) and a reply
 * that ends, or is still open at the deadline, without one passes.  A reply that passes and matches
 * maintenance_regex signals maintenance (match.c).  A reply
 * that fills the read cap without a match is too large, and one that is
 * still coming at the deadline timed out: partial, as for HTTP.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/text.h>
#include "conv.h"
#include "probe_int.h"

#define FM_TCP_RX_INITIAL_BYTES 512

/* A verdict whose detail is "WHY: the reply's first line"; an ok one is
 * maintenance instead when the reply matches maintenance_regex. */
static void
tcp_send_finish(struct fm_conn *conn, enum fm_reason reason, const char *why)
{
    char line[FM_CONV_DETAIL_LINE * 4 + 1];
    char detail[sizeof(conn->result->detail)];

    fm_conv_first_line(conn->rx, conn->rx_len, line, sizeof(line));
    if (snprintf(detail, sizeof(detail), "%s: %s", why, line) >= (int) sizeof(detail)) {
        fm_text_clean(detail, sizeof(detail));
    }
    if (reason == FM_REASON_OK) {
        fm_probe_finish_passed(conn, conn->rx, conn->rx_len, detail);
    } else {
        fm_conn_finish(conn, reason, 0, detail);
    }
}

/*
 * The verdict once the reply has matched or ended; returns true while the
 * reply is still to be read on.  With reverse, a match is the failure
 * (F5's reverse receive string), and only a reply that ends without one
 * passes: one still coming at the deadline may yet match.
 */
static bool
tcp_send_judge(struct fm_conn *conn, bool eof)
{
    bool reverse = conn->run->opts->reverse;
    int matched = fm_probe_match_expect(conn, conn->rx, conn->rx_len);

    if (matched < 0) {
        return false;       /* the deadline came first: the engine's timeout */
    }
    if (matched > 0) {
        if (reverse) {
            tcp_send_finish(conn, FM_REASON_CONTENT_REVERSE,
                            "reply matches expect_regex (reverse mode)");
        } else {
            tcp_send_finish(conn, FM_REASON_OK, "reply matches");
        }
        return false;
    }
    if (!eof) {
        return true;        /* no match yet: read on, within the deadline */
    }
    if (reverse) {
        tcp_send_finish(conn, FM_REASON_OK, "reply ends without a match (reverse mode)");
    } else {
        tcp_send_finish(conn, FM_REASON_CONTENT_MISMATCH, "reply does not match expect_regex");
    }
    return false;
}

static void
tcp_send_read(struct fm_conn *conn)
{
    char detail[sizeof(conn->result->detail)] = "";

    while (!fm_conn_judged(conn)) {
        ssize_t n = 0;
        int rc = fm_conn_rx_room(conn, FM_TCP_RX_INITIAL_BYTES);

        if (rc == E2BIG) {
            snprintf(detail, sizeof(detail), "no match in the first %zu bytes of the reply",
                     conn->rx_len);
            fm_conn_finish(conn, FM_REASON_READ_TOO_LARGE, 0, detail);
        }
        if (rc != 0) {
            return;
        }
        errno = 0;
        n = fm_conn_io(conn, false, conn->rx + conn->rx_len, conn->rx_cap - conn->rx_len,
                       detail, sizeof(detail));
        if (n == -1) {
            return;
        }
        if (n == -2) {
            fm_conn_finish(conn, FM_REASON_READ_FAILED, errno, detail);
            return;
        }
        if (n == 0 && conn->rx_len == 0) {
            fm_conn_finish(conn, FM_REASON_READ_FAILED, 0, "connection closed before a reply");
            return;
        }
        conn->rx_len += (size_t) n;
        conn->rx[conn->rx_len] = '\0';
        if (!tcp_send_judge(conn, n == 0)) {
            return;
        }
    }
}

static void
tcp_send_on_io(struct fm_conn *conn)
{
    const struct fm_probe_opts *opts = conn->run->opts;
    char detail[sizeof(conn->result->detail)] = "";

    while (conn->step == FM_STEP_SEND && conn->sent < opts->send_len) {
        ssize_t n = 0;

        errno = 0;
        n = fm_conn_io(conn, true, opts->send + conn->sent, opts->send_len - conn->sent, detail,
                       sizeof(detail));
        if (n == -1) {
            return;
        }
        if (n <= 0) {
            fm_conn_finish(conn, FM_REASON_SEND_FAILED, errno,
                           (detail[0] != '\0')? detail : "connection closed while sending");
            return;
        }
        conn->sent += (size_t) n;
    }
    if (conn->step == FM_STEP_SEND) {
        if (!opts->have_expect) {
            snprintf(detail, sizeof(detail), "sent %zu bytes", opts->send_len);
            fm_conn_finish(conn, FM_REASON_OK, 0, detail);
            return;
        }
        fm_conn_step(conn, FM_STEP_READ);
    }
    tcp_send_read(conn);
}

static void
tcp_send_on_ready(struct fm_conn *conn)
{
    fm_conn_step(conn, (conn->run->opts->send != NULL)? FM_STEP_SEND : FM_STEP_READ);
    tcp_send_on_io(conn);
}

/* Reverse mode at the deadline: a server that answered and has kept its
 * connection open (a banner, a prompt) without a match passes, as F5's
 * reverse receive string does; one that said nothing still times out. */
static void
tcp_send_on_deadline(struct fm_conn *conn)
{
    if (conn->run->opts->reverse && conn->step == FM_STEP_READ && conn->rx_len > 0) {
        tcp_send_finish(conn, FM_REASON_OK, "no match by the deadline (reverse mode)");
    }
}

static const char *
tcp_send_timeout_note(const struct fm_conn *conn)
{
    if (conn->step != FM_STEP_READ || conn->rx_len == 0) {
        return "";
    }
    return " (the reply so far does not match)";
}

const struct fm_probe_proto fm_probe_proto_tcp_send = {
    .name = "tcp-send",
    .on_ready = tcp_send_on_ready,
    .on_deadline = tcp_send_on_deadline,
    .on_io = tcp_send_on_io,
    .timeout_note = tcp_send_timeout_note,
};
