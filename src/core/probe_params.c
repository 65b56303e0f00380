/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the probe parameters, one row each (see probe_params.h).
 *
 * Size: one concern, the table of probe parameters and the parsers of its
 * rows; the table grows one row per parameter.
 */
#include <config.h>

#include <faultmon/probe_params.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <faultmon/decide_params.h>
#include <faultmon/parse.h>
#include <faultmon/probe_opts.h>
#include <faultmon/runconf.h>
#include <faultmon/text.h>

#define OPT_FIELD(field) offsetof(struct fm_probe_opts, field)

/* The field of the options a generic setter writes. */
static void *
opts_field(struct fm_run_config *cfg, const struct fm_probe_param *param)
{
    return (char *) &cfg->probe + param->offset;
}

/* A duration (uint64_t milliseconds) or a size (size_t bytes) within the
 * row's range. */
static int
set_number(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
           enum fm_probe_param_source source, char *why, size_t why_len)
{
    bool is_duration = (param->type == FM_PARAM_DURATION_MS);
    uint64_t number = 0;
    size_t bytes = 0;

    (void) source;
    (void) why;
    (void) why_len;
    if (is_duration) {
        if (fm_parse_duration_ms(value, &number) != 0) {
            return EINVAL;
        }
    } else if (fm_parse_size_bytes(value, &bytes) != 0) {
        return EINVAL;
    } else {
        number = bytes;
    }
    if (number < param->min || number > param->max) {
        return ERANGE;
    }
    if (is_duration) {
        *(uint64_t *) opts_field(cfg, param) = number;
    } else {
        *(size_t *) opts_field(cfg, param) = (size_t) number;
    }
    return 0;
}

/* Probe_timeout: one rule, the decision engine's row (its bounds and its
 * message), for the probe's deadline and the engine's checks alike, so that
 * faultmon probe --timeout, faultmon run, the agents' parameter and
 * validate-all take and refuse the same values in the same words. */
static int
set_probe_timeout(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
                  enum fm_probe_param_source source, char *why, size_t why_len)
{
    (void) source;
    if (fm_decide_opts_set(&cfg->decide, param->name, value, why, why_len) != 0) {
        return EINVAL;
    }
    cfg->probe.timeout_ms = cfg->decide.probe_timeout_ms;
    return 0;
}

static int
set_bool(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
         enum fm_probe_param_source source, char *why, size_t why_len)
{
    (void) source;
    (void) why;
    (void) why_len;
    return fm_parse_bool(value, (bool *) opts_field(cfg, param));
}

/* tls_verify: "true" asks for verification, "false" forbids it, and unset
 * leaves it to tls_ca_file (fm_probe_params_finish()).  As a parameter the
 * last value wins; as faultmon probe's flags, --tls-no-verify wins
 * whatever the order, as a "no" on a command line should. */
static int
set_verify(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
           enum fm_probe_param_source source, char *why, size_t why_len)
{
    bool last_wins = (source == FM_PARAM_FROM_PARAMETER);
    bool flag = false;

    (void) param;
    (void) why;
    (void) why_len;
    if (fm_parse_bool(value, &flag) != 0) {
        return EINVAL;
    }
    if (flag || last_wins) {
        cfg->verify_set = flag;
    }
    if (!flag || last_wins) {
        cfg->no_verify = !flag;
    }
    return 0;
}

/* A text parameter, where "" unsets it; or a text option, taken as given,
 * "" too (an option's value is never a way to unset it: --tls-ca-file ""
 * is a CA file that cannot be read). */
static int
set_text(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
         enum fm_probe_param_source source, char *why, size_t why_len)
{
    char **field = (char **) opts_field(cfg, param);
    char *copy = NULL;

    (void) why;
    (void) why_len;
    if (value[0] != '\0' || source == FM_PARAM_FROM_OPTION) {
        copy = strdup(value);
        if (copy == NULL) {
            return ENOMEM;
        }
    }
    free(*field);
    *field = copy;
    return 0;
}

/* expect_status, receive_regex, http_method through the options' own check.
 * A parameter's "" keeps the default (the meta-data's default=""); an
 * option's "" is the check's to refuse. */
static int
set_checked(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
            enum fm_probe_param_source source, char *why, size_t why_len)
{
    if (value[0] == '\0' && source == FM_PARAM_FROM_PARAMETER) {
        return 0;
    }
    return (param->check(&cfg->probe, value, why, why_len) == 0)? 0 : EINVAL;
}

/* http_headers: headers separated by newlines or '|', blanks before each
 * ignored; the option -H gives one (which may hold a '|'). */
static int
set_headers(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
            enum fm_probe_param_source source, char *why, size_t why_len)
{
    char *copy = NULL;
    char *save = NULL;
    int rc = 0;

    if (source == FM_PARAM_FROM_OPTION) {
        return set_checked(cfg, param, value, source, why, why_len);
    }
    copy = strdup(value);
    if (copy == NULL) {
        return ENOMEM;
    }
    for (char *item = strtok_r(copy, "\n|", &save); item != NULL && rc == 0;
         item = strtok_r(NULL, "\n|", &save)) {
        while (isspace((unsigned char) *item)) {
            item++;
        }
        if (*item != '\0') {
            rc = set_checked(cfg, param, item, source, why, why_len);
        }
    }
    free(copy);
    return rc;
}

/* One Port_list item as a URI: "80", "80/tcp", "host/80/tcp", "host:80",
 * "[::1]:80", or a URI already. */
static int
port_item_to_uri(const char *item, char *uri, size_t uri_len)
{
    char copy[300];
    char *slash = NULL;

    if (strstr(item, "://") != NULL) {
        snprintf(uri, uri_len, "%s", item);
        return 0;
    }
    if (strlen(item) >= sizeof(copy)) {
        return EINVAL;
    }
    snprintf(copy, sizeof(copy), "%s", item);
    /* Sun Cluster: PORT/tcp or HOST/PORT/tcp. */
    slash = strrchr(copy, '/');
    if (slash != NULL) {
        if (strcasecmp(slash + 1, "tcp") != 0) {
            return EINVAL;
        }
        *slash = '\0';
        slash = strrchr(copy, '/');
        if (slash != NULL) {
            *slash = ':';
        }
    }
    if (copy[0] == '\0') {
        return EINVAL;
    }
    if (strspn(copy, "0123456789") == strlen(copy)) {
        snprintf(uri, uri_len, "http://127.0.0.1:%s/", copy);
    } else {
        snprintf(uri, uri_len, "http://%s/", copy);
    }
    return 0;
}

/* One item of Port_list (is_uri false) or Monitor_Uri_List. */
static int
add_list_item(struct fm_run_config *cfg, const char *item, bool is_uri, char *why,
              size_t why_len)
{
    char uri[512];

    if (cfg->n_targets >= FM_RUN_CONFIG_MAX_TARGETS) {
        return E2BIG;
    }
    if (is_uri) {
        return fm_run_config_add_target(cfg, item, true, why, why_len);
    }
    if (port_item_to_uri(item, uri, sizeof(uri)) != 0) {
        return fm_errf(why, why_len, EINVAL,
                       "invalid item '%s': expected HOST:PORT, PORT/tcp, HOST/PORT/tcp or a URI", item);
    }
    return fm_run_config_add_target(cfg, uri, false, why, why_len);
}

#define LIST_SEPARATORS " \t\n,"

/* \p in redacted (fm_text_redact()), allocated; NULL for no memory. */
static char *
redacted_copy(const char *in)
{
    size_t len = strlen(in);
    size_t out_len = fm_text_redact(NULL, 0, in, len, false) + 1;
    char *out = malloc(out_len);

    if (out != NULL) {
        fm_text_redact(out, out_len, in, len, false);
    }
    return out;
}

/*
 * Whether a reason may quote \p item of the list \p value (redacted, as
 * every reason quotes a target): only when the whole list, redacted, shows
 * the item as the item redacted alone.  A password with a blank or a comma
 * is cut by the split ("http://u:ab cd@h/" gives "http://u:ab" and
 * "cd@h/"), and each piece alone has no '@' to redact before; the whole
 * list shows both pieces as stars.
 */
static bool
item_quotable(const char *value, const char *item)
{
    char *shown = redacted_copy(value);
    char *item_shown = redacted_copy(item);
    char *save = NULL;
    bool found = false;

    for (char *w = (shown == NULL || item_shown == NULL)? NULL : strtok_r(shown, LIST_SEPARATORS, &save);
         w != NULL && !found; w = strtok_r(NULL, LIST_SEPARATORS, &save)) {
        found = (strcmp(w, item_shown) == 0);
    }
    free(shown);
    free(item_shown);
    return found;
}

/* Port_list and Monitor_Uri_List: items separated by blanks or commas.
 * The option --uri gives one URI (which may hold a comma), with no limit
 * but memory, as the command line and a targets file have none. */
static int
set_targets(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
            enum fm_probe_param_source source, char *why, size_t why_len)
{
    bool deps = (strcmp(param->name, "Dependency_list") == 0);
    /* Dependencies take Port_list's items: URIs of every protocol. */
    bool is_uri = (strcmp(param->name, "Monitor_Uri_List") == 0);
    size_t first = cfg->n_targets;
    size_t n_item = 0;
    char *copy = NULL;
    char *save = NULL;
    int rc = 0;

    if (source == FM_PARAM_FROM_OPTION) {
        rc = fm_run_config_add_target(cfg, value, is_uri, why, why_len);
        goto mark;
    }
    copy = strdup(value);
    if (copy == NULL) {
        return ENOMEM;
    }
    if (!is_uri && !deps) {
        cfg->have_port_list = true;
    }
    for (char *item = strtok_r(copy, LIST_SEPARATORS, &save); item != NULL && rc == 0;
         item = strtok_r(NULL, LIST_SEPARATORS, &save)) {
        n_item++;
        rc = add_list_item(cfg, item, is_uri, why, why_len);
        if (rc == EINVAL && !item_quotable(value, item)) {
            rc = fm_errf(why, why_len, EINVAL, "item %zu is not a valid target, and is not shown: it may hold"
                         " part of a password (a blank or a comma cuts the list there;"
                         " percent-encode them in a password: %%20, %%2C)", n_item);
        }
    }
    free(copy);

mark:
    for (size_t i = first; deps && i < cfg->n_targets; i++) {
        cfg->targets[i].dependency = true;
    }
    return rc;
}

/* Probe_command: one command per line (a command is rarely short enough to
 * share a line, and its words may hold blanks and commas); the option
 * --exec gives one. */
static int
set_commands(struct fm_run_config *cfg, const struct fm_probe_param *param, const char *value,
             enum fm_probe_param_source source, char *why, size_t why_len)
{
    char *copy = NULL;
    char *save = NULL;
    int rc = 0;

    (void) param;
    if (source == FM_PARAM_FROM_OPTION) {
        return fm_run_config_add_exec(cfg, value, why, why_len);
    }
    copy = strdup(value);
    if (copy == NULL) {
        return ENOMEM;
    }
    for (char *line = strtok_r(copy, "\n", &save); line != NULL && rc == 0;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[strspn(line, " \t\r")] == '\0') {
            continue;
        }
        if (cfg->n_targets >= FM_RUN_CONFIG_MAX_TARGETS) {
            rc = E2BIG;
            break;
        }
        rc = fm_run_config_add_exec(cfg, line, why, why_len);
    }
    free(copy);
    return rc;
}

#define PARAM_SIZE_CAP_BYTES (1024 * 1024 * 1024)   /* fm_parse_size_bytes()'s own cap */

static const struct fm_probe_param probe_params[] = {
    {
        .name = "Port_list", .type = FM_PARAM_TARGETS, .default_text = "",
        .set = set_targets,
        .help = "targets: HOST:PORT, PORT/tcp, HOST/PORT/tcp (HTTP/1.0 HEAD), or URIs (http, tcp, redis, smtp...)",
    },
    {
        .name = "Monitor_Uri_List", .option = "uri", .short_option = 'u', .option_takes_value = true,
        .type = FM_PARAM_TARGETS, .default_text = "",
        .set = set_targets,
        .help = "http(s) URIs fetched with HTTP/1.1 GET",
    },
    {
        .name = "Probe_command", .option = "exec", .option_takes_value = true,
        .type = FM_PARAM_TARGETS, .default_text = "",
        .set = set_commands,
        .help = "programs run as probes, one per line, never by a shell: exit 0 ok, 1 partial, 2 complete",
    },
    {
        /* A parameter only: `faultmon probe` judges every target alike. */
        .name = "Dependency_list",
        .type = FM_PARAM_TARGETS, .default_text = "",
        .set = set_targets,
        .help = "URIs of what the service needs (tcp://db:5432, postgres://...): judged apart, from every node",
    },
    {
        .name = "Probe_timeout", .option = "timeout", .short_option = 't', .option_takes_value = true,
        .type = FM_PARAM_DURATION_MS, .default_text = "5s", .why_says_all = true,
        .offset = OPT_FIELD(timeout_ms), .set = set_probe_timeout,
        .help = "deadline of one probe cycle",
    },
    {
        .name = "expect_status", .option = "expect-status", .short_option = 'e',
        .option_takes_value = true, .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_expect, .set = set_checked,
        .help = "statuses that pass, e.g. 200-399,401 or 2xx [200-399 for GET, 100-499 for HEAD]",
    },
    {
        .name = "receive_regex", .option = "receive", .short_option = 'r', .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_receive, .set = set_checked,
        .help = "POSIX extended regex the reply must match",
    },
    {
        .name = "receive_bytes", .option = "receive-bytes", .option_takes_value = true,
        .type = FM_PARAM_SIZE_BYTES, .min = 1, .max = PARAM_SIZE_CAP_BYTES, .default_text = "4k",
        .expected = "a size such as 4k", .option_expected = "a size such as 4k",
        .offset = OPT_FIELD(receive_window_bytes), .set = set_number,
        .help = "body bytes receive_regex looks at (at most max_reply_bytes)",
    },
    {
        .name = "send_string", .option = "send", .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_send, .set = set_checked,
        .help = "bytes tcp:// and udp:// targets send (C escapes such as \\r\\n, \\xHH)",
    },
    {
        .name = "expect_regex", .option = "expect", .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_expect_regex, .set = set_checked,
        .help = "POSIX extended regex a tcp:// or udp:// reply must match",
    },
    {
        .name = "reverse", .option = "reverse", .type = FM_PARAM_BOOL, .default_text = "false",
        .expected = "true or false",
        .offset = OPT_FIELD(reverse), .set = set_bool,
        .help = "a receive_regex or expect_regex match means failure",
    },
    {
        .name = "maintenance_status", .option = "maintenance-status", .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_maintenance_status, .set = set_checked,
        .help = "statuses by which the service asks to be drained (404; never a 5xx): degraded, no failure",
    },
    {
        .name = "maintenance_header", .option = "maintenance-header", .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_maintenance_header, .set = set_checked,
        .help = "a reply header that asks to drain (x-envoy-degraded): degraded, no failure",
    },
    {
        .name = "maintenance_regex", .option = "maintenance-regex", .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_maintenance_regex, .set = set_checked,
        .help = "extended regex; a match in the reply asks to drain: degraded, no failure",
    },
    {
        .name = "http_method", .option = "method", .short_option = 'm', .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_method, .set = set_checked,
        .help = "method of every request [HEAD; GET for URIs]",
    },
    {
        .name = "http_headers", .option = "header", .short_option = 'H', .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_add_header, .set = set_headers,
        .help = "extra headers, \"Name: value\", separated by newlines or '|'",
    },
    {
        .name = "tls_request", .option = "tls-request", .type = FM_PARAM_BOOL, .default_text = "false",
        .expected = "true or false",
        .offset = OPT_FIELD(tls_request), .set = set_bool,
        .help = "send the HTTP request over TLS to https targets",
    },
    {
        .name = "tls_verify", .option = "tls-verify", .type = FM_PARAM_BOOL, .default_text = "false",
        .expected = "true or false",
        .set = set_verify,
        .help = "verify server certificates",
    },
    {
        .name = "tls_ca_file", .option = "tls-ca-file", .option_takes_value = true,
        .type = FM_PARAM_TEXT, .default_text = "",
        .offset = OPT_FIELD(ca_file), .set = set_text,
        .help = "CA bundle (implies tls_verify)",
    },
    {
        .name = "tls_sni", .option = "tls-sni", .option_takes_value = true,
        .type = FM_PARAM_TEXT, .default_text = "",
        .offset = OPT_FIELD(sni), .set = set_text,
        .help = "server name to send and verify [the host]",
    },
    {
        .name = "tls_cert_file", .option = "tls-cert", .option_takes_value = true,
        .type = FM_PARAM_TEXT, .default_text = "",
        .offset = OPT_FIELD(cert_file), .set = set_text,
        .help = "client certificate (PEM, chain first) for servers that ask for one",
    },
    {
        .name = "tls_key_file", .option = "tls-key", .option_takes_value = true,
        .type = FM_PARAM_TEXT, .default_text = "",
        .offset = OPT_FIELD(key_file), .set = set_text,
        .help = "private key of tls_cert_file (PEM, unencrypted) [in tls_cert_file]",
    },
    {
        .name = "tls_min_version", .option = "tls-min-version", .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "1.2",
        .check = fm_probe_opts_set_tls_min_version, .set = set_checked,
        .help = "oldest TLS version a handshake may use: 1.2 or 1.3",
    },
    {
        .name = "tls_alpn", .option = "tls-alpn", .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_alpn, .set = set_checked,
        .help = "ALPN protocols to offer, such as h2,http/1.1 (a server may ignore them)",
    },
    {
        .name = "tls_alpn_require", .option = "tls-alpn-require", .option_takes_value = true,
        .type = FM_PARAM_CHECKED, .default_text = "",
        .check = fm_probe_opts_set_alpn_require, .set = set_checked,
        .help = "ALPN protocols (offered too) of which the server must select one, such as h2",
    },
    {
        .name = "max_reply_bytes", .option = "max-bytes", .option_takes_value = true,
        .type = FM_PARAM_SIZE_BYTES, .min = 64, .max = PARAM_SIZE_CAP_BYTES, .default_text = "64k",
        .expected = "a size of at least 64 such as 64k",
        .option_expected = "a size of at least 64 bytes, such as 64k",
        .offset = OPT_FIELD(max_reply_bytes), .set = set_number,
        .help = "read cap per reply",
    },
    {
        .name = "overload_status_url", .option = "overload-status-url", .option_takes_value = true,
        .type = FM_PARAM_TEXT, .default_text = "",
        .offset = OPT_FIELD(overload_status_url), .set = set_text,
        .help = "status page (mod_status ?auto, stub_status) read after a failed cycle: all busy is overload",
    },
    {
        .name = "overload_capacity", .option = "overload-capacity", .option_takes_value = true,
        .type = FM_PARAM_SIZE_BYTES, .min = 0, .max = 100000000, .default_text = "0",
        .expected = "a count of connections", .option_expected = "a count of connections",
        .offset = OPT_FIELD(overload_capacity), .set = set_number,
        .help = "client connections the server can hold (stub_status, accept queue) [0: unknown]",
    },
    {
        .name = "spread", .option = "spread", .type = FM_PARAM_BOOL, .default_text = "false",
        .expected = "true or false",
        .offset = OPT_FIELD(spread), .set = set_bool,
        .help = "start the probes of an interval spread over it, not all at once",
    },
    {
        /* access_log*: parameters of `faultmon run` only (doc/access-log.md). */
        .name = "access_log", .type = FM_PARAM_TEXT, .default_text = "",
        .offset = OPT_FIELD(access_log.path), .set = set_text,
        .help = "the web server's access log (common or combined format) whose 5xx share is a partial failure; empty: off",
    },
    {
        .name = "access_log_window", .type = FM_PARAM_CHECKED, .default_text = "60s",
        .check = fm_probe_opts_set_accesslog_window, .set = set_checked,
        .help = "the sliding window over which the access log's shares are counted",
    },
    {
        .name = "access_log_5xx_pct", .type = FM_PARAM_CHECKED, .default_text = "20",
        .check = fm_probe_opts_set_accesslog_5xx_pct, .set = set_checked,
        .help = "share of 5xx replies in the window (percent) that is a partial failure",
    },
    {
        .name = "access_log_min_requests", .type = FM_PARAM_CHECKED, .default_text = "20",
        .check = fm_probe_opts_set_accesslog_min_requests, .set = set_checked,
        .help = "fewer replies in the window are never judged (one 500 on a quiet server is no failure)",
    },
    {
        .name = "access_log_slow", .type = FM_PARAM_CHECKED, .default_text = "0",
        .check = fm_probe_opts_set_accesslog_slow, .set = set_checked,
        .help = "a logged response time (%D, $request_time) at least this long is slow; 0: off",
    },
    {
        .name = "access_log_slow_pct", .type = FM_PARAM_CHECKED, .default_text = "50",
        .check = fm_probe_opts_set_accesslog_slow_pct, .set = set_checked,
        .help = "share of slow replies in the window (percent) that is a partial failure",
    },
};

const struct fm_probe_param *
fm_probe_params(size_t *n_params)
{
    *n_params = sizeof(probe_params) / sizeof(probe_params[0]);
    return probe_params;
}

/* In any case, with '-' for '_', as the decision engine's names match. */
static bool
name_is(const char *name, const char *want)
{
    for (; *name != '\0' && *want != '\0'; name++, want++) {
        char n = (*name == '-')? '_' : (char) tolower((unsigned char) *name);

        if (n != (char) tolower((unsigned char) *want)) {
            return false;
        }
    }
    return *name == '\0' && *want == '\0';
}

const struct fm_probe_param *
fm_probe_param_find(const char *name)
{
    for (size_t i = 0; i < sizeof(probe_params) / sizeof(probe_params[0]); i++) {
        if (name_is(name, probe_params[i].name)) {
            return &probe_params[i];
        }
    }
    return NULL;
}

int
fm_probe_param_apply(struct fm_run_config *cfg, const struct fm_probe_param *param,
                     const char *value, char *err, size_t err_len)
{
    char why[512] = "";
    int rc = param->set(cfg, param, value, FM_PARAM_FROM_PARAMETER, why, sizeof(why));

    if (rc == 0 || rc == ENOMEM) {
        return rc;
    }
    if (rc == E2BIG) {
        return fm_errf(err, err_len, EINVAL, "%s has more than %d targets", param->name,
                       FM_RUN_CONFIG_MAX_TARGETS);
    }
    if (param->why_says_all) {
        return fm_errf(err, err_len, EINVAL, "%s", why);
    }
    if (param->expected != NULL) {
        return fm_errf(err, err_len, EINVAL, "invalid %s '%s': expected %s", param->name, value,
                       param->expected);
    }
    return fm_errf(err, err_len, EINVAL, "%s: %s", param->name, why);
}

enum fm_probe_params_conflict
fm_probe_params_finish(struct fm_run_config *cfg)
{
    /* reverse turns around receive_regex (HTTP) and expect_regex (tcp://,
     * udp://): without either it would turn around nothing. */
    if (cfg->probe.reverse && !cfg->probe.have_receive && !cfg->probe.have_expect) {
        return FM_PROBE_PARAMS_REVERSE_WITHOUT_REGEX;
    }
    if (cfg->no_verify && cfg->probe.ca_file != NULL) {
        return FM_PROBE_PARAMS_NO_VERIFY_WITH_CA;
    }
    if (cfg->probe.key_file != NULL && cfg->probe.cert_file == NULL) {
        return FM_PROBE_PARAMS_KEY_WITHOUT_CERT;
    }
    cfg->probe.tls_verify = (cfg->verify_set || cfg->probe.ca_file != NULL) && !cfg->no_verify;
    /* The window is a part of the reply: a larger one would only say so. */
    if (cfg->probe.receive_window_bytes > cfg->probe.max_reply_bytes) {
        cfg->probe.receive_window_bytes = cfg->probe.max_reply_bytes;
    }
    return FM_PROBE_PARAMS_OK;
}
