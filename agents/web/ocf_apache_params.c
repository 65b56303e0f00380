/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:apache's parameters: the httpd program,
 * the configuration file and what it says, the envfiles, heartbeat's
 * parameters translated into the loop's, and httpd's own parameters that a
 * reload compares.  What both web agents handle alike (port, options, the
 * timing, validate-all) is in ocf_web_params.c.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/regex_guard.h>
#include <faultmon/target.h>
#include <faultmon/words.h>

#include "ocf_apache.h"
#include "ocf_web.h"
#include "ocf_web_overload.h"

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

int
fm_apache_resolve_httpd(struct fm_web *w)
{
    return fm_web_resolve_program(w, fm_ocf_param("httpd"), httpd_search,
                                  "no httpd program found (tried /usr/sbin/apache2, /usr/sbin/httpd and others); "
                                  "install Apache or set httpd");
}

int
fm_apache_resolve_params(struct fm_web *w)
{
    const char *config = fm_ocf_param("configfile");
    int ipv6 = fm_ocf_param_bool("use_ipv6", false);

    if (config != NULL && config[0] != '\0') {
        snprintf(w->configfile, sizeof(w->configfile), "%s", config);
    } else {
        snprintf(w->configfile, sizeof(w->configfile), "%s", config_search[2]);
        for (size_t i = 0; config_search[i] != NULL; i++) {
            if (access(config_search[i], F_OK) == 0) {
                snprintf(w->configfile, sizeof(w->configfile), "%s", config_search[i]);
                break;
            }
        }
    }
    if (ipv6 < 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid use_ipv6 '%s': expected true or false",
                           fm_ocf_param("use_ipv6"));
    }
    w->ipv6 = (ipv6 == 1);
    return fm_web_resolve_port_options(w, PCMK_OCF_NOT_CONFIGURED);
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
fm_apache_load_envfiles(struct fm_web *w)
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
    const char *slash = strrchr(w->configfile, '/');

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
    if (slash != NULL && strncmp(w->configfile, "/etc/apache2", 12) == 0
        && strcmp(slash, "/apache2.conf") == 0) {
        char dir[FM_OCF_PATH_MAX];

        snprintf(dir, sizeof(dir), "%.*s", (int) (slash - w->configfile), w->configfile);
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
collect_defines(const struct fm_web *w, char **defines, size_t max)
{
    size_t n = 0;

    defines[n++] = (char *) "STATUS";
    for (size_t i = 0; i < w->n_options && n < max; i++) {
        if (strncmp(w->options[i], "-D", 2) == 0) {
            if (w->options[i][2] != '\0') {
                defines[n++] = w->options[i] + 2;
            } else if (i + 1 < w->n_options) {
                defines[n++] = w->options[++i];
            }
        }
    }
    return n;
}

int
fm_apache_read_config(struct fm_web *w)
{
    char *defines[FM_APACHE_MAX_DEFINES];
    size_t n_defines = collect_defines(w, defines, FM_APACHE_MAX_DEFINES);
    char err[512] = "";
    int rc = 0;

    if (access(w->configfile, F_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "configfile '%s' does not exist on this node",
                           w->configfile);
    }
    fm_web_conf_budget(w);
    rc = fm_apache_conf_read(w->configfile, defines, n_defines, &w->conf, err, sizeof(err));
    rc = fm_web_conf_outcome(w, rc, err);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (!fm_web_conf_pid_file(&w->conf, w->pid_file, sizeof(w->pid_file))) {
        /* As ocf:heartbeat:apache: without a PidFile, choose one. */
        if (snprintf(w->pid_file, sizeof(w->pid_file), "%s/httpd.pid", w->ocf->state_dir)
            >= (int) sizeof(w->pid_file)) {
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "the state directory %s is too long for a pid file",
                               w->ocf->state_dir);
        }
        w->pid_directive = true;
    }
    fm_web_conf_port_list(&w->conf, w->ipv6, w->port_list, sizeof(w->port_list));
    fm_web_conf_base_url(&w->conf, w->ipv6, w->port, w->base_url, sizeof(w->base_url));
    snprintf(w->status_url, sizeof(w->status_url), "%s%s", w->base_url,
             (w->conf.status_location[0] == '/')? w->conf.status_location : "/");
    return PCMK_OCF_OK;
}

/* What resolve_params() leaves; the order matters (envfiles feed ${VAR}
 * in the configuration). */
int
fm_apache_resolve_rest(struct fm_web *w)
{
    int rc = fm_apache_resolve_httpd(w);

    if (rc == PCMK_OCF_OK) {
        rc = fm_apache_load_envfiles(w);
    }
    if (rc == PCMK_OCF_OK) {
        rc = fm_apache_read_config(w);
    }
    return rc;
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

    if (!fm_web_param_set("statusurl")) {
        return PCMK_OCF_OK;
    }
    /* It is copied into buffers of this size: cut, it would name another page. */
    if (strlen(url) >= FM_WEB_URL_MAX) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "statusurl is longer than %d bytes", FM_WEB_URL_MAX - 1);
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
    bool user_targets = fm_web_param_set("Port_list") || fm_web_param_set("Monitor_Uri_List");

    return !user_targets && (fm_web_param_set("statusurl") || fm_web_param_set("testregex") || fm_web_param_set("testurl")
                             || fm_web_param_set("testregex10") || fm_web_param_set("testconffile"));
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
    char url[FM_WEB_URL_MAX];
    char why[256];
    int rc = check_statusurl();

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (fm_web_param_set("testregex") && fm_regex_check(testregex, why, sizeof(why)) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid testregex '%.64s%s': %s", testregex,
                           (strlen(testregex) > 64)? "..." : "", why);
    }
    rc = fm_web_overload_url(true, status_url, base_url);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (heartbeat) {
        if (fm_web_param_set("statusurl")) {
            snprintf(url, sizeof(url), "%s", statusurl);
        } else {
            fm_web_absolute_url(base_url, status_url, url, sizeof(url));
        }
        fm_ocf_param_set("Monitor_Uri_List", url);
        if (!fm_web_param_set("receive_regex")) {
            char folded[4096];

            if (fm_ocf_regex_icase(fm_web_param_set("testregex")? testregex : DEFAULT_TESTREGEX,
                                   folded, sizeof(folded)) != 0) {
                return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testregex '%.64s...' is too long", testregex);
            }
            fm_ocf_param_set("receive_regex", folded);
        }
        /* heartbeat's wget follows redirects and fails on a 4xx or 5xx, so
         * its testregex only ever sees a 2xx page.  faultmon does not follow
         * redirects: a 3xx fails too, rather than letting the testregex judge
         * a redirect's own body (Apache's matches the default one). */
        if (!fm_web_param_set("expect_status")) {
            fm_ocf_param_set("expect_status", "200-299");
        }
        /* heartbeat's wget verifies an https:// statusurl's certificate
         * and name; so does faultmon here, unless tls_verify says not to. */
        if (!fm_web_param_set("tls_verify")) {
            fm_ocf_param_set("tls_verify", "true");
        }
        /* ocf:heartbeat:apache greps the whole page, and mod_status puts
         * the default testregex's </html> past the first 4 KiB. */
        if (!fm_web_param_set("receive_bytes")) {
            fm_ocf_param_set("receive_bytes", fm_ocf_param_or("max_reply_bytes", "64k"));
        }
        return PCMK_OCF_OK;
    }
    if (!fm_web_param_set("Port_list") && port_list[0] != '\0') {
        fm_ocf_param_set("Port_list", port_list);
    }
    if (fm_web_param_set("statusurl")) {
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

void
fm_apache_params_digest(char out[17])
{
    static const char *const names[] = { "httpd", "options", "envfiles", "configfile" };

    fm_web_params_digest(names, sizeof(names) / sizeof(names[0]), out);
}
