/*
 * Shared by the decision engine's unit tests (test_decide_engine.c,
 * test_decide_persist.c): a fake clock in seconds, timeline steps and an
 * engine built from agent-style parameters.
 */
#ifndef FAULTMON_TEST_DECIDE_FIXTURE_H
#define FAULTMON_TEST_DECIDE_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    int64_t act;                    /* X(enum fm_action) */
    int64_t st;                     /* X(enum fm_state) */
    int64_t w;                      /* X(weight) */
    int64_t r;                      /* X(restarts in window) */
    int64_t iv_ms;                  /* X(interval) */
    int64_t ocf;                    /* X(OCF exit code) */
    const char *reason;             /* must occur in the reason */
};

/*!
 * \brief Feed \p s to \p d as the event it names, at its time.
 */
void decide_fixture_apply(struct fm_decide *d, const struct step *s, struct fm_decision *dec);

/*!
 * \brief An engine with the defaults and \p params ({ name, value } pairs, up
 *        to \p n_params or the first NULL name); fails the test on a bad one.
 */
struct fm_decide *decide_fixture_engine(const char *const params[][2], size_t n_params);

#endif
