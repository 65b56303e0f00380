/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the driver of line-protocol conversations (see conv.h): send
 * each step's command, read its reply into the conn's bounded buffer, have
 * the protocol judge it, go on, start TLS where a step says so.  Every step
 * runs under the run's one deadline (the engine cuts a step off at it and
 * names it through fm_conv_timeout_note()).  The reply of a step marked
 * FM_CONV_SIGNAL (a greeting) is also matched against maintenance_regex,
 * which turns the ok of a conversation that passes into maintenance.
 */
#include <config.h>

#include "conv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/text.h>

#define FM_CONV_RX_INITIAL_BYTES 512

static void
conv_script_free(void *prepared)
{
    struct fm_conv_script *script = prepared;

    for (size_t i = 0; i < script->n; i++) {
        if (script->steps[i].send != NULL) {
            explicit_bzero(script->steps[i].send, script->steps[i].send_len);
            free(script->steps[i].send);
        }
    }
    free(script);
}

struct fm_conv_script *
fm_conv_script_attach(struct fm_target *target)
{
    struct fm_conv_script *script = calloc(1, sizeof(*script));

    if (script == NULL) {
        return NULL;
    }
    if (target->prepared != NULL && target->prepared_free != NULL) {
        target->prepared_free(target->prepared);
    }
    target->prepared = script;
    target->prepared_free = conv_script_free;
    return script;
}

int
fm_conv_add(struct fm_conv_script *script, const char *what, const char *send,
            size_t send_len, fm_conv_end_fn end, fm_conv_judge_fn judge, unsigned flags)
{
    struct fm_conv_step *step = NULL;

    if (script->n >= FM_CONV_MAX_STEPS) {
        return E2BIG;
    }
    step = &script->steps[script->n];
    memset(step, 0, sizeof(*step));
    if (send != NULL) {
        step->send = malloc(send_len + 1);
        if (step->send == NULL) {
            return ENOMEM;
        }
        memcpy(step->send, send, send_len);
        step->send[send_len] = '\0';
        step->send_len = send_len;
    }
    step->what = what;
    step->end = end;
    step->judge = judge;
    step->flags = flags;
    script->n++;
    return 0;
}

void
fm_conv_set_describe(struct fm_conv_script *script, fm_conv_describe_fn describe)
{
    if (script->n > 0) {
        script->steps[script->n - 1].describe = describe;
    }
}

void
fm_conv_set_after(struct fm_conv_script *script, fm_conv_after_fn after)
{
    if (script->n > 0) {
        script->steps[script->n - 1].after = after;
    }
}

static const struct fm_conv_step *
conv_step(const struct fm_conn *conn)
{
    const struct fm_conv_script *script = conn->target->prepared;

    return (conn->phase < script->n)? &script->steps[conn->phase] : NULL;
}

/* The step's words for its reply: what it describes, or its first line. */
static void
conv_describe(const struct fm_conv_step *step, const char *reply, size_t len, char *out,
              size_t out_len)
{
    if (step->describe != NULL) {
        step->describe(reply, len, out, out_len);
    } else {
        fm_conv_first_line(reply, len, out, out_len);
    }
}

/* A verdict whose detail is "STEP: the reply's first line". */
static void
conv_finish_reply(struct fm_conn *conn, enum fm_reason reason, const char *why, size_t len)
{
    const struct fm_conv_step *step = conv_step(conn);
    char line[FM_CONV_DETAIL_LINE * 4 + 1];
    char detail[sizeof(conn->result->detail)];

    conv_describe(step, conn->rx, len, line, sizeof(line));
    if (snprintf(detail, sizeof(detail), "%s%s: %s", step->what, why, line) >= (int) sizeof(detail)) {
        fm_text_clean(detail, sizeof(detail));  /* cut: what it hides stays hidden */
    }
    fm_conn_finish(conn, reason, 0, detail);
}

static void conv_begin_step(struct fm_conn *conn);

/* After an ok reply: the next step, TLS, or the verdict. */
static void
conv_next(struct fm_conn *conn, size_t len)
{
    const struct fm_conv_script *script = conn->target->prepared;
    const struct fm_conv_step *step = conv_step(conn);

    if (conn->phase == script->detail_step) {
        conv_describe(step, conn->rx, len, conn->result->detail, sizeof(conn->result->detail));
    }
    memmove(conn->rx, conn->rx + len, conn->rx_len - len);
    conn->rx_len -= len;
    /* What came at once after the reply, before the next command: a
     * "closing" notice after a success is no success, and bytes that are
     * no part of the conversation are not the protocol. */
    if (step->after != NULL && conn->rx_len > 0) {
        enum fm_conv_judgement after = step->after(conn->rx, conn->rx_len);

        if (after != FM_CONV_OK) {
            conv_finish_reply(conn, (after == FM_CONV_REFUSED)? FM_REASON_REFUSED
                                                              : FM_REASON_READ_MALFORMED,
                              " (data after the reply)", conn->rx_len);
            return;
        }
    }
    /* Bytes after the reply to STARTTLS would be taken as sent over TLS
     * (the command injection of CVE-2011-0411): refuse them. */
    if ((step->flags & FM_CONV_STARTTLS) != 0 && conn->rx_len > 0) {
        conv_finish_reply(conn, FM_REASON_READ_MALFORMED, " (data after the reply)", conn->rx_len);
        return;
    }
    conn->phase++;
    if ((step->flags & FM_CONV_STARTTLS) != 0) {
        fm_conn_start_tls(conn);
        return;
    }
    conv_begin_step(conn);
}

/* The verdict of a conversation that passed: ok, or maintenance when its
 * signal step's reply matched maintenance_regex.  A failure never comes
 * here, so that a signal never hides one. */
static void
conv_finish_ok(struct fm_conn *conn)
{
    const struct fm_conv_script *script = conn->target->prepared;
    char what[64] = "reply";

    if (!conn->signalled) {
        fm_conn_finish(conn, FM_REASON_OK, 0, NULL);    /* the detail step's line */
        return;
    }
    for (size_t i = 0; i < script->n; i++) {
        const struct fm_conv_step *step = &script->steps[i];

        if ((step->flags & FM_CONV_SIGNAL) != 0) {
            snprintf(what, sizeof(what), "%s%s", step->what, (step->send != NULL)? " reply" : "");
            break;
        }
    }
    fm_probe_finish_maintenance(conn, what);
}

/* An ok reply of the step that carries the signal: remember whether it
 * asks to be drained, for the verdict once the rest has passed.  False
 * when the deadline came first (the engine's timeout follows). */
static bool
conv_note_signal(struct fm_conn *conn, size_t len)
{
    int matched = fm_probe_match_maintenance(conn, conn->rx, len);

    if (matched < 0) {
        return false;
    }
    conn->signalled = (matched > 0);
    return true;
}

static void
conv_reply(struct fm_conn *conn, size_t len)
{
    const struct fm_conv_step *step = conv_step(conn);

    switch (step->judge(conn->rx, len)) {
        case FM_CONV_OK:
            if ((step->flags & FM_CONV_SIGNAL) != 0 && !conv_note_signal(conn, len)) {
                break;
            }
            conv_next(conn, len);
            break;
        case FM_CONV_REFUSED:
            conv_finish_reply(conn, FM_REASON_REFUSED, "", len);
            break;
        default:
            conv_finish_reply(conn, FM_REASON_READ_MALFORMED, " (unexpected reply)", len);
            break;
    }
}

/* Room for more of a reply; false once the probe has its verdict. */
static bool
conv_rx_grow(struct fm_conn *conn)
{
    int rc = fm_conn_rx_room(conn, FM_CONV_RX_INITIAL_BYTES);

    if (rc == E2BIG) {
        char detail[sizeof(conn->result->detail)];

        snprintf(detail, sizeof(detail), "%s: reply exceeds the read cap (%zu bytes)",
                 conv_step(conn)->what, conn->run->opts->max_reply_bytes);
        fm_conn_finish(conn, FM_REASON_READ_TOO_LARGE, 0, detail);
    }
    return rc == 0;
}

static void
conv_read_failed(struct fm_conn *conn, int err, const char *why)
{
    char detail[sizeof(conn->result->detail)];

    snprintf(detail, sizeof(detail), "%s: %s", conv_step(conn)->what, why);
    fm_conn_finish(conn, FM_REASON_READ_FAILED, err, detail);
}

/*
 * After the goodbye (QUIT): read its reply, so that the connection closes
 * in order once it is in (RFC 5321 4.1.1.10: the client waits for the 221;
 * closing with bytes unread would reset it).  The verdict is in already:
 * whatever the reply, a close or an error ends the wait as the ok it was.
 */
static void
conv_read_goodbye(struct fm_conn *conn)
{
    const struct fm_conv_step *step = conv_step(conn);
    char detail[sizeof(conn->result->detail)] = "";

    for (;;) {
        ssize_t n = 0;

        if (conn->rx_len > 0 && step->end(conn->rx, conn->rx_len, step->tag) != 0) {
            break;
        }
        if (conn->rx_len == conn->rx_cap
            && fm_conn_rx_room(conn, FM_CONV_RX_INITIAL_BYTES) != 0) {
            if (fm_conn_judged(conn)) {
                return;     /* out of memory: judged so */
            }
            break;          /* the read cap: enough of a goodbye */
        }
        errno = 0;
        n = fm_conn_io(conn, false, conn->rx + conn->rx_len, conn->rx_cap - conn->rx_len, detail,
                       sizeof(detail));
        if (n == -1) {
            return;     /* not yet: within the deadline (fm_conv_on_deadline()) */
        }
        if (n <= 0) {
            break;
        }
        conn->rx_len += (size_t) n;
    }
    conn->close_orderly = true;     /* nothing unread: a FIN, no reset */
    conv_finish_ok(conn);
}

void
fm_conv_on_deadline(struct fm_conn *conn)
{
    const struct fm_conv_step *step = conv_step(conn);

    /* The checks passed; only the goodbye's reply was still coming. */
    if (step != NULL && (step->flags & FM_CONV_QUIT) != 0 && conn->step == FM_STEP_READ) {
        conn->close_orderly = true;
        conv_finish_ok(conn);
    }
}

static void
conv_read(struct fm_conn *conn)
{
    const struct fm_conv_step *step = conv_step(conn);
    char detail[sizeof(conn->result->detail)] = "";

    for (;;) {
        ssize_t end = (conn->rx_len > 0)? step->end(conn->rx, conn->rx_len, step->tag) : 0;
        ssize_t n = 0;

        if (end != 0) {
            if (end < 0) {
                conv_finish_reply(conn, FM_REASON_READ_MALFORMED, " (not this protocol)",
                                  conn->rx_len);
            } else {
                conv_reply(conn, (size_t) end);
            }
            return;
        }
        if (conn->rx_len == conn->rx_cap && !conv_rx_grow(conn)) {
            return;
        }
        errno = 0;
        n = fm_conn_io(conn, false, conn->rx + conn->rx_len, conn->rx_cap - conn->rx_len, detail,
                       sizeof(detail));
        if (n == -1) {
            return;
        }
        if (n < 0 || n == 0) {
            conv_read_failed(conn, (n < 0)? errno : 0,
                             (n < 0)? detail : (conn->rx_len > 0)? "connection closed in a reply"
                                                                 : "connection closed before a reply");
            return;
        }
        conn->rx_len += (size_t) n;
        conn->rx[conn->rx_len] = '\0';
    }
}

/* Send the step's command; true once it is all out. */
static bool
conv_send(struct fm_conn *conn)
{
    const struct fm_conv_step *step = conv_step(conn);
    char detail[sizeof(conn->result->detail)] = "";

    while (conn->sent < step->send_len) {
        ssize_t n = 0;

        errno = 0;
        n = fm_conn_io(conn, true, step->send + conn->sent, step->send_len - conn->sent, detail,
                       sizeof(detail));
        if (n == -1) {
            return false;
        }
        if (n <= 0) {
            char why[sizeof(conn->result->detail)];

            snprintf(why, sizeof(why), "%s: %s", step->what,
                     (detail[0] != '\0')? detail : "connection closed while sending");
            fm_conn_finish(conn, FM_REASON_SEND_FAILED, errno, why);
            return false;
        }
        conn->sent += (size_t) n;
    }
    return true;
}

static void
conv_begin_step(struct fm_conn *conn)
{
    const struct fm_conv_step *step = conv_step(conn);

    if (step == NULL) {
        conv_finish_ok(conn);
        return;
    }
    conn->sent = 0;
    fm_conn_step(conn, (step->send != NULL)? FM_STEP_SEND : FM_STEP_READ);
    fm_conv_on_io(conn);
}

void
fm_conv_on_ready(struct fm_conn *conn)
{
    /* Also after a STARTTLS handshake: conn->phase is the step after it. */
    conv_begin_step(conn);
}

void
fm_conv_on_io(struct fm_conn *conn)
{
    const struct fm_conv_step *step = conv_step(conn);

    if (conn->step == FM_STEP_SEND) {
        if (!conv_send(conn)) {
            return;
        }
        if ((step->flags & FM_CONV_QUIT) != 0 && step->end == NULL) {
            /* The verdict is in; this goodbye has no reply to wait for. */
            conv_finish_ok(conn);
            return;
        }
        fm_conn_step(conn, FM_STEP_READ);
    }
    if (conn->step == FM_STEP_READ) {
        if ((step->flags & FM_CONV_QUIT) != 0) {
            conv_read_goodbye(conn);
        } else {
            conv_read(conn);
        }
    }
}

const char *
fm_conv_timeout_note(const struct fm_conn *conn)
{
    /* Read by the engine at once, before the next note is made. */
    static char note[64];
    const struct fm_conv_step *step = conv_step(conn);

    if (step == NULL || (conn->step != FM_STEP_SEND && conn->step != FM_STEP_READ)) {
        return "";
    }
    snprintf(note, sizeof(note), " (%s %s%s)", (conn->step == FM_STEP_SEND)? "sending" : "waiting for the",
             step->what, (conn->step == FM_STEP_READ && step->send != NULL)? " reply" : "");
    return note;
}
