/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: a recovery decided stands until Pacemaker acts on it
 * (src/monitor/monitor.c, issue 29 item 5), on every kind of node.  On a
 * cluster node the controller takes the loop's request and recovers at once;
 * on a Pacemaker Remote node it refuses it, and the agent's next monitor
 * reports the decision from the state file: a service that answers again
 * before that monitor must not make the decision lapse.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/monitor.h>
#include <faultmon/target.h>

#define S_US UINT64_C(1000000)
#define T0_US (UINT64_C(1000) * S_US)
#define WALL0_S INT64_C(1700000000)

static struct fm_decide_opts opts;
static struct fm_monitor mon;
static struct fm_monitor_out out;
static struct fm_target target;
static struct fm_result result;
static uint64_t now_us;

static void
setup_mon(void)
{
    memset(&mon, 0, sizeof(mon));
    fm_decide_opts_init(&opts);
    opts.retry_count = 1;
    opts.retry_interval_ms = 300 * 1000;
    opts.interval_up_ms = 10 * 1000;
    assert_int_equal(fm_monitor_init(&mon, &opts, "web", FM_KIND_APACHE, true), 0);
    mon.st.pid = 1234;
    target.text = (char *) "http://127.0.0.1:8080/";
    result.target = &target;
    now_us = T0_US;
}

static int
teardown(void **state)
{
    (void) state;
    fm_monitor_clear(&mon);
    return 0;
}

static void
cycle(enum fm_reason reason)
{
    struct fm_monitor_cycle c = { .results = &result, .n = 1 };
    char err[512] = "";

    now_us += 10 * S_US;
    result.reason = reason;
    result.latency_us = 20000;
    c.start_us = now_us - 20000;
    c.now_us = now_us;
    c.now_wall_s = WALL0_S + (int64_t) ((now_us - T0_US) / S_US);
    fm_monitor_cycle_done(&mon, &c, &out);
    /* Whatever is written must be a state the agents' reader accepts. */
    if (out.write_state && fm_state_validate(&mon.st, "web", now_us, err, sizeof(err)) != 0) {
        fail_msg("the state written is refused: %s", err);
    }
}

static bool
logged(const char *text)
{
    for (size_t i = 0; i < out.n_logs; i++) {
        if (strstr(out.logs[i].text, text) != NULL) {
            return true;
        }
    }
    return false;
}

/* The controller refused the request (a remote node): the service answers
 * again before the agent's monitor, and the restart still stands, with the
 * exit code the monitor reports. */
static void
test_unreported_stands(void **state)
{
    (void) state;
    setup_mon();
    cycle(FM_REASON_CONNECT_FAILED);
    assert_int_equal(out.request, FM_ACTION_RESTART);
    /* no fm_monitor_reported(): the request was refused */
    cycle(FM_REASON_OK);
    cycle(FM_REASON_OK);
    assert_int_equal(mon.st.pending, FM_ACTION_RESTART);
    assert_int_equal(mon.st.ocf_rc, 1);
    assert_int_equal(mon.st.state, FM_STATE_DOWN);
    assert_int_equal(out.request, FM_ACTION_NONE);
    assert_true(logged("cycle ok while the restart decided stands until Pacemaker acts on it"));
}

/* On a cluster node the controller took it and recovers at once: a cycle
 * that answers before the restart makes the pending decision moot. */
static void
test_reported_moot(void **state)
{
    (void) state;
    setup_mon();
    cycle(FM_REASON_CONNECT_FAILED);
    fm_monitor_reported(&mon);
    cycle(FM_REASON_OK);
    assert_int_equal(mon.st.pending, FM_ACTION_NONE);
    assert_int_equal(mon.st.state, FM_STATE_UP);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_unreported_stands, teardown),
        cmocka_unit_test_teardown(test_reported_moot, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
