/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the decision engine's parameters, and the engine run on
 * a timeline under them with a pretend clock.
 *
 * Input: lines "name=value" (Retry_count, Retry_interval, fall, adaptive_...;
 * see tests/fuzz/fuzz_decide.dict) up to an empty line, then the timeline,
 * two bytes per event: the first chooses the class of a cycle (or a failed
 * restart, or a resume) and its latency, the second how far the clock moves
 * (sometimes backwards).
 *
 * Properties:
 *  - errors and warnings are one terminated line; options that validate are
 *    accepted by fm_decide_new();
 *  - every decision has a known action and state, an OCF code from the
 *    documented set (0, 1, 4, 190) and a one-line reason; degraded is never
 *    reported with report_degraded off;
 *  - an ok cycle never asks for a restart or a failover (unless adaptive
 *    response time is on: then a slow ok cycle is a miss, by design);
 *  - preview and status change nothing;
 *  - persistence: the exported history is always accepted by
 *    fm_decide_import() and exports back the same; without adaptive
 *    response time and certificate warnings (latency samples and the last
 *    certificate are not persisted), an engine restored from it decides the
 *    next event exactly as the original.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/decide.h>
#include <faultmon/decide_persist.h>
#include <faultmon/ocf_rc.h>

#include "fuzz_common.h"

#define FUZZ_DECIDE_MAX 8192
#define FUZZ_DECIDE_EVENTS 128

static void
check_decision(const struct fm_decide_opts *opts, const struct fm_decision *dec)
{
    enum ocf_exitcode rc = fm_ocf_rc_for_action(dec->action);

    FM_FUZZ_CHECK((unsigned) dec->action <= FM_ACTION_DEGRADED, "action %d", (int) dec->action);
    FM_FUZZ_CHECK((unsigned) dec->state <= FM_STATE_HELD, "state %d", (int) dec->state);
    FM_FUZZ_CHECK(rc == PCMK_OCF_OK || rc == PCMK_OCF_UNKNOWN_ERROR
                  || rc == PCMK_OCF_INSUFFICIENT_PRIV || rc == PCMK_OCF_DEGRADED,
                  "OCF code %d", (int) rc);
    FM_FUZZ_CHECK(opts->report_degraded || dec->action != FM_ACTION_DEGRADED,
                  "degraded reported with report_degraded off");
    fm_fuzz_check_message(dec->reason, sizeof(dec->reason));
}

static bool
same_decision(const struct fm_decision *a, const struct fm_decision *b)
{
    return a->action == b->action && a->state == b->state && a->weight == b->weight
           && a->restarts_in_window == b->restarts_in_window && a->interval_ms == b->interval_ms
           && a->fail_streak == b->fail_streak && a->ok_streak == b->ok_streak;
}

/* Apply one event to \p d. */
static void
apply(struct fm_decide *d, uint64_t now_us, uint8_t what, struct fm_decision *dec)
{
    struct fm_decide_input in;

    memset(&in, 0, sizeof(in));
    switch (what >> 6) {
        case 3:
            if (fm_decide_resume(d, now_us, dec) == EALREADY) {
                fm_decide_status(d, now_us, dec);
            }
            return;
        case 2:
            fm_decide_restart_failed(d, now_us, dec);
            return;
        default:
            in.cls = (enum fm_class) ((what & 3) % 3);
            in.have_latency = (in.cls == FM_CLASS_OK);
            in.latency_us = (uint64_t) ((what >> 2) & 0xf) * 50000;
            if (what & 0x40) {
                in.have_cert = true;
                in.cert_left_s = ((int64_t) ((what >> 2) & 0xf) - 4) * 86400;
            }
            fm_decide_cycle(d, now_us, &in, dec);
            return;
    }
}

static void
timeline(const struct fm_decide_opts *opts, struct fm_fuzz_input *in)
{
    struct fm_decide *d = NULL;
    uint64_t now_us = UINT64_C(1000000000);
    bool comparable = !fm_decide_opts_adaptive(opts) && opts->cert_warn_days == 0;

    FM_FUZZ_CHECK(fm_decide_new(opts, &d) == 0, "validated options refused by the engine");
    for (size_t i = 0; i < FUZZ_DECIDE_EVENTS && fm_fuzz_left(in) >= 2; i++) {
        uint8_t what = fm_fuzz_byte(in);
        uint8_t step = fm_fuzz_byte(in);
        struct fm_decide_state before;
        struct fm_decide_state after;
        struct fm_decide *copy = NULL;
        struct fm_decision dec;
        struct fm_decision dec_copy;
        char err[512];

        if (step == 0xff && now_us > 5000000) {
            now_us -= 5000000;                  /* the clock steps back */
        } else {
            now_us += (uint64_t) step * step * 1000;
        }

        /* Preview and status leave the engine as it was. */
        fm_decide_export(d, &before);
        fm_decide_preview(d, now_us, FM_CLASS_COMPLETE, &dec);
        check_decision(opts, &dec);
        fm_decide_status(d, now_us, &dec);
        check_decision(opts, &dec);
        fm_decide_export(d, &after);
        FM_FUZZ_CHECK(memcmp(&before, &after, sizeof(before)) == 0, "preview or status changed the engine");

        /* The history, persisted and restored now. */
        FM_FUZZ_CHECK(fm_decide_new(opts, &copy) == 0, "no second engine");
        memset(err, 0, sizeof(err));
        FM_FUZZ_CHECK(fm_decide_import(copy, &before, (before.have_time != 0)?
                                       (uint64_t) before.last_now_us : now_us, err, sizeof(err)) == 0,
                      "the engine's own history is refused: %s", err);
        fm_decide_export(copy, &after);
        FM_FUZZ_CHECK(memcmp(&before, &after, sizeof(before)) == 0, "import then export differs");

        apply(d, now_us, what, &dec);
        check_decision(opts, &dec);
        if ((what >> 6) < 2 && (what & 3) == FM_CLASS_OK && !fm_decide_opts_adaptive(opts)) {
            FM_FUZZ_CHECK(dec.action != FM_ACTION_RESTART && dec.action != FM_ACTION_FAILOVER,
                          "an ok cycle asks for %s: %s", fm_action_name(dec.action), dec.reason);
        }
        apply(copy, now_us, what, &dec_copy);
        if (comparable) {
            FM_FUZZ_CHECK(same_decision(&dec, &dec_copy),
                          "a restored engine decides %s/%s, the original %s/%s",
                          fm_action_name(dec_copy.action), fm_state_name(dec_copy.state),
                          fm_action_name(dec.action), fm_state_name(dec.state));
        }
        fm_decide_free(copy);
    }
    fm_decide_free(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fm_fuzz_input in;
    struct fm_decide_opts opts;
    char err[512];
    char warn[512];
    char *line = NULL;

    if (size > FUZZ_DECIDE_MAX) {
        return -1;
    }
    fm_fuzz_input_init(&in, data, size);
    fm_decide_opts_init(&opts);
    while ((line = fm_fuzz_line(&in)) != NULL) {
        char *eq = strchr(line, '=');

        if (line[0] == '\0') {
            free(line);
            break;
        }
        if (eq != NULL) {
            int rc = 0;

            *eq = '\0';
            memset(err, 'x', sizeof(err));
            err[sizeof(err) - 1] = '\0';
            rc = fm_decide_opts_set(&opts, line, eq + 1, err, sizeof(err));
            FM_FUZZ_CHECK(rc == 0 || rc == ENOENT || rc == EINVAL, "opts_set returns %d", rc);
            if (rc == EINVAL) {
                fm_fuzz_check_message(err, sizeof(err));
            }
        }
        free(line);
    }
    memset(err, 'x', sizeof(err));
    err[sizeof(err) - 1] = '\0';
    memset(warn, 'x', sizeof(warn));
    warn[sizeof(warn) - 1] = '\0';
    if (fm_decide_opts_validate(&opts, err, sizeof(err), warn, sizeof(warn)) != 0) {
        fm_fuzz_check_message(err, sizeof(err));
        return 0;
    }
    fm_fuzz_check_message(warn, sizeof(warn));
    timeline(&opts, &in);
    return 0;
}
