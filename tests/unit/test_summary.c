/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include <faultmon/target.h>

#define NOW_S 1700000000

static void
test_empty_is_ok(void **state)
{
    struct fm_cycle_summary sum;

    (void) state;
    memset(&sum, 0x5a, sizeof(sum));    /* every field is set, none left over */
    fm_cycle_summarize(NULL, 0, NOW_S, &sum);
    assert_int_equal(sum.worst, FM_CLASS_OK);
    assert_int_equal(sum.worst_index, 0);
    assert_int_equal(sum.max_latency_us, 0);
    assert_false(sum.have_cert);
    assert_int_equal(sum.cert_left_s, 0);
    assert_int_equal(sum.n_maintenance, 0);
    assert_int_equal(sum.maintenance_index, 0);
    assert_int_equal(sum.n_failed, 0);
    assert_int_equal(sum.n_service, 0);
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

/* Quorum counts every failed result, partial ones too (a read timeout is a
 * failure of that target): a mutant that counted only complete failures
 * survived the tests above. */
static void
test_failed_counts_partial(void **state)
{
    struct fm_result r[4];
    struct fm_cycle_summary sum;

    (void) state;
    memset(r, 0, sizeof(r));
    r[0].reason = FM_REASON_READ_TIMEOUT;           /* partial */
    r[2].reason = FM_REASON_CONNECT_FAILED;         /* complete */
    r[3].reason = FM_REASON_READ_FAILED;            /* partial */
    fm_cycle_summarize(r, 4, NOW_S, &sum);
    assert_int_equal(sum.n_failed, 3);
    assert_int_equal(sum.n_service, 4);

    fm_cycle_summarize(r, 2, NOW_S, &sum);          /* one partial, one ok */
    assert_int_equal(sum.n_failed, 1);
    assert_int_equal(sum.n_service, 2);

    fm_cycle_summarize(r + 1, 1, NOW_S, &sum);      /* ok alone */
    assert_int_equal(sum.n_failed, 0);
    assert_int_equal(sum.n_service, 1);
}

/* A dependency's result is not the service's: not counted, not the worst. */
static void
test_dependency_not_counted(void **state)
{
    struct fm_target dep;
    struct fm_target own;
    struct fm_result r[3];
    struct fm_cycle_summary sum;

    (void) state;
    memset(&dep, 0, sizeof(dep));
    memset(&own, 0, sizeof(own));
    memset(r, 0, sizeof(r));
    dep.dependency = true;
    r[0].target = &dep;
    r[0].reason = FM_REASON_CONNECT_FAILED;
    r[0].latency_us = 900;
    r[1].target = &own;
    r[1].reason = FM_REASON_READ_TIMEOUT;
    r[1].latency_us = 100;
    r[2].reason = FM_REASON_OK;
    fm_cycle_summarize(r, 3, NOW_S, &sum);
    assert_int_equal(sum.n_service, 2);
    assert_int_equal(sum.n_failed, 1);
    assert_int_equal(sum.worst, FM_CLASS_PARTIAL);
    assert_int_equal(sum.worst_index, 1);
    assert_int_equal(sum.max_latency_us, 100);
}

/* Every result that signals maintenance is counted; the first one names it. */
static void
test_maintenance_counted(void **state)
{
    struct fm_result r[4];
    struct fm_cycle_summary sum;

    (void) state;
    memset(r, 0, sizeof(r));
    r[1].reason = FM_REASON_MAINTENANCE;
    r[3].reason = FM_REASON_MAINTENANCE;
    fm_cycle_summarize(r, 4, NOW_S, &sum);
    assert_int_equal(sum.n_maintenance, 2);
    assert_int_equal(sum.maintenance_index, 1);

    memset(&sum, 0x5a, sizeof(sum));
    fm_cycle_summarize(r, 1, NOW_S, &sum);
    assert_int_equal(sum.n_maintenance, 0);
    assert_int_equal(sum.maintenance_index, 1);     /* n: none */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_is_ok),
        cmocka_unit_test(test_all_ok),
        cmocka_unit_test(test_worst_first_of_its_class),
        cmocka_unit_test(test_earliest_certificate),
        cmocka_unit_test(test_failed_counts_partial),
        cmocka_unit_test(test_dependency_not_counted),
        cmocka_unit_test(test_maintenance_counted),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
