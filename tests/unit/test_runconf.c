/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the run configuration from agent-style parameters.  Every
 * probe parameter goes through the table: its default, a good value, a
 * value out of range (or otherwise refused), and a misspelt name; then the
 * decision engine's parameters, the environment and the final checks.
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
#include <faultmon/probe_params.h>
#include <faultmon/runconf.h>
#include <faultmon/status_set.h>

/* One parameter: a good value and what it must set, a refused one and a
 * part of its message, and a name no table knows. */
struct param_case {
    const char *name;
    const char *good;
    bool (*good_set)(const struct fm_run_config *cfg);
    const char *bad;
    const char *bad_message;
    const char *misspelt;
    const char *needs;      /* "NAME=VALUE" the good value needs, or NULL */
};

static bool
is_default(const struct fm_run_config *cfg)
{
    return cfg->probe.timeout_ms == 5000 && cfg->probe.max_reply_bytes == 65536
           && cfg->probe.receive_window_bytes == 4096 && !cfg->probe.reverse
           && !cfg->probe.tls_request && !cfg->probe.tls_verify && cfg->probe.ca_file == NULL
           && cfg->probe.sni == NULL && cfg->probe.method == NULL && cfg->probe.n_headers == 0
           && !cfg->probe.have_receive && fm_status_set_has(&cfg->probe.expect_get, 200)
           && !fm_status_set_has(&cfg->probe.expect_get, 404)
           && fm_status_set_has(&cfg->probe.expect_head, 404) && cfg->n_targets == 1
           && strcmp(cfg->targets[0].text, FM_DEFAULT_TARGET) == 0;
}

static bool
port_list_set(const struct fm_run_config *cfg)
{
    return cfg->have_port_list && cfg->n_targets == 3 && cfg->targets[0].port == 8080
           && strcmp(cfg->targets[0].host, "127.0.0.1") == 0 && cfg->targets[1].port == 81
           && strcmp(cfg->targets[1].host, "web") == 0 && cfg->targets[2].kind == FM_PROBE_TCP_CONNECT;
}

static bool
uri_list_set(const struct fm_run_config *cfg)
{
    return !cfg->have_port_list && cfg->n_targets == 2 && cfg->targets[0].kind == FM_PROBE_GET
           && strcmp(cfg->targets[1].path, "/b") == 0;
}

static bool
timeout_set(const struct fm_run_config *cfg)
{
    return cfg->probe.timeout_ms == 2500 && cfg->decide.probe_timeout_ms == 2500;
}

static bool
expect_set(const struct fm_run_config *cfg)
{
    return fm_status_set_has(&cfg->probe.expect_get, 401)
           && !fm_status_set_has(&cfg->probe.expect_get, 200)
           && fm_status_set_has(&cfg->probe.expect_head, 401);
}

static bool
regex_set(const struct fm_run_config *cfg)
{
    return cfg->probe.have_receive && strcmp(cfg->probe.receive_text, "up|ok") == 0;
}

static bool
window_set(const struct fm_run_config *cfg)
{
    return cfg->probe.receive_window_bytes == 16384;
}

static bool
send_set(const struct fm_run_config *cfg)
{
    return cfg->probe.send_len == 6 && memcmp(cfg->probe.send, "PING\r\n", 6) == 0;
}

static bool
expect_regex_set(const struct fm_run_config *cfg)
{
    return cfg->probe.have_expect && strcmp(cfg->probe.expect_text, "^\\+PONG") == 0;
}

/* Two commands, one per line, each split into words; a bare name found. */
static bool
command_set(const struct fm_run_config *cfg)
{
    const char *found = (cfg->n_targets == 2)? cfg->targets[0].exec_argv[0] : "";

    return cfg->n_targets == 2 && cfg->targets[0].kind == FM_PROBE_EXEC
           && found[0] == '/' && strcmp(strrchr(found, '/'), "/true") == 0
           && cfg->targets[1].exec_argc == 3
           && strcmp(cfg->targets[1].exec_argv[0], "/bin/sh") == 0
           && strcmp(cfg->targets[1].exec_argv[2], "exit 1") == 0
           && strcmp(cfg->targets[1].text, "exec /bin/sh -c 'exit 1'") == 0;
}

static bool
reverse_set(const struct fm_run_config *cfg)
{
    return cfg->probe.reverse;
}

static bool
method_set(const struct fm_run_config *cfg)
{
    return strcmp(cfg->probe.method, "OPTIONS") == 0;
}

static bool
headers_set(const struct fm_run_config *cfg)
{
    return cfg->probe.n_headers == 2 && strcmp(cfg->probe.headers[1], "X-B: 2") == 0;
}

static bool
tls_request_set(const struct fm_run_config *cfg)
{
    return cfg->probe.tls_request;
}

static bool
spread_set(const struct fm_run_config *cfg)
{
    return cfg->probe.spread;
}

static bool
overload_url_set(const struct fm_run_config *cfg)
{
    return cfg->probe.overload_status_url != NULL
           && strcmp(cfg->probe.overload_status_url, "http://127.0.0.1/server-status?auto") == 0;
}

static bool
overload_capacity_set(const struct fm_run_config *cfg)
{
    return cfg->probe.overload_capacity == 1024;
}

static bool
tls_verify_set(const struct fm_run_config *cfg)
{
    return cfg->probe.tls_verify;
}

static bool
ca_file_set(const struct fm_run_config *cfg)
{
    return strcmp(cfg->probe.ca_file, "/etc/ca.pem") == 0 && cfg->probe.tls_verify;
}

static bool
cert_file_set(const struct fm_run_config *cfg)
{
    return strcmp(cfg->probe.cert_file, "/etc/c.pem") == 0;
}

static bool
key_file_set(const struct fm_run_config *cfg)
{
    return strcmp(cfg->probe.key_file, "/etc/k.pem") == 0;
}

static bool
min_version_set(const struct fm_run_config *cfg)
{
    return cfg->probe.tls_min_version == FM_TLS_MIN_1_3;
}

static bool
alpn_set(const struct fm_run_config *cfg)
{
    static const unsigned char wire[] = "\x02h2\x08http/1.1";

    return strcmp(cfg->probe.alpn_text, "h2,http/1.1") == 0
           && cfg->probe.alpn_wire_len == sizeof(wire) - 1
           && memcmp(cfg->probe.alpn_wire, wire, sizeof(wire) - 1) == 0;
}

static bool
alpn_require_set(const struct fm_run_config *cfg)
{
    static const unsigned char wire[] = "\x02h2";

    return strcmp(cfg->probe.alpn_require_text, "h2") == 0
           && cfg->probe.alpn_require_wire_len == sizeof(wire) - 1
           && memcmp(cfg->probe.alpn_require_wire, wire, sizeof(wire) - 1) == 0
           && cfg->probe.alpn_text == NULL;
}

static bool
maint_status_set(const struct fm_run_config *cfg)
{
    return cfg->probe.have_maintenance_status
           && fm_status_set_has(&cfg->probe.maintenance_status, 404)
           && !fm_status_set_has(&cfg->probe.maintenance_status, 200);
}

static bool
maint_header_set(const struct fm_run_config *cfg)
{
    return strcmp(cfg->probe.maintenance_header, "x-envoy-degraded") == 0;
}

static bool
maint_regex_set(const struct fm_run_config *cfg)
{
    return cfg->probe.have_maintenance_regex
           && strcmp(cfg->probe.maintenance_text, "^draining$") == 0;
}

static bool
sni_set(const struct fm_run_config *cfg)
{
    return strcmp(cfg->probe.sni, "www.example.com") == 0;
}

/* Port_list's items, marked as dependencies (judged apart from the service). */
static bool
dependency_set(const struct fm_run_config *cfg)
{
    return cfg->n_targets == 2 && cfg->targets[0].dependency && cfg->targets[1].dependency
           && strcmp(cfg->targets[0].text, "tcp://db:5432") == 0
           && strcmp(cfg->targets[1].text, "redis://cache:6379") == 0 && !cfg->have_port_list;
}

static bool
max_set(const struct fm_run_config *cfg)
{
    return cfg->probe.max_reply_bytes == 1024 * 1024;
}

static bool
access_log_set(const struct fm_run_config *cfg)
{
    return cfg->probe.access_log.path != NULL && strcmp(cfg->probe.access_log.path, "/var/log/apache2/access.log") == 0;
}

static bool
access_log_window_set(const struct fm_run_config *cfg)
{
    return cfg->probe.access_log.window_ms == 120000;
}

static bool
access_log_5xx_set(const struct fm_run_config *cfg)
{
    return cfg->probe.access_log.pct_5xx == 35;
}

static bool
access_log_min_set(const struct fm_run_config *cfg)
{
    return cfg->probe.access_log.min_requests == 100;
}

static bool
access_log_slow_set(const struct fm_run_config *cfg)
{
    return cfg->probe.access_log.slow_ms == 2500;
}

static bool
access_log_slow_pct_set(const struct fm_run_config *cfg)
{
    return cfg->probe.access_log.slow_pct == 10;
}

/* Every row of the table has a case here (test_every_row_has_a_case). */
static const struct param_case param_cases[] = {
    { "Port_list", "8080 web/81/tcp,tcp://127.0.0.1:22", port_list_set, "80/udp",
      "Port_list: invalid item '80/udp'", "Port_lists" },
    { "Monitor_Uri_List", "http://h/a https://h/b", uri_list_set, "tcp://h:1",
      "Monitor_Uri_List: invalid URI 'tcp://h:1'", "Monitor_Uri" },
    { "Probe_command", "true\n /bin/sh -c 'exit 1'\n", command_set, "check | grep",
      "Probe_command: invalid command 'check | grep': no shell runs it", "Probe_commands" },
    { "Dependency_list", "tcp://db:5432, redis://cache:6379", dependency_set, "80/udp",
      "Dependency_list: invalid item '80/udp'", "Dependencies_list" },
    { "Probe_timeout", "2500ms", timeout_set, "0",
      "invalid value '0' for Probe_timeout: expected a duration such as 300, 300s, 5m or 500ms, "
      "from 100 ms to 3600 s", "Probe_time_out" },
    { "expect_status", "401", expect_set, "200-1000", "expect_status: invalid status list '200-1000'",
      "expected_status" },
    { "receive_regex", "up|ok", regex_set, "(", "receive_regex: ", "receive_regexp" },
    { "receive_bytes", "16k", window_set, "0", "invalid receive_bytes '0': expected a size such as 4k",
      "receive_byte" },
    { "send_string", "PING\\r\\n", send_set, "a\\q", "send_string: invalid send string 'a\\q'",
      "send" },
    { "expect_regex", "^\\+PONG", expect_regex_set, "(", "expect_regex: ", "expect" },
    { "reverse", "yes", reverse_set, "maybe", "invalid reverse 'maybe': expected true or false",
      "reversed", "receive_regex=down" },
    { "maintenance_status", "404", maint_status_set, "4o4",
      "maintenance_status: invalid status list '4o4'", "maintenance_statuses" },
    { "maintenance_header", "x-envoy-degraded", maint_header_set, "x envoy",
      "maintenance_header: invalid header name 'x envoy'", "maintenance_headers" },
    { "maintenance_regex", "^draining$", maint_regex_set, "(", "maintenance_regex: invalid regex",
      "maintenance_regexp" },
    { "http_method", "OPTIONS", method_set, "GE T", "http_method: invalid method 'GE T'", "method" },
    { "http_headers", "X-A: 1| X-B: 2", headers_set, "NoColon", "http_headers: invalid header 'NoColon'",
      "http_header" },
    { "tls_request", "true", tls_request_set, "2", "invalid tls_request '2': expected true or false",
      "tls_requests" },
    { "tls_verify", "on", tls_verify_set, "", "invalid tls_verify '': expected true or false",
      "tls_verification" },
    { "tls_ca_file", "/etc/ca.pem", ca_file_set, NULL, NULL, "tls_ca" },
    { "tls_sni", "www.example.com", sni_set, NULL, NULL, "sni" },
    { "tls_cert_file", "/etc/c.pem", cert_file_set, NULL, NULL, "tls_cert" },
    { "tls_key_file", "/etc/k.pem", key_file_set, NULL, NULL, "tls_key", "tls_cert_file=/etc/c.pem" },
    { "tls_min_version", "TLSv1.3", min_version_set, "1.1",
      "tls_min_version: invalid TLS version '1.1': expected 1.2 or 1.3", "tls_version" },
    { "tls_alpn", "h2,http/1.1", alpn_set, "h2, http/1.1", "tls_alpn: invalid ALPN list", "alpn" },
    { "tls_alpn_require", "h2", alpn_require_set, "h2,", "tls_alpn_require: invalid ALPN list",
      "tls_alpn_required" },
    { "max_reply_bytes", "1M", max_set, "63",
      "invalid max_reply_bytes '63': expected a size of at least 64", "max_reply" },
    { "overload_status_url", "http://127.0.0.1/server-status?auto", overload_url_set, NULL, NULL,
      "overload_status" },
    { "overload_capacity", "1024", overload_capacity_set, "many",
      "invalid overload_capacity 'many': expected a count of connections", "overload_capacities" },
    { "spread", "true", spread_set, "often", "invalid spread 'often': expected true or false",
      "spreads" },
    { "access_log", "/var/log/apache2/access.log", access_log_set, NULL, NULL, "accesslog" },
    { "access_log_window", "2min", access_log_window_set, "500ms",
      "access_log_window: invalid window '500ms': expected a duration from 1s to 24h", "access_log_windows" },
    { "access_log_5xx_pct", "35", access_log_5xx_set, "0", "access_log_5xx_pct: invalid percentage '0'",
      "access_log_5xx" },
    { "access_log_min_requests", "100", access_log_min_set, "-1", "access_log_min_requests: invalid count '-1'",
      "access_log_min_request" },
    { "access_log_slow", "2500ms", access_log_slow_set, "2 s", "access_log_slow: invalid duration '2 s'",
      "access_log_slowest" },
    { "access_log_slow_pct", "10", access_log_slow_pct_set, "101", "access_log_slow_pct: invalid percentage '101'",
      "access_log_slow_percent" },
};

#define N_CASES (sizeof(param_cases) / sizeof(param_cases[0]))

/* Set a parameter that must be accepted. */
static void
set_ok(struct fm_run_config *cfg, const char *name, const char *value)
{
    char err[512] = "";

    if (fm_run_config_set(cfg, name, value, err, sizeof(err)) != 0) {
        fail_msg("%s=%s: %s", name, value, err);
    }
}

static void
test_every_row_has_a_case(void **state)
{
    size_t n = 0;
    const struct fm_probe_param *params = fm_probe_params(&n);

    (void) state;
    assert_int_equal(n, N_CASES);
    for (size_t i = 0; i < n; i++) {
        bool found = false;

        for (size_t j = 0; j < N_CASES; j++) {
            found = found || strcmp(params[i].name, param_cases[j].name) == 0;
        }
        assert_true(found);
    }
}

static void
test_defaults(void **state)
{
    struct fm_run_config cfg;
    char err[512] = "";

    (void) state;
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_finish(&cfg, err, sizeof(err)), 0);
    assert_true(is_default(&cfg));
    fm_run_config_clear(&cfg);
}

static void
test_good_values(void **state)
{
    (void) state;
    for (size_t i = 0; i < N_CASES; i++) {
        struct fm_run_config cfg;
        char err[512] = "";

        fm_run_config_init(&cfg);
        if (param_cases[i].needs != NULL) {
            char name[64];
            const char *eq = strchr(param_cases[i].needs, '=');

            snprintf(name, sizeof(name), "%.*s", (int) (eq - param_cases[i].needs),
                     param_cases[i].needs);
            set_ok(&cfg, name, eq + 1);
        }
        if (fm_run_config_set(&cfg, param_cases[i].name, param_cases[i].good, err, sizeof(err)) != 0
            || fm_run_config_finish(&cfg, err, sizeof(err)) != 0 || !param_cases[i].good_set(&cfg)) {
            fail_msg("%s=%s: %s", param_cases[i].name, param_cases[i].good, err);
        }
        fm_run_config_clear(&cfg);
    }
}

static void
test_bad_values(void **state)
{
    (void) state;
    for (size_t i = 0; i < N_CASES; i++) {
        struct fm_run_config cfg;
        char err[512] = "";

        if (param_cases[i].bad == NULL) {
            continue;   /* any text is a file or a name; "" unsets it */
        }
        fm_run_config_init(&cfg);
        assert_int_equal(fm_run_config_set(&cfg, param_cases[i].name, param_cases[i].bad, err,
                                           sizeof(err)), EINVAL);
        if (strstr(err, param_cases[i].bad_message) == NULL) {
            fail_msg("%s=%s: '%s' lacks '%s'", param_cases[i].name, param_cases[i].bad, err,
                     param_cases[i].bad_message);
        }
        fm_run_config_clear(&cfg);
    }
}

/* A name in another case or with '-' is the same parameter; a misspelt
 * one is no parameter (ENOENT: neither table knows it). */
static void
test_spelling(void **state)
{
    (void) state;
    for (size_t i = 0; i < N_CASES; i++) {
        struct fm_run_config cfg;
        char err[512] = "";

        fm_run_config_init(&cfg);
        assert_int_equal(fm_run_config_set(&cfg, param_cases[i].misspelt, param_cases[i].good, err,
                                           sizeof(err)), ENOENT);
        fm_run_config_clear(&cfg);
    }
}

static void
test_name_folding(void **state)
{
    struct fm_run_config cfg;

    (void) state;
    fm_run_config_init(&cfg);
    set_ok(&cfg, "probe-timeout", "3s");
    assert_int_equal(cfg.probe.timeout_ms, 3000);
    set_ok(&cfg, "MAX_REPLY_BYTES", "128");
    assert_int_equal(cfg.probe.max_reply_bytes, 128);
    fm_run_config_clear(&cfg);
}

/* Names the probe table does not have go to the decision engine. */
static void
test_decision_parameters(void **state)
{
    struct fm_run_config cfg;
    char err[512] = "";

    (void) state;
    fm_run_config_init(&cfg);
    set_ok(&cfg, "Retry_count", "4");
    assert_int_equal(cfg.decide.retry_count, 4);
    assert_int_equal(fm_run_config_set(&cfg, "Retry_count", "many", err, sizeof(err)), EINVAL);
    fm_run_config_clear(&cfg);

    /* Probe_timeout has the decision engine's bounds (an hour at most)
     * whichever table's name set it. */
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_set(&cfg, "Probe_timeout", "2h", err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "Probe_timeout"));
    fm_run_config_clear(&cfg);
}

static void
test_from_env(void **state)
{
    struct fm_run_config cfg;
    char err[512] = "";

    (void) state;
    setenv("OCF_RESKEY_Probe_timeout", "7s", 1);
    setenv("OCF_RESKEY_receive_bytes", "8k", 1);
    setenv("OCF_RESKEY_CRM_meta_timeout", "not a parameter", 1);
    setenv("OCF_RESKEY_configfile", "/etc/apache2/apache2.conf", 1);   /* the agent's own */
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_from_env(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.probe.timeout_ms, 7000);
    assert_int_equal(cfg.probe.receive_window_bytes, 8192);
    fm_run_config_clear(&cfg);

    setenv("OCF_RESKEY_receive_bytes", "lots", 1);
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_from_env(&cfg, err, sizeof(err)), EINVAL);
    assert_string_equal(err, "invalid receive_bytes 'lots': expected a size such as 4k");
    fm_run_config_clear(&cfg);
    unsetenv("OCF_RESKEY_Probe_timeout");
    unsetenv("OCF_RESKEY_receive_bytes");
    unsetenv("OCF_RESKEY_CRM_meta_timeout");
    unsetenv("OCF_RESKEY_configfile");
}

/* A loop run by hand with a resource's variables has `advanced` as the CIB
 * holds it (the agent unfolds it into variables before it starts one):
 * each word counts unless its name has a value of its own. */
static void
test_from_env_advanced(void **state)
{
    struct fm_run_config cfg;
    char err[512] = "";

    (void) state;
    setenv("OCF_RESKEY_advanced", "rise=3 receive_bytes='8k' testregex10=x", 1);
    setenv("OCF_RESKEY_fall", "2", 1);
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_from_env(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.decide.rise, 3);
    assert_int_equal(cfg.decide.fall, 2);
    assert_int_equal(cfg.probe.receive_window_bytes, 8192);
    fm_run_config_clear(&cfg);

    /* Unfolded by the agent: the variable of its own wins. */
    setenv("OCF_RESKEY_rise", "4", 1);
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_from_env(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.decide.rise, 4);
    fm_run_config_clear(&cfg);
    unsetenv("OCF_RESKEY_rise");

    setenv("OCF_RESKEY_advanced", "rise=abc", 1);
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_from_env(&cfg, err, sizeof(err)), EINVAL);
    fm_run_config_clear(&cfg);
    setenv("OCF_RESKEY_advanced", "rise='3", 1);
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_from_env(&cfg, err, sizeof(err)), EINVAL);
    assert_string_equal(err, "advanced: unbalanced quote");
    fm_run_config_clear(&cfg);
    unsetenv("OCF_RESKEY_advanced");
    unsetenv("OCF_RESKEY_fall");
}

/* faultmon run --param and the agents' validate-all set maintenance_status
 * through the same setter: a 5xx is refused there too, in one line that
 * names the parameter. */
static void
test_maintenance_status_5xx_refused(void **state)
{
    struct fm_run_config cfg;
    char err[512] = "";

    (void) state;
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_set(&cfg, "maintenance_status", "503", err, sizeof(err)), EINVAL);
    assert_string_equal(err, "maintenance_status: 503 is a server error; a 5xx never signals"
                        " maintenance (it is a failure)");
    assert_false(cfg.probe.have_maintenance_status);
    fm_run_config_clear(&cfg);
}

static void
test_finish_checks(void **state)
{
    struct fm_run_config cfg;
    char err[512] = "";

    (void) state;
    fm_run_config_init(&cfg);
    set_ok(&cfg, "reverse", "true");
    assert_int_equal(fm_run_config_finish(&cfg, err, sizeof(err)), EINVAL);
    assert_string_equal(err, "reverse=true needs receive_regex or expect_regex");
    fm_run_config_clear(&cfg);

    /* expect_regex alone is enough: reverse turns it around on tcp://. */
    fm_run_config_init(&cfg);
    set_ok(&cfg, "reverse", "true");
    set_ok(&cfg, "expect_regex", "^ERR");
    assert_int_equal(fm_run_config_finish(&cfg, err, sizeof(err)), 0);
    fm_run_config_clear(&cfg);

    fm_run_config_init(&cfg);
    set_ok(&cfg, "tls_ca_file", "/ca.pem");
    set_ok(&cfg, "tls_verify", "false");
    assert_int_equal(fm_run_config_finish(&cfg, err, sizeof(err)), EINVAL);
    assert_string_equal(err, "tls_verify=false contradicts tls_ca_file '/ca.pem'");
    fm_run_config_clear(&cfg);

    /* receive_bytes beyond max_reply_bytes is cut to it, not refused. */
    fm_run_config_init(&cfg);
    set_ok(&cfg, "receive_bytes", "1M");
    assert_int_equal(fm_run_config_finish(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.probe.receive_window_bytes, 65536);
    fm_run_config_clear(&cfg);
}

/* Port_list and Monitor_Uri_List together: at most 1024 targets. */
static void
test_target_limit(void **state)
{
    struct fm_run_config cfg;
    char err[512] = "";
    size_t len = FM_RUN_CONFIG_MAX_TARGETS * 6 + 8;
    char *list = calloc(1, len);
    size_t used = 0;

    (void) state;
    assert_non_null(list);
    for (int i = 0; i < FM_RUN_CONFIG_MAX_TARGETS; i++) {
        used += (size_t) snprintf(list + used, len - used, "%d ", 1 + i);
    }
    fm_run_config_init(&cfg);
    assert_int_equal(fm_run_config_set(&cfg, "Port_list", list, err, sizeof(err)), 0);
    assert_int_equal(cfg.n_targets, FM_RUN_CONFIG_MAX_TARGETS);
    assert_int_equal(fm_run_config_set(&cfg, "Monitor_Uri_List", "http://h/", err, sizeof(err)), EINVAL);
    assert_string_equal(err, "Monitor_Uri_List has more than 1024 targets");
    fm_run_config_clear(&cfg);
    free(list);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_has_a_case),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_good_values),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_spelling),
        cmocka_unit_test(test_name_folding),
        cmocka_unit_test(test_decision_parameters),
        cmocka_unit_test(test_from_env),
        cmocka_unit_test(test_from_env_advanced),
        cmocka_unit_test(test_maintenance_status_5xx_refused),
        cmocka_unit_test(test_finish_checks),
        cmocka_unit_test(test_target_limit),
    };

    return cmocka_run_group_tests_name("runconf", tests, NULL, NULL);
}
