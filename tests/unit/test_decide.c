/*
 * Unit tests of the decision engine (src/decide/decide.c), with a fake clock: every
 * time is a number in the test's tables, nothing sleeps.
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

#define S(sec) ((uint64_t) (sec) * UINT64_C(1000000))
#define X(v) ((int64_t) (v) + 1)

enum ev {
    END = 0,
    OK,
    PART,
    COMP,
    RESUME,
    RFAIL,
};

struct step {
    uint64_t t_us;
    enum ev ev;
    uint32_t latency_ms;            /* 0: none */
    bool have_cert;
    int64_t cert_days;
    int64_t act;                    /* X(enum fm_action) */
    int64_t st;                     /* X(enum fm_state) */
    int64_t w;                      /* X(weight) */
    int64_t r;                      /* X(restarts in window) */
    int64_t iv_ms;                  /* X(interval) */
    int64_t ocf;                    /* X(OCF exit code) */
    const char *reason;             /* must occur in the reason */
};

#define MAX_STEPS 24

struct tcase {
    const char *name;
    const char *params[8][2];
    struct step steps[MAX_STEPS];
};

#define RESTART X(FM_ACTION_RESTART)
#define FAILOVER X(FM_ACTION_FAILOVER)
#define NONE X(FM_ACTION_NONE)
#define DEGR X(FM_ACTION_DEGRADED)
#define UP X(FM_STATE_UP)
#define DOWN X(FM_STATE_DOWN)
#define DEGRADED X(FM_STATE_DEGRADED)
#define FLAPPING X(FM_STATE_FLAPPING)
#define HELD X(FM_STATE_HELD)

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
              .reason = "partial failure; weight 50 of 100 within Retry_interval 300 s" },
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
        "adaptive: 3 latency misses in a row count as a complete failure",
        { { "adaptive_limit_ms", "100" } },
        {
            { S(0), OK, 10, .act = NONE },
            { S(60), OK, 10, .act = NONE },
            { S(120), OK, 10, .act = NONE },
            { S(180), OK, 200, .act = DEGR, .st = DEGRADED, .w = X(0),
              .reason = "latency miss 1 of 3" },
            { S(240), OK, 200, .act = DEGR, .st = DEGRADED, .reason = "latency miss 2 of 3" },
            { S(300), OK, 200, .act = RESTART, .w = X(100),
              .reason = "3 latency misses in a row, weight 100" },
        },
    },
    {
        "adaptive: a fast probe ends the streak of misses",
        { { "adaptive_limit_ms", "100" } },
        {
            { S(0), OK, 10 }, { S(60), OK, 10 }, { S(120), OK, 10 },
            { S(180), OK, 200, .st = DEGRADED },
            { S(240), OK, 200, .st = DEGRADED },
            { S(300), OK, 10, .act = NONE, .st = UP },
            { S(360), OK, 200, .act = DEGR, .reason = "latency miss 1 of 3" },
        },
    },
    {
        "adaptive: a failed cycle ends the streak (counted once, as a failure)",
        { { "adaptive_limit_ms", "100" } },
        {
            { S(0), OK, 10 }, { S(60), OK, 10 }, { S(120), OK, 10 },
            { S(180), OK, 200, .st = DEGRADED },
            { S(240), OK, 200, .st = DEGRADED },
            { S(250), PART, .act = DEGR, .w = X(50) },
            { S(300), OK, 200, .act = DEGR, .w = X(50), .reason = "latency miss 1 of 3" },
        },
    },
    {
        "adaptive: relative limit in percent",
        { { "adaptive_limit_pct", "50" } },
        {
            { S(0), OK, 100 }, { S(60), OK, 100 }, { S(120), OK, 100 },
            { S(180), OK, 160, .act = DEGR, .st = DEGRADED, .reason = "by more than 50 %" },
            { S(240), OK, 140, .act = NONE, .st = UP },
        },
    },
    {
        "adaptive: fewer than 3 samples are not judged",
        { { "adaptive_limit_ms", "10" } },
        {
            { S(0), OK, 10, .act = NONE },
            { S(60), OK, 1000, .act = NONE, .st = UP },
            { S(120), OK, 1000, .act = NONE, .st = UP },
            { S(180), OK, 5000, .act = DEGR, .st = DEGRADED },
        },
    },
    {
        "adaptive: off unless a limit is set",
        { { NULL, NULL } },
        {
            { S(0), OK, 10 }, { S(60), OK, 10 }, { S(120), OK, 10 },
            { S(180), OK, 10000, .act = NONE, .st = UP },
            { S(240), OK, 10000, .act = NONE, .st = UP },
            { S(300), OK, 10000, .act = NONE, .st = UP },
        },
    },
    {
        "adaptive: samples older than adaptive_window leave the mean",
        { { "adaptive_limit_ms", "50" }, { "adaptive_window", "60" },
          { "Thorough_probe_interval", "10" } },
        {
            { S(0), OK, 1000 }, { S(10), OK, 1000 }, { S(20), OK, 1000 },
            { S(30), OK, 1000, .act = NONE },
            { S(100), OK, 100, .act = NONE },
            { S(110), OK, 100, .act = NONE },
            { S(120), OK, 100, .act = NONE },
            { S(130), OK, 100, .act = NONE },
            { S(140), OK, 200, .act = DEGR, .reason = "mean 100 ms" },
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

static void
apply(struct fm_decide *d, const struct step *s, struct fm_decision *dec)
{
    struct fm_decide_input in = { .cls = FM_CLASS_OK };

    switch (s->ev) {
        case RESUME:
            (void) fm_decide_resume(d, s->t_us, dec);
            return;
        case RFAIL:
            fm_decide_restart_failed(d, s->t_us, dec);
            return;
        case PART:
            in.cls = FM_CLASS_PARTIAL;
            break;
        case COMP:
            in.cls = FM_CLASS_COMPLETE;
            break;
        case OK:
        case END:
            break;
    }
    in.have_latency = (s->latency_ms > 0);
    in.latency_us = (uint64_t) s->latency_ms * 1000;
    in.have_cert = s->have_cert;
    in.cert_left_s = s->cert_days * 86400;
    fm_decide_cycle(d, s->t_us, &in, dec);
}

static struct fm_decide *
new_engine(const char *const params[][2], size_t n_params)
{
    struct fm_decide_opts o;
    struct fm_decide *d = NULL;
    char err[256] = "";

    fm_decide_opts_init(&o);
    for (size_t i = 0; (i < n_params) && (params[i][0] != NULL); i++) {
        if (fm_decide_opts_set(&o, params[i][0], params[i][1], err, sizeof(err)) != 0) {
            fail_msg("%s=%s: %s", params[i][0], params[i][1], err);
        }
    }
    if (fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0) != 0) {
        fail_msg("validate: %s", err);
    }
    assert_int_equal(fm_decide_new(&o, &d), 0);
    return d;
}

static void
check(const char *what, size_t i, int64_t expected, int64_t got, const char *reason)
{
    if ((expected != 0) && (expected - 1 != got)) {
        fail_msg("step %zu: %s is %" PRId64 ", expected %" PRId64 " (reason: %s)", i, what,
                 got, expected - 1, reason);
    }
}

static void
run_case(void **state)
{
    const struct tcase *tc = *state;
    struct fm_decide *d = new_engine(tc->params, sizeof(tc->params) / sizeof(tc->params[0]));

    for (size_t i = 0; (i < MAX_STEPS) && (tc->steps[i].ev != END); i++) {
        const struct step *s = &tc->steps[i];
        struct fm_decision dec;

        apply(d, s, &dec);
        check("action", i, s->act, dec.action, dec.reason);
        check("state", i, s->st, dec.state, dec.reason);
        check("weight", i, s->w, dec.weight, dec.reason);
        check("restarts", i, s->r, dec.restarts_in_window, dec.reason);
        check("interval_ms", i, s->iv_ms, (int64_t) dec.interval_ms, dec.reason);
        check("OCF exit code", i, s->ocf, fm_decide_ocf_rc(&dec), dec.reason);
        if ((s->reason != NULL) && (strstr(dec.reason, s->reason) == NULL)) {
            fail_msg("step %zu: reason \"%s\" lacks \"%s\"", i, dec.reason, s->reason);
        }
        if (strchr(dec.reason, '\n') != NULL) {
            fail_msg("step %zu: reason is not one line", i);
        }
    }
    fm_decide_free(d);
}

/* ---- tests outside the tables ---- */

static void
test_ocf_mapping(void **state)
{
    struct fm_decision dec;

    memset(&dec, 0, sizeof(dec));
    dec.action = FM_ACTION_NONE;
    assert_int_equal(fm_decide_ocf_rc(&dec), PCMK_OCF_OK);
    dec.action = FM_ACTION_RESTART;
    assert_int_equal(fm_decide_ocf_rc(&dec), PCMK_OCF_UNKNOWN_ERROR);
    assert_int_equal(fm_decide_ocf_rc(&dec), 1);
    dec.action = FM_ACTION_FAILOVER;
    assert_int_equal(fm_decide_ocf_rc(&dec), PCMK_OCF_INSUFFICIENT_PRIV);
    assert_int_equal(fm_decide_ocf_rc(&dec), 4);
    dec.action = FM_ACTION_DEGRADED;
    assert_int_equal(fm_decide_ocf_rc(&dec), PCMK_OCF_DEGRADED);
    assert_int_equal(fm_decide_ocf_rc(&dec), 190);

    assert_string_equal(fm_action_name(FM_ACTION_FAILOVER), "failover");
    assert_string_equal(fm_state_name(FM_STATE_HELD), "held");
    assert_string_equal(fm_state_name(FM_STATE_FLAPPING), "flapping");
}

struct opt_case {
    const char *name;
    const char *value;
    int rc;
    const char *err_part;           /* for errors: must occur in the message */
};

static void
test_opts_set(void **state)
{
    static const struct opt_case opt_cases[] = {
        { "Retry_count", "2", 0, NULL },
        { "retry-count", "64", 0, NULL },
        { "RETRY_COUNT", "0", 0, NULL },
        { "Retry_count", "65", EINVAL, "invalid value '65' for Retry_count" },
        { "Retry_count", "-1", EINVAL, "'-1' for Retry_count" },
        { "Retry_count", "2x", EINVAL, "'2x'" },
        { "Retry_count", "", EINVAL, "for Retry_count" },
        { "Retry_interval", "300", 0, NULL },
        { "Retry_interval", "300s", 0, NULL },
        { "Retry_interval", "5m", 0, NULL },
        { "Retry_interval", "1h", 0, NULL },
        { "Retry_interval", "500ms", EINVAL, "'500ms' for Retry_interval" },
        { "Retry_interval", "0", EINVAL, "Retry_interval" },
        { "Retry_interval", "5 m", EINVAL, "'5 m'" },
        { "Retry_interval", "5d", EINVAL, "'5d'" },
        { "Thorough_probe_interval", "500ms", 0, NULL },
        { "Thorough_probe_interval", "99ms", EINVAL, "Thorough_probe_interval" },
        { "down_interval", "0", 0, NULL },
        { "flapping_interval", "10", 0, NULL },
        { "Probe_timeout", "30s", 0, NULL },
        { "rise", "0", EINVAL, "'0' for rise" },
        { "fall", "100", 0, NULL },
        { "fall", "101", EINVAL, "fall" },
        { "manual_resume", "yes", 0, NULL },
        { "manual_resume", "maybe", EINVAL, "'maybe' for manual_resume" },
        { "adaptive", "off", 0, NULL },
        { "adaptive_limit_ms", "200", 0, NULL },
        { "adaptive_limit_ms", "1s", 0, NULL },
        { "adaptive_limit_pct", "50", 0, NULL },
        { "adaptive_window", "5m", 0, NULL },
        { "adaptive_window", "5s", EINVAL, "adaptive_window" },
        { "adaptive_misses", "0", EINVAL, "adaptive_misses" },
        { "cert_warn_days", "14", 0, NULL },
        { "report_degraded", "0", 0, NULL },
        { "no_such_thing", "1", ENOENT, "unknown parameter 'no_such_thing'" },
        { "Retry_count", "1\n2", EINVAL, "\\x0a" },
    };
    struct fm_decide_opts o;
    char err[256];

    for (size_t i = 0; i < sizeof(opt_cases) / sizeof(opt_cases[0]); i++) {
        const struct opt_case *c = &opt_cases[i];
        int rc = 0;

        fm_decide_opts_init(&o);
        err[0] = '\0';
        rc = fm_decide_opts_set(&o, c->name, c->value, err, sizeof(err));
        if (rc != c->rc) {
            fail_msg("%s=%s: rc %d, expected %d (%s)", c->name, c->value, rc, c->rc, err);
        }
        if ((c->err_part != NULL) && (strstr(err, c->err_part) == NULL)) {
            fail_msg("%s=%s: message \"%s\" lacks \"%s\"", c->name, c->value, err, c->err_part);
        }
        if (strchr(err, '\n') != NULL) {
            fail_msg("%s: message is not one line", c->name);
        }
    }

    /* Values land in the right units. */
    fm_decide_opts_init(&o);
    assert_int_equal(fm_decide_opts_set(&o, "Retry_interval", "5m", err, sizeof(err)), 0);
    assert_int_equal(o.retry_interval_ms, 300000);
    assert_int_equal(fm_decide_opts_set(&o, "Thorough_probe_interval", "500ms", err, sizeof(err)), 0);
    assert_int_equal(o.interval_up_ms, 500);
    assert_int_equal(fm_decide_opts_set(&o, "adaptive_limit_ms", "200", err, sizeof(err)), 0);
    assert_int_equal(o.adaptive_limit_ms, 200);
    assert_int_equal(fm_decide_opts_set(&o, "adaptive_limit_ms", "2s", err, sizeof(err)), 0);
    assert_int_equal(o.adaptive_limit_ms, 2000);
    assert_true(fm_decide_opts_adaptive(&o));
    assert_int_equal(fm_decide_opts_set(&o, "adaptive", "no", err, sizeof(err)), 0);
    assert_false(fm_decide_opts_adaptive(&o));
}

static void
test_opts_defaults(void **state)
{
    struct fm_decide_opts o;
    size_t n = 0;
    const struct fm_decide_param *params = fm_decide_params(&n);
    char err[256];
    char warn[256];

    fm_decide_opts_init(&o);
    assert_int_equal(o.retry_count, 2);
    assert_int_equal(o.retry_interval_ms, 300000);
    assert_int_equal(o.interval_up_ms, 60000);
    assert_int_equal(o.rise, 1);
    assert_int_equal(o.fall, 1);
    assert_false(o.manual_resume);
    assert_false(fm_decide_opts_adaptive(&o));
    assert_int_equal(o.cert_warn_days, 0);
    assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), warn, sizeof(warn)), 0);
    assert_string_equal(warn, "");

    /* Every documented parameter is accepted with its default. */
    assert_true(n >= 14);
    for (size_t i = 0; i < n; i++) {
        char value[64];

        snprintf(value, sizeof(value), "%s", params[i].default_text);
        value[strcspn(value, " ")] = '\0';
        if (strcmp(params[i].name, "adaptive") == 0) {
            continue;   /* its default is "on if a limit is set" */
        }
        fm_decide_opts_init(&o);
        if (fm_decide_opts_set(&o, params[i].name, value, err, sizeof(err)) != 0) {
            fail_msg("default of %s: %s", params[i].name, err);
        }
    }
}

static void
test_opts_validate(void **state)
{
    struct fm_decide_opts o;
    char err[256];
    char warn[256];

    fm_decide_opts_init(&o);
    assert_int_equal(fm_decide_opts_set(&o, "adaptive", "on", err, sizeof(err)), 0);
    assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), warn, sizeof(warn)), EINVAL);
    assert_non_null(strstr(err, "adaptive_limit_ms"));

    /* Sun's rule of thumb: Retry_interval >= 2 x Retry_count x (interval + timeout). */
    fm_decide_opts_init(&o);
    assert_int_equal(fm_decide_opts_set(&o, "Retry_interval", "200", err, sizeof(err)), 0);
    assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), warn, sizeof(warn)), 0);
    assert_non_null(strstr(warn, "Retry_interval 200 s is shorter"));

    fm_decide_opts_init(&o);
    assert_int_equal(fm_decide_opts_set(&o, "Retry_count", "0", err, sizeof(err)), 0);
    assert_int_equal(fm_decide_opts_set(&o, "Retry_interval", "30", err, sizeof(err)), 0);
    assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), warn, sizeof(warn)), 0);
    assert_non_null(strstr(warn, "two partial failures can never add up"));

    /* Options built in code are range-checked too. */
    fm_decide_opts_init(&o);
    o.rise = 0;
    assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0), EINVAL);
    assert_string_equal(err, "rise 0 is outside 1..100");
    {
        struct fm_decide *d = NULL;

        assert_int_equal(fm_decide_new(&o, &d), EINVAL);
        assert_null(d);
    }
}

static void
test_resume_not_held(void **state)
{
    struct fm_decide *d = new_engine(NULL, 0);
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
    struct fm_decide *d = new_engine(params, 1);
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

/* An engine restarted from its exported state decides as if never stopped. */
static void
test_export_import_roundtrip(void **state)
{
    static const struct step timeline[] = {
        { S(0), PART }, { S(10), COMP }, { S(20), OK }, { S(30), PART },
        /* stop and restart here */
        { S(90), COMP }, { S(100), COMP }, { S(110), OK }, { S(120), PART }, { S(130), PART },
    };
    const size_t split = 4;
    const char *const params[][2] = { { "Retry_count", "2" }, { "fall", "1" } };
    struct fm_decide *whole = new_engine(params, 2);
    struct fm_decide *first = new_engine(params, 2);
    struct fm_decide *second = new_engine(params, 2);
    struct fm_decide_state st;
    struct fm_decision a;
    struct fm_decision b;
    char err[256] = "";

    for (size_t i = 0; i < sizeof(timeline) / sizeof(timeline[0]); i++) {
        apply(whole, &timeline[i], &a);
        if (i < split) {
            apply(first, &timeline[i], &b);
            if (i == split - 1) {
                fm_decide_export(first, &st);
                if (fm_decide_import(second, &st, S(60), err, sizeof(err)) != 0) {
                    fail_msg("import: %s", err);
                }
            }
        } else {
            apply(second, &timeline[i], &b);
        }
        assert_int_equal(a.action, b.action);
        assert_int_equal(a.state, b.state);
        assert_int_equal(a.weight, b.weight);
        assert_int_equal(a.restarts_in_window, b.restarts_in_window);
    }
    assert_int_equal(a.action, FM_ACTION_FAILOVER);
    fm_decide_free(whole);
    fm_decide_free(first);
    fm_decide_free(second);
}

struct import_case {
    const char *name;
    void (*mutate)(struct fm_decide_state *s);
    const char *err_part;
};

static void m_version(struct fm_decide_state *s) { s->version = 2; }
static void m_neg_failures(struct fm_decide_state *s) { s->n_failures = -1; }
static void m_many_failures(struct fm_decide_state *s) { s->n_failures = FM_DECIDE_MAX_FAILURES + 1; }
static void m_neg_restarts(struct fm_decide_state *s) { s->n_restarts = -3; }
static void m_many_restarts(struct fm_decide_state *s) { s->n_restarts = 1000; }
static void m_neg_time(struct fm_decide_state *s) { s->restart_us[0] = -5; }
static void m_later_than_clock(struct fm_decide_state *s) { s->restart_us[1] = s->clock_us + 1; }
static void m_out_of_order(struct fm_decide_state *s) { s->restart_us[0] = s->restart_us[1] + 1; }
static void m_bad_weight(struct fm_decide_state *s) { s->failure_weight[0] = 70; }
static void m_weight_sum(struct fm_decide_state *s)
{
    s->n_failures = 2;
    s->failure_us[1] = s->failure_us[0];
    s->failure_weight[1] = 50;
}
static void m_held_not_down(struct fm_decide_state *s) { s->held = 1; s->down = 0; }
static void m_down_two(struct fm_decide_state *s) { s->down = 2; }
static void m_future(struct fm_decide_state *s) { s->last_now_us = (int64_t) S(10000); }
static void m_neg_clock(struct fm_decide_state *s) { s->clock_us = -1; }
static void m_neg_streak(struct fm_decide_state *s) { s->ok_streak = -1; }
static void m_worst_mismatch(struct fm_decide_state *s) { s->fail_streak = 0; s->fail_worst = 2; }
static void m_bad_action(struct fm_decide_state *s) { s->last_action = 3; }
static void m_no_time(struct fm_decide_state *s) { s->have_time = 0; }

/* A state with two restarts and one partial failure, at clock 200 s. */
static void
sample_state(struct fm_decide_state *st)
{
    const char *const params[][2] = { { "Retry_count", "5" } };
    struct fm_decide *d = new_engine(params, 1);
    struct fm_decide_input comp = { .cls = FM_CLASS_COMPLETE };
    struct fm_decide_input part = { .cls = FM_CLASS_PARTIAL };
    struct fm_decision dec;

    fm_decide_cycle(d, S(100), &comp, &dec);
    fm_decide_cycle(d, S(150), &comp, &dec);
    fm_decide_cycle(d, S(200), &part, &dec);
    fm_decide_export(d, st);
    assert_int_equal(st->n_restarts, 2);
    assert_int_equal(st->n_failures, 1);
    fm_decide_free(d);
}

static void
test_import_rejects(void **state)
{
    static const struct import_case import_cases[] = {
        { "version", m_version, "version" },
        { "negative failure count", m_neg_failures, "n_failures" },
        { "too many failures", m_many_failures, "n_failures" },
        { "negative restart count", m_neg_restarts, "n_restarts" },
        { "too many restarts", m_many_restarts, "n_restarts" },
        { "negative time", m_neg_time, "restart_us[0]" },
        { "record after the clock", m_later_than_clock, "restart_us[1]" },
        { "records out of order", m_out_of_order, "restart_us" },
        { "weight not 50 or 100", m_bad_weight, "failure_weight[0] 70" },
        { "weights add up to 100", m_weight_sum, "add up to 100" },
        { "held without down", m_held_not_down, "held without down" },
        { "down not 0 or 1", m_down_two, "0 or 1" },
        { "last input far in the future", m_future, "future" },
        { "negative clock", m_neg_clock, "negative" },
        { "negative streak", m_neg_streak, "streak" },
        { "worst failure without a streak", m_worst_mismatch, "fail_worst" },
        { "last action not a recovery", m_bad_action, "last_action" },
        { "history without a time", m_no_time, "without a time" },
    };
    struct fm_decide_state good;
    struct fm_decide_state bad;
    struct fm_decide_state kept;
    struct fm_decide_state again;
    struct fm_decide *d = NULL;
    char err[256];

    sample_state(&good);
    d = new_engine(NULL, 0);
    assert_int_equal(fm_decide_import(d, &good, S(200), err, sizeof(err)), 0);
    fm_decide_export(d, &kept);
    for (size_t i = 0; i < sizeof(import_cases) / sizeof(import_cases[0]); i++) {
        const struct import_case *c = &import_cases[i];

        bad = good;
        c->mutate(&bad);
        err[0] = '\0';
        if (fm_decide_import(d, &bad, S(200), err, sizeof(err)) != EINVAL) {
            fail_msg("%s: accepted", c->name);
        }
        if (strstr(err, c->err_part) == NULL) {
            fail_msg("%s: message \"%s\" lacks \"%s\"", c->name, err, c->err_part);
        }
        /* A rejected state leaves the engine as it was. */
        fm_decide_export(d, &again);
        assert_memory_equal(&kept, &again, sizeof(kept));
    }
    fm_decide_free(d);
}

static void
test_import_edges(void **state)
{
    struct fm_decide_state st;
    struct fm_decision dec;
    struct fm_decide *d = NULL;
    struct fm_decide_input comp = { .cls = FM_CLASS_COMPLETE };
    char err[256];

    /* Written up to FM_DECIDE_IMPORT_SLACK_US "in the future": accepted,
     * and the next input counts as a clock step back. */
    sample_state(&st);
    d = new_engine(NULL, 0);
    assert_int_equal(fm_decide_import(d, &st, S(200) - FM_DECIDE_IMPORT_SLACK_US, err,
                                      sizeof(err)), 0);
    assert_int_equal(fm_decide_import(d, &st, S(200) - FM_DECIDE_IMPORT_SLACK_US - 1, err,
                                      sizeof(err)), EINVAL);
    fm_decide_free(d);

    /* The restarts persisted are counted after a restart of the loop. */
    sample_state(&st);
    {
        const char *const params[][2] = { { "Retry_count", "2" } };

        d = new_engine(params, 1);
    }
    assert_int_equal(fm_decide_import(d, &st, S(210), err, sizeof(err)), 0);
    fm_decide_cycle(d, S(220), &comp, &dec);
    assert_int_equal(dec.action, FM_ACTION_FAILOVER);
    fm_decide_free(d);

    /* Held, imported after manual_resume was switched off: down, not held. */
    {
        const char *const params[][2] = { { "manual_resume", "true" } };
        struct fm_decide *held = new_engine(params, 1);

        fm_decide_cycle(held, S(0), &comp, &dec);
        assert_int_equal(dec.state, FM_STATE_HELD);
        fm_decide_export(held, &st);
        fm_decide_free(held);
    }
    d = new_engine(NULL, 0);
    assert_int_equal(fm_decide_import(d, &st, S(1), err, sizeof(err)), 0);
    fm_decide_status(d, S(1), &dec);
    assert_int_equal(dec.state, FM_STATE_DOWN);
    fm_decide_free(d);

    /* fall lowered since the state was written: the streak is cut. */
    {
        const char *const params[][2] = { { "fall", "5" } };
        struct fm_decide *f5 = new_engine(params, 1);

        for (int i = 0; i < 4; i++) {
            fm_decide_cycle(f5, S(i), &comp, &dec);
        }
        assert_int_equal(dec.fail_streak, 4);
        fm_decide_export(f5, &st);
        fm_decide_free(f5);
    }
    {
        const char *const params[][2] = { { "fall", "2" } };

        d = new_engine(params, 1);
    }
    assert_int_equal(fm_decide_import(d, &st, S(4), err, sizeof(err)), 0);
    fm_decide_status(d, S(4), &dec);
    assert_int_equal(dec.fail_streak, 1);
    fm_decide_cycle(d, S(5), &comp, &dec);
    assert_int_equal(dec.action, FM_ACTION_RESTART);
    fm_decide_free(d);
}

/* Retry_count at its cap: the restart ring holds exactly that many. */
static void
test_restart_cap(void **state)
{
    const char *const params[][2] = { { "Retry_count", "64" }, { "Retry_interval", "1h" },
                                      { "Thorough_probe_interval", "1" } };
    struct fm_decide *d = new_engine(params, 3);
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

/* More samples than the ring holds: the mean covers the newest ones. */
static void
test_sample_cap(void **state)
{
    const char *const params[][2] = { { "adaptive_limit_ms", "1000" } };
    struct fm_decide *d = new_engine(params, 1);
    struct fm_decide_input in = { .cls = FM_CLASS_OK, .have_latency = true };
    struct fm_decision dec;
    uint64_t t = 0;

    /* 100 samples of 900 ms, then FM_DECIDE_MAX_SAMPLES of 100 ms, all
     * within the 300 s window. */
    for (int i = 0; i < 100; i++, t += 100000) {
        in.latency_us = 900000;
        fm_decide_cycle(d, t, &in, &dec);
    }
    for (int i = 0; i < FM_DECIDE_MAX_SAMPLES; i++, t += 100000) {
        in.latency_us = 100000;
        fm_decide_cycle(d, t, &in, &dec);
    }
    fm_decide_status(d, t, &dec);
    assert_true(dec.have_mean);
    assert_int_equal(dec.mean_latency_us, 100000);
    fm_decide_free(d);
}

static void
test_interval_defaults(void **state)
{
    struct fm_decide *d = new_engine(NULL, 0);
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
}

int
main(void)
{
    struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0]) + 16];
    size_t n = 0;
    static const struct CMUnitTest others[] = {
        cmocka_unit_test(test_ocf_mapping),
        cmocka_unit_test(test_opts_set),
        cmocka_unit_test(test_opts_defaults),
        cmocka_unit_test(test_opts_validate),
        cmocka_unit_test(test_resume_not_held),
        cmocka_unit_test(test_status_and_preview),
        cmocka_unit_test(test_export_import_roundtrip),
        cmocka_unit_test(test_import_rejects),
        cmocka_unit_test(test_import_edges),
        cmocka_unit_test(test_restart_cap),
        cmocka_unit_test(test_sample_cap),
        cmocka_unit_test(test_interval_defaults),
        cmocka_unit_test(test_publish_only),
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tests[n] = (struct CMUnitTest) {
            .name = cases[i].name,
            .test_func = run_case,
            .initial_state = (void *) &cases[i],
        };
        n++;
    }
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        tests[n++] = others[i];
    }
    return _cmocka_run_group_tests("decide", tests, n, NULL, NULL);
}
