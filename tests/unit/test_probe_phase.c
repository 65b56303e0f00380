/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the phases of a probe (src/probe/phase.c): each step's time
 * goes to its phase, only the phases gone through are marked, and together
 * they are the probe's time from its start to its verdict, never more.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <faultmon/clock.h>
#include "probe_int.h"

static struct fm_conn conn;
static struct fm_result result;

static void
begin(uint64_t now_us)
{
    memset(&conn, 0, sizeof(conn));
    memset(&result, 0xa5, sizeof(result));      /* the last cycle's leftovers */
    conn.result = &result;
    fm_conn_result_begin(&conn, now_us);
    conn.step = FM_STEP_IDLE;
}

static void
sleep_us(long us)
{
    struct timespec ts = { .tv_sec = 0, .tv_nsec = us * 1000 };

    nanosleep(&ts, NULL);
}

static uint64_t
sum_of_phases(void)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < FM_PHASE__COUNT; i++) {
        sum += result.phase_us[i];
    }
    return sum;
}

/* A name, TLS, a request and its reply: every phase, in order. */
static void
test_phases_sum_to_the_latency(void **state)
{
    uint64_t start_us = fm_now_us();
    uint64_t end_us = 0;

    (void) state;
    begin(start_us);
    assert_int_equal(result.phases, 0);
    assert_int_equal(result.latency_us, 0);
    fm_conn_step(&conn, FM_STEP_RESOLVE);
    sleep_us(3000);
    fm_conn_step(&conn, FM_STEP_CONNECT);
    fm_conn_step(&conn, FM_STEP_CONNECT);      /* the next address: no change */
    fm_conn_step(&conn, FM_STEP_TLS);
    fm_conn_step(&conn, FM_STEP_SEND);
    fm_conn_step(&conn, FM_STEP_READ);
    sleep_us(2000);
    end_us = fm_now_us();
    fm_conn_phase_mark(&conn, end_us);         /* the verdict */
    assert_int_equal(result.phases, (1u << FM_PHASE__COUNT) - 1);
    assert_true(result.phase_us[FM_PHASE_RESOLVE] >= 3000);
    assert_true(result.phase_us[FM_PHASE_REPLY] >= 2000);
    assert_int_equal(sum_of_phases(), end_us - start_us);
}

/* A numeric address, a TCP connect check: connect only; and a timeout's
 * verdict goes to the step it came in. */
static void
test_only_the_phases_gone_through(void **state)
{
    (void) state;
    begin(1000);
    fm_conn_step(&conn, FM_STEP_CONNECT);      /* from IDLE: no clock read */
    fm_conn_phase_mark(&conn, 1250);
    assert_int_equal(result.phases, 1u << FM_PHASE_CONNECT);
    assert_int_equal(result.phase_us[FM_PHASE_CONNECT], 250);
    assert_int_equal(sum_of_phases(), 250);
    /* a clock that went back charges nothing */
    fm_conn_phase_mark(&conn, 1100);
    assert_int_equal(result.phase_us[FM_PHASE_CONNECT], 250);
}

/* STARTTLS: request and reply before and after the handshake add up. */
static void
test_a_conversation_adds_up(void **state)
{
    uint64_t start_us = fm_now_us();
    uint64_t end_us = 0;

    (void) state;
    begin(start_us);
    fm_conn_step(&conn, FM_STEP_CONNECT);
    fm_conn_step(&conn, FM_STEP_READ);
    fm_conn_step(&conn, FM_STEP_SEND);
    fm_conn_step(&conn, FM_STEP_READ);
    fm_conn_step(&conn, FM_STEP_TLS);
    fm_conn_step(&conn, FM_STEP_SEND);
    fm_conn_step(&conn, FM_STEP_READ);
    end_us = fm_now_us();
    fm_conn_phase_mark(&conn, end_us);
    assert_int_equal(result.phases, (1u << FM_PHASE_CONNECT) | (1u << FM_PHASE_TLS)
                     | (1u << FM_PHASE_REQUEST) | (1u << FM_PHASE_REPLY));
    assert_int_equal(sum_of_phases(), end_us - start_us);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phases_sum_to_the_latency),
        cmocka_unit_test(test_only_the_phases_gone_through),
        cmocka_unit_test(test_a_conversation_adds_up),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
