/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the run configuration, from OCF_RESKEY_* variables, as
 * `faultmon run`, the agents' validate-all and `faultmon simulate` read it.
 *
 * Input: lines "NAME=VALUE" (http_headers take '|' between headers); each
 * becomes OCF_RESKEY_NAME in the environment, as Pacemaker's executor would
 * set it, and fm_run_config_from_env() and fm_run_config_finish() read them
 * (a tests/fuzz/fuzz_runconf.dict of the parameter names helps).
 *
 * Properties:
 *  - errors are one terminated line;
 *  - a configuration that finishes has at least one target, each with its
 *    request built (as the probe engine builds it) when it sends one, a read window within the read cap, a
 *    deadline, and decision parameters that the engine accepts;
 *  - reading the same environment again gives the same configuration.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/decide.h>
#include <faultmon/http.h>
#include <faultmon/runconf.h>

#include "fuzz_common.h"

#define FUZZ_RUNCONF_MAX 8192
#define FUZZ_RUNCONF_VARS 32

static char *fuzz_set_names[FUZZ_RUNCONF_VARS];
static size_t fuzz_n_set;

static void
clear_env(void)
{
    for (size_t i = 0; i < fuzz_n_set; i++) {
        unsetenv(fuzz_set_names[i]);
        free(fuzz_set_names[i]);
        fuzz_set_names[i] = NULL;
    }
    fuzz_n_set = 0;
}

static int
read_config(struct fm_run_config *cfg, char *err, size_t err_len)
{
    int rc = 0;

    fm_run_config_init(cfg);
    memset(err, 'x', err_len);
    err[err_len - 1] = '\0';
    rc = fm_run_config_from_env(cfg, err, err_len);
    if (rc == 0) {
        memset(err, 'x', err_len);
        err[err_len - 1] = '\0';
        rc = fm_run_config_finish(cfg, err, err_len);
    }
    /* The requests, as the probe engine builds them from this configuration. */
    for (size_t i = 0; rc == 0 && i < cfg->n_targets; i++) {
        FM_FUZZ_CHECK(fm_http_build_request(&cfg->targets[i], &cfg->probe) == 0,
                      "no request for target %zu", i);
    }
    if (rc != 0) {
        fm_fuzz_check_message(err, err_len);
    }
    return rc;
}

static void
check_config(const struct fm_run_config *cfg)
{
    struct fm_decide *d = NULL;
    char err[512];

    FM_FUZZ_CHECK(cfg->n_targets >= 1, "no target");
    for (size_t i = 0; i < cfg->n_targets; i++) {
        const struct fm_target *t = &cfg->targets[i];

        FM_FUZZ_CHECK(t->host != NULL && t->port != 0 && t->text != NULL, "target %zu", i);
        FM_FUZZ_CHECK(!t->send_request || (t->request != NULL && t->request_len > 0),
                      "target %zu sends no request", i);
    }
    FM_FUZZ_CHECK(cfg->probe.timeout_ms > 0, "Probe_timeout 0");
    FM_FUZZ_CHECK(cfg->probe.max_reply_bytes > 0, "max_reply_bytes 0");
    FM_FUZZ_CHECK(cfg->probe.receive_window_bytes <= cfg->probe.max_reply_bytes,
                  "receive window %zu over the cap %zu", cfg->probe.receive_window_bytes,
                  cfg->probe.max_reply_bytes);
    FM_FUZZ_CHECK(!cfg->probe.reverse || cfg->probe.have_receive, "reverse without a regex");
    FM_FUZZ_CHECK(fm_decide_opts_validate(&cfg->decide, err, sizeof(err), NULL, 0) == 0,
                  "finished options do not validate: %s", err);
    FM_FUZZ_CHECK(fm_decide_new(&cfg->decide, &d) == 0, "the engine refuses the options");
    fm_decide_free(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fm_fuzz_input in;
    struct fm_run_config cfg;
    struct fm_run_config again;
    char err[512];
    char *line = NULL;
    int rc = 0;

    if (size > FUZZ_RUNCONF_MAX) {
        return -1;
    }
    fm_fuzz_input_init(&in, data, size);
    while (fuzz_n_set < FUZZ_RUNCONF_VARS && (line = fm_fuzz_line(&in)) != NULL) {
        char *eq = strchr(line, '=');
        char *name = NULL;

        if (eq != NULL && eq != line) {
            *eq = '\0';
            for (char *p = eq + 1; *p != '\0'; p++) {
                if (*p == '|' && strncmp(line, "http_headers", 12) == 0) {
                    *p = '\n';
                }
            }
            if (asprintf(&name, "OCF_RESKEY_%s", line) < 0) {
                abort();
            }
            if (setenv(name, eq + 1, 1) == 0) {
                fuzz_set_names[fuzz_n_set++] = name;
            } else {
                free(name);
            }
        }
        free(line);
    }

    rc = read_config(&cfg, err, sizeof(err));
    if (rc == 0) {
        check_config(&cfg);
    }
    if (read_config(&again, err, sizeof(err)) != rc) {
        FM_FUZZ_CHECK(false, "the same environment read twice gives %d, then not", rc);
    }
    if (rc == 0) {
        FM_FUZZ_CHECK(again.n_targets == cfg.n_targets
                      && memcmp(&again.decide, &cfg.decide, sizeof(cfg.decide)) == 0
                      && memcmp(&again.probe.expect_get, &cfg.probe.expect_get,
                                sizeof(cfg.probe.expect_get)) == 0
                      && memcmp(&again.probe.expect_head, &cfg.probe.expect_head,
                                sizeof(cfg.probe.expect_head)) == 0
                      && again.probe.timeout_ms == cfg.probe.timeout_ms,
                      "the same environment read twice differs");
        for (size_t i = 0; i < cfg.n_targets; i++) {
            const struct fm_target *a = &cfg.targets[i];
            const struct fm_target *b = &again.targets[i];

            FM_FUZZ_CHECK(strcmp(a->text, b->text) == 0 && a->request_len == b->request_len
                          && (a->request_len == 0 || memcmp(a->request, b->request, a->request_len) == 0),
                          "target %zu differs when read twice", i);
        }
    }
    fm_run_config_clear(&again);
    fm_run_config_clear(&cfg);
    clear_env();
    return 0;
}
