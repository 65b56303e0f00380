/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the decision engine (src/decide/decide.c), with a fake clock:
 * every time is a number in the test's tables, nothing sleeps.
 *
 * Most rules are tested as timelines: a list of cycles, each with what the
 * engine must answer.  An expectation left at 0 is not checked; the X()
 * macro stores "value + 1" so that 0 stays free for "unchecked".
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <faultmon/decide.h>
#include <faultmon/decide_persist.h>

#include "decide_fixture.h"

static const struct tcase cases[] = {
    {
        "README timeline: restart, restart, failover within Retry_interval",
        { { "Retry_count", "2" }, { "Retry_interval", "300" } },
        {
            { S(0), COMP, .act = RESTART, .st = DOWN, .w = X(100), .r = X(1), .ocf = X(1),
              .reason = "complete failure, weight 100 within Retry_interval 300 s: restart 1 of Retry_count 2" },
            { S(60), COMP, .act = RESTART, .st = DOWN, .r = X(2), .reason = "restart 2 of Retry_count 2" },
            { S(120), COMP, .act = FAILOVER, .st = DOWN, .r = X(2), .ocf = X(4),
              .reason = "3 restarts within Retry_interval 300 s exceed Retry_count 2: failing over" },
        },
    },
    {
        "README timeline spread wider: restarts only",
        { { "Retry_count", "2" }, { "Retry_interval", "300" } },
        {
            { S(0), COMP, .act = RESTART, .r = X(1) },
            { S(200), COMP, .act = RESTART, .r = X(2) },
            { S(400), COMP, .act = RESTART, .r = X(2) },
            { S(600), COMP, .act = RESTART, .r = X(2) },
            { S(660), OK, .act = NONE, .st = UP, .r = X(2), .reason = "up again" },
        },
    },
    {
        "a failure exactly Retry_interval old still counts",
        { { "Retry_interval", "300" } },
        {
            { S(0), PART, .act = DEGR, .st = DEGRADED, .w = X(50), .ocf = X(190) },
            { S(300), PART, .act = RESTART, .w = X(100) },
        },
    },
    {
        "a failure 1 us older than Retry_interval is forgotten",
        { { "Retry_interval", "300" } },
        {
            { S(0), PART, .w = X(50) },
            { S(300) + 1, PART, .act = DEGR, .st = DEGRADED, .w = X(50) },
        },
    },
    {
        "restarts just inside Retry_interval fail over",
        { { "Retry_count", "2" }, { "Retry_interval", "5m" } },
        {
            { S(0), COMP, .act = RESTART },
            { S(150), COMP, .act = RESTART },
            { S(300), COMP, .act = FAILOVER, .r = X(2) },
        },
    },
    {
        "restarts just outside Retry_interval restart again",
        { { "Retry_count", "2" }, { "Retry_interval", "300s" } },
        {
            { S(0), COMP, .act = RESTART },
            { S(150), COMP, .act = RESTART },
            { S(300) + 1, COMP, .act = RESTART, .r = X(2) },
        },
    },
    {
        "a partial then a complete failure",
        { { NULL, NULL } },
        {
            { S(0), PART, .act = DEGR, .st = DEGRADED, .w = X(50),
              .reason = "partial failure; weight 50 of 100 within Retry_interval 300 s (1 partial failure)" },
            { S(60), COMP, .act = RESTART, .st = DOWN, .w = X(150), .r = X(1) },
        },
    },
    {
        "two partial failures are one complete failure",
        { { NULL, NULL } },
        {
            { S(0), PART, .act = DEGR, .w = X(50) },
            { S(30), OK, .act = DEGR, .st = DEGRADED, .w = X(50) },
            { S(60), PART, .act = RESTART, .w = X(100), .reason = "partial failure, weight 100" },
        },
    },
    {
        "recovery starts the weight from zero",
        { { NULL, NULL } },
        {
            { S(0), COMP, .act = RESTART },
            { S(60), PART, .act = DEGR, .st = DOWN, .w = X(50) },
            { S(120), OK, .act = DEGR, .st = DEGRADED, .w = X(50) },
            { S(400), PART, .act = DEGR, .st = DEGRADED, .w = X(50) },
        },
    },
    {
        "Retry_count 0 fails over at the first recovery",
        { { "Retry_count", "0" } },
        {
            { S(0), COMP, .act = FAILOVER, .r = X(0),
              .reason = "1 restart within Retry_interval 300 s exceeds Retry_count 0: failing over" },
        },
    },
    {
        "successes keep the service up at Thorough_probe_interval",
        { { NULL, NULL } },
        {
            { S(0), OK, .act = NONE, .st = UP, .w = X(0), .r = X(0), .iv_ms = X(60000),
              .ocf = X(0), .reason = "ok" },
            { S(60), OK, .act = NONE, .st = UP, .iv_ms = X(60000) },
        },
    },
    {
        "fall 3: three failed cycles in a row make one failure",
        { { "fall", "3" }, { "flapping_interval", "10" } },
        {
            { S(0), COMP, .act = DEGR, .st = FLAPPING, .w = X(0), .iv_ms = X(10000),
              .reason = "complete failure 1 of fall 3" },
            { S(10), COMP, .act = DEGR, .st = FLAPPING, .w = X(0) },
            { S(20), COMP, .act = RESTART, .st = DOWN, .w = X(100) },
        },
    },
    {
        "fall 3: a success breaks the streak",
        { { "fall", "3" } },
        {
            { S(0), COMP, .st = FLAPPING },
            { S(10), COMP, .st = FLAPPING },
            { S(20), OK, .act = NONE, .st = UP },
            { S(30), COMP, .st = FLAPPING },
            { S(40), COMP, .st = FLAPPING },
            { S(50), OK, .act = NONE, .st = UP, .w = X(0) },
        },
    },
    {
        "fall 2: two partial streaks add up to one recovery",
        { { "fall", "2" } },
        {
            { S(0), PART, .st = FLAPPING, .w = X(0) },
            { S(10), PART, .act = DEGR, .st = DEGRADED, .w = X(50) },
            { S(20), PART, .st = FLAPPING, .w = X(50) },
            { S(30), PART, .act = RESTART, .w = X(100) },
        },
    },
    {
        "fall 2: the worst failure of the streak sets its weight",
        { { "fall", "2" } },
        {
            { S(0), PART, .st = FLAPPING },
            { S(10), COMP, .act = RESTART, .w = X(100) },
        },
    },
    {
        "rise 3 and the interval by state (WAF: up 15 s, down 5 s, flapping 10 s)",
        { { "rise", "3" }, { "Thorough_probe_interval", "15" }, { "down_interval", "5s" },
          { "flapping_interval", "10000ms" } },
        {
            { S(0), COMP, .act = RESTART, .st = DOWN, .iv_ms = X(5000) },
            { S(5), OK, .act = DEGR, .st = FLAPPING, .iv_ms = X(10000),
              .reason = "success 1 of rise 3" },
            { S(15), OK, .act = DEGR, .st = FLAPPING, .iv_ms = X(10000) },
            { S(25), OK, .act = NONE, .st = UP, .iv_ms = X(15000),
              .reason = "up again after 3 successes in a row (rise 3)" },
        },
    },
    {
        "rise 3: a failure while coming back is counted",
        { { "rise", "3" } },
        {
            { S(0), COMP, .act = RESTART, .r = X(1) },
            { S(60), OK, .st = FLAPPING },
            { S(120), COMP, .act = RESTART, .st = DOWN, .r = X(2) },
            { S(180), OK, .st = FLAPPING },
            { S(240), OK, .st = FLAPPING },
            { S(300), OK, .act = NONE, .st = UP },
        },
    },
    {
        "manual resume: recovery fails over and holds until resumed",
        { { "manual_resume", "yes" } },
        {
            { S(0), COMP, .act = FAILOVER, .st = HELD, .r = X(0), .ocf = X(4),
              .reason = "failing over, held until resumed (manual_resume)" },
            { S(60), OK, .act = DEGR, .st = HELD, .ocf = X(190), .reason = "until resumed" },
            { S(120), OK, .act = DEGR, .st = HELD },
            { S(130), RESUME, .act = NONE, .st = UP, .reason = "resumed by the administrator" },
            { S(200), PART, .act = DEGR, .st = DEGRADED, .w = X(50) },
            { S(210), PART, .act = FAILOVER, .st = HELD },
        },
    },
    {
        "manual resume: failures while held fail over again",
        { { "manual_resume", "true" }, { "rise", "2" } },
        {
            { S(0), COMP, .act = FAILOVER, .st = HELD },
            { S(60), OK, .st = HELD },
            { S(70), OK, .st = HELD },
            { S(120), COMP, .act = FAILOVER, .st = HELD },
        },
    },
    {
        "a restart that fails means failover",
        { { NULL, NULL } },
        {
            { S(0), COMP, .act = RESTART, .r = X(1) },
            { S(30), RFAIL, .act = FAILOVER, .st = DOWN, .ocf = X(4),
              .reason = "did not bring the service back" },
            { S(60), OK, .act = NONE, .st = UP },
        },
    },
    {
        "a certificate near expiry is degraded, not recovered",
        { { "cert_warn_days", "14" } },
        {
            { S(0), OK, .have_cert = true, .cert_days = 30, .act = NONE, .st = UP },
            { S(60), OK, .have_cert = true, .cert_days = 13, .act = DEGR, .st = DEGRADED,
              .ocf = X(190), .reason = "certificate expires in 13 days" },
            { S(120), COMP, .act = RESTART },
            { S(180), OK, .act = DEGR, .st = DEGRADED, .reason = "certificate expires" },
            { S(240), OK, .have_cert = true, .cert_days = -2, .act = DEGR,
              .reason = "certificate expired 2 days ago" },
            { S(300), OK, .have_cert = true, .cert_days = 400, .act = NONE, .st = UP },
        },
    },
    {
        "a service that signals maintenance is degraded, with no weight and no recovery",
        { { "Retry_count", "1" } },
        {
            { S(0), OK, .maintenance = 1, .act = DEGR, .st = DEGRADED, .ocf = X(190),
              .w = X(0), .reason = "the service signals maintenance (1 target)" },
            { S(10), OK, .maintenance = 2, .act = DEGR, .st = DEGRADED, .w = X(0),
              .reason = "signals maintenance (2 targets)" },
            { S(20), OK, .act = NONE, .st = UP, .ocf = X(0) },
            { S(30), OK, .maintenance = 1, .act = DEGR, .st = DEGRADED },
            /* a failure while in maintenance counts as any failure */
            { S(40), COMP, .maintenance = 1, .act = RESTART, .r = X(1) },
        },
    },
    {
        "a failed cycle says nothing of maintenance: its failure is the reason, the flag is dropped",
        { { "Retry_count", "1" } },
        {
            { S(0), PART, .maintenance = 1, .act = DEGR, .st = DEGRADED, .w = X(50),
              .reason = "partial failure; weight 50 of 100" },
        },
    },
    {
        "quorum 2 of 3: one failed target is degraded, two are a failure",
        { { "quorum", "2" } },
        {
            { S(0), COMP, .targets = 3, .failed = 1, .act = DEGR, .st = DEGRADED, .w = X(0),
              .ocf = X(190), .reason = "1 of 3 targets failing, below quorum 2: not counted" },
            { S(10), PART, .targets = 3, .failed = 1, .act = DEGR, .w = X(0) },
            { S(20), OK, .targets = 3, .act = NONE, .st = UP },
            { S(30), COMP, .targets = 3, .failed = 2, .act = RESTART, .r = X(1) },
        },
    },
    {
        "an excuse follows what the state says, after \"; \"",
        { { "quorum", "2" }, { "fall", "3" } },
        {
            { S(0), COMP, .targets = 3, .failed = 3 },
            { S(10), COMP, .targets = 3, .failed = 1,
              .reason = "complete failure 1 of fall 3 in a row; 1 of 3 targets failing, below quorum 2: not counted" },
        },
    },
    {
        "a dependency's excuse follows what the state says, after \"; \"",
        { { "fall", "3" } },
        {
            { S(0), COMP },
            { S(10), COMP, .dep_all = "tcp://db:5432 down from all 3 nodes",
              .reason = "complete failure 1 of fall 3 in a row; tcp://db:5432 down from all 3 nodes: holding" },
        },
    },
    {
        "a quorum above the number of targets means all of them",
        { { "quorum", "5" } },
        {
            { S(0), COMP, .targets = 2, .failed = 1, .act = DEGR, .w = X(0), .reason = "below quorum 5" },
            { S(10), COMP, .targets = 2, .failed = 2, .act = RESTART },
        },
    },
    {
        "startup_grace: failures after the start are shown, not weighed, until the first success",
        { { "startup_grace", "30s" } },
        {
            { S(0), COMP, .act = DEGR, .st = DEGRADED, .w = X(0), .ocf = X(190),
              .reason = "failure within startup_grace (30000 ms left): not counted" },
            { S(10), COMP, .act = DEGR, .w = X(0), .reason = "20000 ms left" },
            { S(20), OK, .act = NONE, .st = UP },
            { S(25), COMP, .act = RESTART, .r = X(1) },
        },
    },
    {
        "startup_grace ends at its end at the latest, and opens again after a restart",
        { { "startup_grace", "20s" }, { "Retry_count", "1" } },
        {
            { S(0), COMP, .act = DEGR, .w = X(0) },
            { S(10), COMP, .act = DEGR, .w = X(0) },
            { S(20), COMP, .act = RESTART, .r = X(1) },
            { S(30), COMP, .act = DEGR, .w = X(0), .reason = "within startup_grace" },
            { S(50), COMP, .act = FAILOVER, .ocf = X(4) },
        },
    },
    {
        "an impaired observer holds a recovery for observer_hold, recorded as degraded, then acts",
        { { "observer_hold", "30s" }, { "Retry_count", "1" } },
        {
            { S(0), COMP, .observer = "cpu pressure 92%", .act = DEGR, .st = DEGRADED,
              .w = X(100), .r = X(0), .ocf = X(190),
              .reason = "this node is impaired (cpu pressure 92%): recovery held, 30 s of observer_hold left" },
            { S(10), COMP, .observer = "cpu pressure 95%", .act = DEGR, .r = X(0),
              .reason = "20 s of observer_hold left" },
            { S(30), COMP, .observer = "cpu pressure 95%", .act = RESTART, .r = X(1) },
            /* The observer is fine: its episode ended; the rules as ever. */
            { S(40), COMP, .act = FAILOVER, .ocf = X(4) },
        },
    },
    {
        "a dependency down from every node: failures shown, not weighed, while it lasts; then the rules",
        { { "Retry_count", "1" } },
        {
            { S(0), COMP, .dep_all = "tcp://db:5432 down from all 3 nodes", .act = DEGR, .st = DEGRADED,
              .w = X(0), .r = X(0), .ocf = X(190),
              .reason = "tcp://db:5432 down from all 3 nodes: holding" },
            /* Longer than any hold: no bound while the dependency is down. */
            { S(600), COMP, .dep_all = "tcp://db:5432 down from all 3 nodes", .act = DEGR, .w = X(0),
              .r = X(0) },
            { S(610), OK, .act = NONE, .st = UP, .w = X(0) },
            { S(620), COMP, .act = RESTART, .r = X(1) },
        },
    },
    {
        "a dependency down from this node only: a recovery due fails over at once, restarts left or not",
        { { "Retry_count", "2" } },
        {
            { S(0), PART, .dep_here = "tcp://db:5432 down from this node only", .act = DEGR, .w = X(50) },
            { S(10), PART, .dep_here = "tcp://db:5432 down from this node only", .act = FAILOVER, .r = X(0),
              .ocf = X(4), .reason = "failing over at once (tcp://db:5432 down from this node only)" },
        },
    },
    {
        "without a view of the dependency, the rules as ever",
        { { "Retry_count", "2" } },
        {
            { S(0), COMP, .act = RESTART, .r = X(1) },
        },
    },
    {
        "an impaired observer holds only a recovery: lesser failures are weighed as ever",
        { { NULL, NULL } },
        {
            { S(0), PART, .observer = "cycle started 3 s late", .act = DEGR, .w = X(50),
              .reason = "partial" },
            { S(10), PART, .observer = "cycle started 3 s late", .act = DEGR, .w = X(100),
              .reason = "this node is impaired (cycle started 3 s late)" },
            { S(20), PART, .act = RESTART, .r = X(1) },
        },
    },
    {
        "the hold counts from the first held recovery of an episode; a whole observer_hold without an impaired reading ends it",
        { { "observer_hold", "20s" } },
        {
            { S(0), COMP, .observer = "io pressure 80%", .act = DEGR, .r = X(0) },
            { S(15), OK, .act = DEGR },
            { S(25), COMP, .observer = "io pressure 80%", .act = DEGR, .r = X(0),
              .reason = "20 s of observer_hold left" },
            { S(40), COMP, .observer = "io pressure 80%", .act = DEGR, .r = X(0) },
            { S(45), COMP, .observer = "io pressure 80%", .act = RESTART, .r = X(1) },
        },
    },
    {
        "a cycle that passes within the hold does not start it afresh (a service answering now and then)",
        { { "observer_hold", "20s" } },
        {
            { S(0), COMP, .observer = "cpu pressure 70%", .act = DEGR, .r = X(0),
              .reason = "20 s of observer_hold left" },
            { S(8), OK, .act = DEGR },
            { S(10), COMP, .observer = "cpu pressure 70%", .act = DEGR, .r = X(0),
              .reason = "10 s of observer_hold left" },
            { S(20), COMP, .observer = "cpu pressure 70%", .act = RESTART, .r = X(1) },
        },
    },
    {
        "a reading under the threshold within the hold does not start it afresh (pressure hovering)",
        { { "observer_hold", "20s" }, { "Retry_count", "3" } },
        {
            { S(0), COMP, .observer = "cpu pressure 45%", .act = DEGR, .r = X(0) },
            /* read fine: the rules, a restart */
            { S(5), COMP, .act = RESTART, .r = X(1) },
            { S(12), COMP, .observer = "cpu pressure 46%", .act = DEGR, .r = X(1),
              .reason = "8 s of observer_hold left" },
            { S(20), COMP, .observer = "cpu pressure 47%", .act = RESTART, .r = X(2) },
        },
    },
    {
        "certificate expiry is not checked by default",
        { { NULL, NULL } },
        {
            { S(0), OK, .have_cert = true, .cert_days = 1, .act = NONE, .st = UP },
        },
    },
    {
        "report_degraded off answers 0 but keeps the state",
        { { "report_degraded", "off" } },
        {
            { S(0), PART, .act = NONE, .st = DEGRADED, .ocf = X(0) },
            { S(10), PART, .act = RESTART, .ocf = X(1) },
            { S(20), PART, .act = NONE, .st = DOWN },
        },
    },
    {
        "clock steps back: history is not forgotten",
        { { "Retry_count", "1" } },
        {
            { S(1000), COMP, .act = RESTART, .r = X(1) },
            { S(100), OK, .act = NONE, .st = UP, .r = X(1),
              .reason = "the clock stepped back 900 s: counted as no time" },
            { S(200), COMP, .act = FAILOVER, .r = X(1) },
        },
    },
    {
        "clock steps back: the window keeps moving, no false failover",
        { { "Retry_count", "1" } },
        {
            { S(1000), COMP, .act = RESTART, .r = X(1) },
            { S(100), OK, .act = NONE, .r = X(1) },
            { S(400), OK, .r = X(1) },
            { S(401), COMP, .act = RESTART, .r = X(1) },
        },
    },
    {
        "clock steps back: a failure leaves the window after Retry_interval of real time",
        { { NULL, NULL } },
        {
            { S(1000), PART, .w = X(50) },
            { S(990), OK, .w = X(50) },
            { S(1000), OK, .w = X(50) },
            { S(1291), OK, .w = X(0), .st = UP },
        },
    },
    {
        "clock steps forward: history ages by the step",
        { { "Retry_count", "1" } },
        {
            { S(0), COMP, .act = RESTART },
            { S(86400), COMP, .act = RESTART, .r = X(1) },
        },
    },
};

/* ---- tests outside the tables ---- */

static void
test_resume_not_held(void **state)
{
    struct fm_decide *d = decide_fixture_engine(NULL, 0);
    struct fm_decision dec;
    struct fm_decide_input in = { .cls = FM_CLASS_OK };

    fm_decide_cycle(d, S(0), &in, &dec);
    assert_int_equal(fm_decide_resume(d, S(10), &dec), EALREADY);
    assert_int_equal(dec.state, FM_STATE_UP);
    assert_non_null(strstr(dec.reason, "not held"));
    fm_decide_free(d);
}

static void
test_status_and_preview(void **state)
{
    const char *const params[][2] = { { "Retry_count", "1" } };
    struct fm_decide *d = decide_fixture_engine(params, 1);
    struct fm_decision dec;
    struct fm_decide_input part = { .cls = FM_CLASS_PARTIAL };
    struct fm_decide_input comp = { .cls = FM_CLASS_COMPLETE };
    struct fm_decide_state before;
    struct fm_decide_state after;

    fm_decide_cycle(d, S(0), &part, &dec);
    fm_decide_status(d, S(100), &dec);
    assert_int_equal(dec.weight, 50);
    assert_int_equal(dec.state, FM_STATE_DEGRADED);
    fm_decide_status(d, S(301), &dec);
    assert_int_equal(dec.weight, 0);
    assert_int_equal(dec.state, FM_STATE_UP);

    fm_decide_export(d, &before);
    fm_decide_preview(d, S(100), FM_CLASS_COMPLETE, &dec);
    assert_int_equal(dec.action, FM_ACTION_RESTART);
    fm_decide_preview(d, S(100), FM_CLASS_PARTIAL, &dec);
    assert_int_equal(dec.action, FM_ACTION_RESTART);
    fm_decide_preview(d, S(400), FM_CLASS_PARTIAL, &dec);
    assert_int_equal(dec.action, FM_ACTION_DEGRADED);
    fm_decide_export(d, &after);
    assert_memory_equal(&before, &after, sizeof(before));

    fm_decide_cycle(d, S(100), &comp, &dec);
    assert_int_equal(dec.action, FM_ACTION_RESTART);
    fm_decide_preview(d, S(160), FM_CLASS_COMPLETE, &dec);
    assert_int_equal(dec.action, FM_ACTION_FAILOVER);
    fm_decide_status(d, S(160), &dec);
    assert_int_equal(dec.restarts_in_window, 1);
    assert_int_equal(dec.state, FM_STATE_DOWN);
    fm_decide_free(d);
}

/* Retry_count at its cap: the restart ring holds exactly that many. */
static void
test_restart_cap(void **state)
{
    const char *const params[][2] = { { "Retry_count", "64" }, { "Retry_interval", "1h" },
                                      { "Thorough_probe_interval", "1" } };
    struct fm_decide *d = decide_fixture_engine(params, 3);
    struct fm_decide_input comp = { .cls = FM_CLASS_COMPLETE };
    struct fm_decision dec;

    for (int i = 0; i < FM_DECIDE_MAX_RESTARTS; i++) {
        fm_decide_cycle(d, S(i), &comp, &dec);
        assert_int_equal(dec.action, FM_ACTION_RESTART);
        assert_int_equal(dec.restarts_in_window, (uint32_t) i + 1);
    }
    fm_decide_cycle(d, S(100), &comp, &dec);
    assert_int_equal(dec.action, FM_ACTION_FAILOVER);
    assert_int_equal(dec.restarts_in_window, FM_DECIDE_MAX_RESTARTS);
    assert_non_null(strstr(dec.reason, "65 restarts within Retry_interval 3600 s exceed Retry_count 64"));
    fm_decide_free(d);
}

static void
test_interval_defaults(void **state)
{
    struct fm_decide *d = decide_fixture_engine(NULL, 0);
    struct fm_decide_input comp = { .cls = FM_CLASS_COMPLETE };
    struct fm_decision dec;

    fm_decide_cycle(d, S(0), &comp, &dec);
    assert_int_equal(dec.state, FM_STATE_DOWN);
    assert_int_equal(dec.interval_ms, 60000);
    assert_false(dec.clock_stepped_back);
    fm_decide_cycle(d, S(10), &comp, &dec);
    assert_false(dec.clock_stepped_back);
    fm_decide_cycle(d, S(5), &comp, &dec);
    assert_true(dec.clock_stepped_back);
    fm_decide_free(d);
}

/* httpmon (publish_only): recovery marks the service unhealthy; nothing
 * counts towards Retry_count, so it never turns into a failover, and no
 * reason speaks of restarts or failovers. */
static void
test_publish_only(void **state)
{
    struct fm_decide_opts o;
    struct fm_decide *d = NULL;
    struct fm_decide_input comp = { .cls = FM_CLASS_COMPLETE };
    struct fm_decide_input ok = { .cls = FM_CLASS_OK };
    struct fm_decision dec;

    fm_decide_opts_init(&o);
    o.publish_only = true;
    assert_int_equal(fm_decide_new(&o, &d), 0);
    for (int i = 0; i < 5; i++) {
        fm_decide_cycle(d, S(i * 60), &comp, &dec);
        assert_int_equal(dec.action, FM_ACTION_RESTART);
        assert_int_equal(dec.state, FM_STATE_DOWN);
        assert_int_equal(dec.restarts_in_window, 0);
        assert_string_equal(dec.reason, "complete failure, weight 100 within Retry_interval 300 s: unhealthy");
        assert_string_equal(fm_action_word(dec.action, true), "unhealthy");
    }
    fm_decide_preview(d, S(300), FM_CLASS_PARTIAL, &dec);
    assert_null(strstr(dec.reason, "restart"));
    assert_null(strstr(dec.reason, "Retry_count"));
    fm_decide_status(d, S(300), &dec);
    assert_non_null(strstr(dec.reason, "unhealthy: up again after 1 success in a row (rise)"));
    fm_decide_cycle(d, S(301), &ok, &dec);
    assert_int_equal(dec.state, FM_STATE_UP);
    fm_decide_free(d);

    /* With manual_resume: held, still no failover words. */
    o.manual_resume = true;
    assert_int_equal(fm_decide_new(&o, &d), 0);
    fm_decide_cycle(d, S(0), &comp, &dec);
    assert_int_equal(dec.state, FM_STATE_HELD);
    assert_string_equal(fm_action_word(dec.action, true), "unhealthy");
    assert_null(strstr(dec.reason, "failing over"));
    assert_non_null(strstr(dec.reason, "unhealthy, held until resumed (manual_resume)"));
    fm_decide_cycle(d, S(60), &ok, &dec);
    assert_string_equal(dec.reason, "held after a failure until resumed (manual_resume)");
    fm_decide_free(d);
    assert_string_equal(fm_action_word(FM_ACTION_RESTART, false), "restart");

    /* startup_grace: an httpmon restarts nothing, so marking the service
     * unhealthy opens no new grace: the next failure is judged at once. */
    o.manual_resume = false;
    o.startup_grace_ms = 20000;
    assert_int_equal(fm_decide_new(&o, &d), 0);
    fm_decide_cycle(d, S(0), &ok, &dec);                /* up: the grace is over */
    fm_decide_cycle(d, S(10), &comp, &dec);
    assert_int_equal(dec.action, FM_ACTION_RESTART);
    fm_decide_cycle(d, S(20), &ok, &dec);
    assert_int_equal(dec.state, FM_STATE_UP);
    fm_decide_cycle(d, S(30), &comp, &dec);
    assert_int_equal(dec.action, FM_ACTION_RESTART);
    assert_null(strstr(dec.reason, "startup_grace"));
    fm_decide_free(d);

    /* Nor does a failover (the service starts elsewhere, not here). */
    fm_decide_opts_init(&o);
    o.startup_grace_ms = 20000;
    o.retry_count = 0;
    assert_int_equal(fm_decide_new(&o, &d), 0);
    fm_decide_cycle(d, S(0), &ok, &dec);
    fm_decide_cycle(d, S(10), &comp, &dec);
    assert_int_equal(dec.action, FM_ACTION_FAILOVER);
    fm_decide_cycle(d, S(20), &comp, &dec);
    assert_null(strstr(dec.reason, "startup_grace"));
    fm_decide_free(d);
}

int
main(void)
{
    struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0]) + 16];
    size_t n = 0;
    static const struct CMUnitTest others[] = {
        cmocka_unit_test(test_resume_not_held),
        cmocka_unit_test(test_status_and_preview),
        cmocka_unit_test(test_restart_cap),
        cmocka_unit_test(test_interval_defaults),
        cmocka_unit_test(test_publish_only),
    };

    n = decide_fixture_case_tests(cases, sizeof(cases) / sizeof(cases[0]), tests);
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        tests[n++] = others[i];
    }
    return _cmocka_run_group_tests("decide_engine", tests, n, NULL, NULL);
}
