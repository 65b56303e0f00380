/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:apache's parameters: the httpd program,
 * the configuration file and what it says, the envfiles, heartbeat's
 * parameters translated into the loop's, the timing derived from the
 * monitor operation, and validate-all.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/parse.h>
#include <faultmon/regex_guard.h>
#include <faultmon/target.h>
#include <faultmon/words.h>

#include "ocf_apache_int.h"
#include "ocf_web_overload.h"
#include "ocf_conf_chain.h"

#define DEFAULT_TESTREGEX "</ *html *>"
#define DEFAULT_ENVFILES "/etc/apache2/envvars"
#define ENV_MARKER "FAULTMON-ENVFILES"
#define ENV_OUT_MAX (256 * 1024)

/* ocf:heartbeat:apache's HTTPDLIST, in its order, so that a drop-in runs the
 * same program (metadata/apache-details.xml describes it). */
static const char *const httpd_search[] = {
    "/sbin/httpd2", "/usr/sbin/httpd2", "/usr/sbin/apache2", "/sbin/httpd", "/usr/sbin/httpd",
    "/usr/sbin/apache", NULL,
};

static const char *const config_search[] = {
    "/etc/apache2/httpd.conf", "/etc/apache2/apache2.conf", "/etc/httpd/conf/httpd.conf", NULL,
};

/* The server program: \p given (an absolute path to an executable file),
 * else the first of \p search that exists; shared by both agents. */
int
fm_web_resolve_program(struct apache *a, const char *given, const char *const *search, const char *missing)
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
        snprintf(a->httpd, sizeof(a->httpd), "%s", given);
        return PCMK_OCF_OK;
    }
    for (size_t i = 0; search[i] != NULL; i++) {
        if (access(search[i], X_OK) == 0) {
            snprintf(a->httpd, sizeof(a->httpd), "%s", search[i]);
            return PCMK_OCF_OK;
        }
    }
    return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "%s", missing);
}

int
fm_apache_resolve_httpd(struct apache *a)
{
    return fm_web_resolve_program(a, fm_ocf_param("httpd"), httpd_search,
                                  "no httpd program found (tried /usr/sbin/apache2, /usr/sbin/httpd and others); "
                                  "install Apache or set httpd");
}

/* port (1-65535, refused with \p bad_port_rc) and options (split into
 * words); shared by both agents. */
int
fm_web_resolve_port_options(struct apache *a, int bad_port_rc)
{
    const char *options = fm_ocf_param("options");
    const char *port = fm_ocf_param("port");

    a->port = 80;
    if (port != NULL && port[0] != '\0') {
        uint64_t v = 0;

        if (fm_parse_u64(port, 1, 65535, FM_PARSE_DEFAULT, &v) != 0) {
            return fm_ocf_fail(bad_port_rc, "invalid port '%s': expected 1-65535", port);
        }
        a->port = (unsigned) v;
    }
    if (options != NULL && fm_words_split(options, &a->options, &a->n_options, NULL) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid options '%s': unbalanced quote", options);
    }
    return PCMK_OCF_OK;
}

int
fm_apache_resolve_params(struct apache *a)
{
    const char *config = fm_ocf_param("configfile");
    int ipv6 = fm_ocf_param_bool("use_ipv6", false);

    if (config != NULL && config[0] != '\0') {
        snprintf(a->configfile, sizeof(a->configfile), "%s", config);
    } else {
        snprintf(a->configfile, sizeof(a->configfile), "%s", config_search[2]);
        for (size_t i = 0; config_search[i] != NULL; i++) {
            if (access(config_search[i], F_OK) == 0) {
                snprintf(a->configfile, sizeof(a->configfile), "%s", config_search[i]);
                break;
            }
        }
    }
    if (ipv6 < 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid use_ipv6 '%s': expected true or false",
                           fm_ocf_param("use_ipv6"));
    }
    a->ipv6 = (ipv6 == 1);
    return fm_web_resolve_port_options(a, PCMK_OCF_NOT_CONFIGURED);
}

/* Take over what the envfiles' shell exported: the NUL-separated
 * NAME=VALUE list after ENV_MARKER in its output, except the OCF_ variables
 * (ours) and what the shell itself sets. */
static int
import_env(char *out, size_t used, const char *value)
{
    char *p = memmem(out, used, ENV_MARKER, sizeof(ENV_MARKER));
    char *end = out + used;

    if (p == NULL) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "envfiles '%s': no environment came back", value);
    }
    for (p += sizeof(ENV_MARKER); p < end; p += strlen(p) + 1) {
        char *eq = strchr(p, '=');
        const char *old = NULL;

        if (eq == NULL || strncmp(p, "OCF_", 4) == 0 || strncmp(p, "PWD=", 4) == 0
            || strncmp(p, "SHLVL=", 6) == 0 || strncmp(p, "_=", 2) == 0) {
            continue;
        }
        *eq = '\0';
        old = getenv(p);
        if (old == NULL || strcmp(old, eq + 1) != 0) {
            setenv(p, eq + 1, 1);
        }
        *eq = '=';
    }
    return PCMK_OCF_OK;
}

/* Read the envfiles with /bin/sh, as ocf:heartbeat:apache does, and take
 * over what they export.  The file names are arguments of the script, never
 * part of it. */
int
fm_apache_load_envfiles(struct apache *a)
{
    const char *value = fm_ocf_param("envfiles");
    char **files = NULL;
    size_t n_files = 0;
    char **argv = NULL;
    size_t argc = 0;
    char *out = NULL;
    size_t used = 0;
    int status = 0;
    int rc = PCMK_OCF_OK;
    const char *slash = strrchr(a->configfile, '/');

    if (value == NULL) {
        value = DEFAULT_ENVFILES;
    }
    if (fm_words_split(value, &files, &n_files, NULL) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid envfiles '%s': unbalanced quote", value);
    }
    argv = calloc(n_files + 5, sizeof(char *));
    out = calloc(1, ENV_OUT_MAX);
    if (argv == NULL || out == NULL) {
        rc = fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
        goto done;
    }
    argv[argc++] = (char *) "/bin/sh";
    argv[argc++] = (char *) "-c";
    argv[argc++] = (char *) "for f do . \"$f\" || exit 1; done; printf '" ENV_MARKER "\\0'; exec env -0";
    argv[argc++] = (char *) "faultmon-envfiles";
    for (size_t i = 0; i < n_files; i++) {
        if (files[i][0] != '/') {
            rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid envfiles entry '%s': not an absolute path",
                             files[i]);
            goto done;
        }
        if (access(files[i], R_OK) != 0) {
            fm_ocf_log(LOG_INFO, "envfiles: %s is not readable here; skipped", files[i]);
            continue;
        }
        argv[argc++] = files[i];
    }
    argv[argc] = NULL;
    if (argc == 4) {
        goto done;
    }
    /* Debian's envvars derives its instance suffix from APACHE_CONFDIR. */
    if (slash != NULL && strncmp(a->configfile, "/etc/apache2", 12) == 0
        && strcmp(slash, "/apache2.conf") == 0) {
        char dir[FM_OCF_PATH_MAX];

        snprintf(dir, sizeof(dir), "%.*s", (int) (slash - a->configfile), a->configfile);
        setenv("APACHE_CONFDIR", dir, 1);
    }
    status = fm_ocf_run(argv, out, ENV_OUT_MAX, &used, 10000);
    if (status != 0) {
        out[strcspn(out, "\n")] = '\0';
        rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "envfiles '%s' could not be read by /bin/sh (status %d): %s",
                         value, status, out);
        goto done;
    }
    rc = import_env(out, used, value);

done:
    fm_words_free(files, n_files);
    free(argv);
    free(out);
    return rc;
}

/* The -D names of the command line: STATUS and those of options. */
static size_t
collect_defines(const struct apache *a, char **defines, size_t max)
{
    size_t n = 0;

    defines[n++] = (char *) "STATUS";
    for (size_t i = 0; i < a->n_options && n < max; i++) {
        if (strncmp(a->options[i], "-D", 2) == 0) {
            if (a->options[i][2] != '\0') {
                defines[n++] = a->options[i] + 2;
            } else if (i + 1 < a->n_options) {
                defines[n++] = a->options[++i];
            }
        }
    }
    return n;
}

int
fm_apache_read_config(struct apache *a)
{
    char *defines[FM_APACHE_MAX_DEFINES];
    size_t n_defines = collect_defines(a, defines, FM_APACHE_MAX_DEFINES);
    char err[512] = "";
    int rc = 0;

    if (access(a->configfile, F_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "configfile '%s' does not exist on this node",
                           a->configfile);
    }
    /* The read is bounded by what the action has left, at least a second
     * (an action that has less is killed by the executor anyway). */
    fm_conf_set_time_budget_ms((fm_ocf_left_ms(a->ocf) > 1000)? fm_ocf_left_ms(a->ocf) : 1000);
    rc = fm_apache_conf_read(a->configfile, defines, n_defines, &a->conf, err, sizeof(err));
    if (rc == ENOENT) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "configfile '%s' cannot be read: %s", a->configfile, err);
    }
    if (rc == ETIMEDOUT) {
        /* Slow storage is no fact of the configuration: a soft failure. */
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "configfile '%s': %s", a->configfile, err);
    }
    if (rc != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "configfile '%s': %s", a->configfile, err);
    }
    if (!fm_apache_conf_pid_file(&a->conf, a->pid_file, sizeof(a->pid_file))) {
        /* As ocf:heartbeat:apache: without a PidFile, choose one. */
        if (snprintf(a->pid_file, sizeof(a->pid_file), "%s/httpd.pid", a->ocf->state_dir)
            >= (int) sizeof(a->pid_file)) {
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "the state directory %s is too long for a pid file",
                               a->ocf->state_dir);
        }
        a->pid_directive = true;
    }
    fm_apache_conf_port_list(&a->conf, a->ipv6, a->port_list, sizeof(a->port_list));
    fm_apache_conf_base_url(&a->conf, a->ipv6, a->port, a->base_url, sizeof(a->base_url));
    snprintf(a->status_url, sizeof(a->status_url), "%s%s", a->base_url,
             (a->conf.status_location[0] == '/')? a->conf.status_location : "/");
    return PCMK_OCF_OK;
}

/* What resolve_params() leaves; the order matters (envfiles feed ${VAR}
 * in the configuration). */
int
fm_apache_resolve_rest(struct apache *a)
{
    int rc = fm_apache_resolve_httpd(a);

    if (rc == PCMK_OCF_OK) {
        rc = fm_apache_load_envfiles(a);
    }
    if (rc == PCMK_OCF_OK) {
        rc = fm_apache_read_config(a);
    }
    return rc;
}

bool
fm_apache_param_set(const char *name)
{
    const char *v = fm_ocf_param(name);

    return v != NULL && v[0] != '\0';
}

/* A URL as ocf:heartbeat:apache's fixtesturl: one not starting with "http"
 * is relative to the base. */
void
fm_apache_absolute_url(const char *base, const char *url, char *out, size_t out_len)
{
    if (strncmp(url, "http", 4) == 0) {
        snprintf(out, out_len, "%s", url);
    } else {
        snprintf(out, out_len, "%s%s%s", base, (url[0] == '/')? "" : "/", url);
    }
}

/*
 * statusurl is fetched as given, as ocf:heartbeat:apache's wget fetches it:
 * a value that is not an absolute http:// or https:// URL is refused, never
 * taken as a path on the local server (whose 404 page would match the
 * default testregex).
 */
static int
check_statusurl(void)
{
    const char *url = fm_ocf_param("statusurl");
    struct fm_target target;
    char err[512];

    if (!fm_apache_param_set("statusurl")) {
        return PCMK_OCF_OK;
    }
    /* It is copied into buffers of this size: cut, it would name another page. */
    if (strlen(url) >= FM_APACHE_URL_MAX) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "statusurl is longer than %d bytes", FM_APACHE_URL_MAX - 1);
    }
    if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "statusurl '%s' is not an absolute http:// or https:// URL", url);
    }
    if (fm_target_parse(url, true, &target, err, sizeof(err)) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "statusurl: %s", err);
    }
    fm_target_clear(&target);
    return PCMK_OCF_OK;
}

/*
 * Whether the resource asks for ocf:heartbeat:apache's check, without the
 * Sun targets: statusurl or testregex, or one of heartbeat's level-10 test
 * parameters (with any of them set, heartbeat's monitor checks the status
 * page and no longer falls back to a HEAD of the index).  Then any failed
 * check fails the monitor, as heartbeat's does, instead of adding up as
 * partial failures.
 */
bool
fm_apache_heartbeat_mode(void)
{
    bool user_targets = fm_apache_param_set("Port_list") || fm_apache_param_set("Monitor_Uri_List");

    return !user_targets && (fm_apache_param_set("statusurl") || fm_apache_param_set("testregex") || fm_apache_param_set("testurl")
                             || fm_apache_param_set("testregex10") || fm_apache_param_set("testconffile"));
}

/*
 * The loop's parameters (OCF_RESKEY_* of this process, which `faultmon run`
 * and the probe helper inherit), from the resource's parameters and what
 * the configuration says.  See the statusurl longdesc in apache.xml.
 */
int
fm_apache_translate_params(const char *port_list, const char *status_url, const char *base_url)
{
    const char *statusurl = fm_ocf_param("statusurl");
    const char *testregex = fm_ocf_param("testregex");
    bool heartbeat = fm_apache_heartbeat_mode();
    char url[FM_APACHE_URL_MAX];
    char why[256];
    int rc = check_statusurl();

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (fm_apache_param_set("testregex") && fm_regex_check(testregex, why, sizeof(why)) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid testregex '%.64s%s': %s", testregex,
                           (strlen(testregex) > 64)? "..." : "", why);
    }
    rc = fm_web_overload_url(true, status_url, base_url);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (heartbeat) {
        if (fm_apache_param_set("statusurl")) {
            snprintf(url, sizeof(url), "%s", statusurl);
        } else {
            fm_apache_absolute_url(base_url, status_url, url, sizeof(url));
        }
        fm_ocf_param_set("Monitor_Uri_List", url);
        if (!fm_apache_param_set("receive_regex")) {
            char folded[4096];

            if (fm_ocf_regex_icase(fm_apache_param_set("testregex")? testregex : DEFAULT_TESTREGEX,
                                   folded, sizeof(folded)) != 0) {
                return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testregex '%.64s...' is too long", testregex);
            }
            fm_ocf_param_set("receive_regex", folded);
        }
        /* heartbeat's wget follows redirects and fails on a 4xx or 5xx, so
         * its testregex only ever sees a 2xx page.  faultmon does not follow
         * redirects: a 3xx fails too, rather than letting the testregex judge
         * a redirect's own body (Apache's matches the default one). */
        if (!fm_apache_param_set("expect_status")) {
            fm_ocf_param_set("expect_status", "200-299");
        }
        /* heartbeat's wget verifies an https:// statusurl's certificate
         * and name; so does faultmon here, unless tls_verify says not to. */
        if (!fm_apache_param_set("tls_verify")) {
            fm_ocf_param_set("tls_verify", "true");
        }
        /* ocf:heartbeat:apache greps the whole page, and mod_status puts
         * the default testregex's </html> past the first 4 KiB. */
        if (!fm_apache_param_set("receive_bytes")) {
            fm_ocf_param_set("receive_bytes", fm_ocf_param_or("max_reply_bytes", "64k"));
        }
        return PCMK_OCF_OK;
    }
    if (!fm_apache_param_set("Port_list") && port_list[0] != '\0') {
        fm_ocf_param_set("Port_list", port_list);
    }
    if (fm_apache_param_set("statusurl")) {
        const char *list = fm_ocf_param("Monitor_Uri_List");
        char *joined = NULL;

        snprintf(url, sizeof(url), "%s", statusurl);
        if (asprintf(&joined, "%s%s%s", (list != NULL)? list : "",
                     (list != NULL && list[0] != '\0')? " " : "", url) < 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
        }
        fm_ocf_param_set("Monitor_Uri_List", joined);
        free(joined);
    }
    return PCMK_OCF_OK;
}

int
fm_apache_check_resource_name(const struct fm_ocf *ocf)
{
    if (!ocf->have_state_dir) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "OCF_RESOURCE_INSTANCE '%s' is not a usable resource name (letters, digits, "
                           "'.', '_', '-', ':')", (ocf->resource != NULL)? ocf->resource : "");
    }
    return PCMK_OCF_OK;
}

/*
 * With heartbeat's parameters only, detect every fault at least as fast as
 * ocf:heartbeat:apache's monitor would: probe twice per monitor interval,
 * within at most half the monitor timeout.  A broken server is then seen
 * within half an interval (a crash at once: the loop watches httpd), and a
 * hang (two partial failures, a Probe_timeout each) within interval +
 * Probe_timeout, inside heartbeat's own bound: interval + its monitor's
 * timeout.
 */
void
fm_apache_derive_timing(const struct fm_ocf *ocf)
{
    uint64_t interval_ms = 0;
    uint64_t timeout_ms = 0;
    char v[32];

    if (fm_apache_param_set("Thorough_probe_interval") && fm_apache_param_set("Probe_timeout")) {
        return;
    }
    if (!fm_ocf_monitor_op(ocf, &interval_ms, &timeout_ms)) {
        return;
    }
    if (timeout_ms == 0) {
        timeout_ms = 20000;         /* Pacemaker's default operation timeout */
    }
    if (!fm_apache_param_set("Thorough_probe_interval")) {
        uint64_t tpi_ms = interval_ms / 2;

        if (tpi_ms < 1000) {
            tpi_ms = 1000;
        }
        if (tpi_ms < 60000) {
            snprintf(v, sizeof(v), "%" PRIu64 "ms", tpi_ms);
            fm_ocf_param_set("Thorough_probe_interval", v);
        }
    }
    if (!fm_apache_param_set("Probe_timeout") && timeout_ms / 2 < 5000) {
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
fm_apache_params_from_record(const struct fm_ocf_record *rec)
{
    static const char *const derived[] = { "Thorough_probe_interval", "Probe_timeout" };

    for (size_t i = 0; i < sizeof(derived) / sizeof(derived[0]); i++) {
        const char *v = fm_ocf_record_get(rec, derived[i]);

        if (!fm_apache_param_set(derived[i]) && v != NULL && v[0] != '\0') {
            fm_ocf_param_set(derived[i], v);
        }
    }
    fm_ocf_policy_restore(rec);
}

int
fm_apache_validate(struct apache *a, bool configtest)
{
    int rc = fm_apache_check_resource_name(a->ocf);

    /* A start's (or reload's) notes are its own; validate-all's are none. */
    if (!fm_ocf_policy_refuses(a->ocf)) {
        fm_ocf_policy_clear(a->ocf);
    }

    if (rc == PCMK_OCF_OK) {
        rc = a->ops->resolve_params(a);
    }
    if (rc == PCMK_OCF_OK) {
        rc = a->ops->resolve_rest(a);
    }
    if (rc == PCMK_OCF_OK) {
        rc = a->ops->translate(a->port_list, a->status_url, a->base_url);
    }
    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_validate_loop_params(a->ocf, NULL);
    }
    if (rc == PCMK_OCF_OK) {
        int64_t effective = 0;

        /* Refused by validate-all only (ocf_policy.c). */
        rc = fm_ocf_policy_migration(a->ocf, &effective);
    }
    if (rc == PCMK_OCF_OK) {
        rc = a->ops->test_prepare(a->ocf, a->base_url, a->status_url, true);
    }
    if (rc == PCMK_OCF_OK && access(fm_ocf_faultmon_path(), X_OK) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "the faultmon program %s is missing", fm_ocf_faultmon_path());
    }
    if (rc == PCMK_OCF_OK && configtest) {
        /* httpd -t fails without them; /run is empty after a boot. */
        a->ops->make_runtime_dirs(a);
        rc = fm_apache_httpd_configtest(a, (fm_ocf_left_ms(a->ocf) < 10000)? fm_ocf_left_ms(a->ocf) : 10000);
    }
    return rc;
}
