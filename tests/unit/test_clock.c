/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: deadline arithmetic with pretend times.
 */
#include <config.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <faultmon/clock.h>

struct deadline_case {
    uint64_t start_us;
    uint64_t timeout_ms;
    uint64_t now_us;
    uint64_t left_us;
    int wait_ms;
    bool expired;
    uint64_t elapsed_us;
};

static const struct deadline_case deadline_cases[] = {
    /* start, timeout, now, left, wait, expired, elapsed */
    { 1000, 5000, 1000, 5000000, 5000, false, 0 },
    { 1000, 5000, 1001, 4999999, 5000, false, 1 },          /* rounds up: never wakes early */
    { 1000, 5000, 5000999, 1, 1, false, 4999999 },
    { 1000, 5000, 5001000, 0, 0, true, 5000000 },           /* exactly at the deadline */
    { 1000, 5000, 9000000, 0, 0, true, 8999000 },           /* long past it */
    { 1000, 5000, 500, 5000500, 5001, false, 0 },           /* clock before start */
    { 0, 0, 0, 0, 0, true, 0 },
    { UINT64_MAX - 10, 5000, UINT64_MAX - 10, 10, 1, false, 0 },  /* saturates, no wrap */
};

static void
test_deadline_table(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(deadline_cases) / sizeof(deadline_cases[0]); i++) {
        const struct deadline_case *c = &deadline_cases[i];
        struct fm_deadline dl;

        print_message("# case %zu\n", i);
        fm_deadline_init(&dl, c->start_us, c->timeout_ms);
        assert_int_equal(fm_deadline_left_us(&dl, c->now_us), c->left_us);
        assert_int_equal(fm_deadline_wait_ms(&dl, c->now_us), c->wait_ms);
        assert_int_equal(fm_deadline_expired(&dl, c->now_us), c->expired);
        assert_int_equal(fm_deadline_elapsed_us(&dl, c->now_us), c->elapsed_us);
    }
}

/* A trickling server: each byte arrives before the deadline, but waiting
 * only ever uses the time left, so the total never exceeds the timeout. */
static void
test_trickle_never_rearms(void **state)
{
    struct fm_deadline dl;
    uint64_t now_us = 42;
    uint64_t total_wait_ms = 0;

    (void) state;
    fm_deadline_init(&dl, now_us, 1000);
    while (!fm_deadline_expired(&dl, now_us)) {
        int wait_ms = fm_deadline_wait_ms(&dl, now_us);

        assert_true(wait_ms > 0);
        /* A byte arrives after 300 ms, or the wait ends at the deadline. */
        uint64_t step_ms = (wait_ms < 300)? (uint64_t) wait_ms : 300;

        total_wait_ms += step_ms;
        now_us += step_ms * 1000;
    }
    assert_int_equal(total_wait_ms, 1000);
}

static void
test_wait_is_bounded(void **state)
{
    struct fm_deadline dl;

    (void) state;
    fm_deadline_init(&dl, 0, UINT64_MAX / 2);
    assert_int_equal(fm_deadline_wait_ms(&dl, 0), INT_MAX);
}

/* The one function that reads the clock: it never goes back. */
static void
test_now_is_monotonic(void **state)
{
    uint64_t before_us = fm_now_us();
    uint64_t after_us = 0;

    (void) state;
    for (int i = 0; i < 1000; i++) {
        after_us = fm_now_us();
        assert_true(after_us >= before_us);
        before_us = after_us;
    }
    assert_true(after_us > 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deadline_table),
        cmocka_unit_test(test_trickle_never_rearms),
        cmocka_unit_test(test_wait_is_bounded),
        cmocka_unit_test(test_now_is_monotonic),
    };

    return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
