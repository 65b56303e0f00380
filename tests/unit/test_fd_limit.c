/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: raising the open-file limit for a probe engine's targets
 * (fm_probe_reserve_fds()), which the programs call, not the engine.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include <faultmon/probe.h>

static void
set_limits(rlim_t soft, rlim_t hard)
{
    struct rlimit lim = { .rlim_cur = soft, .rlim_max = hard };

    assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
}

/* A soft limit below what the targets need is raised to fit, a higher
 * one is left alone. */
static void
test_raises_soft_limit(void **state)
{
    struct rlimit lim;
    char err[256] = "";

    (void) state;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &lim), 0);
    if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < 400) {
        skip();
    }
    set_limits(100, lim.rlim_max);
    assert_int_equal(fm_probe_reserve_fds(200, err, sizeof(err)), 0);
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &lim), 0);
    assert_int_equal(lim.rlim_cur, 264);
    assert_int_equal(fm_probe_reserve_fds(10, err, sizeof(err)), 0);
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &lim), 0);
    assert_int_equal(lim.rlim_cur, 264);
    assert_string_equal(err, "");
}

/* A hard limit too low: refused with the numbers, nothing changed. */
static void
test_hard_limit_too_low(void **state)
{
    struct rlimit lim;
    char err[256] = "";

    (void) state;
    set_limits(100, 300);
    assert_int_equal(fm_probe_reserve_fds(1000, err, sizeof(err)), EMFILE);
    assert_string_equal(err, "1000 targets need 1064 file descriptors, but the limit is 300");
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &lim), 0);
    assert_int_equal(lim.rlim_cur, 100);
    assert_int_equal(fm_probe_reserve_fds(236, err, sizeof(err)), 0);
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &lim), 0);
    assert_int_equal(lim.rlim_cur, 300);
}

int
main(void)
{
    /* The second lowers the hard limit for good: it runs last. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raises_soft_limit),
        cmocka_unit_test(test_hard_limit_too_low),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
