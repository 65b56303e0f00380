/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a resource's configuration from agent-style parameters.
 */
#include <config.h>

#include <faultmon/runconf.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/probe_opts.h>
#include <faultmon/probe_params.h>
#include <faultmon/target_exec.h>
#include <faultmon/text.h>
#include <faultmon/words.h>

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

int
fm_run_config_add_target(struct fm_run_config *cfg, const char *text, bool is_uri,
                         char *err, size_t err_len)
{
    struct fm_target *grown = realloc(cfg->targets, (cfg->n_targets + 1) * sizeof(*grown));

    if (grown == NULL) {
        return fm_errf(err, err_len, ENOMEM, "out of memory");
    }
    cfg->targets = grown;
    if (fm_target_parse(text, is_uri, &cfg->targets[cfg->n_targets], err, err_len) != 0) {
        return EINVAL;
    }
    cfg->n_targets++;
    return 0;
}

int
fm_run_config_add_exec(struct fm_run_config *cfg, const char *command, char *err, size_t err_len)
{
    struct fm_target *grown = realloc(cfg->targets, (cfg->n_targets + 1) * sizeof(*grown));
    int rc = 0;

    if (grown == NULL) {
        return fm_errf(err, err_len, ENOMEM, "out of memory");
    }
    cfg->targets = grown;
    rc = fm_target_parse_exec(command, &cfg->targets[cfg->n_targets], err, err_len);
    if (rc != 0) {
        return rc;
    }
    cfg->n_targets++;
    return 0;
}

int
fm_run_config_set(struct fm_run_config *cfg, const char *name, const char *value,
                  char *err, size_t err_len)
{
    const struct fm_probe_param *param = fm_probe_param_find(name);

    /* Probe_timeout, which both the probe and the decision engine use, is
     * the probe table's row, which sets both by the engine's one rule. */
    if (param == NULL) {
        return fm_decide_opts_set(&cfg->decide, name, value, err, err_len);
    }
    return fm_probe_param_apply(cfg, param, value, err, err_len);
}

/* `advanced`, the agents' parameter of NAME=VALUE words (the rarely set
 * ones): the agent sets each word as its own variable before it starts the
 * loop, but a loop run by hand with the resource's variables (as an agent's
 * failure says to) has only `advanced`.  Each word whose name has no value
 * of its own is set; a name the loop does not know is the agent's. */
static int
from_env_advanced(struct fm_run_config *cfg, char *err, size_t err_len)
{
    const char *text = getenv("OCF_RESKEY_advanced");
    char **words = NULL;
    size_t n_words = 0;
    int rc = 0;

    if (text == NULL || text[0] == '\0') {
        return 0;
    }
    rc = fm_words_split(text, &words, &n_words, NULL);
    if (rc != 0) {
        return fm_errf(err, err_len, rc, "advanced: %s",
                       (rc == EINVAL)? "unbalanced quote" : strerror(rc));
    }
    for (size_t i = 0; i < n_words && rc == 0; i++) {
        const char *eq = strchr(words[i], '=');
        char var[96];
        const char *own = NULL;

        if (eq == NULL || eq == words[i] || eq - words[i] >= 64) {
            rc = fm_errf(err, err_len, EINVAL, "advanced: word %zu is not NAME=VALUE", i + 1);
            break;
        }
        snprintf(var, sizeof(var), "OCF_RESKEY_%.*s", (int) (eq - words[i]), words[i]);
        own = getenv(var);
        if (own == NULL || own[0] == '\0') {
            rc = fm_run_config_set(cfg, var + strlen("OCF_RESKEY_"), eq + 1, err, err_len);
            rc = (rc == ENOENT)? 0 : rc;
        }
    }
    fm_words_free(words, n_words);
    return rc;
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
    return from_env_advanced(cfg, err, err_len);
}

/* The service's own targets first, its dependencies after them (each in
 * the order given): the state lists them so, and the first failed target
 * the agents name as the cause is the service's. */
static void
dependencies_last(struct fm_run_config *cfg)
{
    size_t n_service = 0;

    for (size_t i = 0; i < cfg->n_targets; i++) {
        if (!cfg->targets[i].dependency) {
            struct fm_target t = cfg->targets[i];

            memmove(&cfg->targets[n_service + 1], &cfg->targets[n_service],
                    (i - n_service) * sizeof(t));
            cfg->targets[n_service++] = t;
        }
    }
}

int
fm_run_config_finish(struct fm_run_config *cfg, char *err, size_t err_len)
{
    char warn[256] = "";

    if (cfg->n_targets == 0) {
        char why[512];

        if (fm_run_config_add_target(cfg, FM_DEFAULT_TARGET, false, why, sizeof(why)) != 0) {
            return fm_errf(err, err_len, EINVAL, "Port_list: %s", why);
        }
    }
    dependencies_last(cfg);
    switch (fm_probe_params_finish(cfg)) {
        case FM_PROBE_PARAMS_REVERSE_WITHOUT_REGEX:
            return fm_errf(err, err_len, EINVAL, "reverse=true needs receive_regex or expect_regex");
        case FM_PROBE_PARAMS_NO_VERIFY_WITH_CA:
            return fm_errf(err, err_len, EINVAL, "tls_verify=false contradicts tls_ca_file '%s'",
                           cfg->probe.ca_file);
        case FM_PROBE_PARAMS_KEY_WITHOUT_CERT:
            return fm_errf(err, err_len, EINVAL, "tls_key_file needs tls_cert_file");
        case FM_PROBE_PARAMS_OK:
            break;
    }
    cfg->decide.probe_timeout_ms = cfg->probe.timeout_ms;
    if (fm_decide_opts_validate(&cfg->decide, err, err_len, warn, sizeof(warn)) != 0) {
        return EINVAL;
    }
    snprintf(cfg->warn, sizeof(cfg->warn), "%s", warn);
    return 0;
}
