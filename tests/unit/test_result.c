/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the classification table is the Sun Cluster rule set.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/result.h>

struct class_case {
    enum fm_reason reason;
    enum fm_layer layer;
    enum fm_class cls;
    const char *name;
};

static const struct class_case class_cases[] = {
    { FM_REASON_OK,               FM_LAYER_NONE,    FM_CLASS_OK,       "ok" },
    /* Complete: failure to connect, time out while connecting, failure to send. */
    { FM_REASON_RESOLVE_FAILED,   FM_LAYER_RESOLVE, FM_CLASS_COMPLETE, "resolve-failed" },
    { FM_REASON_RESOLVE_TIMEOUT,  FM_LAYER_RESOLVE, FM_CLASS_COMPLETE, "resolve-timeout" },
    { FM_REASON_CONNECT_FAILED,   FM_LAYER_CONNECT, FM_CLASS_COMPLETE, "connect-failed" },
    { FM_REASON_CONNECT_TIMEOUT,  FM_LAYER_CONNECT, FM_CLASS_COMPLETE, "connect-timeout" },
    { FM_REASON_TLS_FAILED,       FM_LAYER_TLS,     FM_CLASS_COMPLETE, "tls-failed" },
    { FM_REASON_TLS_TIMEOUT,      FM_LAYER_TLS,     FM_CLASS_COMPLETE, "tls-timeout" },
    { FM_REASON_TLS_VERIFY,       FM_LAYER_TLS,     FM_CLASS_COMPLETE, "tls-verify" },
    { FM_REASON_SEND_FAILED,      FM_LAYER_SEND,    FM_CLASS_COMPLETE, "send-failed" },
    { FM_REASON_SEND_TIMEOUT,     FM_LAYER_SEND,    FM_CLASS_COMPLETE, "send-timeout" },
    /* Partial: time out while reading, failure to read. */
    { FM_REASON_READ_FAILED,      FM_LAYER_READ,    FM_CLASS_PARTIAL,  "read-failed" },
    { FM_REASON_READ_TIMEOUT,     FM_LAYER_READ,    FM_CLASS_PARTIAL,  "read-timeout" },
    { FM_REASON_READ_MALFORMED,   FM_LAYER_READ,    FM_CLASS_PARTIAL,  "read-malformed" },
    { FM_REASON_READ_TOO_LARGE,   FM_LAYER_READ,    FM_CLASS_PARTIAL,  "read-too-large" },
    /* A Monitor_Uri_List GET answered 500 is a complete failure. */
    { FM_REASON_STATUS,           FM_LAYER_STATUS,  FM_CLASS_COMPLETE, "status" },
    { FM_REASON_CONTENT_MISMATCH, FM_LAYER_CONTENT, FM_CLASS_COMPLETE, "content-mismatch" },
    { FM_REASON_CONTENT_REVERSE,  FM_LAYER_CONTENT, FM_CLASS_COMPLETE, "content-reverse" },
    /* A service that asks to be drained is not failing. */
    { FM_REASON_MAINTENANCE,      FM_LAYER_NONE,    FM_CLASS_OK,       "maintenance" },
    /* A refusing reply (5xx banner, -ERR, error packet) is like a 500. */
    { FM_REASON_REFUSED,          FM_LAYER_STATUS,  FM_CLASS_COMPLETE, "refused" },
    /* An exec probe's program: exit 1 partial, exit 2 (or worse) complete. */
    { FM_REASON_EXEC_PARTIAL,     FM_LAYER_STATUS,  FM_CLASS_PARTIAL,  "exec-partial" },
    { FM_REASON_EXEC_FAILED,      FM_LAYER_STATUS,  FM_CLASS_COMPLETE, "exec-failed" },
};

static void
test_class_table(void **state)
{
    (void) state;
    assert_int_equal(sizeof(class_cases) / sizeof(class_cases[0]), FM_REASON__COUNT);
    for (size_t i = 0; i < sizeof(class_cases) / sizeof(class_cases[0]); i++) {
        const struct class_case *c = &class_cases[i];

        assert_int_equal(fm_reason_layer(c->reason), c->layer);
        assert_int_equal(fm_reason_class(c->reason), c->cls);
        assert_string_equal(fm_reason_name(c->reason), c->name);
    }
}

static void
test_timeouts_by_step(void **state)
{
    (void) state;
    assert_int_equal(fm_reason_for_timeout(FM_LAYER_RESOLVE), FM_REASON_RESOLVE_TIMEOUT);
    assert_int_equal(fm_reason_for_timeout(FM_LAYER_CONNECT), FM_REASON_CONNECT_TIMEOUT);
    assert_int_equal(fm_reason_for_timeout(FM_LAYER_TLS), FM_REASON_TLS_TIMEOUT);
    assert_int_equal(fm_reason_for_timeout(FM_LAYER_SEND), FM_REASON_SEND_TIMEOUT);
    assert_int_equal(fm_reason_for_timeout(FM_LAYER_READ), FM_REASON_READ_TIMEOUT);
    /* Connecting runs out of time: complete; reading runs out: partial. */
    assert_int_equal(fm_reason_class(fm_reason_for_timeout(FM_LAYER_CONNECT)), FM_CLASS_COMPLETE);
    assert_int_equal(fm_reason_class(fm_reason_for_timeout(FM_LAYER_READ)), FM_CLASS_PARTIAL);
}

static void
test_out_of_range_is_never_ok(void **state)
{
    (void) state;
    assert_int_equal(fm_reason_class((enum fm_reason) 999), FM_CLASS_COMPLETE);
    assert_string_equal(fm_reason_name((enum fm_reason) 999), "invalid");
    assert_string_equal(fm_class_name((enum fm_class) 7), "invalid");
    assert_string_equal(fm_class_name(FM_CLASS_PARTIAL), "partial");
    assert_string_equal(fm_probe_kind_name(FM_PROBE_GET), "http-get");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_class_table),
        cmocka_unit_test(test_timeouts_by_step),
        cmocka_unit_test(test_out_of_range_is_never_ok),
    };

    return cmocka_run_group_tests_name("result", tests, NULL, NULL);
}
