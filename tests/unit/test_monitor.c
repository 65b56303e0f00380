/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the monitor (src/monitor/monitor.c) with a fake clock.  Each
 * case feeds a sequence of cycle outcomes at pretend times and checks the
 * answer (what to write, ask, publish, log) and the state written each time,
 * which must always be one the agents' reader accepts.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <cmocka.h>

#include <faultmon/monitor.h>
#include <faultmon/recovery.h>
#include <faultmon/target.h>

#define S_US UINT64_C(1000000)
#define T0_US (UINT64_C(1000) * S_US)   /* the fake monotonic clock's start */
#define WALL0_S INT64_C(1700000000)

struct fake {
    struct fm_decide_opts opts;
    struct fm_monitor mon;
    struct fm_monitor_out out;
    struct fm_target target;
    struct fm_result result;
    uint64_t now_us;                    /* the fake clock */
};

static struct fake fk;

static void
fake_setup(bool signal_pacemaker, bool manual_resume)
{
    memset(&fk, 0, sizeof(fk));
    fm_decide_opts_init(&fk.opts);
    fk.opts.retry_count = 1;
    fk.opts.retry_interval_ms = 300 * 1000;
    fk.opts.interval_up_ms = 10 * 1000;
    fk.opts.manual_resume = manual_resume;
    assert_int_equal(fm_monitor_init(&fk.mon, &fk.opts, "web", FM_KIND_APACHE, signal_pacemaker), 0);
    fk.mon.st.pid = 1234;
    fk.target.text = (char *) "http://127.0.0.1:8080/";
    fk.result.target = &fk.target;
    fk.now_us = T0_US;
}

static int
teardown(void **state)
{
    (void) state;
    fm_monitor_clear(&fk.mon);
    return 0;
}

/* The state as written now must pass the agents' one reader. */
static void
assert_state_written(void)
{
    char err[512] = "";

    assert_true(fk.out.write_state);
    assert_int_equal(fk.mon.st.updated_mono_us, fk.now_us);
    assert_int_equal(fk.mon.st.updated_wall_s, WALL0_S + (int64_t) ((fk.now_us - T0_US) / S_US));
    if (fm_state_validate(&fk.mon.st, "web", fk.now_us, err, sizeof(err)) != 0) {
        fail_msg("the state written is refused: %s", err);
    }
}

/* One cycle of 20 ms with the one target's \p reason, \p after_s seconds
 * after the last one. */
static void
cycle(uint64_t after_s, enum fm_reason reason)
{
    struct fm_monitor_cycle c = { .results = &fk.result, .n = 1 };

    fk.now_us += after_s * S_US;
    fk.result.reason = reason;
    fk.result.http_status = (reason == FM_REASON_STATUS)? 503 : 0;
    fk.result.latency_us = 20000;
    c.start_us = fk.now_us - 20000;
    c.now_us = fk.now_us;
    c.now_wall_s = WALL0_S + (int64_t) ((fk.now_us - T0_US) / S_US);
    fm_monitor_cycle_done(&fk.mon, &c, &fk.out);
}

static bool
logged(const char *text)
{
    for (size_t i = 0; i < fk.out.n_logs; i++) {
        if (strstr(fk.out.logs[i].text, text) != NULL) {
            return true;
        }
    }
    return false;
}

/* The notice lines of the last answer: the transitions (\p last gets the
 * text of the last one, or ""). */
static size_t
notices(const char **last)
{
    size_t n = 0;

    *last = "";
    for (size_t i = 0; i < fk.out.n_logs; i++) {
        if (fk.out.logs[i].priority == LOG_NOTICE) {
            *last = fk.out.logs[i].text;
            n++;
        }
    }
    return n;
}

/* Every change of state and every recovery decided is one notice line with
 * the cause and the reason; a cycle that changes nothing has none. */
static void
test_transitions_logged_once(void **state)
{
    const char *line = NULL;

    (void) state;
    fake_setup(false, false);
    fk.opts.rise = 2;
    fm_monitor_clear(&fk.mon);
    assert_int_equal(fm_monitor_init(&fk.mon, &fk.opts, "web", FM_KIND_APACHE, false), 0);
    cycle(10, FM_REASON_OK);
    assert_int_equal(notices(&line), 0);
    assert_false(fk.out.transition);

    cycle(10, FM_REASON_CONNECT_FAILED);
    assert_int_equal(notices(&line), 1);
    assert_true(fk.out.transition);
    assert_non_null(strstr(line, "state up -> down, restart asked: http://127.0.0.1:8080/: connect-failed: "));

    cycle(10, FM_REASON_CONNECT_FAILED);
    assert_int_equal(notices(&line), 1);
    assert_non_null(strstr(line, "state down -> down, failover asked: http://127.0.0.1:8080/: connect-failed: "));

    cycle(10, FM_REASON_OK);
    assert_int_equal(notices(&line), 1);
    assert_non_null(strstr(line, "state down -> flapping: "));
    cycle(10, FM_REASON_OK);
    assert_int_equal(notices(&line), 1);
    assert_non_null(strstr(line, "state flapping -> up: "));
    for (int i = 0; i < 3; i++) {
        cycle(10, FM_REASON_OK);
        assert_int_equal(notices(&line), 0);
        assert_false(fk.out.transition);
    }

    /* Degraded, and degraded again: one line. */
    cycle(10, FM_REASON_READ_TIMEOUT);
    assert_int_equal(notices(&line), 1);
    assert_non_null(strstr(line, "state up -> degraded: http://127.0.0.1:8080/: read-timeout: "));
    cycle(400, FM_REASON_READ_TIMEOUT);
    assert_int_equal(notices(&line), 0);

    /* A reset that changes the state says so in the transition line only. */
    fk.now_us += S_US;
    assert_int_equal(fm_monitor_reset(&fk.mon, fk.now_us, WALL0_S, &fk.out), 0);
    assert_int_equal(notices(&line), 1);
    assert_string_equal(line, "state degraded -> up: cleanup or faultmon reset: history and decision reset");
    fk.now_us += S_US;
    assert_int_equal(fm_monitor_reset(&fk.mon, fk.now_us, WALL0_S, &fk.out), 0);
    assert_int_equal(notices(&line), 1);
    assert_false(fk.out.transition);
    assert_string_equal(line, "failure history and decision reset (cleanup or faultmon reset)");
}

/* A new loop, as after the loop's restart: it restores the state the
 * earlier one left, \p after_us after its last cycle. */
static void
loop_restarts(uint64_t after_us)
{
    static struct fm_run_state old;
    char err[512] = "";

    old = fk.mon.st;
    fm_monitor_clear(&fk.mon);
    assert_int_equal(fm_monitor_init(&fk.mon, &fk.opts, "web", FM_KIND_APACHE, true), 0);
    fk.mon.st.pid = 1234;
    assert_int_equal(fm_monitor_restore(&fk.mon, &old, fk.now_us + after_us, err, sizeof(err)), 0);
}

/* A new loop goes on from the state the earlier loop left: its first ok
 * cycle after a restart is a transition from down. */
static void
test_transition_after_restore(void **state)
{
    const char *line = NULL;

    (void) state;
    fake_setup(true, false);
    cycle(10, FM_REASON_CONNECT_FAILED);
    loop_restarts(5 * S_US);
    cycle(10, FM_REASON_OK);
    assert_int_equal(notices(&line), 1);
    assert_string_equal(line, "state down -> up: up again after 1 success in a row (rise 1)");
}

/* Each failed probe counts for its class, each recovery decided for its
 * action; a probe's phases and certificate go into the state as they are;
 * a reset forgets no count. */
static void
test_counters_count_failures_and_decisions(void **state)
{
    const struct fm_state_target *t = &fk.mon.st.targets[0];

    (void) state;
    fake_setup(true, false);
    fk.result.phases = (1u << FM_PHASE_CONNECT) | (1u << FM_PHASE_REPLY);
    fk.result.phase_us[FM_PHASE_CONNECT] = 700;
    fk.result.phase_us[FM_PHASE_REPLY] = 19000;
    fk.result.cert_not_after = WALL0_S + 86400;
    cycle(10, FM_REASON_OK);
    assert_int_equal(t->failures[FM_CLASS_PARTIAL] + t->failures[FM_CLASS_COMPLETE], 0);
    assert_int_equal(t->phases, fk.result.phases);
    assert_int_equal(t->phase_us[FM_PHASE_REPLY], 19000);
    assert_int_equal(t->cert_not_after, WALL0_S + 86400);
    cycle(10, FM_REASON_CONNECT_FAILED);
    assert_state_written();
    assert_int_equal(t->failures[FM_CLASS_COMPLETE], 1);
    assert_int_equal(fk.mon.st.decisions[FM_ACTION_RESTART], 1);
    fm_monitor_reported(&fk.mon);
    cycle(10, FM_REASON_CONNECT_FAILED);        /* under way: no new decision */
    assert_int_equal(t->failures[FM_CLASS_COMPLETE], 2);
    assert_int_equal(fk.mon.st.decisions[FM_ACTION_RESTART], 1);
    cycle(10, FM_REASON_READ_TIMEOUT);
    assert_int_equal(t->failures[FM_CLASS_PARTIAL], 1);
    fk.now_us += S_US;
    assert_int_equal(fm_monitor_reset(&fk.mon, fk.now_us, WALL0_S + 41, &fk.out), 0);
    assert_int_equal(t->failures[FM_CLASS_COMPLETE], 2);
    assert_int_equal(fk.mon.st.decisions[FM_ACTION_RESTART], 1);
    assert_int_equal(fk.mon.st.decisions[FM_ACTION_FAILOVER], 0);
}

/* What the reader would refuse never goes into the state: phases longer
 * than the probe, a certificate that expired before 1970. */
static void
test_state_keeps_only_what_the_reader_takes(void **state)
{
    const struct fm_state_target *t = &fk.mon.st.targets[0];

    (void) state;
    fake_setup(true, false);
    fk.result.phases = (1u << FM_PHASE_CONNECT) | (1u << FM_PHASE_REPLY);
    fk.result.phase_us[FM_PHASE_CONNECT] = 700;
    fk.result.phase_us[FM_PHASE_REPLY] = 19301;     /* 20001 in all: 1 too many */
    fk.result.cert_not_after = -631152000;          /* 1950 */
    cycle(10, FM_REASON_OK);
    assert_state_written();
    assert_int_equal(t->phases, 0);
    assert_int_equal(t->phase_us[FM_PHASE_CONNECT], 0);
    assert_int_equal(t->cert_not_after, 0);
    fk.result.phase_us[FM_PHASE_REPLY] = 19300;     /* exactly the latency */
    fk.result.cert_not_after = -1;                  /* timegm()'s error */
    cycle(10, FM_REASON_OK);
    assert_int_equal(t->phases, fk.result.phases);
    assert_int_equal(t->phase_us[FM_PHASE_REPLY], 19300);
    assert_int_equal(t->cert_not_after, 0);
}

/* A new loop goes on counting from the earlier loop's state, for the
 * targets of the same text; another target starts from 0. */
static void
test_counters_survive_restore(void **state)
{
    struct fm_target other = { .text = (char *) "http://127.0.0.1:9090/" };
    struct fm_result results[2];
    struct fm_monitor_cycle c = { .results = results, .n = 2 };

    (void) state;
    fake_setup(true, false);
    cycle(10, FM_REASON_CONNECT_FAILED);
    loop_restarts(5 * S_US);
    assert_int_equal(fk.mon.st.decisions[FM_ACTION_RESTART], 1);
    memset(results, 0, sizeof(results));
    results[0].target = &other;                 /* the order changed, too */
    results[0].reason = FM_REASON_READ_FAILED;
    results[1].target = &fk.target;
    results[1].reason = FM_REASON_CONNECT_FAILED;
    fk.now_us += 15 * S_US;
    c.start_us = fk.now_us - 20000;
    c.now_us = fk.now_us;
    c.now_wall_s = WALL0_S + 25;
    fm_monitor_cycle_done(&fk.mon, &c, &fk.out);
    assert_int_equal(fk.mon.st.targets[0].failures[FM_CLASS_PARTIAL], 1);
    assert_int_equal(fk.mon.st.targets[0].failures[FM_CLASS_COMPLETE], 0);
    assert_int_equal(fk.mon.st.targets[1].failures[FM_CLASS_COMPLETE], 2);
    /* the failed restart fails over: one more decision, of its action */
    assert_int_equal(fk.mon.st.decisions[FM_ACTION_FAILOVER], 1);
    assert_int_equal(fk.mon.st.decisions[FM_ACTION_RESTART], 1);
}

/* Ok cycles: nothing to do but write the state and wait the interval, less
 * the cycle's own time. */
static void
test_ok_cycles(void **state)
{
    (void) state;
    fake_setup(true, false);
    for (int i = 0; i < 3; i++) {
        cycle(10, FM_REASON_OK);
        assert_state_written();
        assert_true(fk.out.watch);
        assert_int_equal(fk.out.request, FM_ACTION_NONE);
        assert_false(fk.out.publish);
        assert_int_equal(fk.out.n_logs, 0);
        assert_int_equal(fk.out.next_cycle_ms, 10000 - 20);
        assert_int_equal(fk.mon.st.state, FM_STATE_UP);
        assert_int_equal(fk.mon.st.ocf_rc, 0);
    }
    assert_int_equal(fk.mon.st.cycles, 3);
    assert_int_equal(fk.mon.st.n_records, 3);
}

/* A complete failure asks the cluster for a restart, and publishes why;
 * the failed cycles after it are the same outage while it is under way. */
static void
test_restart_then_under_way(void **state)
{
    (void) state;
    fake_setup(true, false);
    cycle(10, FM_REASON_OK);
    cycle(10, FM_REASON_CONNECT_FAILED);
    assert_state_written();
    assert_int_equal(fk.out.request, FM_ACTION_RESTART);
    assert_true(fk.out.publish);
    assert_string_equal(fk.out.cause, "http://127.0.0.1:8080/: connect-failed");
    assert_true(logged("state up -> down, restart asked: http://127.0.0.1:8080/: connect-failed: "));
    assert_true(logged("cycle complete, state down, action restart"));
    assert_int_equal(fk.mon.st.pending, FM_ACTION_RESTART);
    assert_int_equal(fk.mon.st.ocf_rc, 1);
    assert_int_equal(fk.mon.st.records[1].action, FM_ACTION_RESTART);
    fm_monitor_reported(&fk.mon);

    cycle(10, FM_REASON_CONNECT_FAILED);
    assert_state_written();
    assert_false(fk.out.watch);
    assert_int_equal(fk.out.request, FM_ACTION_NONE);
    assert_true(logged("cycle complete while the restart asked is under way"));
    assert_int_equal(fk.mon.st.records[2].action, FM_ACTION_NONE);
    assert_int_equal(fk.out.next_cycle_ms, fk.mon.st.interval_ms);
    assert_true(fk.mon.recovery_reported);

    /* Back up: the recovery is moot, and so is the report. */
    cycle(10, FM_REASON_OK);
    assert_state_written();
    assert_int_equal(fk.mon.st.pending, FM_ACTION_NONE);
    assert_false(fk.mon.recovery_reported);
    assert_false(fk.mon.outage_pending);
}

/* After the restart (a new loop restores the state), a complete failure in
 * the first cycle means the restart did not help: fail over. */
static void
test_failed_restart_fails_over(void **state)
{
    struct fm_run_state old;
    char err[512] = "";

    (void) state;
    fake_setup(true, false);
    cycle(10, FM_REASON_CONNECT_FAILED);
    assert_int_equal(fk.out.request, FM_ACTION_RESTART);
    old = fk.mon.st;
    fm_monitor_clear(&fk.mon);

    assert_int_equal(fm_monitor_init(&fk.mon, &fk.opts, "web", FM_KIND_APACHE, true), 0);
    fk.mon.st.pid = 1235;
    assert_int_equal(fm_monitor_restore(&fk.mon, &old, fk.now_us + 5 * S_US, err, sizeof(err)), 0);
    assert_true(fk.mon.verify_restart);
    cycle(10, FM_REASON_CONNECT_TIMEOUT);
    assert_state_written();
    assert_int_equal(fk.out.request, FM_ACTION_FAILOVER);
    assert_true(logged("state down -> down, failover asked: "));
    assert_int_equal(fk.mon.st.pending, FM_ACTION_FAILOVER);
    assert_int_equal(fk.mon.st.ocf_rc, 4);
    assert_false(fk.mon.verify_restart);
}

/* The access log's share passed its threshold in a cycle whose probes
 * passed: a partial failure (weight 50) whose cause is the share; the next
 * cycle without it adds nothing. */
static void
test_access_log_partial(void **state)
{
    struct fm_monitor_cycle c = { .results = &fk.result, .n = 1 };
    const char *last = NULL;

    (void) state;
    fake_setup(true, false);
    fk.now_us += 10 * S_US;
    fk.result.reason = FM_REASON_OK;
    c.start_us = fk.now_us - 20000;
    c.now_us = fk.now_us;
    c.now_wall_s = WALL0_S + 10;
    c.access_log = "access log: 30 of 100 replies 5xx in 60 s (30%, threshold 20%)";
    fm_monitor_cycle_done(&fk.mon, &c, &fk.out);
    assert_int_equal(fk.mon.st.weight, 50);
    assert_int_equal(fk.mon.st.state, FM_STATE_DEGRADED);
    assert_true(logged("access log: 30 of 100 replies 5xx in 60 s (30%, threshold 20%): a partial failure"));
    notices(&last);
    assert_non_null(strstr(last, "access log: 30 of 100 replies 5xx"));
    cycle(10, FM_REASON_OK);
    assert_int_equal(fk.mon.st.weight, 50);
}

/* The start's first cycle fails while a dependency is down with no node
 * known where it is up: no failover (it could not help), held degraded. */
static void
test_failed_restart_dependency_holds(void **state)
{
    struct fm_run_state old;
    struct fm_monitor_cycle c = { .results = &fk.result, .n = 1 };
    char err[512] = "";

    (void) state;
    fake_setup(true, false);
    cycle(10, FM_REASON_CONNECT_FAILED);
    old = fk.mon.st;
    fm_monitor_clear(&fk.mon);
    assert_int_equal(fm_monitor_init(&fk.mon, &fk.opts, "web", FM_KIND_APACHE, true), 0);
    assert_int_equal(fm_monitor_restore(&fk.mon, &old, fk.now_us + 5 * S_US, err, sizeof(err)), 0);
    fk.now_us += 10 * S_US;
    fk.result.reason = FM_REASON_CONNECT_TIMEOUT;
    c.start_us = fk.now_us - 20000;
    c.now_us = fk.now_us;
    c.now_wall_s = WALL0_S + (int64_t) ((fk.now_us - T0_US) / S_US);
    c.dependency_everywhere = "dependency tcp://db:5432 down from all 1 nodes, recovery cannot help";
    fm_monitor_cycle_done(&fk.mon, &c, &fk.out);
    assert_int_equal(fk.out.request, FM_ACTION_NONE);
    assert_true(logged("down from all 1 nodes, recovery cannot help: holding"));
    assert_false(fk.mon.verify_restart);
}

/* Without a cluster nothing is asked, but the reason is still published. */
static void
test_no_cluster_publishes_only(void **state)
{
    (void) state;
    fake_setup(false, false);
    cycle(10, FM_REASON_STATUS);
    assert_state_written();
    assert_int_equal(fk.out.request, FM_ACTION_NONE);
    assert_true(fk.out.publish);
    assert_string_equal(fk.out.cause, "http://127.0.0.1:8080/: status, HTTP 503");
    assert_int_equal(fk.mon.st.pending, FM_ACTION_RESTART);
    /* Nobody carries it out: the next failure counts as usual. */
    cycle(10, FM_REASON_STATUS);
    assert_true(logged("action failover"));
    assert_int_equal(fk.mon.st.pending, FM_ACTION_FAILOVER);
}

/* A partial failure is half a failure: degraded (190), no recovery; a
 * second one within Retry_interval adds up to a restart. */
static void
test_partial_degraded(void **state)
{
    (void) state;
    fake_setup(true, false);
    cycle(10, FM_REASON_READ_TIMEOUT);
    assert_state_written();
    assert_int_equal(fk.out.request, FM_ACTION_NONE);
    assert_false(fk.out.publish);
    assert_int_equal(fk.mon.st.action, FM_ACTION_DEGRADED);
    assert_int_equal(fk.mon.st.ocf_rc, 190);
    assert_int_equal(fk.mon.st.weight, 50);
    assert_true(logged("cycle partial"));
    cycle(10, FM_REASON_READ_FAILED);
    assert_int_equal(fk.out.request, FM_ACTION_RESTART);
}

/* A cycle that cannot start is a partial failure, logged as an error:
 * alone it never recovers, repeated it does. */
static void
test_start_failure_is_partial(void **state)
{
    struct fm_monitor_cycle c = { .start_error = "Too many open files" };

    (void) state;
    fake_setup(true, false);
    cycle(10, FM_REASON_OK);
    for (int i = 0; i < 2; i++) {
        fk.now_us += 10 * S_US;
        c.start_us = fk.now_us;
        c.now_us = fk.now_us;
        c.now_wall_s = WALL0_S + (int64_t) ((fk.now_us - T0_US) / S_US);
        fm_monitor_cycle_done(&fk.mon, &c, &fk.out);
        assert_state_written();
        assert_int_equal(fk.out.logs[0].priority, LOG_ERR);
        assert_true(logged("cannot start a probe cycle (Too many open files)"));
        assert_int_equal(fk.mon.st.records[fk.mon.st.n_records - 1].cls, FM_CLASS_PARTIAL);
    }
    assert_int_equal(fk.mon.st.cycles, 3);
    assert_int_equal(fk.out.request, FM_ACTION_RESTART);
    assert_string_equal(fk.out.cause, "the probe cycle could not start: Too many open files");
    /* The targets keep the last cycle that ran. */
    assert_int_equal(fk.mon.st.targets[0].cls, FM_CLASS_OK);
}

/* httpd's exit and the agent's report: one outage, one failure. */
static void
test_events_one_outage(void **state)
{
    (void) state;
    fake_setup(true, false);
    cycle(10, FM_REASON_OK);
    fk.now_us += S_US;
    fm_monitor_event(&fk.mon, "httpd (pid 42) exited", false, fk.now_us, WALL0_S + 11, &fk.out);
    assert_state_written();
    assert_int_equal(fk.out.request, FM_ACTION_RESTART);
    assert_string_equal(fk.out.cause, "httpd (pid 42) exited");
    assert_true(logged("httpd (pid 42) exited: state down, action restart"));
    fm_monitor_reported(&fk.mon);

    fm_monitor_event(&fk.mon, "httpd is not running", true, fk.now_us + S_US, WALL0_S + 12, &fk.out);
    assert_false(fk.out.write_state);
    assert_true(fk.out.event_same);
    assert_true(logged("httpd is not running: the restart decided is pending (same outage)"));
    assert_int_equal(fk.mon.st.n_records, 2);
}

/* The agent's report decides, but the agent answers Pacemaker: no fail
 * request from the loop. */
static void
test_agent_event_no_request(void **state)
{
    (void) state;
    fake_setup(true, false);
    fk.now_us += S_US;
    fm_monitor_event(&fk.mon, "httpd is not running", true, fk.now_us, WALL0_S + 1, &fk.out);
    assert_state_written();
    assert_int_equal(fk.out.request, FM_ACTION_NONE);
    assert_true(fk.out.publish);
    assert_false(fk.out.event_same);
    assert_true(logged("monitor found httpd is not running"));
    assert_int_equal(fk.mon.st.pending, FM_ACTION_RESTART);
}

/* Held for manual resume after a failover; a reset keeps the hold; a
 * resume puts it back in service, once. */
static void
test_held_resume(void **state)
{
    (void) state;
    fake_setup(false, true);
    cycle(10, FM_REASON_CONNECT_FAILED);
    cycle(10, FM_REASON_CONNECT_FAILED);
    assert_int_equal(fk.mon.st.pending, FM_ACTION_FAILOVER);
    assert_int_equal(fk.mon.st.decide.held, 1);

    fk.now_us += S_US;
    assert_int_equal(fm_monitor_reset(&fk.mon, fk.now_us, WALL0_S, &fk.out), EBUSY);
    assert_false(fk.out.write_state);
    assert_true(logged("a reset keeps the hold"));

    fk.now_us += S_US;
    assert_int_equal(fm_monitor_resume(&fk.mon, fk.now_us, WALL0_S + 22, &fk.out), 0);
    assert_state_written();
    assert_true(logged("state held -> up: faultmon resume: resumed by the administrator"));
    assert_int_equal(fk.mon.st.pending, FM_ACTION_NONE);
    assert_int_equal(fk.mon.st.decide.held, 0);
    assert_int_equal(fm_monitor_resume(&fk.mon, fk.now_us, WALL0_S + 22, &fk.out), EALREADY);
    assert_false(fk.out.write_state);
}

/* A reset forgets the history and any pending recovery. */
static void
test_reset(void **state)
{
    (void) state;
    fake_setup(true, false);
    cycle(10, FM_REASON_CONNECT_FAILED);
    fm_monitor_reported(&fk.mon);
    fk.now_us += S_US;
    assert_int_equal(fm_monitor_reset(&fk.mon, fk.now_us, WALL0_S + 11, &fk.out), 0);
    assert_state_written();
    assert_int_equal(fk.mon.st.pending, FM_ACTION_NONE);
    assert_int_equal(fk.mon.st.state, FM_STATE_UP);
    assert_string_equal(fk.mon.st.reason, "history and decision reset");
    assert_int_equal(fk.mon.st.decide.n_failures, 0);
    assert_false(fk.mon.recovery_reported);
    assert_false(fk.mon.outage_pending);
}

/* httpmon publishes: never a pending recovery, never a request. */
static void
test_publish_only(void **state)
{
    (void) state;
    fake_setup(true, false);
    fm_monitor_clear(&fk.mon);
    fk.opts.publish_only = true;
    assert_int_equal(fm_monitor_init(&fk.mon, &fk.opts, "web", FM_KIND_HTTPMON, true), 0);
    fk.mon.st.pid = 1234;
    cycle(10, FM_REASON_CONNECT_FAILED);
    assert_state_written();
    assert_int_equal(fk.out.request, FM_ACTION_NONE);
    assert_false(fk.out.publish);
    assert_true(logged("unhealthy; the agent publishes it at its next monitor"));
    assert_int_equal(fk.mon.st.pending, FM_ACTION_NONE);
    assert_int_equal(fk.mon.st.ocf_rc, 0);
}

/* As fake_setup(true, false), with an interval of 1 s. */
static void
fake_setup_1s(void)
{
    fake_setup(true, false);
    fm_monitor_clear(&fk.mon);
    fk.opts.interval_up_ms = 1000;
    assert_int_equal(fm_monitor_init(&fk.mon, &fk.opts, "web", FM_KIND_APACHE, true), 0);
    fk.mon.st.pid = 1234;
}

/*
 * The state-write policy: an ok cycle that changes nothing shown is not
 * written until the last write is FM_RECOVERY_STATE_REFRESH_MS old; a
 * change is written at once; a failed write is tried again at the next
 * cycle; a stopping loop writes what is behind.
 */
static void
test_state_write_policy(void **state)
{
    uint64_t refresh_s = FM_RECOVERY_STATE_REFRESH_MS / 1000u;
    uint64_t written_us = 0;

    (void) state;
    fake_setup_1s();
    cycle(1, FM_REASON_OK);
    assert_state_written();         /* the first cycle: no file yet */
    written_us = fk.now_us;
    for (uint64_t i = 1; i < refresh_s; i++) {
        cycle(1, FM_REASON_OK);
        assert_false(fk.out.write_state);
        assert_int_equal(fk.out.next_cycle_ms, 1000 - 20);
    }
    assert_int_equal(fk.mon.st.updated_mono_us, written_us);
    cycle(1, FM_REASON_OK);
    assert_state_written();         /* the bound reached */
    assert_int_equal(fk.mon.st.cycles, refresh_s + 1);

    cycle(1, FM_REASON_STATUS);
    assert_state_written();         /* a failure */
    fm_monitor_reported(&fk.mon);   /* a cluster node: the controller took the request */
    cycle(1, FM_REASON_OK);
    assert_state_written();         /* and the target ok again */
    cycle(1, FM_REASON_OK);         /* the decision settles (written or not) */
    cycle(1, FM_REASON_OK);
    assert_false(fk.out.write_state);

    fm_monitor_write_failed(&fk.mon);
    cycle(1, FM_REASON_OK);
    assert_state_written();         /* the failed write again */
    cycle(1, FM_REASON_OK);
    assert_false(fk.out.write_state);
    fk.now_us += S_US / 2;
    fm_monitor_flush(&fk.mon, fk.now_us, WALL0_S + (int64_t) ((fk.now_us - T0_US) / S_US), &fk.out);
    assert_state_written();         /* stopping: the last cycle */
    fm_monitor_flush(&fk.mon, fk.now_us, WALL0_S, &fk.out);
    assert_false(fk.out.write_state);

    /* An event is always written, however recent the last write. */
    fk.now_us += S_US / 2;
    fm_monitor_event(&fk.mon, "httpd (pid 42) exited", false, fk.now_us,
                     WALL0_S + (int64_t) ((fk.now_us - T0_US) / S_US), &fk.out);
    assert_state_written();
}

/* A live loop's state is never judged stale: written at least every
 * FM_RECOVERY_STATE_REFRESH_MS, it is at most that plus one cycle old. */
static void
test_live_loop_never_stale(void **state)
{
    (void) state;
    fake_setup_1s();
    for (int i = 0; i < 100; i++) {
        uint64_t now_us = fk.now_us + S_US;

        /* Just before the next cycle ends, the worst moment for a reader. */
        if (i > 0) {
            assert_false(fm_recovery_state_stale(&fk.mon.st, now_us + fk.mon.st.probe_timeout_ms * 1000u,
                                                 NULL));
        }
        cycle(1, FM_REASON_OK);
    }
}

/*
 * Cycles that overrun their interval (10 s, Probe_timeout 20 s): an
 * overload status page holds a cycle open up to 3.5 Probe_timeouts.  A slow
 * ok cycle (29 s) then one held by the page (70 s): a state written only
 * every cycle's length (30 s) would be 99 s old before the second ended,
 * stale past 2 x (10 + 20) + 30 = 90 s, and the monitor would call a live
 * loop stuck.  Refreshed every 10 s, it is at most one cycle old.
 */
static void
test_overrunning_cycles_never_stale(void **state)
{
    static const uint64_t lengths_s[] = { 29, 70 };

    (void) state;
    fake_setup(true, false);
    fm_monitor_clear(&fk.mon);
    fk.opts.interval_up_ms = 10 * 1000;
    fk.opts.probe_timeout_ms = 20 * 1000;
    assert_int_equal(fm_monitor_init(&fk.mon, &fk.opts, "web", FM_KIND_APACHE, true), 0);
    fk.mon.st.pid = 1234;
    cycle(10, FM_REASON_OK);
    for (int i = 0; i < 20; i++) {
        uint64_t length_s = lengths_s[i % 2];

        /* Just before this cycle ends, the worst moment for a reader. */
        assert_false(fm_recovery_state_stale(&fk.mon.st, fk.now_us + length_s * S_US - 1, NULL));
        cycle(length_s, FM_REASON_OK);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_ok_cycles, teardown),
        cmocka_unit_test_teardown(test_restart_then_under_way, teardown),
        cmocka_unit_test_teardown(test_failed_restart_fails_over, teardown),
        cmocka_unit_test_teardown(test_access_log_partial, teardown),
        cmocka_unit_test_teardown(test_failed_restart_dependency_holds, teardown),
        cmocka_unit_test_teardown(test_no_cluster_publishes_only, teardown),
        cmocka_unit_test_teardown(test_partial_degraded, teardown),
        cmocka_unit_test_teardown(test_start_failure_is_partial, teardown),
        cmocka_unit_test_teardown(test_events_one_outage, teardown),
        cmocka_unit_test_teardown(test_agent_event_no_request, teardown),
        cmocka_unit_test_teardown(test_held_resume, teardown),
        cmocka_unit_test_teardown(test_state_write_policy, teardown),
        cmocka_unit_test_teardown(test_live_loop_never_stale, teardown),
        cmocka_unit_test_teardown(test_overrunning_cycles_never_stale, teardown),
        cmocka_unit_test_teardown(test_reset, teardown),
        cmocka_unit_test_teardown(test_publish_only, teardown),
        cmocka_unit_test_teardown(test_transitions_logged_once, teardown),
        cmocka_unit_test_teardown(test_transition_after_restore, teardown),
        cmocka_unit_test_teardown(test_counters_count_failures_and_decisions, teardown),
        cmocka_unit_test_teardown(test_counters_survive_restore, teardown),
        cmocka_unit_test_teardown(test_state_keeps_only_what_the_reader_takes, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
