/*
 * Unit tests: the summary of a probe cycle (src/core/summary.c), with a
 * pretend wall clock.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/summary.h>

#define NOW_S 1700000000

static void
test_empty_is_ok(void **state)
{
    struct fm_cycle_summary sum;

    (void) state;
    fm_cycle_summarize(NULL, 0, NOW_S, &sum);
    assert_int_equal(sum.worst, FM_CLASS_OK);
    assert_int_equal(sum.worst_index, 0);
    assert_int_equal(sum.max_latency_us, 0);
    assert_false(sum.have_cert);
}

static void
test_all_ok(void **state)
{
    struct fm_result r[2];
    struct fm_cycle_summary sum;

    (void) state;
    memset(r, 0, sizeof(r));
    r[0].latency_us = 300;
    r[1].latency_us = 1200;
    fm_cycle_summarize(r, 2, NOW_S, &sum);
    assert_int_equal(sum.worst, FM_CLASS_OK);
    assert_int_equal(sum.worst_index, 2);           /* none failed */
    assert_int_equal(sum.max_latency_us, 1200);
}

/* The first result of the worst class names the failure, whatever comes
 * before or after it; failed probes count towards the latency too. */
static void
test_worst_first_of_its_class(void **state)
{
    struct fm_result r[4];
    struct fm_cycle_summary sum;

    (void) state;
    memset(r, 0, sizeof(r));
    r[0].reason = FM_REASON_READ_TIMEOUT;           /* partial */
    r[0].latency_us = 5000000;
    r[1].reason = FM_REASON_CONNECT_FAILED;         /* complete */
    r[1].latency_us = 100;
    r[2].reason = FM_REASON_STATUS;                 /* complete, later */
    r[3].reason = FM_REASON_READ_FAILED;            /* partial */
    fm_cycle_summarize(r, 4, NOW_S, &sum);
    assert_int_equal(sum.worst, FM_CLASS_COMPLETE);
    assert_int_equal(sum.worst_index, 1);
    assert_int_equal(sum.max_latency_us, 5000000);

    fm_cycle_summarize(r, 1, NOW_S, &sum);
    assert_int_equal(sum.worst, FM_CLASS_PARTIAL);
    assert_int_equal(sum.worst_index, 0);
}

/* The certificate that expires first, in seconds from the pretend now;
 * results without a certificate do not count. */
static void
test_earliest_certificate(void **state)
{
    struct fm_result r[4];
    struct fm_cycle_summary sum;

    (void) state;
    memset(r, 0, sizeof(r));
    r[0].cert_not_after = NOW_S + 90 * 86400;
    r[2].cert_not_after = NOW_S + 3 * 86400;
    r[3].cert_not_after = NOW_S + 10 * 86400;
    fm_cycle_summarize(r, 4, NOW_S, &sum);
    assert_true(sum.have_cert);
    assert_int_equal(sum.cert_left_s, 3 * 86400);

    /* Expired: negative. */
    r[3].cert_not_after = NOW_S - 60;
    fm_cycle_summarize(r, 4, NOW_S, &sum);
    assert_int_equal(sum.cert_left_s, -60);

    /* The same certificates a day later. */
    fm_cycle_summarize(r, 3, NOW_S + 86400, &sum);
    assert_int_equal(sum.cert_left_s, 2 * 86400);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_is_ok),
        cmocka_unit_test(test_all_ok),
        cmocka_unit_test(test_worst_first_of_its_class),
        cmocka_unit_test(test_earliest_certificate),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
