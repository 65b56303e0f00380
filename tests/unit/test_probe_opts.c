/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the options every target of a probe run shares (probe_opts.c):
 * their defaults, what each setter keeps and replaces, and that clearing
 * frees all.  (Refused values and status lists are tested in test_target.c,
 * where they were before probe_opts.c was cut from target.c.)
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

#include <faultmon/probe_opts.h>
#include <faultmon/regex_linear.h>
#include <faultmon/status_set.h>
#include <faultmon/target.h>

static void
test_defaults(void **state)
{
    struct fm_probe_opts opts;

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(opts.timeout_ms, FM_DEFAULT_TIMEOUT_MS);
    assert_int_equal(opts.max_reply_bytes, FM_DEFAULT_MAX_REPLY_BYTES);
    assert_int_equal(opts.receive_window_bytes, FM_DEFAULT_RECEIVE_WINDOW_BYTES);
    assert_true(opts.tls_verify);
    assert_false(opts.have_receive);
    assert_false(opts.reverse);
    assert_false(opts.tls_request);
    assert_null(opts.method);
    assert_null(opts.ca_file);
    assert_null(opts.sni);
    assert_int_equal(opts.n_headers, 0);
    fm_probe_opts_clear(&opts);
    /* Cleared options are all zero, and clearing again is harmless. */
    assert_int_equal(opts.timeout_ms, 0);
    fm_probe_opts_clear(&opts);
}

/* A second regex or method replaces the first; a refused one keeps it. */
static void
test_setters_replace(void **state)
{
    struct fm_probe_opts opts;
    char err[256] = "";

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_probe_opts_set_receive(&opts, "first", err, sizeof(err)), 0);
    /* A pattern an automaton decides is searched without a child process;
     * one with an anchor inside a repeated group is left to regexec(), and
     * replaces it whole. */
    assert_true(opts.have_receive_linear);
    assert_true(fm_regex_linear_search(&opts.receive_linear, "a first", 7));
    assert_int_equal(fm_probe_opts_set_receive(&opts, "^(s|x$y)+econd$", err, sizeof(err)), 0);
    assert_false(opts.have_receive_linear);
    assert_true(opts.have_receive);
    assert_string_equal(opts.receive_text, "^(s|x$y)+econd$");
    assert_int_equal(regexec(&opts.receive, "second", 0, NULL, 0), 0);
    assert_int_not_equal(regexec(&opts.receive, "first", 0, NULL, 0), 0);
    assert_int_equal(fm_probe_opts_set_receive(&opts, "[", err, sizeof(err)), EINVAL);
    assert_string_equal(opts.receive_text, "^(s|x$y)+econd$");

    /* expect_regex and maintenance_regex: the same swap (ASan sees the
     * old regex freed). */
    assert_int_equal(fm_probe_opts_set_expect_regex(&opts, "^one", err, sizeof(err)), 0);
    assert_int_equal(fm_probe_opts_set_expect_regex(&opts, "^two", err, sizeof(err)), 0);
    assert_true(opts.have_expect);
    assert_string_equal(opts.expect_text, "^two");
    assert_int_equal(regexec(&opts.expect, "two", 0, NULL, 0), 0);
    assert_int_not_equal(regexec(&opts.expect, "one", 0, NULL, 0), 0);
    assert_int_equal(fm_probe_opts_set_expect_regex(&opts, "(", err, sizeof(err)), EINVAL);
    assert_string_equal(opts.expect_text, "^two");
    assert_true(opts.have_expect_linear);       /* kept with the "^two" it decides */
    assert_true(fm_regex_linear_search(&opts.expect_linear, "x\ntwo", 5));
    assert_int_equal(fm_probe_opts_set_maintenance_regex(&opts, "drain", err, sizeof(err)), 0);
    assert_int_equal(fm_probe_opts_set_maintenance_regex(&opts, "^maint$", err, sizeof(err)), 0);
    assert_true(opts.have_maintenance_regex);
    assert_string_equal(opts.maintenance_text, "^maint$");
    assert_int_equal(regexec(&opts.maintenance_regex, "maint", 0, NULL, 0), 0);
    assert_int_not_equal(regexec(&opts.maintenance_regex, "drain", 0, NULL, 0), 0);
    assert_int_equal(fm_probe_opts_set_maintenance_regex(&opts, "a{1000}{1000}", err, sizeof(err)),
                     EINVAL);
    assert_string_equal(opts.maintenance_text, "^maint$");

    assert_int_equal(fm_probe_opts_set_method(&opts, "OPTIONS", err, sizeof(err)), 0);
    assert_int_equal(fm_probe_opts_set_method(&opts, "PROPFIND", err, sizeof(err)), 0);
    assert_string_equal(opts.method, "PROPFIND");
    assert_int_equal(fm_probe_opts_set_method(&opts, "BAD METHOD", err, sizeof(err)), EINVAL);
    assert_string_equal(opts.method, "PROPFIND");
    fm_probe_opts_clear(&opts);
}

/* The agents' default testregex, case-folded as they pass it, needs no
 * child process per match (a fork per probe cycle before). */
static void
test_default_testregex_is_linear(void **state)
{
    struct fm_probe_opts opts;
    char err[256] = "";

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_probe_opts_set_receive(&opts, "</ *[Hh][Tt][Mm][Ll] *>", err, sizeof(err)), 0);
    assert_true(opts.have_receive_linear);
    assert_true(fm_regex_linear_search(&opts.receive_linear, "</body></HTML>\n", 15));
    assert_false(fm_regex_linear_search(&opts.receive_linear, "</body></HTM", 12));
    fm_probe_opts_clear(&opts);
}

/* A plain maintenance_regex is searched in process too: it is asked of
 * every reply that passed (a fork per cycle before). */
static void
test_maintenance_regex_linear(void **state)
{
    struct fm_probe_opts opts;
    char err[256] = "";

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_probe_opts_set_maintenance_regex(&opts, "[Mm]aintenance *mode", err, sizeof(err)), 0);
    assert_true(opts.have_maintenance_linear);
    assert_true(fm_regex_linear_search(&opts.maintenance_linear, "in Maintenance  mode\n", 21));
    assert_false(fm_regex_linear_search(&opts.maintenance_linear, "maintenance", 11));
    assert_int_equal(fm_probe_opts_set_maintenance_regex(&opts, "^down$", err, sizeof(err)), 0);
    assert_true(opts.have_maintenance_linear);      /* anchors: the automaton too */
    assert_true(fm_regex_linear_search(&opts.maintenance_linear, "up\ndown\n", 8));
    assert_int_equal(fm_probe_opts_set_maintenance_regex(&opts, "(d|x$y)+own", err, sizeof(err)), 0);
    assert_false(opts.have_maintenance_linear);     /* an anchor under repetition: regexec() */
    fm_probe_opts_clear(&opts);
}

/* expect_regex takes the in-process linear search when an automaton can
 * decide it, as the receive regex does (tcp:// matches after every read),
 * and gives it up when a pattern only regexec() reads replaces it. */
static void
test_expect_regex_linear(void **state)
{
    static const char *const linear[] = {
        "echo:x(a|b){2}", "PING|PONG", "(ab)+", "^\\+PONG", "PONG$", "a.b", "[^x]", "[a-c]",
    };
    static const char *const not_linear[] = {
        "(P|x$y)+ONG", "[[.P.]-Z]ONG",
    };
    struct fm_probe_opts opts;
    char err[256] = "";

    (void) state;
    fm_probe_opts_init(&opts);
    assert_false(opts.have_expect_linear);
    assert_int_equal(fm_probe_opts_set_expect_regex(&opts, "echo:x[ab]b", err, sizeof(err)), 0);
    assert_true(opts.have_expect_linear);
    assert_true(fm_regex_linear_search(&opts.expect_linear, "echo:xbb\r\n", 10));
    assert_false(fm_regex_linear_search(&opts.expect_linear, "echo:xcb\r\n", 10));
    /* A NUL is a byte of the reply, not its end. */
    assert_true(fm_regex_linear_search(&opts.expect_linear, "\0echo:xab", 9));
    for (size_t i = 0; i < sizeof(linear) / sizeof(linear[0]); i++) {
        if (fm_probe_opts_set_expect_regex(&opts, linear[i], err, sizeof(err)) != 0
            || !opts.have_expect_linear) {
            fail_msg("expect_regex '%s': not set, or left to regexec() (%s)", linear[i], err);
        }
    }
    for (size_t i = 0; i < sizeof(not_linear) / sizeof(not_linear[0]); i++) {
        assert_int_equal(fm_probe_opts_set_expect_regex(&opts, "\\+PONG", err, sizeof(err)), 0);
        assert_true(opts.have_expect_linear);
        if (fm_probe_opts_set_expect_regex(&opts, not_linear[i], err, sizeof(err)) != 0
            || opts.have_expect_linear) {
            fail_msg("expect_regex '%s': not set, or taken in process (%s)", not_linear[i], err);
        }
    }
    fm_probe_opts_clear(&opts);
}

/* Headers keep their order and their text as given. */
static void
test_headers_in_order(void **state)
{
    struct fm_probe_opts opts;
    char err[256] = "";

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_probe_opts_add_header(&opts, "X-First: 1", err, sizeof(err)), 0);
    assert_int_equal(fm_probe_opts_add_header(&opts, "x-second:two words", err, sizeof(err)), 0);
    assert_int_equal(opts.n_headers, 2);
    assert_string_equal(opts.headers[0], "X-First: 1");
    assert_string_equal(opts.headers[1], "x-second:two words");
    fm_probe_opts_clear(&opts);
}

/* The statuses that pass: GET for a URI, the HEAD set for every other kind. */
static void
test_expect_by_kind(void **state)
{
    struct fm_probe_opts opts;

    (void) state;
    fm_probe_opts_init(&opts);
    assert_ptr_equal(fm_probe_opts_expect(&opts, FM_PROBE_GET), &opts.expect_get);
    assert_ptr_equal(fm_probe_opts_expect(&opts, FM_PROBE_HEAD), &opts.expect_head);
    assert_ptr_equal(fm_probe_opts_expect(&opts, FM_PROBE_TCP_CONNECT), &opts.expect_head);
    fm_probe_opts_clear(&opts);
}

/* ALPN names are 1-255 visible characters; a bad list leaves the old one. */
static void
test_alpn_list(void **state)
{
    struct fm_probe_opts opts;
    char err[256] = "";
    char name[300];

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(opts.tls_min_version, FM_TLS_MIN_1_2);
    assert_int_equal(fm_probe_opts_set_alpn(&opts, "http/1.1", err, sizeof(err)), 0);
    assert_int_equal(opts.alpn_wire_len, 9);
    assert_memory_equal(opts.alpn_wire, "\x08http/1.1", 9);
    memset(name, 'a', 255);
    name[255] = '\0';
    assert_int_equal(fm_probe_opts_set_alpn(&opts, name, err, sizeof(err)), 0);
    assert_int_equal(opts.alpn_wire_len, 256);
    name[255] = 'a';
    name[256] = '\0';
    assert_int_equal(fm_probe_opts_set_alpn(&opts, name, err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_set_alpn(&opts, "h2,", err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_set_alpn(&opts, ",h2", err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_set_alpn(&opts, "", err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_set_alpn(&opts, "h 2", err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_set_alpn(&opts, "h2\x01", err, sizeof(err)), EINVAL);
    assert_int_equal(opts.alpn_wire_len, 256);     /* the last good list stays */
    assert_int_equal(fm_probe_opts_set_tls_min_version(&opts, "1.3", err, sizeof(err)), 0);
    assert_int_equal(opts.tls_min_version, FM_TLS_MIN_1_3);
    assert_int_equal(fm_probe_opts_set_tls_min_version(&opts, "1.0", err, sizeof(err)), EINVAL);
    assert_int_equal(opts.tls_min_version, FM_TLS_MIN_1_3);
    fm_probe_opts_clear(&opts);
}

/* maintenance_status is checked before expect_status: a 5xx in it would
 * judge a real outage's 503 as maintenance (degraded, never recovered), so
 * any list with a server error is refused, and the last good list stays. */
static void
test_maintenance_status_refuses_5xx(void **state)
{
    static const char *const refused[] = {
        "500", "599", "5xx", "404,503", "400-500", "4xx-5xx", "200-999",
    };
    struct fm_probe_opts opts;
    char err[256] = "";

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_probe_opts_set_maintenance_status(&opts, "404,4xx,499", err, sizeof(err)), 0);
    assert_true(opts.have_maintenance_status);
    assert_true(fm_status_set_has(&opts.maintenance_status, 404));
    assert_int_equal(fm_probe_opts_set_maintenance_status(&opts, "503", err, sizeof(err)), EINVAL);
    assert_string_equal(err, "503 is a server error; a 5xx never signals maintenance (it is a failure)");
    assert_int_equal(fm_probe_opts_set_maintenance_status(&opts, "404,5xx", err, sizeof(err)), EINVAL);
    assert_string_equal(err, "500 (in '404,5xx') is a server error; a 5xx never signals maintenance"
                        " (it is a failure)");
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        err[0] = '\0';
        if (fm_probe_opts_set_maintenance_status(&opts, refused[i], err, sizeof(err)) != EINVAL
            || strstr(err, "a 5xx never signals maintenance") == NULL) {
            fail_msg("maintenance_status '%s' was not refused as a server error: '%s'",
                     refused[i], err);
        }
    }
    assert_true(fm_status_set_has(&opts.maintenance_status, 404));
    for (int status = 500; status <= 599; status++) {
        assert_false(fm_status_set_has(&opts.maintenance_status, status));
    }
    /* 600 and above are not server errors (nor any status HTTP defines). */
    assert_int_equal(fm_probe_opts_set_maintenance_status(&opts, "600", err, sizeof(err)), 0);
    fm_probe_opts_clear(&opts);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_setters_replace),
        cmocka_unit_test(test_default_testregex_is_linear),
        cmocka_unit_test(test_expect_regex_linear),
        cmocka_unit_test(test_maintenance_regex_linear),
        cmocka_unit_test(test_headers_in_order),
        cmocka_unit_test(test_expect_by_kind),
        cmocka_unit_test(test_alpn_list),
        cmocka_unit_test(test_maintenance_status_refuses_5xx),
    };

    return cmocka_run_group_tests_name("probe_opts", tests, NULL, NULL);
}
