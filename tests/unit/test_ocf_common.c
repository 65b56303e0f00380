/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the agents' text helpers: words of `options` without a shell,
 * case-insensitive regexes for testregex, base64 for basic authentication
 * (util's fm_base64_encode(), which the agent now uses).
 * The redaction of passwords in messages is tested in test_text.c.
 */
#include <config.h>

#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/text.h>

#include "ocf_common.h"

static bool
icase_matches(const char *regex, const char *text)
{
    char folded[512];
    regex_t re;
    bool matched = false;

    assert_int_equal(fm_ocf_regex_icase(regex, folded, sizeof(folded)), 0);
    assert_int_equal(regcomp(&re, folded, REG_EXTENDED | REG_NOSUB), 0);
    matched = (regexec(&re, text, 0, NULL, 0) == 0);
    regfree(&re);
    return matched;
}

static void
test_regex_icase(void **state)
{
    char out[64];

    (void) state;
    assert_int_equal(fm_ocf_regex_icase("a1", out, sizeof(out)), 0);
    assert_string_equal(out, "[aA]1");
    /* heartbeat:apache's default testregex, against what mod_status ends with */
    assert_true(icase_matches("</ *html *>", "<p>x</p>\n</HTML>\n"));
    assert_true(icase_matches("Apache Server Status", "<h1>APACHE SERVER STATUS for x</h1>"));
    assert_false(icase_matches("Apache Server Status", "<h1>Apache Status</h1>"));
    /* bracket expressions, ranges, classes, escapes, negation */
    assert_true(icase_matches("^[a-c]+x$", "ABCX"));
    assert_true(icase_matches("[[:digit:]]z", "7Z"));
    assert_true(icase_matches("\\.Q", ".q"));
    assert_false(icase_matches("[^a-z]", "aBc"));
    assert_true(icase_matches("[]a]b", "]B"));
    assert_int_equal(fm_ocf_regex_icase("abcdefgh", out, 8), ENAMETOOLONG);
}

/* fm_ocf_text_value(), as the CIB's XML and `nginx -V` use it. */
static void
test_text_value(void **state)
{
    const char *xml = "<primitive id=\"web\" class=\"ocf\" type=\"apache\"><op name=\"x\" provider=\"p\"/>";
    const char *v = "nginx version: nginx/1.22.1\nconfigure arguments: --prefix=/usr/share/nginx "
                    "--conf-path=/etc/nginx/nginx.conf\n";
    char buf[64];

    (void) state;
    fm_ocf_text_value(xml, strchr(xml, '>'), " class=\"", "\">", buf, sizeof(buf));
    assert_string_equal(buf, "ocf");
    /* An attribute of a later element is not the first element's. */
    fm_ocf_text_value(xml, strchr(xml, '>'), " provider=\"", "\">", buf, sizeof(buf));
    assert_string_equal(buf, "");
    fm_ocf_text_value(xml, NULL, " provider=\"", "\">", buf, sizeof(buf));
    assert_string_equal(buf, "p");
    fm_ocf_text_value(v, NULL, " --conf-path=", " \n", buf, sizeof(buf));
    assert_string_equal(buf, "/etc/nginx/nginx.conf");
    fm_ocf_text_value(v, NULL, " --pid-path=", " \n", buf, sizeof(buf));
    assert_string_equal(buf, "");
    /* Cut to the buffer, never past it. */
    fm_ocf_text_value(v, NULL, " --prefix=", " \n", buf, 5);
    assert_string_equal(buf, "/usr");
}

static void
test_base64(void **state)
{
    char out[64];

    (void) state;
    fm_base64_encode("", 0, out, sizeof(out));
    assert_string_equal(out, "");
    fm_base64_encode("f", 1, out, sizeof(out));
    assert_string_equal(out, "Zg==");
    fm_base64_encode("fo", 2, out, sizeof(out));
    assert_string_equal(out, "Zm8=");
    fm_base64_encode("user:pa55", 9, out, sizeof(out));
    assert_string_equal(out, "dXNlcjpwYTU1");
}

/* Exit reasons lead with the target and cause, then the decision, so that
 * Pacemaker's 128 bytes keep what matters. */
static void
test_short_decision(void **state)
{
    static struct fm_run_state st;
    char buf[1024];

    memset(&st, 0, sizeof(st));
    st.n_targets = 1;
    snprintf(st.targets[0].target, sizeof(st.targets[0].target), "http://127.0.0.1/server-status");
    st.targets[0].cls = FM_CLASS_COMPLETE;
    st.targets[0].reason = FM_REASON_CONNECT_FAILED;
    snprintf(st.reason, sizeof(st.reason),
             "complete failure, weight 100 within Retry_interval 300 s: restart 1 of Retry_count 2");
    fm_ocf_short_decision(&st, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "http://127.0.0.1/server-status: connect-failed: restart 1 of Retry_count 2; "
                        "complete failure, weight 100 within Retry_interval 300 s");

    snprintf(st.reason, sizeof(st.reason),
             "3 restarts within Retry_interval 300 s exceed Retry_count 2: failing over (complete failure)");
    fm_ocf_short_decision(&st, "httpd is not running (pid file /run/httpd.pid)", buf, sizeof(buf));
    assert_string_equal(buf, "httpd is not running (pid file /run/httpd.pid): failing over: 3 restarts within "
                        "Retry_interval 300 s exceed Retry_count 2 (complete failure)");
    assert_true(strstr(buf, "Retry_count 2") - buf < 128);

    st.targets[0].cls = FM_CLASS_OK;
    snprintf(st.reason, sizeof(st.reason), "partial failure; weight 50 of 100 within Retry_interval 300 s");
    fm_ocf_short_decision(&st, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "partial failure; weight 50 of 100 within Retry_interval 300 s");
    (void) state;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regex_icase),
        cmocka_unit_test(test_text_value),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_short_decision),
    };

    return cmocka_run_group_tests_name("ocf_common", tests, NULL, NULL);
}
