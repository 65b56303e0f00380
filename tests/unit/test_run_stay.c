/*
 * Unit tests: the constraint that keeps a restart in place
 * (src/cmd_run_stay.c): its XML, and the names it refuses to write.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cmd_run_stay.h"

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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
