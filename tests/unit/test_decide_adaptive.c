/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of adaptive response time (src/decide/adaptive.c), with a fake
 * clock: timelines of latencies, each with what the engine must answer (see
 * decide_fixture.h), and the sample ring at its cap.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <faultmon/decide.h>

#include "decide_fixture.h"

static const struct tcase cases[] = {
    {
        "adaptive: 3 latency misses in a row count as a complete failure",
        { { "adaptive_limit_ms", "100" } },
        {
            { S(0), OK, 10, .act = NONE },
            { S(60), OK, 10, .act = NONE },
            { S(120), OK, 10, .act = NONE },
            { S(180), OK, 200, .act = DEGR, .st = DEGRADED, .w = X(0),
              .reason = "latency miss 1 of 3" },
            { S(240), OK, 200, .act = DEGR, .st = DEGRADED, .reason = "latency miss 2 of 3" },
            { S(300), OK, 200, .act = RESTART, .w = X(100),
              .reason = "3 latency misses in a row, weight 100" },
        },
    },
    {
        "adaptive: a fast probe ends the streak of misses",
        { { "adaptive_limit_ms", "100" } },
        {
            { S(0), OK, 10 }, { S(60), OK, 10 }, { S(120), OK, 10 },
            { S(180), OK, 200, .st = DEGRADED },
            { S(240), OK, 200, .st = DEGRADED },
            { S(300), OK, 10, .act = NONE, .st = UP },
            { S(360), OK, 200, .act = DEGR, .reason = "latency miss 1 of 3" },
        },
    },
    {
        "adaptive: a failed cycle ends the streak (counted once, as a failure)",
        { { "adaptive_limit_ms", "100" } },
        {
            { S(0), OK, 10 }, { S(60), OK, 10 }, { S(120), OK, 10 },
            { S(180), OK, 200, .st = DEGRADED },
            { S(240), OK, 200, .st = DEGRADED },
            { S(250), PART, .act = DEGR, .w = X(50) },
            { S(300), OK, 200, .act = DEGR, .w = X(50), .reason = "latency miss 1 of 3" },
        },
    },
    {
        "adaptive: relative limit in percent",
        { { "adaptive_limit_pct", "50" } },
        {
            { S(0), OK, 100 }, { S(60), OK, 100 }, { S(120), OK, 100 },
            { S(180), OK, 160, .act = DEGR, .st = DEGRADED, .reason = "by more than 50 %" },
            { S(240), OK, 140, .act = NONE, .st = UP },
        },
    },
    {
        "adaptive: fewer than 3 samples are not judged",
        { { "adaptive_limit_ms", "10" } },
        {
            { S(0), OK, 10, .act = NONE },
            { S(60), OK, 1000, .act = NONE, .st = UP },
            { S(120), OK, 1000, .act = NONE, .st = UP },
            { S(180), OK, 5000, .act = DEGR, .st = DEGRADED },
        },
    },
    {
        "adaptive: off unless a limit is set",
        { { NULL, NULL } },
        {
            { S(0), OK, 10 }, { S(60), OK, 10 }, { S(120), OK, 10 },
            { S(180), OK, 10000, .act = NONE, .st = UP },
            { S(240), OK, 10000, .act = NONE, .st = UP },
            { S(300), OK, 10000, .act = NONE, .st = UP },
        },
    },
    {
        "adaptive: samples older than adaptive_window leave the mean",
        { { "adaptive_limit_ms", "50" }, { "adaptive_window", "60" },
          { "Thorough_probe_interval", "10" } },
        {
            { S(0), OK, 1000 }, { S(10), OK, 1000 }, { S(20), OK, 1000 },
            { S(30), OK, 1000, .act = NONE },
            { S(100), OK, 100, .act = NONE },
            { S(110), OK, 100, .act = NONE },
            { S(120), OK, 100, .act = NONE },
            { S(130), OK, 100, .act = NONE },
            { S(140), OK, 200, .act = DEGR, .reason = "mean 100 ms" },
        },
    },
};

/* More samples than the ring holds: the mean covers the newest ones. */
static void
test_sample_cap(void **state)
{
    const char *const params[][2] = { { "adaptive_limit_ms", "1000" } };
    struct fm_decide *d = decide_fixture_engine(params, 1);
    struct fm_decide_input in = { .cls = FM_CLASS_OK, .have_latency = true };
    struct fm_decision dec;
    uint64_t t = 0;

    /* 100 samples of 900 ms, then FM_DECIDE_MAX_SAMPLES of 100 ms, all
     * within the 300 s window. */
    for (int i = 0; i < 100; i++, t += 100000) {
        in.latency_us = 900000;
        fm_decide_cycle(d, t, &in, &dec);
    }
    for (int i = 0; i < FM_DECIDE_MAX_SAMPLES; i++, t += 100000) {
        in.latency_us = 100000;
        fm_decide_cycle(d, t, &in, &dec);
    }
    fm_decide_status(d, t, &dec);
    assert_true(dec.have_mean);
    assert_int_equal(dec.mean_latency_us, 100000);
    fm_decide_free(d);
}

int
main(void)
{
    struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0]) + 4];
    size_t n = decide_fixture_case_tests(cases, sizeof(cases) / sizeof(cases[0]), tests);

    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_sample_cap);
    return _cmocka_run_group_tests("decide_adaptive", tests, n, NULL, NULL);
}
