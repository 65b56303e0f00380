/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the decision engine's persistence (src/decide/persist.c):
 * export, import, and every way an imported state is refused.
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
#include <faultmon/decide_persist.h>

#include "decide_fixture.h"

/* An engine restarted from its exported state decides as if never stopped. */
static void
test_export_import_roundtrip(void **state)
{
    static const struct step timeline[] = {
        { S(0), PART }, { S(10), COMP }, { S(20), OK }, { S(30), PART },
        /* stop and restart here */
        { S(90), COMP }, { S(100), COMP }, { S(110), OK }, { S(120), PART }, { S(130), PART },
    };
    const size_t split = 4;
    const char *const params[][2] = { { "Retry_count", "2" }, { "fall", "1" } };
    struct fm_decide *whole = decide_fixture_engine(params, 2);
    struct fm_decide *first = decide_fixture_engine(params, 2);
    struct fm_decide *second = decide_fixture_engine(params, 2);
    struct fm_decide_state st;
    struct fm_decision a;
    struct fm_decision b;
    char err[256] = "";

    for (size_t i = 0; i < sizeof(timeline) / sizeof(timeline[0]); i++) {
        decide_fixture_apply(whole, &timeline[i], &a);
        if (i < split) {
            decide_fixture_apply(first, &timeline[i], &b);
            if (i == split - 1) {
                fm_decide_export(first, &st);
                if (fm_decide_import(second, &st, S(60), err, sizeof(err)) != 0) {
                    fail_msg("import: %s", err);
                }
            }
        } else {
            decide_fixture_apply(second, &timeline[i], &b);
        }
        assert_int_equal(a.action, b.action);
        assert_int_equal(a.state, b.state);
        assert_int_equal(a.weight, b.weight);
        assert_int_equal(a.restarts_in_window, b.restarts_in_window);
    }
    assert_int_equal(a.action, FM_ACTION_FAILOVER);
    fm_decide_free(whole);
    fm_decide_free(first);
    fm_decide_free(second);
}

struct import_case {
    const char *name;
    void (*mutate)(struct fm_decide_state *s);
    const char *err_part;
};

static void m_version(struct fm_decide_state *s) { s->version = 2; }
static void m_neg_failures(struct fm_decide_state *s) { s->n_failures = -1; }
static void m_many_failures(struct fm_decide_state *s) { s->n_failures = FM_DECIDE_MAX_FAILURES + 1; }
static void m_neg_restarts(struct fm_decide_state *s) { s->n_restarts = -3; }
static void m_many_restarts(struct fm_decide_state *s) { s->n_restarts = 1000; }
static void m_neg_time(struct fm_decide_state *s) { s->restart_us[0] = -5; }
static void m_later_than_clock(struct fm_decide_state *s) { s->restart_us[1] = s->clock_us + 1; }
static void m_out_of_order(struct fm_decide_state *s) { s->restart_us[0] = s->restart_us[1] + 1; }
static void m_bad_weight(struct fm_decide_state *s) { s->failure_weight[0] = 70; }
static void m_held_not_down(struct fm_decide_state *s) { s->held = 1; s->down = 0; }
static void m_down_two(struct fm_decide_state *s) { s->down = 2; }
static void m_future(struct fm_decide_state *s) { s->last_now_us = (int64_t) S(10000); }
static void m_neg_clock(struct fm_decide_state *s) { s->clock_us = -1; }
static void m_neg_streak(struct fm_decide_state *s) { s->ok_streak = -1; }
static void m_worst_mismatch(struct fm_decide_state *s) { s->fail_streak = 0; s->fail_worst = 2; }
static void m_bad_action(struct fm_decide_state *s) { s->last_action = 3; }
static void m_no_time(struct fm_decide_state *s) { s->have_time = 0; }

/* A state with two restarts and one partial failure, at clock 200 s. */
static void
sample_state(struct fm_decide_state *st)
{
    const char *const params[][2] = { { "Retry_count", "5" } };
    struct fm_decide *d = decide_fixture_engine(params, 1);
    struct fm_decide_input comp = { .cls = FM_CLASS_COMPLETE };
    struct fm_decide_input part = { .cls = FM_CLASS_PARTIAL };
    struct fm_decision dec;

    fm_decide_cycle(d, S(100), &comp, &dec);
    fm_decide_cycle(d, S(150), &comp, &dec);
    fm_decide_cycle(d, S(200), &part, &dec);
    fm_decide_export(d, st);
    assert_int_equal(st->n_restarts, 2);
    assert_int_equal(st->n_failures, 1);
    fm_decide_free(d);
}

static void
test_import_rejects(void **state)
{
    static const struct import_case import_cases[] = {
        { "version", m_version, "version" },
        { "negative failure count", m_neg_failures, "n_failures" },
        { "too many failures", m_many_failures, "n_failures" },
        { "negative restart count", m_neg_restarts, "n_restarts" },
        { "too many restarts", m_many_restarts, "n_restarts" },
        { "negative time", m_neg_time, "restart_us[0]" },
        { "record after the clock", m_later_than_clock, "restart_us[1]" },
        { "records out of order", m_out_of_order, "restart_us" },
        { "weight not 50 or 100", m_bad_weight, "failure_weight[0] 70" },
        { "held without down", m_held_not_down, "held without down" },
        { "down not 0 or 1", m_down_two, "0 or 1" },
        { "last input far in the future", m_future, "future" },
        { "negative clock", m_neg_clock, "negative" },
        { "negative streak", m_neg_streak, "streak" },
        { "worst failure without a streak", m_worst_mismatch, "fail_worst" },
        { "last action not a recovery", m_bad_action, "last_action" },
        { "history without a time", m_no_time, "without a time" },
    };
    struct fm_decide_state good;
    struct fm_decide_state bad;
    struct fm_decide_state kept;
    struct fm_decide_state again;
    struct fm_decide *d = NULL;
    char err[256];

    sample_state(&good);
    d = decide_fixture_engine(NULL, 0);
    assert_int_equal(fm_decide_import(d, &good, S(200), err, sizeof(err)), 0);
    fm_decide_export(d, &kept);
    for (size_t i = 0; i < sizeof(import_cases) / sizeof(import_cases[0]); i++) {
        const struct import_case *c = &import_cases[i];

        bad = good;
        c->mutate(&bad);
        err[0] = '\0';
        if (fm_decide_import(d, &bad, S(200), err, sizeof(err)) != EINVAL) {
            fail_msg("%s: accepted", c->name);
        }
        if (strstr(err, c->err_part) == NULL) {
            fail_msg("%s: message \"%s\" lacks \"%s\"", c->name, err, c->err_part);
        }
        /* A rejected state leaves the engine as it was. */
        fm_decide_export(d, &again);
        assert_memory_equal(&kept, &again, sizeof(kept));
    }
    fm_decide_free(d);
}

static void
test_import_edges(void **state)
{
    struct fm_decide_state st;
    struct fm_decision dec;
    struct fm_decide *d = NULL;
    struct fm_decide_input comp = { .cls = FM_CLASS_COMPLETE };
    char err[256];

    /* Written up to FM_DECIDE_IMPORT_SLACK_US "in the future": accepted,
     * and the next input counts as a clock step back. */
    sample_state(&st);
    d = decide_fixture_engine(NULL, 0);
    assert_int_equal(fm_decide_import(d, &st, S(200) - FM_DECIDE_IMPORT_SLACK_US, err,
                                      sizeof(err)), 0);
    assert_int_equal(fm_decide_import(d, &st, S(200) - FM_DECIDE_IMPORT_SLACK_US - 1, err,
                                      sizeof(err)), EINVAL);
    fm_decide_free(d);

    /* The restarts persisted are counted after a restart of the loop. */
    sample_state(&st);
    {
        const char *const params[][2] = { { "Retry_count", "2" } };

        d = decide_fixture_engine(params, 1);
    }
    assert_int_equal(fm_decide_import(d, &st, S(210), err, sizeof(err)), 0);
    fm_decide_cycle(d, S(220), &comp, &dec);
    assert_int_equal(dec.action, FM_ACTION_FAILOVER);
    fm_decide_free(d);

    /* Held, imported after manual_resume was switched off: down, not held. */
    {
        const char *const params[][2] = { { "manual_resume", "true" } };
        struct fm_decide *held = decide_fixture_engine(params, 1);

        fm_decide_cycle(held, S(0), &comp, &dec);
        assert_int_equal(dec.state, FM_STATE_HELD);
        fm_decide_export(held, &st);
        fm_decide_free(held);
    }
    d = decide_fixture_engine(NULL, 0);
    assert_int_equal(fm_decide_import(d, &st, S(1), err, sizeof(err)), 0);
    fm_decide_status(d, S(1), &dec);
    assert_int_equal(dec.state, FM_STATE_DOWN);
    fm_decide_free(d);

    /* fall lowered since the state was written: the streak is cut. */
    {
        const char *const params[][2] = { { "fall", "5" } };
        struct fm_decide *f5 = decide_fixture_engine(params, 1);

        for (int i = 0; i < 4; i++) {
            fm_decide_cycle(f5, S(i), &comp, &dec);
        }
        assert_int_equal(dec.fail_streak, 4);
        fm_decide_export(f5, &st);
        fm_decide_free(f5);
    }
    {
        const char *const params[][2] = { { "fall", "2" } };

        d = decide_fixture_engine(params, 1);
    }
    assert_int_equal(fm_decide_import(d, &st, S(4), err, sizeof(err)), 0);
    fm_decide_status(d, S(4), &dec);
    assert_int_equal(dec.fail_streak, 1);
    fm_decide_cycle(d, S(5), &comp, &dec);
    assert_int_equal(dec.action, FM_ACTION_RESTART);
    fm_decide_free(d);
}

/* A recovery held by an impaired observer keeps its weight (100): that
 * state is written while the hold lasts and must read back, and the first
 * failure after it recovers at once in the loop that reads it. */
static void
test_held_recovery_persists(void **state)
{
    static const char *const params[][2] = { { "observer_hold", "60s" }, { "Retry_count", "2" } };
    struct fm_decide *first = decide_fixture_engine(params, 2);
    struct fm_decide *second = decide_fixture_engine(params, 2);
    const struct step held = { .t_us = S(10), .ev = COMP, .observer = "cpu pressure 95%" };
    const struct step after = { .t_us = S(20), .ev = COMP };
    struct fm_decide_state st;
    struct fm_decision dec;
    char err[256] = "";

    (void) state;
    decide_fixture_apply(first, &held, &dec);
    assert_int_equal(dec.action, FM_ACTION_DEGRADED);
    assert_int_equal(dec.weight, 100);
    fm_decide_export(first, &st);
    assert_int_equal(fm_decide_import(second, &st, S(15), err, sizeof(err)), 0);
    decide_fixture_apply(second, &after, &dec);
    assert_int_equal(dec.action, FM_ACTION_RESTART);
    fm_decide_free(first);
    fm_decide_free(second);
}

int
main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_import_roundtrip),
        cmocka_unit_test(test_import_rejects),
        cmocka_unit_test(test_import_edges),
        cmocka_unit_test(test_held_recovery_persists),
    };

    return cmocka_run_group_tests_name("decide_persist", tests, NULL, NULL);
}
