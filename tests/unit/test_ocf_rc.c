/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the OCF exit code for a decision (src/core/ocf_rc.c): the
 * codes Pacemaker's scheduler reads as restart, failover and degraded.
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

#include <faultmon/ocf_rc.h>

static void
test_ocf_rc_for_action(void **state)
{
    assert_int_equal(fm_ocf_rc_for_action(FM_ACTION_NONE), PCMK_OCF_OK);
    assert_int_equal(fm_ocf_rc_for_action(FM_ACTION_RESTART), PCMK_OCF_UNKNOWN_ERROR);
    assert_int_equal(fm_ocf_rc_for_action(FM_ACTION_RESTART), 1);
    assert_int_equal(fm_ocf_rc_for_action(FM_ACTION_FAILOVER), PCMK_OCF_INSUFFICIENT_PRIV);
    assert_int_equal(fm_ocf_rc_for_action(FM_ACTION_FAILOVER), 4);
    assert_int_equal(fm_ocf_rc_for_action(FM_ACTION_DEGRADED), PCMK_OCF_DEGRADED);
    assert_int_equal(fm_ocf_rc_for_action(FM_ACTION_DEGRADED), 190);
    assert_int_equal(fm_ocf_rc_for_action(FM_ACTION_NONE), 0);
}

/* A value read from a file that is no action answers 0, as before. */
static void
test_ocf_rc_unknown_action(void **state)
{
    assert_int_equal(fm_ocf_rc_for_action((enum fm_action) 42), PCMK_OCF_OK);
}

int
main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ocf_rc_for_action),
        cmocka_unit_test(test_ocf_rc_unknown_action),
    };

    return cmocka_run_group_tests_name("ocf_rc", tests, NULL, NULL);
}
