/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: a service's dependencies across the cluster
 * (src/monitor/deps.c): the attribute named after a dependency's URI, the
 * views read from attrd_updater's replies (real and hostile), and the
 * verdict.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/deps.h>

static void
test_attr_name(void **state)
{
    char buf[FM_DEPS_ATTR_MAX];
    char long_uri[400];

    (void) state;
    fm_deps_attr_name("tcp://DB.example:5432", buf, sizeof(buf));
    assert_string_equal(buf, "faultmon-dep-tcp-db-example-5432");
    fm_deps_attr_name("postgres://fm:s3cret@db:5432/app?sslmode=require", buf, sizeof(buf));
    assert_string_equal(buf, "faultmon-dep-postgres-db-5432-app-sslmode-require");
    assert_null(strstr(buf, "s3cret"));
    fm_deps_attr_name("redis://:pw@[::1]:6379", buf, sizeof(buf));
    assert_string_equal(buf, "faultmon-dep-redis-1-6379");
    fm_deps_attr_name("http://10.0.0.5/health/", buf, sizeof(buf));
    assert_string_equal(buf, "faultmon-dep-http-10-0-0-5-health");
    memset(long_uri, 'a', sizeof(long_uri) - 1);
    long_uri[sizeof(long_uri) - 1] = '\0';
    fm_deps_attr_name(long_uri, buf, sizeof(buf));
    assert_true(strlen(buf) < sizeof(buf));
    assert_int_equal(strncmp(buf, FM_DEPS_ATTR_PREFIX, strlen(FM_DEPS_ATTR_PREFIX)), 0);
    {
        /* Two long URIs that differ past the cut: two attributes, each
         * ending in the hash mark, the same one on every call. */
        char a[FM_DEPS_ATTR_MAX];
        char b[FM_DEPS_ATTR_MAX];
        char again[FM_DEPS_ATTR_MAX];
        char uri_a[300];
        char uri_b[300];
        const char *dash = NULL;

        snprintf(uri_a, sizeof(uri_a), "http://api.example:8080/%0200d/health-one", 0);
        snprintf(uri_b, sizeof(uri_b), "http://api.example:8080/%0200d/health-two", 0);
        fm_deps_attr_name(uri_a, a, sizeof(a));
        fm_deps_attr_name(uri_b, b, sizeof(b));
        fm_deps_attr_name(uri_a, again, sizeof(again));
        assert_string_not_equal(a, b);
        assert_string_equal(a, again);
        assert_int_equal(strlen(a), FM_DEPS_ATTR_MAX - 1);
        dash = strrchr(a, '-');
        assert_non_null(dash);
        assert_int_equal(strlen(dash), 9);
        assert_int_equal(strspn(dash + 1, "0123456789abcdef"), 8);
        /* A key that fits is kept whole, with no mark. */
        fm_deps_attr_name("tcp://db:5432", a, sizeof(a));
        assert_string_equal(a, "faultmon-dep-tcp-db-5432");
    }
}

#define NAME "faultmon-dep-tcp-db-5432"

static void
test_parse_views(void **state)
{
    struct fm_deps_views v;

    (void) state;
    /* attrd_updater -Q -A's lines; this node's own view is not counted. */
    assert_int_equal(fm_deps_parse_views("name=\"" NAME "\" host=\"node1\" value=\"down\"\n"
                                         "name=\"" NAME "\" host=\"node2\" value=\"up\"\n"
                                         "name=\"" NAME "\" host=\"node3\" value=\"down\"\n",
                                         NAME, "node1", &v), 0);
    assert_int_equal(v.up, 1);
    assert_int_equal(v.down, 1);
    assert_string_equal(v.up_nodes, "node2");
    /* A deleted view (empty) and an unknown value are no view. */
    assert_int_equal(fm_deps_parse_views("name=\"" NAME "\" host=\"node2\" value=\"\"\n"
                                         "name=\"" NAME "\" host=\"node3\" value=\"maybe\"\n",
                                         NAME, "node1", &v), 0);
    assert_int_equal(v.up + v.down, 0);
    assert_int_equal(fm_deps_parse_views("", NAME, "node1", &v), 0);
    assert_int_equal(v.up + v.down, 0);
    /* Anything else makes the whole reply no evidence. */
    assert_int_equal(fm_deps_parse_views("Could not query value of " NAME ": attribute does not exist\n",
                                         NAME, "node1", &v), EINVAL);
    assert_int_equal(v.up + v.down, 0);
    assert_int_equal(fm_deps_parse_views("name=\"" NAME "\" host=\"node2\" value=\"up\"\ngarbage\n",
                                         NAME, "node1", &v), EINVAL);
    assert_int_equal(v.up, 0);
    assert_int_equal(fm_deps_parse_views("name=\"faultmon-dep-other\" host=\"node2\" value=\"up\"\n",
                                         NAME, "node1", &v), EINVAL);
    assert_int_equal(fm_deps_parse_views("name=\"" NAME "\" host=\"node2\" value=\"up\n", NAME, "node1", &v),
                     EINVAL);
    /* hostname="..." is not host="...". */
    assert_int_equal(fm_deps_parse_views("name=\"" NAME "\" hostname=\"node2\" value=\"up\"\n",
                                         NAME, "node1", &v), EINVAL);
}

static void
test_judge(void **state)
{
    struct fm_deps_views v = { .up = 0, .down = 0 };

    (void) state;
    assert_int_equal(fm_deps_judge(false, &v), FM_DEP_FINE);
    assert_int_equal(fm_deps_judge(true, &v), FM_DEP_UNKNOWN);
    v.down = 2;
    assert_int_equal(fm_deps_judge(true, &v), FM_DEP_EVERYWHERE);
    v.up = 1;
    assert_int_equal(fm_deps_judge(true, &v), FM_DEP_HERE_ONLY);
    assert_int_equal(fm_deps_judge(false, &v), FM_DEP_FINE);
}

/* Only another node's "up" waits for the views to settle; down everywhere,
 * or no other view at all (a single node), holds at once and never restarts. */
static void
test_action(void **state)
{
    (void) state;
    assert_int_equal(fm_deps_action(FM_DEP_FINE, false), FM_DEP_ACT_RULES);
    assert_int_equal(fm_deps_action(FM_DEP_UNKNOWN, false), FM_DEP_ACT_HOLD);
    assert_int_equal(fm_deps_action(FM_DEP_UNKNOWN, true), FM_DEP_ACT_HOLD);
    assert_int_equal(fm_deps_action(FM_DEP_EVERYWHERE, false), FM_DEP_ACT_HOLD);
    assert_int_equal(fm_deps_action(FM_DEP_EVERYWHERE, true), FM_DEP_ACT_HOLD);
    assert_int_equal(fm_deps_action(FM_DEP_HERE_ONLY, false), FM_DEP_ACT_PENDING);
    assert_int_equal(fm_deps_action(FM_DEP_HERE_ONLY, true), FM_DEP_ACT_FAILOVER);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attr_name),
        cmocka_unit_test(test_parse_views),
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_action),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
