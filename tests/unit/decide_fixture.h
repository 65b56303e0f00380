/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the decision engine's unit tests (test_decide_engine.c,
 * test_decide_adaptive.c, test_decide_persist.c): a fake clock in seconds,
 * timelines of steps with what the engine must answer to each, and an
 * engine built from agent-style parameters.
 */
#ifndef FAULTMON_TEST_DECIDE_FIXTURE_H
#define FAULTMON_TEST_DECIDE_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* One input of a timeline, and (in the engine's tables) what the engine
 * must answer to it. */
struct step {
    uint64_t t_us;
    enum ev ev;
    uint32_t latency_ms;            /* 0: none */
    bool have_cert;
    int64_t cert_days;
    unsigned maintenance;       /* targets that signal maintenance */
    unsigned targets;           /* the cycle's targets (0: unknown) */
    unsigned failed;            /* of which failed */
    const char *observer;       /* the observer's impairment, NULL: fine */
    const char *dep_all;        /* a dependency down from every node */
    const char *dep_here;       /* a dependency down from this node only */
    const char *overloaded;     /* the status page's "all N workers busy" */
    int64_t act;                    /* X(enum fm_action) */
    int64_t st;                     /* X(enum fm_state) */
    int64_t w;                      /* X(weight) */
    int64_t r;                      /* X(restarts in window) */
    int64_t iv_ms;                  /* X(interval) */
    int64_t ocf;                    /* X(OCF exit code) */
    const char *reason;             /* must occur in the reason */
};

#define MAX_STEPS 24

/* A timeline: the parameters of the engine, then its steps up to END. */
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

/*!
 * \brief Feed \p s to \p d as the event it names, at its time.
 */
void decide_fixture_apply(struct fm_decide *d, const struct step *s, struct fm_decision *dec);

/*!
 * \brief An engine with the defaults and \p params ({ name, value } pairs, up
 *        to \p n_params or the first NULL name); fails the test on a bad one.
 */
struct fm_decide *decide_fixture_engine(const char *const params[][2], size_t n_params);

/*!
 * \brief A cmocka test for each timeline of \p cases: each step is fed to a
 *        fresh engine and what it answers is checked (the OCF code too).
 *
 * \param[in]  cases    timelines, kept (the tests point into them)
 * \param[in]  n_cases  how many
 * \param[out] tests    room for \p n_cases tests
 * \return \p n_cases
 */
size_t decide_fixture_case_tests(const struct tcase *cases, size_t n_cases,
                                 struct CMUnitTest *tests);

#endif
