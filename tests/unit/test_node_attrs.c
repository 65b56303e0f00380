/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: when the loop's node attributes are due
 * (src/monitor/node_attrs.c), at pretend times.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/node_attrs.h>

#define S_US UINT64_C(1000000)
#define T0_US (UINT64_C(1000) * S_US)

/* Ask what is due at \p now_us and take it as set, as the loop does. */
static unsigned
step(struct fm_node_attrs *a, enum fm_state state, uint32_t weight, uint64_t now_us)
{
    unsigned due = fm_node_attrs_due(a, state, weight, now_us);

    fm_node_attrs_set(a, due, state, weight, now_us);
    return due;
}

/* Both at first; then nothing while nothing changes. */
static void
test_first_then_quiet(void **state)
{
    struct fm_node_attrs a;

    (void) state;
    memset(&a, 0, sizeof(a));
    assert_int_equal(step(&a, FM_STATE_UP, 0, T0_US), FM_NODE_ATTR_STATE | FM_NODE_ATTR_WEIGHT);
    for (uint64_t s = 1; s < 100; s++) {
        assert_int_equal(step(&a, FM_STATE_UP, 0, T0_US + s * S_US), 0);
    }
}

/* A change of state goes at once, and the weight with it. */
static void
test_state_at_once(void **state)
{
    struct fm_node_attrs a;

    (void) state;
    memset(&a, 0, sizeof(a));
    step(&a, FM_STATE_UP, 0, T0_US);
    assert_int_equal(step(&a, FM_STATE_DOWN, 100, T0_US + 1 * S_US), FM_NODE_ATTR_STATE | FM_NODE_ATTR_WEIGHT);
    assert_int_equal(step(&a, FM_STATE_FLAPPING, 100, T0_US + 2 * S_US), FM_NODE_ATTR_STATE);
    assert_int_equal(step(&a, FM_STATE_FLAPPING, 100, T0_US + 3 * S_US), 0);
    assert_int_equal(a.state, FM_STATE_FLAPPING);
}

/* The weight alone: at most once per FM_NODE_ATTRS_WEIGHT_MIN_MS; a value
 * held back goes out when the time has come. */
static void
test_weight_bounded(void **state)
{
    struct fm_node_attrs a;
    const uint64_t min_us = FM_NODE_ATTRS_WEIGHT_MIN_MS * UINT64_C(1000);

    (void) state;
    memset(&a, 0, sizeof(a));
    step(&a, FM_STATE_DEGRADED, 50, T0_US);
    assert_int_equal(step(&a, FM_STATE_DEGRADED, 0, T0_US + 1 * S_US), 0);
    assert_int_equal(step(&a, FM_STATE_DEGRADED, 50, T0_US + 2 * S_US), 0);
    assert_int_equal(step(&a, FM_STATE_DEGRADED, 0, T0_US + min_us - 1), 0);
    assert_int_equal(a.weight, 50);
    assert_int_equal(step(&a, FM_STATE_DEGRADED, 0, T0_US + min_us), FM_NODE_ATTR_WEIGHT);
    assert_int_equal(a.weight, 0);
    assert_int_equal(step(&a, FM_STATE_DEGRADED, 0, T0_US + 3 * min_us), 0);
}

static void
test_names(void **state)
{
    char name[64];

    (void) state;
    fm_node_attr_name(name, sizeof(name), "web", FM_NODE_ATTR_STATE);
    assert_string_equal(name, "faultmon-web-state");
    fm_node_attr_name(name, sizeof(name), "web", FM_NODE_ATTR_WEIGHT);
    assert_string_equal(name, "faultmon-web-weight");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_then_quiet),
        cmocka_unit_test(test_state_at_once),
        cmocka_unit_test(test_weight_bounded),
        cmocka_unit_test(test_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
