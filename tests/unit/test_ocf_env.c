/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the invocation and the parameters (agents/ocf/ocf_env.c): what
 * the executor's environment gives, and the booleans every parameter
 * accepts (util's fm_parse_bool(), with the agent's default for unset or
 * empty), and the parameters folded into `advanced` (fm_ocf_unfold()).
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ocf_common.h"

static void
test_param_bool(void **state)
{
    static const char *const yes[] = { "1", "true", "yes", "on", "y", "TRUE", "Yes", "ON", "Y" };
    static const char *const no[] = { "0", "false", "no", "off", "n", "FALSE", "No", "Off", "N" };
    static const char *const neither[] = { "maybe", "2", " true", "true ", "ja", "-1" };

    (void) state;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        assert_int_equal(fm_ocf_param_set("use_ipv6", yes[i]), 0);
        assert_int_equal(fm_ocf_param_bool("use_ipv6", false), 1);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        assert_int_equal(fm_ocf_param_set("use_ipv6", no[i]), 0);
        assert_int_equal(fm_ocf_param_bool("use_ipv6", true), 0);
    }
    for (size_t i = 0; i < sizeof(neither) / sizeof(neither[0]); i++) {
        assert_int_equal(fm_ocf_param_set("use_ipv6", neither[i]), 0);
        assert_int_equal(fm_ocf_param_bool("use_ipv6", true), -1);
    }
    /* Empty and unset: the default. */
    assert_int_equal(fm_ocf_param_set("use_ipv6", ""), 0);
    assert_int_equal(fm_ocf_param_bool("use_ipv6", true), 1);
    assert_int_equal(fm_ocf_param_set("use_ipv6", NULL), 0);
    assert_null(fm_ocf_param("use_ipv6"));
    assert_int_equal(fm_ocf_param_bool("use_ipv6", false), 0);
}

static void
test_param_or(void **state)
{
    (void) state;
    assert_int_equal(fm_ocf_param_set("port", "8080"), 0);
    assert_string_equal(getenv("OCF_RESKEY_port"), "8080");
    assert_string_equal(fm_ocf_param_or("port", "80"), "8080");
    assert_int_equal(fm_ocf_param_set("port", ""), 0);
    assert_string_equal(fm_ocf_param("port"), "");
    assert_string_equal(fm_ocf_param_or("port", "80"), "80");
    assert_int_equal(fm_ocf_param_set("port", NULL), 0);
    assert_string_equal(fm_ocf_param_or("port", "80"), "80");
}

/* The operation's limits: whole numbers only, else the default. */
static void
test_init(void **state)
{
    static const char *const bad[] = { "", "abc", "-5", "+5", "20s", " 20000", "99999999999999999999999" };
    struct fm_ocf ocf;

    (void) state;
    setenv("OCF_RESOURCE_INSTANCE", "web", 1);
    setenv("OCF_RESKEY_CRM_meta_timeout", "20000", 1);
    setenv("OCF_RESKEY_CRM_meta_interval", "10000", 1);
    setenv("OCF_CHECK_LEVEL", "10", 1);
    fm_ocf_init(&ocf, "apache", "monitor", 30000);
    assert_string_equal(ocf.agent, "apache");
    assert_string_equal(ocf.action, "monitor");
    assert_string_equal(ocf.resource, "web");
    assert_true(ocf.have_state_dir);
    assert_int_equal(ocf.timeout_ms, 20000);
    assert_true(ocf.timeout_given);
    assert_int_equal(ocf.interval_ms, 10000);
    assert_int_equal(ocf.check_level, 10);
    assert_false(fm_ocf_is_probe(&ocf));
    assert_true(fm_ocf_left_ms(&ocf) <= 20000 - FM_OCF_MARGIN_MS);
    assert_true(fm_ocf_left_ms(&ocf) > 20000 - FM_OCF_MARGIN_MS - 1000);

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv("OCF_RESKEY_CRM_meta_timeout", bad[i], 1);
        fm_ocf_init(&ocf, "apache", "start", 30000);
        assert_int_equal(ocf.timeout_ms, 30000);
        assert_false(ocf.timeout_given);
    }
    /* 0 is no timeout: the default. */
    setenv("OCF_RESKEY_CRM_meta_timeout", "0", 1);
    unsetenv("OCF_RESKEY_CRM_meta_interval");
    unsetenv("OCF_CHECK_LEVEL");
    fm_ocf_init(&ocf, "apache", "monitor", 30000);
    assert_int_equal(ocf.timeout_ms, 30000);
    assert_false(ocf.timeout_given);
    assert_true(fm_ocf_is_probe(&ocf));
    assert_int_equal(ocf.check_level, 0);

    /* A resource name that cannot name a directory has none. */
    setenv("OCF_RESOURCE_INSTANCE", "../etc", 1);
    fm_ocf_init(&ocf, "apache", "monitor", 30000);
    assert_false(ocf.have_state_dir);
    unsetenv("OCF_RESOURCE_INSTANCE");
    fm_ocf_init(&ocf, "apache", "monitor", 30000);
    assert_null(ocf.resource);
    assert_false(ocf.have_state_dir);
}

/* A meta-data as the agents' have it, cut to what fm_ocf_unfold() reads. */
static const char unfold_metadata[] =
    "<parameters>\n"
    "<parameter name=\"configfile\" unique=\"1\">\n</parameter>\n"
    "<parameter name=\"rise\" deprecated=\"1\">\n</parameter>\n"
    "<parameter name=\"http_headers\" deprecated=\"1\">\n</parameter>\n"
    "<parameter name=\"Port_list\">\n</parameter>\n"
    "<parameter name=\"advanced\">\n</parameter>\n"
    "</parameters>\n";

static void
unfold_reset(void)
{
    static const char *const names[] = { "advanced", "configfile", "rise", "rise2", "http_headers", "Port_list", "bogus" };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        fm_ocf_param_set(names[i], NULL);
    }
}

/* Each NAME=VALUE word of `advanced` is set as if by its name; what is not a
 * parameter, not NAME=VALUE, set twice with two values, or the resource's
 * identity (a unique parameter, which Pacemaker checks only by name) is
 * refused. */
static void
test_unfold(void **state)
{
    static const char *const refused[] = {
        "rise", "=3", "bogus=1", "rise2=1", "advanced=rise=3", "rise='3", "rise=3 rise=4",
        "configfile=/etc/apache2/other.conf", "rise= rise=3", "rise=3 rise=",
    };

    (void) state;
    unfold_reset();
    assert_int_equal(fm_ocf_unfold(unfold_metadata), PCMK_OCF_OK);
    assert_null(fm_ocf_param("rise"));

    fm_ocf_param_set("advanced", "rise=3 http_headers='Host: a.example|X-A: 1' Port_list=");
    assert_int_equal(fm_ocf_unfold(unfold_metadata), PCMK_OCF_OK);
    assert_string_equal(fm_ocf_param("rise"), "3");
    assert_string_equal(fm_ocf_param("http_headers"), "Host: a.example|X-A: 1");
    assert_string_equal(fm_ocf_param("Port_list"), "");

    /* Set by its name too: the same value is no conflict, another is. */
    unfold_reset();
    fm_ocf_param_set("rise", "3");
    fm_ocf_param_set("advanced", "rise=3");
    assert_int_equal(fm_ocf_unfold(unfold_metadata), PCMK_OCF_OK);
    fm_ocf_param_set("advanced", "rise=4");
    assert_int_equal(fm_ocf_unfold(unfold_metadata), PCMK_OCF_NOT_CONFIGURED);
    assert_string_equal(fm_ocf_param("rise"), "3");

    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        unfold_reset();
        fm_ocf_param_set("advanced", refused[i]);
        assert_int_equal(fm_ocf_unfold(unfold_metadata), PCMK_OCF_NOT_CONFIGURED);
    }
    assert_null(fm_ocf_param("configfile"));
    unfold_reset();
}

/* A word refused (a typo) refuses the action, but every well-formed word,
 * before it and after it, is set all the same: a stop goes on whatever
 * the parameters say (agents/faultmon_ocf.c) and must act on all of them,
 * while what is refused is never set. */
static void
test_unfold_past_a_typo(void **state)
{
    (void) state;
    unfold_reset();
    fm_ocf_param_set("advanced", "rise=3 bogus=1 http_headers='X-A: 1' configfile=/other.conf Port_list=a:80");
    assert_int_equal(fm_ocf_unfold(unfold_metadata), PCMK_OCF_NOT_CONFIGURED);
    assert_string_equal(fm_ocf_param("rise"), "3");
    assert_string_equal(fm_ocf_param("http_headers"), "X-A: 1");
    assert_string_equal(fm_ocf_param("Port_list"), "a:80");
    assert_null(fm_ocf_param("bogus"));
    assert_null(fm_ocf_param("configfile"));
    unfold_reset();
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_param_bool),
        cmocka_unit_test(test_param_or),
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_unfold),
        cmocka_unit_test(test_unfold_past_a_typo),
    };

    return cmocka_run_group_tests_name("ocf_env", tests, NULL, NULL);
}
