/*
 * faultmon: a resource's configuration from agent-style parameters.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <faultmon/parse.h>
#include <faultmon/runconf.h>
#include <faultmon/text.h>

const char *const fm_run_config_probe_names[] = {
    "Port_list", "Monitor_Uri_List", "Probe_timeout", "expect_status", "receive_regex",
    "reverse", "http_method", "http_headers", "tls_request", "tls_verify", "tls_ca_file",
    "tls_sni", "max_reply_bytes", "receive_bytes", NULL,
};

void
fm_run_config_init(struct fm_run_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    fm_probe_opts_init(&cfg->probe);
    cfg->probe.tls_verify = false;
    fm_decide_opts_init(&cfg->decide);
}

void
fm_run_config_clear(struct fm_run_config *cfg)
{
    for (size_t i = 0; i < cfg->n_targets; i++) {
        fm_target_clear(&cfg->targets[i]);
    }
    free(cfg->targets);
    fm_probe_opts_clear(&cfg->probe);
    memset(cfg, 0, sizeof(*cfg));
}

/* Parameter names match as the decision engine's do: in any case, with '-'
 * for '_' (Port_list, port_list, port-list). */
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

static int
add_target(struct fm_run_config *cfg, const char *uri, bool is_uri, const char *param,
           char *err, size_t err_len)
{
    struct fm_target *grown = NULL;
    char why[512];

    if (cfg->n_targets >= 1024) {
        return fm_errf(err, err_len, EINVAL, "%s has more than 1024 targets", param);
    }
    grown = realloc(cfg->targets, (cfg->n_targets + 1) * sizeof(*grown));
    if (grown == NULL) {
        return ENOMEM;
    }
    cfg->targets = grown;
    if (fm_target_parse(uri, is_uri, &cfg->targets[cfg->n_targets], why, sizeof(why)) != 0) {
        return fm_errf(err, err_len, EINVAL, "%s: %s", param, why);
    }
    cfg->n_targets++;
    return 0;
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

static int
set_list(struct fm_run_config *cfg, const char *param, const char *value, bool is_uri,
         char *err, size_t err_len)
{
    char *copy = strdup(value);
    char *save = NULL;
    int rc = 0;

    if (copy == NULL) {
        return ENOMEM;
    }
    for (char *item = strtok_r(copy, " \t\n,", &save); item != NULL && rc == 0;
         item = strtok_r(NULL, " \t\n,", &save)) {
        char uri[512];

        if (is_uri) {
            rc = add_target(cfg, item, true, param, err, err_len);
        } else if (port_item_to_uri(item, uri, sizeof(uri)) != 0) {
            rc = fm_errf(err, err_len, EINVAL,
                         "%s: invalid item '%s': expected HOST:PORT, PORT/tcp, HOST/PORT/tcp or a URI",
                         param, item);
        } else {
            rc = add_target(cfg, uri, false, param, err, err_len);
        }
    }
    free(copy);
    return rc;
}

static int
set_headers(struct fm_run_config *cfg, const char *value, char *err, size_t err_len)
{
    char *copy = strdup(value);
    char *save = NULL;
    int rc = 0;

    if (copy == NULL) {
        return ENOMEM;
    }
    for (char *item = strtok_r(copy, "\n|", &save); item != NULL && rc == 0;
         item = strtok_r(NULL, "\n|", &save)) {
        char why[512];

        while (isspace((unsigned char) *item)) {
            item++;
        }
        if (*item == '\0') {
            continue;
        }
        if (fm_probe_opts_add_header(&cfg->probe, item, why, sizeof(why)) != 0) {
            rc = fm_errf(err, err_len, EINVAL, "http_headers: %s", why);
        }
    }
    free(copy);
    return rc;
}

/* reverse, tls_request, tls_verify */
static int
set_flag(struct fm_run_config *cfg, const char *name, const char *value, char *err,
         size_t err_len)
{
    bool flag = false;

    if (fm_parse_bool(value, &flag) != 0) {
        return fm_errf(err, err_len, EINVAL, "invalid %s '%s': expected true or false", name, value);
    }
    if (name_is(name, "reverse")) {
        cfg->probe.reverse = flag;
    } else if (name_is(name, "tls_request")) {
        cfg->probe.tls_request = flag;
    } else {
        cfg->verify_set = flag;
        cfg->no_verify = !flag;
    }
    return 0;
}

/* A text option: "" unsets it. */
static int
set_text(char **field, const char *value)
{
    free(*field);
    *field = NULL;
    if (value[0] != '\0') {
        *field = strdup(value);
        if (*field == NULL) {
            return ENOMEM;
        }
    }
    return 0;
}

int
fm_run_config_set(struct fm_run_config *cfg, const char *name, const char *value,
                  char *err, size_t err_len)
{
    char why[512];

    if (name_is(name, "Port_list")) {
        cfg->have_port_list = true;
        return set_list(cfg, "Port_list", value, false, err, err_len);
    }
    if (name_is(name, "Monitor_Uri_List")) {
        return set_list(cfg, "Monitor_Uri_List", value, true, err, err_len);
    }
    if (name_is(name, "Probe_timeout")) {
        if (fm_parse_duration_ms(value, &cfg->probe.timeout_ms) != 0 || cfg->probe.timeout_ms == 0) {
            return fm_errf(err, err_len, EINVAL, "invalid Probe_timeout '%s': expected a positive duration such as 5s",
                           value);
        }
        /* The decision engine checks it against the intervals. */
        return fm_decide_opts_set(&cfg->decide, name, value, err, err_len) == EINVAL ? EINVAL : 0;
    }
    if (name_is(name, "expect_status")) {
        if (value[0] == '\0') {
            return 0;   /* the defaults of each probe kind */
        }
        if (fm_probe_opts_set_expect(&cfg->probe, value, why, sizeof(why)) != 0) {
            return fm_errf(err, err_len, EINVAL, "expect_status: %s", why);
        }
        return 0;
    }
    if (name_is(name, "receive_regex")) {
        if (value[0] == '\0') {
            return 0;
        }
        if (fm_probe_opts_set_receive(&cfg->probe, value, why, sizeof(why)) != 0) {
            return fm_errf(err, err_len, EINVAL, "receive_regex: %s", why);
        }
        return 0;
    }
    if (name_is(name, "http_method")) {
        if (value[0] == '\0') {
            return 0;
        }
        if (fm_probe_opts_set_method(&cfg->probe, value, why, sizeof(why)) != 0) {
            return fm_errf(err, err_len, EINVAL, "http_method: %s", why);
        }
        return 0;
    }
    if (name_is(name, "http_headers")) {
        return set_headers(cfg, value, err, err_len);
    }
    if (name_is(name, "reverse") || name_is(name, "tls_request") || name_is(name, "tls_verify")) {
        return set_flag(cfg, name, value, err, err_len);
    }
    if (name_is(name, "tls_ca_file")) {
        return set_text(&cfg->probe.ca_file, value);
    }
    if (name_is(name, "tls_sni")) {
        return set_text(&cfg->probe.sni, value);
    }
    if (name_is(name, "max_reply_bytes")) {
        if (fm_parse_size_bytes(value, &cfg->probe.max_reply_bytes) != 0
            || cfg->probe.max_reply_bytes < 64) {
            return fm_errf(err, err_len, EINVAL, "invalid max_reply_bytes '%s': expected a size of at least 64 such as 64k",
                           value);
        }
        return 0;
    }
    if (name_is(name, "receive_bytes")) {
        if (fm_parse_size_bytes(value, &cfg->probe.receive_window_bytes) != 0
            || cfg->probe.receive_window_bytes == 0) {
            return fm_errf(err, err_len, EINVAL, "invalid receive_bytes '%s': expected a size such as 4k", value);
        }
        return 0;
    }
    return fm_decide_opts_set(&cfg->decide, name, value, err, err_len);
}

int
fm_run_config_from_env(struct fm_run_config *cfg, char *err, size_t err_len)
{
    extern char **environ;
    static const char prefix[] = "OCF_RESKEY_";

    for (char **env = environ; *env != NULL; env++) {
        const char *eq = strchr(*env, '=');
        char name[128];
        int rc = 0;

        if (strncmp(*env, prefix, sizeof(prefix) - 1) != 0 || eq == NULL) {
            continue;
        }
        snprintf(name, sizeof(name), "%.*s", (int) (eq - *env - (sizeof(prefix) - 1)),
                 *env + sizeof(prefix) - 1);
        if (strncmp(name, "CRM_meta_", 9) == 0) {
            continue;
        }
        rc = fm_run_config_set(cfg, name, eq + 1, err, err_len);
        if (rc != 0 && rc != ENOENT) {
            return rc;
        }
    }
    return 0;
}

int
fm_run_config_finish(struct fm_run_config *cfg, char *err, size_t err_len)
{
    char warn[256] = "";

    if (cfg->n_targets == 0) {
        int rc = add_target(cfg, FM_DEFAULT_TARGET, false, "Port_list", err, err_len);

        if (rc != 0) {
            return rc;
        }
    }
    if (cfg->probe.reverse && !cfg->probe.have_receive) {
        return fm_errf(err, err_len, EINVAL, "reverse=true needs receive_regex");
    }
    if (cfg->no_verify && cfg->probe.ca_file != NULL) {
        return fm_errf(err, err_len, EINVAL, "tls_verify=false contradicts tls_ca_file '%s'", cfg->probe.ca_file);
    }
    cfg->probe.tls_verify = (cfg->verify_set || cfg->probe.ca_file != NULL) && !cfg->no_verify;
    if (cfg->probe.receive_window_bytes > cfg->probe.max_reply_bytes) {
        cfg->probe.receive_window_bytes = cfg->probe.max_reply_bytes;
    }
    cfg->decide.probe_timeout_ms = cfg->probe.timeout_ms;
    if (fm_decide_opts_validate(&cfg->decide, err, err_len, warn, sizeof(warn)) != 0) {
        return EINVAL;
    }
    return 0;
}
