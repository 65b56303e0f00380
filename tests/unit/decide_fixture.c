/*
 * The decision engine's unit-test fixture (see decide_fixture.h).
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "decide_fixture.h"

void
decide_fixture_apply(struct fm_decide *d, const struct step *s, struct fm_decision *dec)
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

struct fm_decide *
decide_fixture_engine(const char *const params[][2], size_t n_params)
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
