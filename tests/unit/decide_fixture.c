/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decision engine's unit-test fixture (see decide_fixture.h).
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/ocf_rc.h>

#include "decide_fixture.h"

void
decide_fixture_apply(struct fm_decide *d, const struct step *s, struct fm_decision *dec)
{
    struct fm_decide_input in = { .cls = FM_CLASS_OK };

    switch (s->ev) {
        case RESUME:
            (void) fm_decide_resume(d, s->t_us, dec);
            return;
        case RFAIL:
            fm_decide_restart_failed(d, s->t_us, dec);
            return;
        case PART:
            in.cls = FM_CLASS_PARTIAL;
            break;
        case COMP:
            in.cls = FM_CLASS_COMPLETE;
            break;
        case OK:
        case END:
            break;
    }
    in.have_latency = (s->latency_ms > 0);
    in.latency_us = (uint64_t) s->latency_ms * 1000;
    in.have_cert = s->have_cert;
    in.cert_left_s = s->cert_days * 86400;
    in.maintenance = s->maintenance;
    in.n_targets = s->targets;
    in.n_failed = s->failed;
    in.observer_impaired = s->observer;
    in.dependency_everywhere = s->dep_all;
    in.dependency_here = s->dep_here;
    in.overloaded = s->overloaded;
    fm_decide_cycle(d, s->t_us, &in, dec);
}

struct fm_decide *
decide_fixture_engine(const char *const params[][2], size_t n_params)
{
    struct fm_decide_opts o;
    struct fm_decide *d = NULL;
    char err[256] = "";

    fm_decide_opts_init(&o);
    for (size_t i = 0; (i < n_params) && (params[i][0] != NULL); i++) {
        if (fm_decide_opts_set(&o, params[i][0], params[i][1], err, sizeof(err)) != 0) {
            fail_msg("%s=%s: %s", params[i][0], params[i][1], err);
        }
    }
    if (fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0) != 0) {
        fail_msg("validate: %s", err);
    }
    assert_int_equal(fm_decide_new(&o, &d), 0);
    return d;
}

static void
check(const char *what, size_t i, int64_t expected, int64_t got, const char *reason)
{
    if ((expected != 0) && (expected - 1 != got)) {
        fail_msg("step %zu: %s is %" PRId64 ", expected %" PRId64 " (reason: %s)", i, what,
                 got, expected - 1, reason);
    }
}

static void
run_case(void **state)
{
    const struct tcase *tc = *state;
    struct fm_decide *d = decide_fixture_engine(tc->params,
                                                sizeof(tc->params) / sizeof(tc->params[0]));

    for (size_t i = 0; (i < MAX_STEPS) && (tc->steps[i].ev != END); i++) {
        const struct step *s = &tc->steps[i];
        struct fm_decision dec;

        decide_fixture_apply(d, s, &dec);
        check("action", i, s->act, dec.action, dec.reason);
        check("state", i, s->st, dec.state, dec.reason);
        check("weight", i, s->w, dec.weight, dec.reason);
        check("restarts", i, s->r, dec.restarts_in_window, dec.reason);
        check("interval_ms", i, s->iv_ms, (int64_t) dec.interval_ms, dec.reason);
        check("OCF exit code", i, s->ocf, fm_ocf_rc_for_action(dec.action), dec.reason);
        if ((s->reason != NULL) && (strstr(dec.reason, s->reason) == NULL)) {
            fail_msg("step %zu: reason \"%s\" lacks \"%s\"", i, dec.reason, s->reason);
        }
        if (strchr(dec.reason, '\n') != NULL) {
            fail_msg("step %zu: reason is not one line", i);
        }
    }
    fm_decide_free(d);
}

size_t
decide_fixture_case_tests(const struct tcase *cases, size_t n_cases, struct CMUnitTest *tests)
{
    for (size_t i = 0; i < n_cases; i++) {
        tests[i] = (struct CMUnitTest) {
            .name = cases[i].name,
            .test_func = run_case,
            .initial_state = (void *) &cases[i],
        };
    }
    return n_cases;
}
