/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the loop interval the web agents derive from the monitor
 * operation's when Thorough_probe_interval is unset: min(interval / 2,
 * 10 s), at least 1 s.  The meta-data's default 60 s monitor must give a
 * probe every 10 s (heartbeat's default detection), not 30 s.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ocf_web.h"

static void
test_default_monitor_gives_10s(void **state)
{
    (void) state;
    /* Under the old rule (interval / 2): 30 s, a third of heartbeat's. */
    assert_int_equal(fm_web_derived_probe_interval_ms(60000), 10000);
}

static void
test_half_below_the_cap(void **state)
{
    (void) state;
    assert_int_equal(fm_web_derived_probe_interval_ms(10000), 5000);
    assert_int_equal(fm_web_derived_probe_interval_ms(20000), 10000);
    assert_int_equal(fm_web_derived_probe_interval_ms(3000), 1500);
}

static void
test_capped_at_10s(void **state)
{
    (void) state;
    assert_int_equal(fm_web_derived_probe_interval_ms(20002), 10000);
    assert_int_equal(fm_web_derived_probe_interval_ms(120000), 10000);
    /* Under the old rule a monitor of 2 min or more left the loop at its
     * own default, 60 s. */
    assert_int_equal(fm_web_derived_probe_interval_ms(3600000), 10000);
}

static void
test_floor_1s(void **state)
{
    (void) state;
    assert_int_equal(fm_web_derived_probe_interval_ms(1000), 1000);
    assert_int_equal(fm_web_derived_probe_interval_ms(1), 1000);
    assert_int_equal(fm_web_derived_probe_interval_ms(0), 1000);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_monitor_gives_10s),
        cmocka_unit_test(test_half_below_the_cap),
        cmocka_unit_test(test_capped_at_10s),
        cmocka_unit_test(test_floor_1s),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
