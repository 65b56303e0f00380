/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the Prometheus text format of the state (src/metrics/render.c)
 * and what the exporter answers (src/metrics/http_serve.c).
 */
#include <config.h>

#include <errno.h>
#include <sys/socket.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/decide.h>
#include <faultmon/metrics.h>
#include <faultmon/state.h>

static const char *const families[] = {
    "faultmon_build_info", "faultmon_state_valid", "faultmon_state", "faultmon_loop_running",
    "faultmon_loop_died", "faultmon_window_weight",
    "faultmon_restarts_in_window", "faultmon_pending_recovery", "faultmon_cycles_total",
    "faultmon_last_decision_timestamp_seconds", "faultmon_state_updated_timestamp_seconds",
    "faultmon_probe_success", "faultmon_probe_partial", "faultmon_probe_duration_seconds",
    "faultmon_probe_http_status_code", "faultmon_probe_phase_duration_seconds",
    "faultmon_probe_tls_cert_expiry_timestamp_seconds", "faultmon_probe_failures_total",
    "faultmon_decisions_total",
};
#define N_FAMILIES (sizeof(families) / sizeof(families[0]))

static char *
render(const struct fm_metrics_resource *res, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    assert_non_null(out);
    fm_metrics_render(out, res, n);
    assert_int_equal(fclose(out), 0);
    return text;
}

static char *
label(const char *value)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    assert_non_null(out);
    fm_metrics_put_label(out, value);
    assert_int_equal(fclose(out), 0);
    return text;
}

static struct fm_run_state *
new_state(const char *target)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));

    assert_non_null(st);
    snprintf(st->resource, sizeof(st->resource), "web");
    st->state = FM_STATE_FLAPPING;
    st->weight = 50;
    st->restarts_in_window = 1;
    st->cycles = 7;
    st->updated_wall_s = 1700000100;
    st->decide.clock_us = 500000000;
    st->decide.last_action_us = 440000000;
    st->n_targets = 2;
    snprintf(st->targets[0].target, sizeof(st->targets[0].target), "%s", target);
    st->targets[0].cls = FM_CLASS_PARTIAL;
    st->targets[0].http_status = 503;
    st->targets[0].latency_us = 1234567;
    snprintf(st->targets[1].target, sizeof(st->targets[1].target), "tcp://127.0.0.1:80");
    return st;
}

static void
test_label_escaping(void **state)
{
    static const struct { const char *in, *out; } cases[] = {
        { "plain", "plain" },
        { "a\"b", "a\\\"b" },
        { "a\\b", "a\\\\b" },
        { "a\nb", "a\\nb" },
        { "a\rb\tc\x01\x7f", "a?b?c??" },
        { "caf\xc3\xa9", "caf\xc3\xa9" },                   /* UTF-8 kept */
        { "\xff\xfe\xc3", "???" },                          /* not UTF-8 */
        { "\xe0\x80\x80\xed\xa0\x80", "??????" },           /* overlong, surrogate */
        { "\"}\nfaultmon_state{resource=\"x\"} 1", "\\\"}\\nfaultmon_state{resource=\\\"x\\\"} 1" },
    };

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = label(cases[i].in);

        assert_string_equal(got, cases[i].out);
        free(got);
    }
}

/* Every line is a comment or `name{labels} value`, within one line. */
static void
check_lines(const char *text, const char *hostile)
{
    char *copy = strdup(text);
    char *save = NULL;
    int sample_lines = 0;

    assert_non_null(copy);
    for (char *line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') {
            assert_true(strncmp(line, "# HELP faultmon_", 16) == 0
                        || strncmp(line, "# TYPE faultmon_", 16) == 0);
            continue;
        }
        assert_true(strncmp(line, "faultmon_", 9) == 0);
        if (strncmp(line, "faultmon_build_info{", 20) == 0) {
            assert_string_equal(line, "faultmon_build_info{version=\"" PACKAGE_VERSION "\"} 1");
            continue;
        }
        assert_non_null(strstr(line, "{resource=\""));
        assert_non_null(strstr(line, "\"} "));
        sample_lines++;
    }
    assert_true(sample_lines > 0);
    assert_null(strstr(text, hostile));
    free(copy);
}

static void
test_every_family_once(void **state)
{
    const char *hostile = "http://h/\"}\nfaultmon_state{resource=\"evil\"} 1";
    struct fm_run_state *st = new_state(hostile);
    struct fm_metrics_resource res[2] = { { "bad", NULL }, { "web", NULL } };
    char *text = NULL;
    const char *last = NULL;

    (void) state;
    res[1].st = st;
    text = render(res, 2);
    check_lines(text, hostile);
    for (size_t f = 0; f < N_FAMILIES; f++) {
        char help[128], type[128];
        const char *at = NULL;

        snprintf(help, sizeof(help), "# HELP %s ", families[f]);
        snprintf(type, sizeof(type), "\n# TYPE %s ", families[f]);
        at = strstr(text, help);
        assert_non_null(at);
        assert_null(strstr(at + 1, help));                  /* once */
        assert_non_null(strstr(text, type));
        assert_true(last == NULL || at > last);             /* in order, not mixed */
        last = at;
    }
    assert_non_null(strstr(text, "faultmon_state_valid{resource=\"bad\"} 0\n"));
    assert_non_null(strstr(text, "faultmon_state_valid{resource=\"web\"} 1\n"));
    assert_null(strstr(text, "faultmon_state{resource=\"bad\""));  /* no verdict */
    assert_non_null(strstr(text, "faultmon_loop_running{resource=\"web\"} 0\n"));
    assert_non_null(strstr(text, "faultmon_loop_died{resource=\"web\"} 0\n"));
    assert_null(strstr(text, "faultmon_loop_running{resource=\"bad\""));
    assert_non_null(strstr(text, "faultmon_state{resource=\"web\",state=\"flapping\"} 1\n"));
    assert_non_null(strstr(text, "faultmon_state{resource=\"web\",state=\"up\"} 0\n"));
    assert_non_null(strstr(text, "faultmon_state{resource=\"web\",state=\"down\"} 0\n"));
    assert_non_null(strstr(text, "faultmon_window_weight{resource=\"web\"} 50\n"));
    assert_non_null(strstr(text, "faultmon_restarts_in_window{resource=\"web\"} 1\n"));
    assert_non_null(strstr(text, "faultmon_last_decision_timestamp_seconds{resource=\"web\"} 1700000040\n"));
    assert_non_null(strstr(text, "faultmon_probe_duration_seconds{resource=\"web\",target=\"tcp://127.0.0.1:80\",source=\"port_list\"} 0.000000\n"));
    assert_non_null(strstr(text, "\"} 1.234567\n"));
    assert_non_null(strstr(text, "faultmon_probe_success{resource=\"web\",target=\"tcp://127.0.0.1:80\",source=\"port_list\"} 1\n"));
    assert_non_null(strstr(text, "faultmon_probe_partial{resource=\"web\",target=\"http://h/\\\"}\\nfaultmon_state{resource=\\\"evil\\\"} 1\",source=\"port_list\"} 1\n"));
    assert_non_null(strstr(text, "# TYPE faultmon_cycles_total counter\n"));
    free(text);
    free(st);
}

static long long
cycles_of(const char *text)
{
    const char *at = strstr(text, "faultmon_cycles_total{resource=\"web\"} ");

    assert_non_null(at);
    return atoll(at + strlen("faultmon_cycles_total{resource=\"web\"} "));
}

static void
test_counter_follows_cycles(void **state)
{
    struct fm_run_state *st = new_state("http://127.0.0.1/");
    struct fm_metrics_resource res = { "web", NULL };
    long long before = 0;
    char *text = NULL;

    (void) state;
    res.st = st;
    text = render(&res, 1);
    before = cycles_of(text);
    free(text);
    st->cycles++;
    text = render(&res, 1);
    assert_int_equal(cycles_of(text), before + 1);
    free(text);
    st->decide.last_action_us = 0;                          /* never decided */
    text = render(&res, 1);
    assert_null(strstr(text, "faultmon_last_decision_timestamp_seconds{"));
    free(text);
    free(st);
}

/* The phases a probe went through, and only those, in seconds. */
static void
test_phases_only_those_gone_through(void **state)
{
    struct fm_run_state *st = new_state("https://h/");
    struct fm_metrics_resource res = { "web", NULL };
    struct fm_state_target *t = &st->targets[0];
    char *text = NULL;

    (void) state;
    t->phases = (1u << FM_PHASE_CONNECT) | (1u << FM_PHASE_TLS) | (1u << FM_PHASE_REPLY);
    t->phase_us[FM_PHASE_CONNECT] = 1500;
    t->phase_us[FM_PHASE_TLS] = 2000001;
    t->phase_us[FM_PHASE_REPLY] = 0;
    res.st = st;
    text = render(&res, 1);
    assert_non_null(strstr(text, "# TYPE faultmon_probe_phase_duration_seconds gauge\n"));
    assert_non_null(strstr(text, "faultmon_probe_phase_duration_seconds{resource=\"web\",target=\"https://h/\",source=\"port_list\","
                           "phase=\"connect\"} 0.001500\n"));
    assert_non_null(strstr(text, "target=\"https://h/\",source=\"port_list\",phase=\"tls\"} 2.000001\n"));
    assert_non_null(strstr(text, "target=\"https://h/\",source=\"port_list\",phase=\"reply\"} 0.000000\n"));
    assert_null(strstr(text, "phase=\"resolve\""));       /* a numeric address */
    assert_null(strstr(text, "phase=\"request\""));
    /* the second target went through none: no series at all */
    assert_null(strstr(text, "faultmon_probe_phase_duration_seconds{resource=\"web\",target=\"tcp://"));
    free(text);
    free(st);
}

/* A certificate's expiry for a target whose handshake showed one only. */
static void
test_cert_expiry_only_with_a_certificate(void **state)
{
    struct fm_run_state *st = new_state("https://h/");
    struct fm_metrics_resource res = { "web", NULL };
    char *text = NULL;

    (void) state;
    st->targets[0].cert_not_after = 1893456000;
    res.st = st;
    text = render(&res, 1);
    assert_non_null(strstr(text, "# TYPE faultmon_probe_tls_cert_expiry_timestamp_seconds gauge\n"));
    assert_non_null(strstr(text, "faultmon_probe_tls_cert_expiry_timestamp_seconds{resource=\"web\","
                           "target=\"https://h/\",source=\"port_list\"} 1893456000\n"));
    assert_null(strstr(text, "faultmon_probe_tls_cert_expiry_timestamp_seconds{resource=\"web\",target=\"tcp:"));
    free(text);
    free(st);
}

/* Both counters, every class and action, 0 included; none without a
 * trusted state. */
static void
test_failure_and_decision_counters(void **state)
{
    struct fm_run_state *st = new_state("http://h/");
    struct fm_metrics_resource res[2] = { { "bad", NULL }, { "web", NULL } };
    char *text = NULL;

    (void) state;
    st->targets[0].failures[FM_CLASS_PARTIAL] = 3;
    st->targets[0].failures[FM_CLASS_COMPLETE] = 18446744073709551615u;
    st->decisions[FM_ACTION_RESTART] = 1;
    res[1].st = st;
    text = render(res, 2);
    assert_non_null(strstr(text, "# TYPE faultmon_probe_failures_total counter\n"));
    assert_non_null(strstr(text, "# TYPE faultmon_decisions_total counter\n"));
    assert_non_null(strstr(text, "faultmon_probe_failures_total{resource=\"web\",target=\"http://h/\",source=\"port_list\","
                           "class=\"partial\"} 3\n"));
    assert_non_null(strstr(text, "target=\"http://h/\",source=\"port_list\",class=\"complete\"} 18446744073709551615\n"));
    assert_non_null(strstr(text, "faultmon_probe_failures_total{resource=\"web\",target=\"tcp://127.0.0.1:80\",source=\"port_list\","
                           "class=\"complete\"} 0\n"));
    assert_non_null(strstr(text, "faultmon_decisions_total{resource=\"web\",action=\"restart\"} 1\n"));
    assert_non_null(strstr(text, "faultmon_decisions_total{resource=\"web\",action=\"failover\"} 0\n"));
    assert_null(strstr(text, "faultmon_decisions_total{resource=\"bad\""));
    assert_null(strstr(text, "faultmon_probe_failures_total{resource=\"bad\""));
    free(text);
    free(st);
}

static void
test_http_judge(void **state)
{
    static const struct { const char *req; enum fm_metrics_http want; } cases[] = {
        { "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", FM_METRICS_HTTP_OK },
        { "GET /metrics?name[]=x HTTP/1.0\n\n", FM_METRICS_HTTP_OK },
        { "HEAD /metrics HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_HEAD },
        { "GET /metrics HTTP/1.1\r\nHost: x\r\n", FM_METRICS_HTTP_MORE },
        { "GET /metrics", FM_METRICS_HTTP_MORE },
        { "GET / HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_INDEX },
        { "GET /?x=1 HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_INDEX },
        { "HEAD / HTTP/1.0\r\n\r\n", FM_METRICS_HTTP_INDEX_HEAD },
        { "GET /index.html HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_NOT_FOUND },
        { "GET // HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_NOT_FOUND },
        { "GET /metricsx HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_NOT_FOUND },
        { "GET /other HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_NOT_FOUND },
        { "POST /metrics HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_METHOD },
        { "DELETE /metrics HTTP/1.0\r\n\r\n", FM_METRICS_HTTP_METHOD },
        { "GET /metrics HTTP/2.0\r\n\r\n", FM_METRICS_HTTP_BAD },
        { "GET  HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_BAD },
        { "get /metrics HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_BAD },
        { "\r\n\r\n", FM_METRICS_HTTP_BAD },
        { "GET /a b HTTP/1.1\r\n\r\n", FM_METRICS_HTTP_BAD },
    };
    char big[200];

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(fm_metrics_http_judge(cases[i].req, strlen(cases[i].req), 8192), cases[i].want);
    }
    memset(big, 'a', sizeof(big));
    memcpy(big, "GET /", 5);
    assert_int_equal(fm_metrics_http_judge(big, 100, 100), FM_METRICS_HTTP_TOO_LARGE);
    assert_int_equal(fm_metrics_http_judge(big, sizeof(big), 100), FM_METRICS_HTTP_TOO_LARGE);
    assert_int_equal(fm_metrics_http_judge(big, 99, 100), FM_METRICS_HTTP_MORE);
}

static void
test_http_header(void **state)
{
    char buf[512];
    const char *body = NULL;

    (void) state;
    body = fm_metrics_http_header(FM_METRICS_HTTP_OK, 1234, buf, sizeof(buf));
    assert_string_equal(body, "");
    assert_non_null(strstr(buf, "HTTP/1.1 200 OK\r\n"));
    assert_non_null(strstr(buf, "Content-Length: 1234\r\n"));
    assert_non_null(strstr(buf, "Content-Type: " FM_METRICS_CONTENT_TYPE "\r\n"));
    assert_non_null(strstr(buf, "Connection: close\r\n\r\n"));
    body = fm_metrics_http_header(FM_METRICS_HTTP_METHOD, 0, buf, sizeof(buf));
    assert_non_null(strstr(buf, "HTTP/1.1 405 "));
    assert_non_null(strstr(buf, "Allow: GET, HEAD\r\n"));
    assert_true(strlen(body) > 0);
    body = fm_metrics_http_header(FM_METRICS_HTTP_NOT_FOUND, 99, buf, sizeof(buf));
    assert_non_null(strstr(buf, "HTTP/1.1 404 "));
    char want[64];
    snprintf(want, sizeof(want), "Content-Length: %zu\r\n", strlen(body));
    assert_non_null(strstr(buf, want));
    /* The page at /: HTML that links the metrics, its length in the header
     * of a HEAD as of a GET. */
    body = fm_metrics_http_header(FM_METRICS_HTTP_INDEX_HEAD, 0, buf, sizeof(buf));
    assert_non_null(strstr(buf, "HTTP/1.1 200 OK\r\n"));
    assert_non_null(strstr(buf, "Content-Type: text/html; charset=utf-8\r\n"));
    assert_non_null(strstr(body, "<a href=\"metrics\">"));
    snprintf(want, sizeof(want), "Content-Length: %zu\r\n", strlen(body));
    assert_non_null(strstr(buf, want));
}

/* --listen (issue 29 #8): a port outside 1-65535 is refused, never taken
 * modulo 65536; ":PORT" is every address of both families. */
static void
test_listen_parse(void **state)
{
    static const struct { const char *spec; int rc, family; const char *host; unsigned port; } cases[] = {
        { "127.0.0.1:9717", 0, AF_INET, "127.0.0.1", 9717 },
        { ":9717", 0, AF_UNSPEC, "", 9717 },
        { "[::1]:1", 0, AF_INET6, "::1", 1 },
        { "[::]:65535", 0, AF_INET6, "::", 65535 },
        { "::1:9717", 0, AF_INET6, "::1", 9717 },
        { "127.0.0.1:99999", EINVAL, 0, "", 0 },
        { "127.0.0.1:65536", EINVAL, 0, "", 0 },
        { "127.0.0.1:0", EINVAL, 0, "", 0 },
        { "127.0.0.1:-1", EINVAL, 0, "", 0 },
        { "127.0.0.1:+80", EINVAL, 0, "", 0 },
        { "127.0.0.1: 80", EINVAL, 0, "", 0 },
        { "127.0.0.1:http", EINVAL, 0, "", 0 },
        { "127.0.0.1:", EINVAL, 0, "", 0 },
        { "127.0.0.1", EINVAL, 0, "", 0 },
        { "localhost:9717", EINVAL, 0, "", 0 },
        { "[127.0.0.1:80", EINVAL, 0, "", 0 },
        { "999.0.0.1:80", EINVAL, 0, "", 0 },
    };

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fm_metrics_listen l;
        char err[256] = "";
        int rc = fm_metrics_listen_parse(cases[i].spec, &l, err, sizeof(err));

        if (rc != cases[i].rc) {
            fail_msg("%s: rc %d, want %d (%s)", cases[i].spec, rc, cases[i].rc, err);
        }
        if (rc == 0) {
            assert_int_equal(l.family, cases[i].family);
            assert_string_equal(l.host, cases[i].host);
            assert_int_equal(l.port, cases[i].port);
        } else {
            assert_non_null(strstr(err, cases[i].spec));     /* the value named */
            assert_null(strchr(err, '\n'));
        }
    }
}

/* Issue 29: the same URL in Port_list and Monitor_Uri_List (and as a
 * dependency) is told apart by source; the same probe listed twice in one
 * list is shown once.  No two sample lines have the same name and labels. */
static void
test_every_series_unique(void **state)
{
    struct fm_run_state *st = new_state("http://127.0.0.1:80/");
    struct fm_metrics_resource res = { "web", NULL };
    static const enum fm_state_source sources[] = {
        FM_SOURCE_PORT_LIST, FM_SOURCE_MONITOR_URI, FM_SOURCE_DEPENDENCY, FM_SOURCE_PORT_LIST,
    };
    char *text = NULL, *copy = NULL, *save = NULL;
    char *seen[512];
    size_t n_seen = 0;

    (void) state;
    st->n_targets = 4;
    for (size_t i = 0; i < 4; i++) {
        struct fm_state_target *t = &st->targets[i];

        snprintf(t->target, sizeof(t->target), "http://127.0.0.1:80/");
        t->source = sources[i];
        t->cert_not_after = 1893456000;
        t->phases = 1u << FM_PHASE_CONNECT;
    }
    res.st = st;
    text = render(&res, 1);
    assert_non_null(strstr(text, "faultmon_probe_success{resource=\"web\",target=\"http://127.0.0.1:80/\","
                           "source=\"monitor_uri\"} "));
    assert_non_null(strstr(text, "target=\"http://127.0.0.1:80/\",source=\"dependency\"} "));
    copy = strdup(text);
    assert_non_null(copy);
    for (char *line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') {
            continue;
        }
        *strrchr(line, ' ') = '\0';     /* name and labels only */
        for (size_t j = 0; j < n_seen; j++) {
            if (strcmp(seen[j], line) == 0) {
                fail_msg("duplicate series %s", line);
            }
        }
        assert_true(n_seen < sizeof(seen) / sizeof(seen[0]));
        seen[n_seen++] = line;
    }
    free(copy);
    free(text);
    free(st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label_escaping),
        cmocka_unit_test(test_every_family_once),
        cmocka_unit_test(test_counter_follows_cycles),
        cmocka_unit_test(test_phases_only_those_gone_through),
        cmocka_unit_test(test_cert_expiry_only_with_a_certificate),
        cmocka_unit_test(test_failure_and_decision_counters),
        cmocka_unit_test(test_http_judge),
        cmocka_unit_test(test_http_header),
        cmocka_unit_test(test_every_series_unique),
        cmocka_unit_test(test_listen_parse),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
