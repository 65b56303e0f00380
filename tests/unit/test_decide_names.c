/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the decision engine's words (src/decide/names.c): what logs,
 * the state file and `faultmon status` call each action and state.
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

static void
test_names(void **state)
{
    assert_string_equal(fm_action_name(FM_ACTION_FAILOVER), "failover");
    assert_string_equal(fm_state_name(FM_STATE_HELD), "held");
    assert_string_equal(fm_state_name(FM_STATE_FLAPPING), "flapping");
}

/* Every action and state has its name; a value that is none (read from a
 * corrupt file) is "unknown", never NULL. */
static void
test_every_name(void **state)
{
    static const char *const actions[] = { "none", "restart", "failover", "degraded" };
    static const char *const states[] = { "up", "degraded", "down", "flapping", "held" };

    for (int i = FM_ACTION_NONE; i <= FM_ACTION_DEGRADED; i++) {
        assert_string_equal(fm_action_name((enum fm_action) i), actions[i]);
    }
    for (int i = FM_STATE_UP; i <= FM_STATE_HELD; i++) {
        assert_string_equal(fm_state_name((enum fm_state) i), states[i]);
    }
    assert_string_equal(fm_action_name((enum fm_action) 9), "unknown");
    assert_string_equal(fm_state_name((enum fm_state) 9), "unknown");
}

/* httpmon restarts nothing: its recoveries read "unhealthy". */
static void
test_action_word(void **state)
{
    assert_string_equal(fm_action_word(FM_ACTION_RESTART, true), "unhealthy");
    assert_string_equal(fm_action_word(FM_ACTION_FAILOVER, true), "unhealthy");
    assert_string_equal(fm_action_word(FM_ACTION_DEGRADED, true), "degraded");
    assert_string_equal(fm_action_word(FM_ACTION_NONE, true), "none");
    assert_string_equal(fm_action_word(FM_ACTION_FAILOVER, false), "failover");
}

int
main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_every_name),
        cmocka_unit_test(test_action_word),
    };

    return cmocka_run_group_tests_name("decide_names", tests, NULL, NULL);
}
