/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: HTTP replies, judged by the probe's own code.
 *
 * The HTTP probe's reading and judging (fm_probe_proto_http's on_io, which
 * calls fm_http_judge()) are driven on a connection slot without a socket:
 * recv() is wrapped (-Wl,--wrap=recv) to hand out the fuzzer's bytes, so
 * each input is judged exactly as a server's reply would be.  The pure
 * judge is also called directly on the same bytes.
 *
 * Input: three option bytes (probe kind, expected statuses, receive regex and
 * reverse mode, read cap and receive window, how the reply is cut into
 * reads), then the reply.
 *
 * Properties:
 *  - the parser and the probe neither crash nor read out of bounds;
 *  - whether the reply passes does not depend on how it is cut into reads
 *    (bytes after a reply without a body are an accepted deviation, seen only
 *    when they arrive with its headers: doc/reference/http-replies.md); the
 *    kind of a failure
 *    may (see same_health());
 *  - every prefix of a complete reply, followed by the server closing, never
 *    classifies better than the whole: a prefix is ok only if the whole is
 *    (a truncated failure must never pass for health); a reply is complete
 *    once the probe judges it without waiting for the close, or up to the
 *    end of its final headers when its body ends at the close;
 *  - fm_http_judge() on a reply read in one piece gives the probe's verdict;
 *  - the detail text is one printable line.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/http.h>
#include <faultmon/log.h>
#include <faultmon/probe_opts.h>
#include <faultmon/runconf.h>
#include <faultmon/status_set.h>
#include "probe_int.h"

#include "fuzz_common.h"

#define FUZZ_REPLY_MAX 8192
/* Beyond this length, every prefix costs too much: test every one of the
 * first and last FUZZ_EDGE_PREFIXES and a spread of the others. */
#define FUZZ_EDGE_PREFIXES 96
#define FUZZ_SPREAD_PREFIXES 96
/* The probe's first read buffer (FM_RX_INITIAL_BYTES in http.c). */
#define FUZZ_FIRST_READ 1024

/* What the wrapped recv() hands out: the reply, cut into reads. */
static struct {
    const char *data;
    size_t len;         /* bytes the "server" sends in this run */
    size_t pos;
    size_t chunk;       /* bytes per read; 0: as many as asked */
    size_t chunk_left;
    bool eof;           /* the server closes after the last byte */
} fuzz_peer;

ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags);
void __wrap_fm_log_msg(int priority, const char *fmt, ...);

/* The probe logs every failure; formatting thousands of log lines per input
 * would cost more than the judging. */
void
__wrap_fm_log_msg(int priority, const char *fmt, ...)
{
    (void) priority;
    (void) fmt;
}

ssize_t
__wrap_recv(int fd, void *buf, size_t len, int flags)
{
    size_t n = fuzz_peer.len - fuzz_peer.pos;

    (void) fd;
    (void) flags;
    if (n == 0) {
        if (fuzz_peer.eof) {
            return 0;
        }
        errno = EAGAIN;
        return -1;
    }
    if (fuzz_peer.chunk != 0) {
        if (fuzz_peer.chunk_left == 0) {
            /* One read per chunk: the next one would block. */
            fuzz_peer.chunk_left = fuzz_peer.chunk;
            errno = EAGAIN;
            return -1;
        }
        if (n > fuzz_peer.chunk_left) {
            n = fuzz_peer.chunk_left;
        }
    }
    if (n > len) {
        n = len;
    }
    memcpy(buf, fuzz_peer.data + fuzz_peer.pos, n);
    fuzz_peer.pos += n;
    if (fuzz_peer.chunk != 0) {
        fuzz_peer.chunk_left -= n;
    }
    return (ssize_t) n;
}

static const char *const fuzz_expect[] = { "100-499", "200-399", "200", "100-999" };
static const char *const fuzz_regex[] = {
    "OK", "^HTTP", "status: *up", "</ *html *>", "error|fail", "x*", "[0-9]+", "up$",
};
static const size_t fuzz_max_reply[] = { 64, 300, 1024, FM_DEFAULT_MAX_REPLY_BYTES };
static const size_t fuzz_window[] = { 1, 16, 100, FM_DEFAULT_RECEIVE_WINDOW_BYTES };

struct fuzz_verdict {
    bool done;              /* judged before the close */
    size_t judged_at;       /* bytes read when judged */
    enum fm_reason reason;
    int http_status;
};

/*
 * One probe of the reply data[0..len): read it \p chunk bytes at a time
 * (0: as the engine asks), then, if not judged yet, let the server close
 * (eof) or the deadline pass.
 */
static void
judge(const struct fm_probe_opts *opts, const struct fm_status_set *expect,
      struct fm_target *target, const char *data, size_t len, size_t chunk, bool eof,
      struct fuzz_verdict *v)
{
    struct fm_probe_run run;
    struct fm_conn conn;
    struct fm_result result;

    memset(&run, 0, sizeof(run));
    memset(&conn, 0, sizeof(conn));
    memset(&result, 0, sizeof(result));
    run.opts = opts;
    run.conns = &conn;
    run.results = &result;
    run.n = 1;
    run.pending = 1;
    run.epfd = -1;              /* conn_watch() fails harmlessly */
    fm_deadline_init(&run.deadline, fm_now_us(), opts->timeout_ms);
    conn.run = &run;
    conn.proto = &fm_probe_proto_http;
    conn.target = target;
    conn.result = &result;
    result.target = target;
    conn.fd = -1;               /* no socket: recv() is ours, close() skipped */
    conn.step = FM_STEP_READ;
    conn.deadline = run.deadline;  /* the probe's own deadline is the run's */

    fuzz_peer.data = data;
    fuzz_peer.len = len;
    fuzz_peer.pos = 0;
    fuzz_peer.chunk = chunk;
    fuzz_peer.chunk_left = chunk;
    fuzz_peer.eof = false;

    while (conn.step != FM_STEP_DONE && fuzz_peer.pos < fuzz_peer.len) {
        size_t before = fuzz_peer.pos;

        conn.proto->on_io(&conn);
        FM_FUZZ_CHECK(conn.step == FM_STEP_DONE || fuzz_peer.pos > before,
                      "the probe stopped reading a pending reply at %zu", before);
    }
    v->done = (conn.step == FM_STEP_DONE);
    v->judged_at = fuzz_peer.pos;
    if (!v->done) {
        if (eof) {
            fuzz_peer.eof = true;
            conn.proto->on_io(&conn);
        } else {
            fm_probe_run_expire(&run, UINT64_MAX);
        }
    }
    FM_FUZZ_CHECK(conn.step == FM_STEP_DONE, "no verdict after the %s",
                  eof? "close" : "deadline");
    FM_FUZZ_CHECK(run.pending == 0, "pending count %zu after the verdict", run.pending);
    FM_FUZZ_CHECK(conn.rx == NULL, "reply buffer kept after the verdict");
    FM_FUZZ_CHECK((unsigned) result.reason < FM_REASON__COUNT, "reason %d", (int) result.reason);
    fm_fuzz_check_message(result.detail, sizeof(result.detail));
    for (const char *p = result.detail; *p != '\0'; p++) {
        FM_FUZZ_CHECK((unsigned char) *p >= 0x20 && (unsigned char) *p < 0x7f,
                      "raw byte 0x%02x in the detail", (unsigned char) *p);
    }
    if (result.reason == FM_REASON_OK) {
        FM_FUZZ_CHECK(fm_status_set_has(expect, result.http_status),
                      "ok with status %d outside the expected set", result.http_status);
    }
    v->reason = result.reason;
    v->http_status = result.http_status;
}

/* The receive regex as the probe matches it, but in this process: the
 * fuzzer's replies are small. */
static int
plain_match(void *ctx, const regex_t *re, const char *data, size_t len)
{
    regmatch_t match = { .rm_so = 0, .rm_eo = (regoff_t) len };

    (void) ctx;
    return (regexec(re, data, 1, &match, REG_STARTEND) == 0)? 1 : 0;
}

/* fm_http_judge() on the whole reply read at once, then on the close. */
static void
judge_pure(const struct fm_probe_opts *opts, const struct fm_target *target, const char *data,
           size_t len, struct fuzz_verdict *v)
{
    bool head = (opts->method != NULL)? strcmp(opts->method, "HEAD") == 0
                                       : target->kind == FM_PROBE_HEAD;
    struct fm_http_check check = {
        .expect = fm_probe_opts_expect(opts, target->kind),
        .head_request = head,
        .want_body = (opts->have_receive || opts->have_maintenance_regex)
                     && target->kind == FM_PROBE_GET && !head,
        .max_reply_bytes = opts->max_reply_bytes,
        .receive_window_bytes = opts->receive_window_bytes,
        .match = plain_match,
        .match_ctx = NULL,
        .receive = opts->have_receive? &opts->receive : NULL,
        .maintenance_status = opts->have_maintenance_status? &opts->maintenance_status : NULL,
        .maintenance_header = opts->maintenance_header,
        .maintenance_re = opts->have_maintenance_regex? &opts->maintenance_regex : NULL,
        .maintenance_text = opts->maintenance_text,
        .receive_text = opts->receive_text,
        .reverse = opts->reverse,
    };
    char *copy = malloc(len + 1);   /* a chunked body is decoded in place */
    struct fm_http_rx rx = { .buf = copy, .len = len };
    struct fm_http_verdict verdict;

    if (copy == NULL) {
        abort();
    }
    memcpy(copy, data, len);
    copy[len] = '\0';
    v->done = fm_http_judge(&check, &rx, false, &verdict);
    if (!v->done) {
        FM_FUZZ_CHECK(fm_http_judge(&check, &rx, true, &verdict), "the judge waits after the close");
    }
    v->judged_at = len;
    v->reason = verdict.reason;
    v->http_status = verdict.http_status;
    free(copy);
}

/*
 * The final response (after any interim 1xx ones): where its headers end,
 * and how its body is framed.  Returns false when the reply has no complete
 * final headers.
 */
static bool
final_response(const char *reply, size_t len, bool head_request, size_t *headers_end,
               enum fm_http_framing *framing)
{
    size_t start = 0;

    for (;;) {
        struct fm_http_reply parsed;
        enum fm_http_parse parse = fm_http_parse_reply(reply + start, len - start, &parsed);

        if (parse == FM_HTTP_INTERIM) {
            start += parsed.header_len;
            continue;
        }
        if (parse != FM_HTTP_HEADERS_DONE) {
            return false;
        }
        *headers_end = start + parsed.header_len;
        *framing = fm_http_reply_framing(&parsed, head_request);
        return true;
    }
}

/*
 * Whether two readings of one reply agree on its health.  A failure may
 * differ in kind: a chunked body broken after the receive window is judged
 * on the window when it arrives in pieces, and malformed when the break
 * comes with it.  Bytes after a reply without a body make it malformed only
 * when they arrive with its headers (the README's rule).
 */
static bool
same_health(const struct fuzz_verdict *a, const struct fuzz_verdict *b, bool extra_after_bodiless)
{
    bool a_ok = (fm_reason_class(a->reason) == FM_CLASS_OK);
    bool b_ok = (fm_reason_class(b->reason) == FM_CLASS_OK);

    if (a_ok == b_ok) {
        return true;
    }
    return extra_after_bodiless && (a->reason == FM_REASON_READ_MALFORMED
                                    || b->reason == FM_REASON_READ_MALFORMED);
}

/* One input: the options, the reply, and what the whole reply gave. */
struct fuzz_case {
    struct fm_run_config cfg;
    struct fm_status_set expect;
    struct fm_target target;
    const char *reply;
    size_t len;
    size_t chunk;
    bool have_final;            /* the reply has complete final headers */
    size_t headers_end;         /* where they end */
    enum fm_http_framing framing;
    bool extra_after_bodiless;
    struct fuzz_verdict whole_eof;
};

/* The options as the run configuration sets them, from two option bytes. */
static void
setup_case(struct fuzz_case *fc, uint8_t kind_opts, uint8_t size_opts)
{
    struct fm_probe_opts *opts = &fc->cfg.probe;
    const char *expect = fuzz_expect[(kind_opts >> 1) & 3];
    char err[256];

    fm_run_config_init(&fc->cfg);
    memset(&fc->target, 0, sizeof(fc->target));
    fc->target.text = (char *) "http://fuzz.invalid/";
    fc->target.host = (char *) "fuzz.invalid";
    fc->target.port = 80;
    fc->target.path = (char *) "/";
    fc->target.scheme = FM_SCHEME_HTTP;
    fc->target.kind = (kind_opts & 1)? FM_PROBE_GET : FM_PROBE_HEAD;
    fc->target.send_request = true;
    if (fm_run_config_set(&fc->cfg, "expect_status", expect, err, sizeof(err)) != 0
        || fm_status_set_parse(&fc->expect, expect, err, sizeof(err)) != 0) {
        abort();
    }
    if ((kind_opts & 8) != 0) {
        if (fm_run_config_set(&fc->cfg, "receive_regex", fuzz_regex[(kind_opts >> 4) & 7],
                              err, sizeof(err)) != 0) {
            abort();
        }
        opts->reverse = (kind_opts & 0x80) != 0;
    }
    opts->max_reply_bytes = fuzz_max_reply[size_opts & 3];
    opts->receive_window_bytes = fuzz_window[(size_opts >> 2) & 3];
    if (opts->receive_window_bytes > opts->max_reply_bytes) {
        opts->receive_window_bytes = opts->max_reply_bytes;
    }
    if ((size_opts & 0x10) != 0
        && fm_run_config_set(&fc->cfg, "http_method", (kind_opts & 1)? "HEAD" : "GET",
                             err, sizeof(err)) != 0) {
        abort();
    }
}

/*
 * The whole reply, read as the fuzzer cuts it, then as one read, then byte
 * by byte; closed by the server or cut off by the deadline; and through
 * the pure judge.
 */
static void
check_cuts(struct fuzz_case *fc)
{
    const struct fm_probe_opts *opts = &fc->cfg.probe;
    struct fuzz_verdict whole;
    struct fuzz_verdict one_read;
    bool head_request = false;

    judge(opts, &fc->expect, &fc->target, fc->reply, fc->len, fc->chunk, true, &fc->whole_eof);
    judge(opts, &fc->expect, &fc->target, fc->reply, fc->len, fc->chunk, false, &whole);
    FM_FUZZ_CHECK(whole.done == fc->whole_eof.done, "judged before the end or not");
    if (whole.done) {
        FM_FUZZ_CHECK(whole.reason == fc->whole_eof.reason, "verdict depends on the close");
    } else {
        FM_FUZZ_CHECK(whole.reason == FM_REASON_READ_TIMEOUT,
                      "an unjudged reply at the deadline is %s", fm_reason_name(whole.reason));
    }
    head_request = (opts->method != NULL)? strcmp(opts->method, "HEAD") == 0
                                          : fc->target.kind == FM_PROBE_HEAD;
    fc->have_final = final_response(fc->reply, fc->len, head_request, &fc->headers_end,
                                    &fc->framing);
    /* Bytes after a reply that may have no body are malformed when they
     * arrive with its headers (the documented rule), so that verdict alone
     * may depend on how the reply is cut into reads. */
    fc->extra_after_bodiless = fc->have_final && fc->framing == FM_HTTP_BODY_NONE
                               && fc->len > fc->headers_end;

    judge(opts, &fc->expect, &fc->target, fc->reply, fc->len, 0, true, &one_read);
    FM_FUZZ_CHECK(same_health(&one_read, &fc->whole_eof, fc->extra_after_bodiless),
                  "verdict %s when read at once, %s in reads of %zu bytes",
                  fm_reason_name(one_read.reason), fm_reason_name(fc->whole_eof.reason), fc->chunk);
    /* A reply shorter than the probe's first buffer and its read cap comes
     * in one read: the pure judge must say what the probe says. */
    if (fc->len < FUZZ_FIRST_READ && fc->len < opts->max_reply_bytes) {
        struct fuzz_verdict pure;

        judge_pure(opts, &fc->target, fc->reply, fc->len, &pure);
        FM_FUZZ_CHECK(pure.reason == one_read.reason && pure.http_status == one_read.http_status,
                      "fm_http_judge() says %s (status %d), the probe %s (status %d)",
                      fm_reason_name(pure.reason), pure.http_status,
                      fm_reason_name(one_read.reason), one_read.http_status);
    }
    if (fc->len <= 64) {
        struct fuzz_verdict bytewise;

        judge(opts, &fc->expect, &fc->target, fc->reply, fc->len, 1, true, &bytewise);
        FM_FUZZ_CHECK(same_health(&bytewise, &fc->whole_eof, fc->extra_after_bodiless),
                      "verdict %s when read byte by byte, %s at once",
                      fm_reason_name(bytewise.reason), fm_reason_name(fc->whole_eof.reason));
    }
}

/* Prefixes of a complete reply that fails, each followed by the close:
 * none may pass. */
static void
check_prefixes(struct fuzz_case *fc)
{
    size_t complete = fc->whole_eof.done? fc->whole_eof.judged_at : fc->len;

    if (fm_reason_class(fc->whole_eof.reason) == FM_CLASS_OK) {
        return;
    }
    /* A body that ends at the close: each of its prefixes is a complete
     * reply of its own, so only the status line and the headers of the
     * final response must be whole.  The same for bytes after a reply
     * without a body, which its headers complete. */
    if (fc->have_final && (fc->framing == FM_HTTP_BODY_CLOSE || fc->extra_after_bodiless)
        && fc->headers_end < complete) {
        complete = fc->headers_end;
    }
    for (size_t p = 0; p < complete; p++) {
        struct fuzz_verdict part;

        if (p >= FUZZ_EDGE_PREFIXES && p + FUZZ_EDGE_PREFIXES < complete
            && (p * FUZZ_SPREAD_PREFIXES) / complete
               == ((p - 1) * FUZZ_SPREAD_PREFIXES) / complete) {
            continue;
        }
        judge(&fc->cfg.probe, &fc->expect, &fc->target, fc->reply, p, fc->chunk, true, &part);
        FM_FUZZ_CHECK(fm_reason_class(part.reason) != FM_CLASS_OK,
                      "the first %zu bytes pass (%s, status %d) where the whole %zu-byte "
                      "reply fails (%s, status %d)", p, fm_reason_name(part.reason),
                      part.http_status, fc->len, fm_reason_name(fc->whole_eof.reason),
                      fc->whole_eof.http_status);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fuzz_case fc;
    struct fm_fuzz_input in;
    uint8_t kind_opts = 0;
    uint8_t size_opts = 0;

    if (size > FUZZ_REPLY_MAX + 3) {
        return -1;
    }
    fm_fuzz_input_init(&in, data, size);
    kind_opts = fm_fuzz_byte(&in);
    size_opts = fm_fuzz_byte(&in);
    memset(&fc, 0, sizeof(fc));
    fc.chunk = fm_fuzz_byte(&in);
    fc.reply = (const char *) data + in.pos;
    fc.len = fm_fuzz_left(&in);
    setup_case(&fc, kind_opts, size_opts);
    check_cuts(&fc);
    check_prefixes(&fc);
    fm_run_config_clear(&fc.cfg);
    return 0;
}
