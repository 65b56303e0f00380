/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the probe-parameter table itself (its rows, lookup, the
 * defaults it states against the options' own, ranges, the wording of its
 * errors, and the cross-checks once every parameter is set).
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/probe_params.h>
#include <faultmon/runconf.h>

/* Set through a row, as the run configuration (FM_PARAM_FROM_PARAMETER) or
 * faultmon probe (FM_PARAM_FROM_OPTION) does. */
static int
row_set(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
        enum fm_probe_param_source source)
{
    char why[256] = "";

    return param->set(cfg, param, value, source, why, sizeof(why));
}

/* Every row is complete, and names and options are each used once. */
static void
test_rows_are_complete(void **state)
{
    size_t n = 0;
    const struct fm_probe_param *params = fm_probe_params(&n);

    (void) state;
    assert_int_equal(n, 35);     /* ... spread, access_log..access_log_slow_pct, overload_status_url, overload_capacity */
    for (size_t i = 0; i < n; i++) {
        const struct fm_probe_param *p = &params[i];

        assert_non_null(p->name);
        assert_non_null(p->default_text);
        assert_non_null(p->set);
        assert_non_null(p->help);
        if (p->why_says_all) {
            /* Another table's rule words the message (Probe_timeout). */
            assert_null(p->expected);
            assert_null(p->option_expected);
        } else if (p->type == FM_PARAM_DURATION_MS || p->type == FM_PARAM_SIZE_BYTES) {
            assert_true(p->min <= p->max);
            assert_non_null(p->expected);
            assert_non_null(p->option_expected);
            assert_true(p->option_takes_value);
        }
        if (p->type == FM_PARAM_BOOL) {
            assert_non_null(p->expected);
            /* A flag of faultmon probe: it can only say "true". */
            assert_false(p->option_takes_value);
        }
        for (size_t j = i + 1; j < n; j++) {
            assert_string_not_equal(p->name, params[j].name);
            if (p->option != NULL && params[j].option != NULL) {
                assert_string_not_equal(p->option, params[j].option);
            }
            if (p->short_option != 0) {
                assert_int_not_equal(p->short_option, params[j].short_option);
            }
        }
    }
}

static void
test_find(void **state)
{
    (void) state;
    assert_string_equal(fm_probe_param_find("Port_list")->name, "Port_list");
    assert_string_equal(fm_probe_param_find("port-list")->name, "Port_list");
    assert_string_equal(fm_probe_param_find("PROBE_TIMEOUT")->name, "Probe_timeout");
    assert_string_equal(fm_probe_param_find("max-reply-bytes")->name, "max_reply_bytes");
    assert_null(fm_probe_param_find("Probe_timeouts"));
    assert_null(fm_probe_param_find("Probe"));
    assert_null(fm_probe_param_find(""));
    assert_null(fm_probe_param_find("Retry_count"));   /* the decision engine's */
}

/* The default the table states (and the meta-data must show) is the one
 * the options start with: setting it changes nothing. */
static void
test_defaults_are_the_options_own(void **state)
{
    size_t n = 0;
    const struct fm_probe_param *params = fm_probe_params(&n);

    (void) state;
    for (size_t i = 0; i < n; i++) {
        struct fm_run_config fresh;
        struct fm_run_config set;

        /* tls_verify unset is neither true nor false (a CA file implies
         * it); its default says what that comes to without one. */
        if (strcmp(params[i].name, "tls_verify") == 0) {
            continue;
        }
        fm_run_config_init(&fresh);
        fm_run_config_init(&set);
        assert_int_equal(row_set(&set, &params[i], params[i].default_text,
                                 FM_PARAM_FROM_PARAMETER), 0);
        assert_memory_equal(&set.probe, &fresh.probe, sizeof(set.probe));
        assert_int_equal(set.n_targets, 0);
        fm_run_config_clear(&fresh);
        fm_run_config_clear(&set);
    }
}

/* The row's range is the one check: its bounds pass, one past them fails. */
static void
test_ranges(void **state)
{
    const struct fm_probe_param *timeout = fm_probe_param_find("Probe_timeout");
    const struct fm_probe_param *max = fm_probe_param_find("max_reply_bytes");
    const struct fm_probe_param *window = fm_probe_param_find("receive_bytes");
    struct fm_run_config cfg;

    (void) state;
    fm_run_config_init(&cfg);
    /* Probe_timeout's range is the decision engine's row (100 ms to 1 h),
     * and the row sets the probe's deadline and the engine's copy alike. */
    assert_int_equal(row_set(&cfg, timeout, "100ms", FM_PARAM_FROM_PARAMETER), 0);
    assert_int_equal(cfg.probe.timeout_ms, 100);
    assert_int_equal(cfg.decide.probe_timeout_ms, 100);
    assert_int_equal(row_set(&cfg, timeout, "99ms", FM_PARAM_FROM_PARAMETER), EINVAL);
    assert_int_equal(row_set(&cfg, timeout, "1ms", FM_PARAM_FROM_OPTION), EINVAL);
    assert_int_equal(row_set(&cfg, timeout, "0", FM_PARAM_FROM_PARAMETER), EINVAL);
    assert_int_equal(row_set(&cfg, timeout, "soon", FM_PARAM_FROM_PARAMETER), EINVAL);
    assert_int_equal(row_set(&cfg, timeout, "1h", FM_PARAM_FROM_OPTION), 0);
    assert_int_equal(row_set(&cfg, timeout, "3601s", FM_PARAM_FROM_OPTION), EINVAL);
    assert_int_equal(cfg.probe.timeout_ms, 3600 * 1000);
    assert_int_equal(row_set(&cfg, max, "64", FM_PARAM_FROM_PARAMETER), 0);
    assert_int_equal(cfg.probe.max_reply_bytes, 64);
    assert_int_equal(row_set(&cfg, max, "63", FM_PARAM_FROM_PARAMETER), ERANGE);
    assert_int_equal(row_set(&cfg, max, "1M", FM_PARAM_FROM_PARAMETER), 0);
    assert_int_equal(cfg.probe.max_reply_bytes, 1024 * 1024);
    assert_int_equal(row_set(&cfg, window, "1", FM_PARAM_FROM_PARAMETER), 0);
    assert_int_equal(row_set(&cfg, window, "0", FM_PARAM_FROM_PARAMETER), ERANGE);
    assert_int_equal(row_set(&cfg, window, "", FM_PARAM_FROM_PARAMETER), EINVAL);
    assert_int_equal(cfg.probe.receive_window_bytes, 1);
    fm_run_config_clear(&cfg);
}

/* How a bad value is worded for a parameter; an option words it itself. */
static void
test_apply_wording(void **state)
{
    struct fm_run_config cfg;
    char err[512] = "";

    (void) state;
    fm_run_config_init(&cfg);
    assert_int_equal(fm_probe_param_apply(&cfg, fm_probe_param_find("Probe_timeout"), "0", err,
                                          sizeof(err)), EINVAL);
    assert_string_equal(err, "invalid value '0' for Probe_timeout: expected a duration such as 300, "
                        "300s, 5m or 500ms, from 100 ms to 3600 s");
    assert_int_equal(fm_probe_param_apply(&cfg, fm_probe_param_find("reverse"), "maybe", err,
                                          sizeof(err)), EINVAL);
    assert_string_equal(err, "invalid reverse 'maybe': expected true or false");
    assert_int_equal(fm_probe_param_apply(&cfg, fm_probe_param_find("http_method"), "A B", err,
                                          sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "http_method: "));
    assert_int_equal(fm_probe_param_apply(&cfg, fm_probe_param_find("Port_list"), "80/udp", err,
                                          sizeof(err)), EINVAL);
    assert_string_equal(err, "Port_list: invalid item '80/udp': expected HOST:PORT, PORT/tcp,"
                        " HOST/PORT/tcp or a URI");
    fm_run_config_clear(&cfg);
}

/* An option gives one item (one --header may hold '|', one --uri a ','),
 * refuses "" where a parameter takes it for the default, and its
 * --tls-no-verify wins in any order. */
static void
test_option_source(void **state)
{
    const struct fm_probe_param *headers = fm_probe_param_find("http_headers");
    const struct fm_probe_param *uris = fm_probe_param_find("Monitor_Uri_List");
    const struct fm_probe_param *expect = fm_probe_param_find("expect_status");
    const struct fm_probe_param *verify = fm_probe_param_find("tls_verify");
    const struct fm_probe_param *sni = fm_probe_param_find("tls_sni");
    struct fm_run_config cfg;
    char why[256] = "";

    (void) state;
    fm_run_config_init(&cfg);
    assert_int_equal(row_set(&cfg, headers, "X-A: a|b", FM_PARAM_FROM_OPTION), 0);
    assert_int_equal(cfg.probe.n_headers, 1);
    assert_int_equal(row_set(&cfg, headers, "X-B: 1|X-C: 2", FM_PARAM_FROM_PARAMETER), 0);
    assert_int_equal(cfg.probe.n_headers, 3);
    assert_int_equal(row_set(&cfg, uris, "http://h/a,b", FM_PARAM_FROM_OPTION), 0);
    assert_int_equal(cfg.n_targets, 1);
    assert_string_equal(cfg.targets[0].path, "/a,b");
    assert_int_equal(uris->set(&cfg, uris, "tcp://h:1", FM_PARAM_FROM_OPTION, why, sizeof(why)),
                     EINVAL);
    assert_non_null(strstr(why, "tcp://h:1"));

    assert_int_equal(row_set(&cfg, expect, "", FM_PARAM_FROM_PARAMETER), 0);
    assert_int_equal(row_set(&cfg, expect, "", FM_PARAM_FROM_OPTION), EINVAL);
    assert_int_equal(row_set(&cfg, sni, "", FM_PARAM_FROM_PARAMETER), 0);
    assert_null(cfg.probe.sni);
    assert_int_equal(row_set(&cfg, sni, "", FM_PARAM_FROM_OPTION), 0);
    assert_string_equal(cfg.probe.sni, "");

    assert_int_equal(row_set(&cfg, verify, "false", FM_PARAM_FROM_OPTION), 0);
    assert_int_equal(row_set(&cfg, verify, "true", FM_PARAM_FROM_OPTION), 0);
    assert_true(cfg.no_verify);
    assert_int_equal(row_set(&cfg, verify, "true", FM_PARAM_FROM_PARAMETER), 0);
    assert_false(cfg.no_verify);
    assert_true(cfg.verify_set);
    fm_run_config_clear(&cfg);
}

static void
test_finish(void **state)
{
    struct fm_run_config cfg;

    (void) state;
    fm_run_config_init(&cfg);
    assert_int_equal(fm_probe_params_finish(&cfg), FM_PROBE_PARAMS_OK);
    assert_false(cfg.probe.tls_verify);
    cfg.probe.reverse = true;
    assert_int_equal(fm_probe_params_finish(&cfg), FM_PROBE_PARAMS_REVERSE_WITHOUT_REGEX);
    fm_run_config_clear(&cfg);

    /* reverse with receive_regex, or with expect_regex alone. */
    fm_run_config_init(&cfg);
    cfg.probe.reverse = true;
    assert_int_equal(fm_run_config_set(&cfg, "receive_regex", "down", NULL, 0), 0);
    assert_int_equal(fm_probe_params_finish(&cfg), FM_PROBE_PARAMS_OK);
    fm_run_config_clear(&cfg);
    fm_run_config_init(&cfg);
    cfg.probe.reverse = true;
    assert_int_equal(fm_run_config_set(&cfg, "expect_regex", "^-ERR", NULL, 0), 0);
    assert_int_equal(fm_probe_params_finish(&cfg), FM_PROBE_PARAMS_OK);
    fm_run_config_clear(&cfg);

    /* A CA file asks for verification, unless tls_verify says no. */
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_set(&cfg, "tls_ca_file", "/ca.pem", NULL, 0), 0);
    assert_int_equal(fm_probe_params_finish(&cfg), FM_PROBE_PARAMS_OK);
    assert_true(cfg.probe.tls_verify);
    assert_int_equal(fm_run_config_set(&cfg, "tls_verify", "false", NULL, 0), 0);
    assert_int_equal(fm_probe_params_finish(&cfg), FM_PROBE_PARAMS_NO_VERIFY_WITH_CA);
    fm_run_config_clear(&cfg);

    /* The window is at most the reply cap. */
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_set(&cfg, "receive_bytes", "1M", NULL, 0), 0);
    assert_int_equal(fm_run_config_set(&cfg, "max_reply_bytes", "8k", NULL, 0), 0);
    assert_int_equal(fm_probe_params_finish(&cfg), FM_PROBE_PARAMS_OK);
    assert_int_equal(cfg.probe.receive_window_bytes, 8192);
    fm_run_config_clear(&cfg);
}

/* spread: off by default (burst), set by the parameter and by --spread. */
static void
test_spread(void **state)
{
    const struct fm_probe_param *spread = fm_probe_param_find("spread");
    struct fm_run_config cfg;
    char err[256] = "";

    (void) state;
    assert_non_null(spread);
    assert_string_equal(spread->option, "spread");
    assert_string_equal(spread->default_text, "false");
    fm_run_config_init(&cfg);
    assert_false(cfg.probe.spread);
    assert_int_equal(fm_probe_param_apply(&cfg, spread, "true", err, sizeof(err)), 0);
    assert_true(cfg.probe.spread);
    assert_int_equal(fm_probe_param_apply(&cfg, spread, "no", err, sizeof(err)), 0);
    assert_false(cfg.probe.spread);
    assert_int_equal(row_set(&cfg, spread, "true", FM_PARAM_FROM_OPTION), 0);
    assert_true(cfg.probe.spread);
    assert_int_equal(fm_probe_param_apply(&cfg, spread, "sometimes", err, sizeof(err)), EINVAL);
    assert_string_equal(err, "invalid spread 'sometimes': expected true or false");
    fm_run_config_clear(&cfg);
}

/* A blank or a comma in a password cuts the list: no reason quotes a piece
 * of it, and the reason says how to write one (issue 30, item 7). */
static void
test_cut_password_not_shown(void **state)
{
    static const struct {
        const char *param;
        const char *value;
    } cases[] = {
        { "Monitor_Uri_List", "http://admin:Qz7k Wv4p@127.0.0.1:1/" },
        { "Monitor_Uri_List", "http://admin:Qz7k,Wv4p@127.0.0.1:1/" },
        /* The first piece is a valid target (host admin, port 1234): the
         * second, "5678@h/", is the one refused. */
        { "Monitor_Uri_List", "http://admin:1234 5678@h/" },
        { "Port_list", "http://admin:Qz7k Wv4p@127.0.0.1:1/" },
        { "Port_list", "tcp://h:1 redis://:Qz7k Wv4p@h:6379" },
        { "Dependency_list", "redis://:Qz7k\tWv4p@h:6379" },
    };

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fm_run_config cfg;
        char err[512] = "";

        fm_run_config_init(&cfg);
        assert_int_equal(fm_run_config_set(&cfg, cases[i].param, cases[i].value, err, sizeof(err)),
                         EINVAL);
        if (strstr(err, "Qz7k") != NULL || strstr(err, "Wv4p") != NULL || strstr(err, "5678") != NULL) {
            fail_msg("case %zu: a piece of the password shows: %s", i, err);
        }
        assert_non_null(strstr(err, "percent-encode"));
        assert_non_null(strstr(err, "%20"));
        fm_run_config_clear(&cfg);
    }
}

/* An item the redacted list still shows whole is quoted as before. */
static void
test_bad_item_still_quoted(void **state)
{
    struct fm_run_config cfg;
    char err[512] = "";

    (void) state;
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_set(&cfg, "Monitor_Uri_List", "http://u:p@h/ htp://x/", err,
                                       sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "'htp://x/'"));
    fm_run_config_clear(&cfg);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_are_complete),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_defaults_are_the_options_own),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_apply_wording),
        cmocka_unit_test(test_option_source),
        cmocka_unit_test(test_finish),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_cut_password_not_shown),
        cmocka_unit_test(test_bad_item_still_quoted),
    };

    return cmocka_run_group_tests_name("probe_params", tests, NULL, NULL);
}
