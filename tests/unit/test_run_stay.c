/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the constraint that keeps a restart in place
 * (src/run/stay.c): its XML, the names it refuses to write, and the
 * cibadmin call the loop runs for it.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stay.h"

static void
test_xml(void **state)
{
    char buf[2048];

    (void) state;
    /* 2026-12-05 22:10:00 UTC */
    assert_int_equal(fm_run_stay_xml("web", "node3", 1796508600LL, buf, sizeof(buf)), 0);
    assert_string_equal(buf,
        "<rsc_location id=\"faultmon-stay-web\" rsc=\"web\">"
        "<rule id=\"faultmon-stay-web-rule\" score=\"INFINITY\" boolean-op=\"and\">"
        "<expression id=\"faultmon-stay-web-node\" attribute=\"#uname\" operation=\"eq\" value=\"node3\"/>"
        "<date_expression id=\"faultmon-stay-web-until\" operation=\"lt\" end=\"2026-12-05T22:10:00Z\"/>"
        "</rule></rsc_location>");
    /* Nothing that would need escaping, and no clone instance. */
    assert_int_equal(fm_run_stay_xml("web:0", "node3", 0, buf, sizeof(buf)), EINVAL);
    assert_int_equal(fm_run_stay_xml("web", "node\"3", 0, buf, sizeof(buf)), EINVAL);
    assert_int_equal(fm_run_stay_xml("w<b", "node3", 0, buf, sizeof(buf)), EINVAL);
    /* Cut short is refused, never written half. */
    assert_int_equal(fm_run_stay_xml("web", "node3", 0, buf, 64), EINVAL);
}

/* The call the loop runs as its child (src/run/request.c). */
static void
test_argv(void **state)
{
    struct fm_pcmk_resource rsc = { .rsc_id = "web", .node = "node3" };
    struct fm_run_stay call;

    (void) state;
    setenv("FAULTMON_CIBADMIN", "/opt/cib/cibadmin", 1);
    assert_int_equal(fm_run_stay_argv(&rsc, &call), 0);
    assert_string_equal(call.argv[0], "/opt/cib/cibadmin");
    assert_string_equal(call.argv[1], "--modify");
    assert_string_equal(call.argv[2], "--allow-create");
    assert_string_equal(call.argv[3], "--scope");
    assert_string_equal(call.argv[4], "constraints");
    assert_string_equal(call.argv[5], "--xml-text");
    assert_non_null(strstr(call.argv[6], "<rsc_location id=\"faultmon-stay-web\" rsc=\"web\">"));
    assert_non_null(strstr(call.argv[6], "value=\"node3\""));
    assert_null(call.argv[7]);
    /* A relative path is not run: Pacemaker's own cibadmin then. */
    setenv("FAULTMON_CIBADMIN", "cibadmin", 1);
    assert_int_equal(fm_run_stay_argv(&rsc, &call), 0);
    assert_int_equal(call.argv[0][0], '/');
    unsetenv("FAULTMON_CIBADMIN");
    /* Nothing to place: a clone's instance, no node, no resource. */
    rsc.rsc_id = "web:0";
    assert_int_equal(fm_run_stay_argv(&rsc, &call), ENOENT);
    rsc = (struct fm_pcmk_resource) { .rsc_id = "web" };
    assert_int_equal(fm_run_stay_argv(&rsc, &call), ENOENT);
    rsc = (struct fm_pcmk_resource) { .node = "node3" };
    assert_int_equal(fm_run_stay_argv(&rsc, &call), ENOENT);
    /* A node name that cannot be written: refused, said in the log. */
    rsc = (struct fm_pcmk_resource) { .rsc_id = "web", .node = "node<3" };
    assert_int_equal(fm_run_stay_argv(&rsc, &call), EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml),
        cmocka_unit_test(test_argv),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
