/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: overload is not a hang (run_overload.h).
 *
 * The status page is an HTTP GET on a probe engine of its own, so that it
 * runs on the loop's epoll like the service's probes, never blocking the
 * loop, and only when a cycle is slow or failed: a healthy cycle costs
 * nothing.  It starts at the slow point (half the cycle's deadline) or at
 * once when the cycle fails earlier, with a bound of its own of three
 * Probe_timeouts: such a cycle lasts at most three and a half then (the
 * loop never waits meanwhile: it is one more engine on its epoll; the
 * figures are in doc/overload.md).  A server that does not answer it (a
 * SIGSTOPped or deadlocked one answers nothing) gives no evidence, and the
 * normal rules judge the cycle.  The body comes through the engine's body
 * sink (a receive regex that matches anything makes the HTTP probe hand
 * over its window).
 *
 * The kernel is the second witness (faultmon/accept_queue.h): the page's
 * port is looked at when the page is asked for and again when it is over
 * without an answer; a server that answers no page (an nginx whose
 * connection table is full closes the page's connection as it closed the
 * probe's) but still accepts, and is full, is overloaded too.  A page that
 * answered is believed over the kernel.  With tcp://HOST:PORT for the
 * page there is no page: the kernel only, its two looks two Probe_timeouts
 * apart (a busy server's workers must have time to finish a request).
 */
#include <config.h>

#include "run_overload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/clock.h>
#include <faultmon/log.h>


#define FM_OVERLOAD_PAGE_BYTES (64 * 1024)
#define FM_OVERLOAD_BOUND_FACTOR 3   /* the page's bound, in Probe_timeouts */
#define FM_OVERLOAD_KERNEL_FACTOR 2  /* without a page: the looks' distance */

/* The page's body, judged as it comes: mod_status first, then stub_status. */
static void
on_body(void *ctx, const char *body, size_t len)
{
    struct fm_run_overload *ov = ctx;
    struct fm_overload_apache ap;
    struct fm_overload_nginx ng;

    ov->body_seen = true;
    ov->why[0] = '\0';
    if (fm_overload_parse_apache(body, len, &ap) == 0) {
        if (!fm_overload_apache_full(&ap, ov->why, sizeof(ov->why))) {
            ov->why[0] = '\0';
        }
    } else if (fm_overload_parse_nginx(body, len, &ng) == 0) {
        if (!fm_overload_nginx_full(&ng, ov->capacity, ov->why, sizeof(ov->why))) {
            ov->why[0] = '\0';
        }
    }
}

/* The status page's engine; 0, or an errno with err saying why. */
static int
overload_init(struct fm_run_overload *ov, const struct fm_probe_opts *probe, struct fm_ev *loop,
              void (*ready)(void *data), void *data, char *err, size_t err_len)
{
    /* A page is a GET (an http:// URI); tcp://HOST:PORT names a port. */
    bool tcp = strncmp(probe->overload_status_url, "tcp://", 6) == 0;
    int rc = fm_target_parse(probe->overload_status_url, !tcp, &ov->target, err, err_len);

    if (rc != 0) {
        return rc;
    }
    ov->capacity = probe->overload_capacity;
    ov->timeout_ms = probe->timeout_ms;
    if (ov->target.scheme == FM_SCHEME_TCP) {
        /* No page: the kernel only.  The engine is made all the same (the
         * loop watches its fd like any other) and never started. */
        ov->kernel_only = true;
        return fm_probe_run_new(&ov->target, 1, &ov->opts, &ov->run, err, err_len);
    }
    ov->opts.tls_verify = probe->tls_verify;
    ov->opts.max_reply_bytes = FM_OVERLOAD_PAGE_BYTES;
    ov->opts.receive_window_bytes = FM_OVERLOAD_PAGE_BYTES;
    ov->opts.body_sink = on_body;
    ov->opts.body_sink_ctx = ov;
    /* " *" matches any body and is searched here in linear time, with no
     * child process (regex_linear.h): the regex only makes the probe hand
     * over the body. */
    rc = fm_probe_opts_set_receive(&ov->opts, " *", err, err_len);
    if (rc == 0) {
        rc = fm_probe_run_new_on(loop, ready, data, &ov->target, 1, &ov->opts, &ov->run, err, err_len);
    }
    return rc;
}

void
fm_run_overload_start(struct fm_run_overload *ov, struct fm_ev *loop, const struct fm_probe_opts *probe,
                      const char *resource, void (*ready)(void *data), void *data)
{
    char err[512] = "";

    memset(ov, 0, sizeof(*ov));
    fm_probe_opts_init(&ov->opts);
    if (probe->overload_status_url == NULL || probe->overload_status_url[0] == '\0') {
        return;
    }
    if (overload_init(ov, probe, loop, ready, data, err, sizeof(err)) != 0) {
        fm_log_warn("%s: overload_status_url %s is not read: %s", resource, probe->overload_status_url,
                    (err[0] != '\0')? err : "out of memory");
        fm_run_overload_free(ov);
        return;
    }
    ov->enabled = true;
}

void
fm_run_overload_free(struct fm_run_overload *ov)
{
    fm_probe_run_free(ov->run);
    ov->run = NULL;
    if (ov->target.text != NULL) {
        fm_target_clear(&ov->target);
    }
    fm_probe_opts_clear(&ov->opts);
    ov->enabled = false;
}

/* Start reading the page when the cycle is slow or failed and enough of
 * its deadline is left; returns whether it is being read. */
static bool
overload_begin(struct fm_run_overload *ov, const struct fm_probe_run *probe, bool done,
               uint64_t deadline_us, uint64_t now_us)
{
    uint64_t slow_us = deadline_us - ov->timeout_ms * 500u;
    bool wanted = done? (fm_probe_run_verdict(probe) != FM_CLASS_OK) : (now_us >= slow_us);

    if (!wanted) {
        return false;
    }
    ov->tried = true;
    /* A bound of its own: the page waits in the same accept queue as the
     * probe that timed out, behind it, so it can only answer later than
     * the probe would have; a server that answers it late but answers is
     * busy, not stopped, and one that is stopped never answers. */
    ov->opts.timeout_ms = ov->timeout_ms * FM_OVERLOAD_BOUND_FACTOR;
    if (ov->kernel_only) {
        ov->started = fm_accept_queue_read(ov->target.port, &ov->queue) == 0;
        ov->queue_before = ov->started;
        ov->kernel_due_us = now_us + ov->timeout_ms * FM_OVERLOAD_KERNEL_FACTOR * 1000u;
        return ov->started;
    }
    if (fm_probe_run_start(ov->run, now_us) != 0) {
        return false;
    }
    ov->started = true;
    ov->queue_before = fm_accept_queue_read(ov->target.port, &ov->queue) == 0;
    return true;
}

/* Whether the service's failures are all of a server that gave no answer:
 * a timeout, or a connection closed or reset before a reply (a full nginx
 * closes what it has no room for).  A server that answered, with a wrong
 * status or content, was not too busy to answer: its answer is judged,
 * however busy it is.  Refused (no listener) and TLS failures are not
 * overload either. */
static bool
failed_unanswered(const struct fm_probe_run *probe)
{
    size_t n = 0;
    const struct fm_result *r = fm_probe_run_results(probe, &n);
    bool failed = false;

    for (size_t i = 0; i < n; i++) {
        if (r[i].target->dependency || fm_result_class(&r[i]) == FM_CLASS_OK) {
            continue;
        }
        failed = true;
        switch (r[i].reason) {
            case FM_REASON_CONNECT_TIMEOUT:
            case FM_REASON_TLS_TIMEOUT:
            case FM_REASON_SEND_FAILED:
            case FM_REASON_SEND_TIMEOUT:
            case FM_REASON_READ_FAILED:
            case FM_REASON_READ_TIMEOUT:
                break;
            default:
                return false;
        }
    }
    return failed;
}

/* The page is over: without its answer, the kernel's second look. */
static void
overload_queue_judge(struct fm_run_overload *ov)
{
    struct fm_accept_queue after;

    if (ov->queue_judged || !ov->queue_before || ov->body_seen || ov->why[0] != '\0') {
        return;
    }
    ov->queue_judged = true;
    if (fm_accept_queue_read(ov->target.port, &after) == 0
        && fm_accept_queue_overloaded(&ov->queue, &after, ov->capacity, ov->why, sizeof(ov->why))) {
        fm_log_debug("overload: the status page did not answer; the kernel: %s", ov->why);
    }
}

/* The sooner of two waits, -1 being "none". */
static int
sooner(int a, int b)
{
    if (a < 0) {
        return b;
    }
    return (b < 0 || a < b)? a : b;
}

bool
fm_run_overload_hold(struct fm_run_overload *ov, const struct fm_probe_run *probe, bool done,
                     uint64_t cycle_start_us, int *wait_ms)
{
    uint64_t now_us = fm_now_us();
    uint64_t deadline_us = cycle_start_us + (ov->enabled? ov->timeout_ms : 0) * 1000u;
    bool reading = false;

    /* -1: the spread timer (one of the loop's) wakes the loop. */
    *wait_ms = done? -1 : fm_probe_run_wait_ms(probe, now_us);
    if (!ov->enabled) {
        return !done;
    }
    if (ov->cycle_us != cycle_start_us) {
        ov->cycle_us = cycle_start_us;      /* a new cycle: no evidence yet */
        ov->started = false;
        ov->tried = false;
        ov->body_seen = false;
        ov->queue_before = false;
        ov->queue_judged = false;
        ov->unanswered = false;
        ov->why[0] = '\0';
    }
    if (done) {
        ov->unanswered = failed_unanswered(probe);
    }
    reading = ov->started || (!ov->tried && overload_begin(ov, probe, done, deadline_us, now_us));
    if (reading && ov->kernel_only && !ov->queue_judged && now_us < ov->kernel_due_us) {
        *wait_ms = sooner(*wait_ms, (int) ((ov->kernel_due_us - now_us + 999) / 1000u));
        return true;
    }
    if (reading && !ov->kernel_only && !fm_probe_run_dispatch(ov->run, now_us)) {
        *wait_ms = sooner(*wait_ms, fm_probe_run_wait_ms(ov->run, now_us));
        return true;
    }
    if (reading && done) {
        overload_queue_judge(ov);
    }
    if (!done && !reading && !ov->tried) {
        uint64_t slow_us = deadline_us - ov->timeout_ms * 500u;

        *wait_ms = sooner(*wait_ms, (slow_us > now_us)? (int) ((slow_us - now_us + 999) / 1000u) : 0);
    }
    return !done;
}

const char *
fm_run_overload_evidence(const struct fm_run_overload *ov, uint64_t cycle_start_us)
{
    if (!ov->enabled || !ov->started || ov->cycle_us != cycle_start_us || !ov->unanswered
        || ov->why[0] == '\0') {
        return NULL;
    }
    return ov->why;
}
