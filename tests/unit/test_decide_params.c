/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the decision engine's parameters (src/decide/params.c): the
 * table, parsing each kind, and the checks of options built in code.
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
#include <faultmon/probe_opts.h>    /* FM_DEFAULT_TIMEOUT_MS */

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
    assert_int_equal(o.probe_timeout_ms, FM_DEFAULT_TIMEOUT_MS);
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

/* The table's default texts and fm_decide_opts_init() agree: setting each
 * parameter to its documented default changes nothing. */
static void
test_defaults_agree(void **state)
{
    size_t n = 0;
    const struct fm_decide_param *params = fm_decide_params(&n);

    for (size_t i = 0; i < n; i++) {
        struct fm_decide_opts init;
        struct fm_decide_opts set;
        char value[64];
        char err[256] = "";

        if (params[i].kind == FM_DECIDE_PARAM_AUTO_FLAG) {
            continue;   /* "on if a limit is set": unset, -1 */
        }
        snprintf(value, sizeof(value), "%s", params[i].default_text);
        value[strcspn(value, " ")] = '\0';
        fm_decide_opts_init(&init);
        fm_decide_opts_init(&set);
        if (fm_decide_opts_set(&set, params[i].name, value, err, sizeof(err)) != 0) {
            fail_msg("default of %s: %s", params[i].name, err);
        }
        if (memcmp(&init, &set, sizeof(init)) != 0) {
            fail_msg("default of %s: '%s' is not what fm_decide_opts_init() sets",
                     params[i].name, value);
        }
    }
}

/* Store \p v in the field of \p p (a count or a duration). */
static void
set_field(struct fm_decide_opts *o, const struct fm_decide_param *p, uint64_t v)
{
    void *field = (char *) o + p->offset;

    if (p->kind == FM_DECIDE_PARAM_COUNT) {
        *(uint32_t *) field = (uint32_t) v;
    } else {
        *(uint64_t *) field = v;
    }
}

/* Options built in code: every count and duration is accepted at its
 * bounds and refused just outside them, by a message that names it. */
static void
test_validate_each_range(void **state)
{
    size_t n = 0;
    const struct fm_decide_param *params = fm_decide_params(&n);
    struct fm_decide_opts o;
    char err[256];

    for (size_t i = 0; i < n; i++) {
        const struct fm_decide_param *p = &params[i];
        uint64_t min = ((p->flags & FM_DECIDE_PARAM_CODE_MIN_1) != 0)? 1 : p->min;

        if ((p->kind != FM_DECIDE_PARAM_COUNT) && (p->kind != FM_DECIDE_PARAM_DURATION)) {
            continue;
        }
        fm_decide_opts_init(&o);
        set_field(&o, p, p->max);
        if (fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0) != 0) {
            fail_msg("%s at its maximum: %s", p->name, err);
        }
        set_field(&o, p, min);
        if (fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0) != 0) {
            fail_msg("%s at its minimum: %s", p->name, err);
        }
        set_field(&o, p, p->max + 1);
        assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0), EINVAL);
        assert_int_equal(strncmp(err, p->name, strlen(p->name)), 0);
        if ((min > 0) && !((min == 1) && ((p->flags & FM_DECIDE_PARAM_ZERO_OK) != 0))) {
            set_field(&o, p, min - 1);
            assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0), EINVAL);
            assert_int_equal(strncmp(err, p->name, strlen(p->name)), 0);
        }
    }
    /* The loop copies the probe's own timeout: any positive one is checked
     * only against the others. */
    fm_decide_opts_init(&o);
    o.probe_timeout_ms = 1;
    assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0), 0);
    o.probe_timeout_ms = 0;
    assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0), EINVAL);
    assert_string_equal(err, "Probe_timeout (ms) 0 is outside 1..3600000");
    fm_decide_opts_init(&o);
    o.adaptive = 2;
    assert_int_equal(fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0), EINVAL);
    assert_string_equal(err, "adaptive 2 is not -1 (auto), 0 or 1");
}

int
main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opts_set),
        cmocka_unit_test(test_opts_defaults),
        cmocka_unit_test(test_opts_validate),
        cmocka_unit_test(test_defaults_agree),
        cmocka_unit_test(test_validate_each_range),
    };

    return cmocka_run_group_tests_name("decide_params", tests, NULL, NULL);
}
