/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the parameters both web agents handle alike (the
 * server program, port and options, the timing derived from the monitor
 * operation, what a start keeps in the agent's record), the outcome of
 * reading the server's configuration, validate-all, and what a reload
 * compares.  Each server's own parameters are in ocf_apache_params.c and
 * ocf_nginx_params.c.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/parse.h>
#include <faultmon/words.h>

#include "ocf_conf_chain.h"
#include "ocf_web.h"

const char *
fm_web_record_or(const struct fm_ocf_record *rec, const char *key, const char *dflt)
{
    const char *v = fm_ocf_record_get(rec, key);

    return (v != NULL)? v : dflt;
}

/* The server program: \p given (an absolute path to an executable file),
 * else the first of \p search that exists; */
int
fm_web_resolve_program(struct fm_web *w, const char *given, const char *const *search, const char *missing)
{
    if (given != NULL && given[0] != '\0') {
        struct stat st;

        if (given[0] != '/') {
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "httpd '%s' is not an absolute path", given);
        }
        if (stat(given, &st) != 0 || !S_ISREG(st.st_mode) || access(given, X_OK) != 0) {
            return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "httpd '%s' is not an executable file on this node",
                               given);
        }
        snprintf(w->program, sizeof(w->program), "%s", given);
        return PCMK_OCF_OK;
    }
    for (size_t i = 0; search[i] != NULL; i++) {
        if (access(search[i], X_OK) == 0) {
            snprintf(w->program, sizeof(w->program), "%s", search[i]);
            return PCMK_OCF_OK;
        }
    }
    return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "%s", missing);
}

/* port (1-65535, refused with \p bad_port_rc) and options (split into
 * words); */
int
fm_web_resolve_port_options(struct fm_web *w, int bad_port_rc)
{
    const char *options = fm_ocf_param("options");
    const char *port = fm_ocf_param("port");

    w->port = 80;
    if (port != NULL && port[0] != '\0') {
        uint64_t v = 0;

        if (fm_parse_u64(port, 1, 65535, FM_PARSE_DEFAULT, &v) != 0) {
            return fm_ocf_fail(bad_port_rc, "invalid port '%s': expected 1-65535", port);
        }
        w->port = (unsigned) v;
    }
    if (options != NULL && fm_words_split(options, &w->options, &w->n_options, NULL) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid options '%s': unbalanced quote", options);
    }
    return PCMK_OCF_OK;
}

bool
fm_web_param_set(const char *name)
{
    const char *v = fm_ocf_param(name);

    return v != NULL && v[0] != '\0';
}

/* A URL as ocf:heartbeat:apache's fixtesturl: one not starting with "http"
 * is relative to the base. */
void
fm_web_absolute_url(const char *base, const char *url, char *out, size_t out_len)
{
    if (strncmp(url, "http", 4) == 0) {
        snprintf(out, out_len, "%s", url);
    } else {
        snprintf(out, out_len, "%s%s%s", base, (url[0] == '/')? "" : "/", url);
    }
}

int
fm_web_check_resource_name(const struct fm_ocf *ocf)
{
    if (!ocf->have_state_dir) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "OCF_RESOURCE_INSTANCE '%s' is not a usable resource name (letters, digits, "
                           "'.', '_', '-', ':')", (ocf->resource != NULL)? ocf->resource : "");
    }
    return PCMK_OCF_OK;
}

/* Thorough_probe_interval (fm_web_derived_probe_interval_ms(), ocf_web_timing.c)
 * and Probe_timeout (at most half the monitor timeout) from the monitor
 * operation, where unset. */
void
fm_web_derive_timing(const struct fm_ocf *ocf)
{
    uint64_t interval_ms = 0;
    uint64_t timeout_ms = 0;
    char v[32];

    if (fm_web_param_set("Thorough_probe_interval") && fm_web_param_set("Probe_timeout")) {
        return;
    }
    if (!fm_ocf_monitor_op(ocf, &interval_ms, &timeout_ms)) {
        return;
    }
    if (timeout_ms == 0) {
        timeout_ms = 20000;         /* Pacemaker's default operation timeout */
    }
    if (!fm_web_param_set("Thorough_probe_interval")) {
        snprintf(v, sizeof(v), "%" PRIu64 "ms", fm_web_derived_probe_interval_ms(interval_ms));
        fm_ocf_param_set("Thorough_probe_interval", v);
    }
    if (!fm_web_param_set("Probe_timeout") && timeout_ms / 2 < 5000) {
        snprintf(v, sizeof(v), "%" PRIu64 "ms", (timeout_ms / 2 < 500)? 500 : timeout_ms / 2);
        fm_ocf_param_set("Probe_timeout", v);
    }
    fm_ocf_log(LOG_INFO, "monitor interval %" PRIu64 " ms, timeout %" PRIu64 " ms: Thorough_probe_interval %s, "
               "Probe_timeout %s", interval_ms, timeout_ms, fm_ocf_param_or("Thorough_probe_interval", "60s"),
               fm_ocf_param_or("Probe_timeout", "5s"));
}

/* What a start derived and kept in the agent's record, for a loop the
 * monitor restarts: the timing derived from the monitor operation, and the
 * stricter policy (ocf_policy.c) without asking the CIB again. */
void
fm_web_params_from_record(const struct fm_ocf_record *rec)
{
    static const char *const derived[] = { "Thorough_probe_interval", "Probe_timeout" };

    for (size_t i = 0; i < sizeof(derived) / sizeof(derived[0]); i++) {
        const char *v = fm_ocf_record_get(rec, derived[i]);

        if (!fm_web_param_set(derived[i]) && v != NULL && v[0] != '\0') {
            fm_ocf_param_set(derived[i], v);
        }
    }
    fm_ocf_policy_restore(rec);
}

int
fm_web_validate(struct fm_web *w, bool configtest)
{
    int rc = fm_web_check_resource_name(w->ocf);

    /* A start's (or reload's) notes are its own; validate-all's are none. */
    if (!fm_ocf_policy_refuses(w->ocf)) {
        fm_ocf_policy_clear(w->ocf);
    }

    if (rc == PCMK_OCF_OK) {
        rc = w->ops->resolve_params(w);
    }
    if (rc == PCMK_OCF_OK) {
        rc = w->ops->resolve_rest(w);
    }
    if (rc == PCMK_OCF_OK) {
        rc = w->ops->translate(w->port_list, w->status_url, w->base_url);
    }
    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_validate_loop_params(w->ocf, NULL);
    }
    if (rc == PCMK_OCF_OK) {
        int64_t effective = 0;

        /* Refused by validate-all only (ocf_policy.c). */
        rc = fm_ocf_policy_migration(w->ocf, &effective);
    }
    if (rc == PCMK_OCF_OK) {
        rc = w->ops->test_prepare(w->ocf, w->base_url, w->status_url, true);
    }
    if (rc == PCMK_OCF_OK && access(fm_ocf_faultmon_path(), X_OK) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "the faultmon program %s is missing", fm_ocf_faultmon_path());
    }
    if (rc == PCMK_OCF_OK && configtest) {
        /* httpd -t fails without them; /run is empty after a boot. */
        w->ops->make_runtime_dirs(w);
        rc = fm_web_server_configtest(w, (fm_ocf_left_ms(w->ocf) < 10000)? fm_ocf_left_ms(w->ocf) : 10000);
    }
    return rc;
}

/* The read is bounded by what the action has left, at least a second (an
 * action that has less is killed by the executor anyway). */
void
fm_web_conf_budget(const struct fm_web *w)
{
    fm_conf_set_time_budget_ms((fm_ocf_left_ms(w->ocf) > 1000)? fm_ocf_left_ms(w->ocf) : 1000);
}

int
fm_web_conf_outcome(const struct fm_web *w, int rc, const char *err)
{
    if (rc == 0) {
        return PCMK_OCF_OK;
    }
    if (rc == ENOENT) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "configfile '%s' cannot be read: %s", w->configfile, err);
    }
    if (rc == ETIMEDOUT) {
        /* Slow storage is no fact of the configuration: a soft failure. */
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "configfile '%s': %s", w->configfile, err);
    }
    return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "configfile '%s': %s", w->configfile, err);
}

/* The parameters of the server itself, as given (not as resolved), in 16
 * hex digits: a reload that changes them restarts the server, one that
 * does not restarts only the fault monitor.  FNV-1a over "set?value" of each. */
void
fm_web_params_digest(const char *const *names, size_t n_names, char out[17])
{
    uint64_t h = UINT64_C(14695981039346656037);

    for (size_t i = 0; i < n_names; i++) {
        const char *v = fm_ocf_param(names[i]);
        const char *p = (v != NULL)? v : "";

        h = (h ^ (unsigned char) ((v != NULL)? '1' : '0')) * UINT64_C(1099511628211);
        for (; ; p++) {
            h = (h ^ (unsigned char) *p) * UINT64_C(1099511628211);
            if (*p == '\0') {
                break;
            }
        }
    }
    snprintf(out, 17, "%016" PRIx64, h);
}

/* validate-all in a child: validation rewrites this process's parameters
 * (the targets it derives), which the start below derives again. */
int
fm_web_validate_in_child(struct fm_web *w)
{
    int status = 0;
    pid_t pid = fork();

    if (pid < 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: cannot fork: %s", strerror(errno));
    }
    if (pid == 0) {
        fm_ocf_policy_quiet();      /* the start that follows says it */
        _exit(fm_web_validate(w, true));     /* its exit reason goes out as usual */
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: %s", strerror(errno));
        }
    }
    return WIFEXITED(status)? WEXITSTATUS(status) : PCMK_OCF_UNKNOWN_ERROR;
}
