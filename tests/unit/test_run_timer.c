/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the loop's timer (src/run/timer.c) on a real event loop
 * (include/faultmon/ev.h), each run under a watchdog (a second timer): it
 * fires once, not before its time; setting it again moves it; a new
 * setting replaces the old one, callback and all; 0 fires at once; cleared,
 * it is out of the loop.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/clock.h>

#include "timer.h"

#define WATCHDOG_MS 2000u

struct fixture {
    struct fm_ev ev;
    struct fm_ev *loop;
    struct fm_run_timer timer;
    struct fm_run_timer watchdog;
    int fired_a;
    int fired_b;
    uint64_t fired_at_us;
    bool watchdog_fired;
};

static void
on_a(void *data)
{
    struct fixture *f = data;

    f->fired_a++;
    f->fired_at_us = fm_now_us();
    fm_ev_stop(f->loop);
}

static void
on_b(void *data)
{
    struct fixture *f = data;

    f->fired_b++;
    f->fired_at_us = fm_now_us();
    fm_ev_stop(f->loop);
}

static void
on_watchdog(void *data)
{
    struct fixture *f = data;

    f->watchdog_fired = true;
    fm_ev_stop(f->loop);
}

/* Run the loop until a callback stops it, or the watchdog does. */
static void
run(struct fixture *f)
{
    fm_run_timer_arm(&f->watchdog, fm_now_us(), WATCHDOG_MS, on_watchdog, f);
    f->ev.stop = false;
    assert_int_equal(fm_ev_run(f->loop), 0);
}

static int
setup(void **state)
{
    struct fixture *f = test_calloc(1, sizeof(*f));

    assert_int_equal(fm_ev_init(&f->ev), 0);
    f->loop = &f->ev;
    assert_int_equal(fm_run_timer_init(&f->timer, f->loop), 0);
    assert_int_equal(fm_run_timer_init(&f->watchdog, f->loop), 0);
    assert_ptr_equal(f->timer.ev, f->loop);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *f = *state;

    fm_run_timer_clear(&f->timer);
    fm_run_timer_clear(&f->watchdog);
    fm_ev_fini(f->loop);
    test_free(f);
    return 0;
}

static void
test_fires_once_not_early(void **state)
{
    struct fixture *f = *state;
    uint64_t start_us = fm_now_us();

    fm_run_timer_arm(&f->timer, start_us, 30, on_a, f);
    run(f);
    assert_false(f->watchdog_fired);
    assert_int_equal(f->fired_a, 1);
    assert_true(f->fired_at_us >= start_us + 30000u);
    assert_true(f->fired_at_us < start_us + 500000u);
    assert_int_equal(f->timer.at.at_us, 0);     /* disarmed once fired */

    /* Not again: only the watchdog ends the next run. */
    run(f);
    assert_true(f->watchdog_fired);
    assert_int_equal(f->fired_a, 1);
}

static void
test_zero_fires_at_once(void **state)
{
    struct fixture *f = *state;
    uint64_t start_us = fm_now_us();

    fm_run_timer_arm(&f->timer, start_us, 0, on_a, f);
    run(f);
    assert_false(f->watchdog_fired);
    assert_int_equal(f->fired_a, 1);
    assert_true(f->fired_at_us < start_us + 100000u);
}

static void
test_rearm_moves_it(void **state)
{
    struct fixture *f = *state;
    uint64_t now_us = fm_now_us();

    /* Setting it costs no system call: every setting is taken as it is. */
    fm_run_timer_arm(&f->timer, now_us, 40, on_a, f);
    assert_int_equal(f->timer.at.at_us, now_us + 40000u);
    fm_run_timer_arm(&f->timer, now_us + 900u, 40, on_a, f);
    assert_int_equal(f->timer.at.at_us, now_us + 40900u);
    fm_run_timer_arm(&f->timer, now_us + 1000u, 40, on_b, f);
    assert_ptr_equal(f->timer.at.fn, on_b);                  /* another callback */
    run(f);
    assert_int_equal(f->fired_a, 0);
    assert_int_equal(f->fired_b, 1);
    assert_true(f->fired_at_us >= now_us + 41000u);
}

static void
test_new_setting_replaces_old(void **state)
{
    struct fixture *f = *state;
    uint64_t start_us = fm_now_us();

    fm_run_timer_arm(&f->timer, start_us, 10, on_a, f);
    fm_run_timer_arm(&f->timer, start_us, 60, on_b, f);
    run(f);
    assert_false(f->watchdog_fired);
    assert_int_equal(f->fired_a, 0);
    assert_int_equal(f->fired_b, 1);
    assert_true(f->fired_at_us >= start_us + 60000u);

    /* An earlier time replaces a later one too. */
    start_us = fm_now_us();
    fm_run_timer_arm(&f->timer, start_us, 1000, on_b, f);
    fm_run_timer_arm(&f->timer, start_us, 20, on_a, f);
    run(f);
    assert_int_equal(f->fired_a, 1);
    assert_int_equal(f->fired_b, 1);
    assert_true(f->fired_at_us < start_us + 500000u);
}

static void
test_cleared_is_out_of_the_loop(void **state)
{
    struct fixture *f = *state;

    /* Armed, then cleared before it is due: only the watchdog ends the run. */
    fm_run_timer_arm(&f->timer, fm_now_us(), 10, on_a, f);
    fm_run_timer_clear(&f->timer);
    assert_null(f->timer.ev);
    assert_int_equal(f->timer.at.at_us, 0);
    run(f);
    assert_true(f->watchdog_fired);
    assert_int_equal(f->fired_a, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fires_once_not_early, setup, teardown),
        cmocka_unit_test_setup_teardown(test_zero_fires_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rearm_moves_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_setting_replaces_old, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cleared_is_out_of_the_loop, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
