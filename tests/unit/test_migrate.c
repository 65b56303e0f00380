/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: what faultmon migrate reads from the CIB, an agent's
 * meta-data and crm_mon's XML (src/cmd/cmd_migrate_xml.c).
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cmd_migrate.h"

static const char cib[] =
    "<cib><configuration><crm_config/><resources>"
    "<primitive id=\"web\" class=\"ocf\" provider=\"heartbeat\" type=\"apache\">"
    "<instance_attributes id=\"web-ia\"><nvpair id=\"a\" name=\"configfile\" value=\"/etc/a.conf\"/>"
    "<nvpair id=\"b\" name=\"statusurl\" value=\"http://localhost/s\"/></instance_attributes>"
    "<meta_attributes id=\"m\"><nvpair id=\"c\" name=\"migration-threshold\" value=\"3\"/></meta_attributes>"
    "</primitive>"
    "<group id=\"g\"><primitive id=\"ip\" class=\"ocf\" provider=\"heartbeat\" type=\"IPaddr2\"/>"
    "<primitive id=\"gw\" class=\"ocf\" provider=\"heartbeat\" type=\"nginx\"/></group>"
    "<clone id=\"c\"><group id=\"cg\"><primitive id=\"cw\" class=\"ocf\" provider=\"heartbeat\" type=\"apache\">"
    "<instance_attributes id=\"r\"><rule id=\"x\" score=\"0\"/></instance_attributes></primitive></group></clone>"
    "</resources></configuration><status/></cib>";

static void
test_cib(void **state)
{
    struct fm_migrate_rsc r;
    char err[128] = "";

    (void) state;
    assert_int_equal(fm_migrate_parse_cib(cib, strlen(cib), "web", &r, err, sizeof(err)), 0);
    assert_string_equal(r.provider, "heartbeat");
    assert_string_equal(r.type, "apache");
    assert_string_equal(r.parent, "");
    /* Only instance attributes are parameters: the meta one is not. */
    assert_int_equal(r.n_params, 2);
    assert_string_equal(r.param[1], "statusurl");
    assert_string_equal(r.value[1], "http://localhost/s");
    assert_int_equal(fm_migrate_parse_cib(cib, strlen(cib), "gw", &r, err, sizeof(err)), 0);
    assert_string_equal(r.parent, "group");
    assert_string_equal(r.parent_id, "g");
    /* A group in a clone is the clone's case. */
    assert_int_equal(fm_migrate_parse_cib(cib, strlen(cib), "cw", &r, err, sizeof(err)), 0);
    assert_string_equal(r.parent, "clone");
    assert_true(r.param_rule);
    assert_int_equal(fm_migrate_parse_cib(cib, strlen(cib), "none", &r, err, sizeof(err)), ENOENT);
    assert_int_equal(fm_migrate_parse_cib("Could not connect", 17, "web", &r, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "not XML"));
}

static void
test_meta(void **state)
{
    static const char meta[] = "<resource-agent name=\"apache\"><parameters>"
        "<parameter name=\"configfile\"/><parameter name=\"Retry_count\"/></parameters></resource-agent>";
    char names[64];

    (void) state;
    assert_int_equal(fm_migrate_parse_meta(meta, strlen(meta), names, sizeof(names)), 2);
    assert_true(fm_migrate_meta_has(names, "Retry_count"));
    assert_false(fm_migrate_meta_has(names, "retry_count"));
    assert_false(fm_migrate_meta_has(names, "no_such_param"));
    assert_int_equal(fm_migrate_parse_meta("<x/>", 4, names, sizeof(names)), -1);
}

static void
test_mon(void **state)
{
    static const char mon[] = "<pacemaker-result><resources>"
        "<resource id=\"web\" resource_agent=\"ocf:faultmon:apache\" role=\"Started\" active=\"true\" failed=\"false\">"
        "<node name=\"node1\" id=\"1\"/></resource></resources>"
        "<node_history><node name=\"node1\"><resource_history id=\"web\">"
        "<operation_history call=\"7\" task=\"start\" rc=\"0\"/>"
        "<operation_history call=\"8\" task=\"monitor\" interval=\"10000ms\" rc=\"0\"/>"
        "<operation_history call=\"5\" task=\"monitor\" interval=\"0ms\" rc=\"7\"/>"
        "</resource_history></node></node_history>"
        "<failures><failure op_key=\"web_start_0\" node=\"node1\" exitreason=\"boom\" call=\"4\"/>"
        "<failure op_key=\"webx_start_0\" node=\"node1\" call=\"9\"/></failures></pacemaker-result>";
    struct fm_migrate_mon m;

    (void) state;
    assert_int_equal(fm_migrate_parse_mon(mon, strlen(mon), "web", &m), 0);
    assert_true(m.found);
    assert_string_equal(m.agent, "ocf:faultmon:apache");
    assert_string_equal(m.node, "node1");
    assert_int_equal(m.n_nodes, 1);
    assert_int_equal(m.last_call[0], 8);
    assert_int_equal(m.start_call[0], 7);
    assert_int_equal(m.monitor_call[0], 8);
    /* Another resource's failure (webx) is not web's. */
    assert_int_equal(m.failure_call[0], 4);
    assert_string_equal(m.failure, "web_start_0 on node1: boom");
    assert_int_equal(fm_migrate_parse_mon("<other/>", 8, "web", &m), EINVAL);
}

/* resource-stickiness: the primitive's, else its group's, else rsc_defaults'. */
static void
test_stickiness(void **state)
{
    static const char c[] = "<cib><configuration><resources>"
        "<primitive id=\"a\" class=\"ocf\" provider=\"heartbeat\" type=\"apache\">"
        "<meta_attributes id=\"am\"><nvpair id=\"as\" name=\"resource-stickiness\" value=\"0\"/></meta_attributes>"
        "</primitive><group id=\"g\"><meta_attributes id=\"gm\">"
        "<nvpair id=\"gs\" name=\"resource-stickiness\" value=\"INFINITY\"/></meta_attributes>"
        "<primitive id=\"b\" class=\"ocf\" provider=\"heartbeat\" type=\"nginx\"/></group>"
        "<primitive id=\"d\" class=\"ocf\" provider=\"heartbeat\" type=\"nginx\"/></resources>"
        "<rsc_defaults><meta_attributes id=\"rd\"><nvpair id=\"rs\" name=\"resource-stickiness\" value=\"100\"/>"
        "</meta_attributes></rsc_defaults></configuration></cib>";
    struct fm_migrate_rsc r;
    char err[128];

    (void) state;
    assert_int_equal(fm_migrate_parse_cib(c, strlen(c), "a", &r, err, sizeof(err)), 0);
    assert_string_equal(r.stickiness, "0");
    assert_false(fm_migrate_sticky(r.stickiness));
    assert_int_equal(fm_migrate_parse_cib(c, strlen(c), "b", &r, err, sizeof(err)), 0);
    assert_string_equal(r.stickiness, "INFINITY");
    assert_int_equal(fm_migrate_parse_cib(c, strlen(c), "d", &r, err, sizeof(err)), 0);
    assert_string_equal(r.stickiness, "100");
    assert_true(fm_migrate_sticky("1"));
    assert_true(fm_migrate_sticky("+INFINITY"));
    assert_false(fm_migrate_sticky(""));
    assert_false(fm_migrate_sticky("-INFINITY"));
    assert_false(fm_migrate_sticky("1x"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cib),
        cmocka_unit_test(test_meta),
        cmocka_unit_test(test_mon),
        cmocka_unit_test(test_stickiness),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
