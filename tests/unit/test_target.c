/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: target URIs, status lists, durations, sizes (the request
 * bytes are test_http_request.c's), and the credentials a request sends.
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

#include <faultmon/http.h>
#include <faultmon/parse.h>
#include <faultmon/probe_opts.h>
#include <faultmon/status_set.h>
#include <faultmon/target.h>

struct uri_case {
    const char *text;
    bool is_uri;
    int rc;
    enum fm_scheme scheme;
    enum fm_probe_kind kind;
    const char *host;
    uint16_t port;
    const char *path;
    const char *err_part;   /* for failures: the message must name this */
};

static const struct uri_case uri_cases[] = {
    { "http://127.0.0.1/", false, 0, FM_SCHEME_HTTP, FM_PROBE_HEAD, "127.0.0.1", 80, "/", NULL },
    { "http://127.0.0.1", false, 0, FM_SCHEME_HTTP, FM_PROBE_HEAD, "127.0.0.1", 80, "/", NULL },
    { "HTTP://Example.com:8080/a/b?c=d", false, 0, FM_SCHEME_HTTP, FM_PROBE_HEAD, "Example.com", 8080, "/a/b?c=d", NULL },
    { "http://h?x=1", false, 0, FM_SCHEME_HTTP, FM_PROBE_HEAD, "h", 80, "/?x=1", NULL },
    { "https://[::1]/", false, 0, FM_SCHEME_HTTPS, FM_PROBE_HEAD, "::1", 443, "/", NULL },
    { "https://[2001:db8::1]:8443/x", true, 0, FM_SCHEME_HTTPS, FM_PROBE_GET, "2001:db8::1", 8443, "/x", NULL },
    { "tcp://10.0.0.1:5432", false, 0, FM_SCHEME_TCP, FM_PROBE_TCP_CONNECT, "10.0.0.1", 5432, "/", NULL },
    { "tls://db.example:636/", false, 0, FM_SCHEME_TLS, FM_PROBE_TLS_CONNECT, "db.example", 636, "/", NULL },
    { "http://www.example.com/health", true, 0, FM_SCHEME_HTTP, FM_PROBE_GET, "www.example.com", 80, "/health", NULL },
    { "", false, EINVAL, 0, 0, NULL, 0, NULL, "empty" },
    { "127.0.0.1", false, EINVAL, 0, 0, NULL, 0, NULL, "'127.0.0.1'" },
    /* ftp:// is a protocol now (issue 12): an unknown scheme is named. */
    { "gopher://x/", false, EINVAL, 0, 0, NULL, 0, NULL, "unknown scheme 'gopher'" },
    { "redis://127.0.0.1", false, 0, FM_SCHEME_REDIS, FM_PROBE_REDIS, "127.0.0.1", 6379, "/", NULL },
    { "smtp://mx.example?starttls", false, 0, FM_SCHEME_SMTP, FM_PROBE_SMTP, "mx.example", 25, "/", NULL },
    { "smtps://mx.example:2465/", false, 0, FM_SCHEME_SMTPS, FM_PROBE_SMTP, "mx.example", 2465, "/", NULL },
    { "imap://[::1]?starttls&family=inet6", false, 0, FM_SCHEME_IMAP, FM_PROBE_IMAP, "::1", 143, "/", NULL },
    { "dns://127.0.0.1:5353/www.example?type=AAAA", false, 0, FM_SCHEME_DNS, FM_PROBE_DNS, "127.0.0.1", 5353, "/www.example", NULL },
    { "postgres://db/app?sslmode=require", false, 0, FM_SCHEME_POSTGRES, FM_PROBE_POSTGRES, "db", 5432, "/app", NULL },
    { "icmp://gw", false, 0, FM_SCHEME_ICMP, FM_PROBE_ICMP, "gw", 0, "/", NULL },
    { "tcp://h:1?family=inet", false, 0, FM_SCHEME_TCP, FM_PROBE_TCP_CONNECT, "h", 1, "/", NULL },
    { "icmp://gw:7", false, EINVAL, 0, 0, NULL, 0, NULL, "icmp:// takes no port" },
    /* HTTP/2 (issue 35): HTTP's URIs, also as Monitor_Uri_List entries. */
    { "h2c://h/health?x=1", false, 0, FM_SCHEME_H2C, FM_PROBE_H2, "h", 80, "/health?x=1", NULL },
    { "h2://[::1]", false, 0, FM_SCHEME_H2, FM_PROBE_H2, "::1", 443, "/", NULL },
    { "h2://h:8443/x", true, 0, FM_SCHEME_H2, FM_PROBE_H2, "h", 8443, "/x", NULL },
    { "grpc://h:50051/orders.v1", false, 0, FM_SCHEME_GRPC, FM_PROBE_GRPC, "h", 50051, "/orders.v1", NULL },
    { "grpcs://h:443?family=inet", false, 0, FM_SCHEME_GRPCS, FM_PROBE_GRPC, "h", 443, "/", NULL },
    { "grpc://h/svc", false, EINVAL, 0, 0, NULL, 0, NULL, "port" },
    { "grpc://h:1?x=1", false, EINVAL, 0, 0, NULL, 0, NULL, "no key 'x'" },
    { "smtps://h?starttls", false, EINVAL, 0, 0, NULL, 0, NULL, "no key 'starttls'" },
    { "tcp://h:1?starttls", false, EINVAL, 0, 0, NULL, 0, NULL, "no key 'starttls'" },
    { "smtp://h?bogus=1", false, EINVAL, 0, 0, NULL, 0, NULL, "no key 'bogus'" },
    { "smtp://h?family=ipx", false, EINVAL, 0, 0, NULL, 0, NULL, "family=ipx: expected inet|inet6" },
    { "smtp://h?family=inet&family=inet", false, EINVAL, 0, 0, NULL, 0, NULL, "given twice" },
    { "smtp://h?starttls=maybe", false, EINVAL, 0, 0, NULL, 0, NULL, "flag" },
    { "tcp://[::1]:1?family=inet", false, EINVAL, 0, 0, NULL, 0, NULL, "not an IPv4" },
    { "tcp://127.0.0.1:1?family=inet6", false, EINVAL, 0, 0, NULL, 0, NULL, "not an IPv6" },
    { "dns://h/x?answer=a{1000}{1000}", false, EINVAL, 0, 0, NULL, 0, NULL, "answer=" },
    { "smtp://u:pw@h", false, EINVAL, 0, 0, NULL, 0, NULL, "takes no credentials" },
    { "smtp://h/x", false, EINVAL, 0, 0, NULL, 0, NULL, "no path" },
    { "redis://h", true, EINVAL, 0, 0, NULL, 0, NULL, "http://, https://, h2:// or h2c://" },
    { "http://", false, EINVAL, 0, 0, NULL, 0, NULL, "no host" },
    { "http://:80/", false, EINVAL, 0, 0, NULL, 0, NULL, "no host" },
    { "http://h:0/", false, EINVAL, 0, 0, NULL, 0, NULL, "port '0'" },
    { "http://h:65536/", false, EINVAL, 0, 0, NULL, 0, NULL, "port '65536'" },
    { "http://h:-1/", false, EINVAL, 0, 0, NULL, 0, NULL, "port '-1'" },
    { "http://h:/", false, EINVAL, 0, 0, NULL, 0, NULL, "port ''" },
    { "http://h:8x/", false, EINVAL, 0, 0, NULL, 0, NULL, "port '8x'" },
    { "tcp://h", false, EINVAL, 0, 0, NULL, 0, NULL, "needs a port" },
    { "tcp://h:1/path", false, EINVAL, 0, 0, NULL, 0, NULL, "no path" },
    { "tcp://h:80", true, EINVAL, 0, 0, NULL, 0, NULL, "http://, https://, h2:// or h2c://" },
    { "http://[::1/", false, EINVAL, 0, 0, NULL, 0, NULL, "unterminated" },
    { "http://[zz::1]/", false, EINVAL, 0, 0, NULL, 0, NULL, "not an IPv6" },
    { "http://[::1]x/", false, EINVAL, 0, 0, NULL, 0, NULL, "junk" },
    { "http://bad$host/", false, EINVAL, 0, 0, NULL, 0, NULL, "bad host" },
    { "http://h/a b", false, EINVAL, 0, 0, NULL, 0, NULL, "spaces" },
    { "http://h/a\r\nX: y", false, EINVAL, 0, 0, NULL, 0, NULL, "control" },
    { "http://h/#frag", false, EINVAL, 0, 0, NULL, 0, NULL, "fragment" },
};

static void
test_uri_table(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(uri_cases) / sizeof(uri_cases[0]); i++) {
        const struct uri_case *c = &uri_cases[i];
        struct fm_target t;
        char err[256] = "";
        int rc = fm_target_parse(c->text, c->is_uri, &t, err, sizeof(err));

        print_message("# %s\n", c->text);
        assert_int_equal(rc, c->rc);
        if (rc == 0) {
            assert_int_equal(t.scheme, c->scheme);
            assert_int_equal(t.kind, c->kind);
            assert_string_equal(t.host, c->host);
            assert_int_equal(t.port, c->port);
            assert_string_equal(t.path, c->path);
            assert_string_equal(t.text, c->text);
            fm_target_clear(&t);
        } else {
            assert_non_null(strstr(err, c->err_part));
            /* One line: a message never spans lines, whatever the input. */
            assert_null(strchr(err, '\n'));
        }
    }
}

static void
test_credentials_are_redacted(void **state)
{
    struct fm_target t;
    struct fm_probe_opts opts;
    char err[256];

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_target_parse("http://admin:s3cret@127.0.0.1:8080/x", true, &t, err, sizeof(err)), 0);
    assert_string_equal(t.text, "http://***@127.0.0.1:8080/x");
    assert_null(strstr(t.text, "s3cret"));
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    /* base64("admin:s3cret") */
    assert_non_null(strstr(t.request, "Authorization: Basic YWRtaW46czNjcmV0\r\n"));
    fm_target_clear(&t);

    /* An error about such a URI does not print the password either. */
    assert_int_equal(fm_target_parse("http://admin:s3cret@127.0.0.1:99999/", true, &t, err, sizeof(err)),
                     EINVAL);
    assert_null(strstr(err, "s3cret"));
    assert_non_null(strstr(err, "http://***@127.0.0.1:99999"));

    /* A Redis password (issue 12) is a secret too, in text and messages. */
    assert_int_equal(fm_target_parse("redis://:s3cret@127.0.0.1:7000", false, &t, err, sizeof(err)), 0);
    assert_string_equal(t.text, "redis://***@127.0.0.1:7000");
    assert_string_equal(t.userinfo, ":s3cret");
    fm_target_clear(&t);
    assert_int_equal(fm_target_parse("redis://:s3cret@127.0.0.1:7000?family=ipx", false, &t, err,
                                     sizeof(err)), EINVAL);
    assert_null(strstr(err, "s3cret"));
    /* A malformed URI's text before "://" is not echoed as a scheme unless
     * it reads as one (fuzz_target found this). */
    assert_int_equal(fm_target_parse("tcp:)c:s3cret:?ht://s3cret@", false, &t, err, sizeof(err)), EINVAL);
    assert_null(strstr(err, "s3cret"));
    assert_non_null(strstr(err, "unknown scheme (known: "));

    /* base64 of every length modulo 3. */
    assert_int_equal(fm_target_parse("http://a:b@h/", true, &t, err, sizeof(err)), 0);
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    assert_non_null(strstr(t.request, "Authorization: Basic YTpi\r\n"));
    fm_target_clear(&t);
    assert_int_equal(fm_target_parse("http://ab:c@h/", true, &t, err, sizeof(err)), 0);
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    assert_non_null(strstr(t.request, "Authorization: Basic YWI6Yw==\r\n"));
    fm_target_clear(&t);
    assert_int_equal(fm_target_parse("http://abc:d@h/", true, &t, err, sizeof(err)), 0);
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    assert_non_null(strstr(t.request, "Authorization: Basic YWJjOmQ=\r\n"));
    fm_target_clear(&t);
    fm_probe_opts_clear(&opts);
}

static void
test_bad_options(void **state)
{
    struct fm_probe_opts opts;
    char err[256];

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_probe_opts_add_header(&opts, "NoColon", err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "'NoColon'"));
    assert_int_equal(fm_probe_opts_add_header(&opts, "Bad Name: x", err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_add_header(&opts, "X: a\r\nInjected: 1", err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_set_method(&opts, "GET /x", err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_set_method(&opts, "", err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_set_receive(&opts, "(", err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "'('"));
    assert_int_equal(fm_probe_opts_set_receive(&opts, "ok|up", err, sizeof(err)), 0);
    for (int i = 0; i < FM_HEADER_MAX; i++) {
        assert_int_equal(fm_probe_opts_add_header(&opts, "X-N: 1", err, sizeof(err)), 0);
    }
    assert_int_equal(fm_probe_opts_add_header(&opts, "X-N: 1", err, sizeof(err)), E2BIG);
    fm_probe_opts_clear(&opts);
}

/* Issue 8, defect 11: a GET asks for a page, and a 403 or 404 is no page;
 * a HEAD to a Port_list address asks only whether the server answers. */
static void
test_expect_defaults(void **state)
{
    struct fm_probe_opts opts;
    const struct fm_status_set *get = NULL;
    const struct fm_status_set *head = NULL;
    char err[256];

    (void) state;
    fm_probe_opts_init(&opts);
    get = fm_probe_opts_expect(&opts, FM_PROBE_GET);
    head = fm_probe_opts_expect(&opts, FM_PROBE_HEAD);
    for (int s = 100; s <= 999; s++) {
        print_message("# status %d\n", s);
        assert_int_equal(fm_status_set_has(get, s), s >= 200 && s <= 399);
        assert_int_equal(fm_status_set_has(head, s), s >= 100 && s <= 499);
    }
    /* The seed: a 500 from a Monitor_Uri_List GET is a failure. */
    assert_false(fm_status_set_has(get, 500));
    assert_false(fm_status_set_has(get, 403));
    assert_false(fm_status_set_has(get, 404));
    assert_false(fm_status_set_has(head, 503));

    /* An explicit list holds for every kind. */
    assert_int_equal(fm_probe_opts_set_expect(&opts, "200-399,404", err, sizeof(err)), 0);
    assert_true(fm_status_set_has(fm_probe_opts_expect(&opts, FM_PROBE_GET), 404));
    assert_true(fm_status_set_has(fm_probe_opts_expect(&opts, FM_PROBE_HEAD), 404));
    assert_false(fm_status_set_has(fm_probe_opts_expect(&opts, FM_PROBE_HEAD), 403));
    assert_false(fm_status_set_has(fm_probe_opts_expect(&opts, FM_PROBE_HEAD), 100));
    /* A bad one changes nothing. */
    assert_int_equal(fm_probe_opts_set_expect(&opts, "4x4", err, sizeof(err)), EINVAL);
    assert_true(fm_status_set_has(fm_probe_opts_expect(&opts, FM_PROBE_GET), 404));
    fm_probe_opts_clear(&opts);
}

static void
test_status_sets(void **state)
{
    struct fm_status_set set;
    char err[256];

    (void) state;
    assert_int_equal(fm_status_set_parse(&set, "200-204,301,4xx", err, sizeof(err)), 0);
    assert_true(fm_status_set_has(&set, 204));
    assert_false(fm_status_set_has(&set, 205));
    assert_true(fm_status_set_has(&set, 301));
    assert_true(fm_status_set_has(&set, 451));
    assert_false(fm_status_set_has(&set, 500));
    assert_false(fm_status_set_has(&set, -1));
    assert_false(fm_status_set_has(&set, 1000));

    static const char *const bad[] = {
        "", "20", "2000", "099", "abc", "200-", "-200", "300-200", "200,,300", "200,", "2x0", "1xx-0", " 200",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        print_message("# '%s'\n", bad[i]);
        assert_int_equal(fm_status_set_parse(&set, bad[i], err, sizeof(err)), EINVAL);
    }
}

static void
test_durations_and_sizes(void **state)
{
    uint64_t ms = 0;
    size_t bytes = 0;

    (void) state;
    assert_int_equal(fm_parse_duration_ms("5", &ms), 0);
    assert_int_equal(ms, 5000);
    assert_int_equal(fm_parse_duration_ms("500ms", &ms), 0);
    assert_int_equal(ms, 500);
    assert_int_equal(fm_parse_duration_ms("2m", &ms), 0);
    assert_int_equal(ms, 120000);
    assert_int_equal(fm_parse_duration_ms("1h", &ms), 0);
    assert_int_equal(ms, 3600000);
    assert_int_equal(fm_parse_duration_ms("0", &ms), 0);
    assert_int_equal(ms, 0);
    assert_int_not_equal(fm_parse_duration_ms("-1", &ms), 0);
    assert_int_not_equal(fm_parse_duration_ms("", &ms), 0);
    assert_int_not_equal(fm_parse_duration_ms("5x", &ms), 0);
    assert_int_not_equal(fm_parse_duration_ms(" 5", &ms), 0);
    assert_int_not_equal(fm_parse_duration_ms("1.5s", &ms), 0);
    assert_int_equal(fm_parse_duration_ms("99999999999999999999999", &ms), ERANGE);
    assert_int_equal(fm_parse_duration_ms("9000h", &ms), ERANGE);

    assert_int_equal(fm_parse_size_bytes("64k", &bytes), 0);
    assert_int_equal(bytes, 65536);
    assert_int_equal(fm_parse_size_bytes("1M", &bytes), 0);
    assert_int_equal(bytes, 1048576);
    assert_int_not_equal(fm_parse_size_bytes("2G", &bytes), 0);
    assert_int_not_equal(fm_parse_size_bytes("k", &bytes), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uri_table),
        cmocka_unit_test(test_credentials_are_redacted),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_expect_defaults),
        cmocka_unit_test(test_status_sets),
        cmocka_unit_test(test_durations_and_sizes),
    };

    return cmocka_run_group_tests_name("target", tests, NULL, NULL);
}
