/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the request bytes an HTTP probe sends, built once from the
 * target and the options (fm_http_build_request(), src/probe/http.c).
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/http.h>
#include <faultmon/probe_opts.h>
#include <faultmon/target.h>

static void
test_request_bytes(void **state)
{
    struct fm_target t;
    struct fm_probe_opts opts;
    char err[256];

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_probe_opts_add_header(&opts, "X-Probe: faultmon", err, sizeof(err)), 0);

    assert_int_equal(fm_target_parse("http://127.0.0.1/", false, &t, err, sizeof(err)), 0);
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    assert_true(t.send_request);
    assert_int_equal(strncmp(t.request, "HEAD / HTTP/1.0\r\nHost: 127.0.0.1\r\n", 34), 0);
    assert_non_null(strstr(t.request, "X-Probe: faultmon\r\n\r\n"));
    assert_int_equal(t.request_len, strlen(t.request));
    fm_target_clear(&t);

    assert_int_equal(fm_target_parse("http://[::1]:8080/a?b", true, &t, err, sizeof(err)), 0);
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    assert_int_equal(strncmp(t.request, "GET /a?b HTTP/1.1\r\nHost: [::1]:8080\r\n", 37), 0);
    fm_target_clear(&t);

    /* https: a handshake only, unless the request goes over TLS too. */
    assert_int_equal(fm_target_parse("https://h/", false, &t, err, sizeof(err)), 0);
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    assert_false(t.send_request);
    assert_int_equal(t.kind, FM_PROBE_TLS_CONNECT);
    fm_target_clear(&t);
    opts.tls_request = true;
    assert_int_equal(fm_target_parse("https://h/", false, &t, err, sizeof(err)), 0);
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    assert_true(t.send_request);
    assert_int_equal(t.kind, FM_PROBE_HEAD);
    fm_target_clear(&t);

    /* A Host header given by the user replaces ours; the method too. */
    assert_int_equal(fm_probe_opts_add_header(&opts, "host: vhost.example", err, sizeof(err)), 0);
    assert_int_equal(fm_probe_opts_set_method(&opts, "OPTIONS", err, sizeof(err)), 0);
    assert_int_equal(fm_target_parse("http://127.0.0.1:81/", false, &t, err, sizeof(err)), 0);
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    assert_int_equal(strncmp(t.request, "OPTIONS / HTTP/1.0\r\n", 20), 0);
    assert_null(strstr(t.request, "Host: 127.0.0.1"));
    assert_non_null(strstr(t.request, "host: vhost.example\r\n"));
    fm_target_clear(&t);
    fm_probe_opts_clear(&opts);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_bytes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
