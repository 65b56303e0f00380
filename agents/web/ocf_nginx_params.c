/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:nginx's parameters, with
 * ocf:heartbeat:nginx's defaults and meaning: the nginx program, what
 * `nginx -V` says about its defaults, the configuration and what it says,
 * and the loop's targets derived from it.  The monitor tests of
 * OCF_CHECK_LEVEL 10, 20 and 30 are in ocf_nginx.c.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ocf_apache_int.h"
#include "ocf_conf_chain.h"
#include "ocf_nginx.h"
#include "ocf_nginx_int.h"
#include "ocf_web_overload.h"

/* ocf:heartbeat:nginx's NGINXDLIST, in its order. */
static const char *const nginx_search[] = { "/usr/sbin/nginx", "/usr/local/sbin/nginx", NULL };

/* heartbeat's meta-data default for httpd, a program no nginx install has:
 * heartbeat then searches its list, and so does faultmon. */
#define HEARTBEAT_HTTPD_DEFAULT "/usr/sbin/httpd"

/* Without `nginx -V` (it failed, or names no path): Debian's defaults. */
#define FALLBACK_CONF "/etc/nginx/nginx.conf"
#define FALLBACK_PREFIX "/usr/share/nginx"

int
fm_nginx_resolve_params(struct apache *a)
{
    const char *config = fm_ocf_param("configfile");

    /* Empty: `nginx -V`'s --conf-path, known once the program is. */
    snprintf(a->configfile, sizeof(a->configfile), "%s", (config != NULL)? config : "");
    a->ipv6 = false;
    /* heartbeat's validate-all: "Port number ... is invalid", OCF_ERR_ARGS. */
    return fm_web_resolve_port_options(a, PCMK_OCF_INVALID_PARAM);
}

static int
resolve_nginx(struct apache *a)
{
    const char *given = fm_ocf_param("httpd");

    if (given != NULL && strcmp(given, HEARTBEAT_HTTPD_DEFAULT) == 0) {
        given = NULL;
    }
    return fm_web_resolve_program(a, given, nginx_search, "nginx binary not found (tried /usr/sbin/nginx and "
                                  "/usr/local/sbin/nginx); install nginx or set httpd");
}

/* The value of --NAME= in `nginx -V`'s "configure arguments:" line. */
static void
configure_arg(const char *out, const char *name, char *buf, size_t buf_len)
{
    const char *args = strstr(out, "configure arguments:");
    char key[64];
    const char *p = NULL;

    buf[0] = '\0';
    snprintf(key, sizeof(key), " --%s=", name);
    if (args == NULL || (p = strstr(args, key)) == NULL) {
        return;
    }
    p += strlen(key);
    snprintf(buf, buf_len, "%.*s", (int) strcspn(p, " \n"), p);
}

/* What heartbeat takes from `nginx -V`: the default configuration file and
 * pid file; and the prefix, where nginx puts a relative pid. */
static void
nginx_defaults(const struct apache *a, struct fm_nginx_defaults *d)
{
    char *argv[] = { (char *) a->httpd, (char *) "-V", NULL };
    char *out = calloc(1, 16384);

    memset(d, 0, sizeof(*d));
    if (out != NULL && fm_ocf_run(argv, out, 16384, NULL, 5000) == 0) {
        configure_arg(out, "conf-path", d->conf_path, sizeof(d->conf_path));
        configure_arg(out, "pid-path", d->pid_path, sizeof(d->pid_path));
        configure_arg(out, "prefix", d->prefix, sizeof(d->prefix));
    }
    free(out);
    if (d->prefix[0] == '\0') {
        snprintf(d->prefix, sizeof(d->prefix), "%s", FALLBACK_PREFIX);
    }
    /* -p in options moves the prefix, as on nginx's command line. */
    for (size_t i = 0; i + 1 < a->n_options; i++) {
        if (strcmp(a->options[i], "-p") == 0) {
            snprintf(d->prefix, sizeof(d->prefix), "%s", a->options[i + 1]);
        }
    }
}

/* heartbeat's buildlocalurl: http:// and the first listen (plain http even
 * for an ssl one, as heartbeat's), or the port when there is none. */
static void
base_url(const struct apache *a, char *buf, size_t buf_len)
{
    const struct fm_apache_listen *l = &a->conf.listen[0];

    if (a->conf.n_listen == 0) {
        snprintf(buf, buf_len, "http://127.0.0.1:%u", a->port);
    } else if (l->host[0] == '\0') {
        snprintf(buf, buf_len, "http://127.0.0.1:%u", (unsigned) l->port);
    } else if (strcmp(l->host, "::") == 0) {
        snprintf(buf, buf_len, "http://[::1]:%u", (unsigned) l->port);
    } else {
        snprintf(buf, buf_len, (strchr(l->host, ':') != NULL)? "http://[%s]:%u" : "http://%s:%u", l->host,
                 (unsigned) l->port);
    }
}

/* The pid file: the configuration's pid, else `nginx -V`'s --pid-path;
 * relative to the prefix. */
static int
resolve_pid_file(struct apache *a, const struct fm_nginx_defaults *d)
{
    const char *pid = (a->conf.pid_file[0] != '\0')? a->conf.pid_file : d->pid_path;

    if (pid[0] == '\0') {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "Cannot parse config file [%s]: no pid directive, and "
                           "%s -V names no --pid-path", a->configfile, a->httpd);
    }
    if (pid[0] == '/') {
        snprintf(a->pid_file, sizeof(a->pid_file), "%s", pid);
    } else if (snprintf(a->pid_file, sizeof(a->pid_file), "%s/%s", d->prefix, pid) >= (int) sizeof(a->pid_file)) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "pid file %s/%s: path too long", d->prefix, pid);
    }
    return PCMK_OCF_OK;
}

int
fm_nginx_resolve_rest(struct apache *a)
{
    struct fm_nginx_defaults d;
    char err[512] = "";
    const char *statusurl = fm_ocf_param("status10url");
    int rc = resolve_nginx(a);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    nginx_defaults(a, &d);
    if (a->configfile[0] == '\0') {
        snprintf(a->configfile, sizeof(a->configfile), "%s", (d.conf_path[0] != '\0')? d.conf_path : FALLBACK_CONF);
    }
    if (access(a->configfile, F_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "Configuration file %s not found!", a->configfile);
    }
    /* The read is bounded by what the action has left, at least a second
     * (an action that has less is killed by the executor anyway). */
    fm_conf_set_time_budget_ms((fm_ocf_left_ms(a->ocf) > 1000)? fm_ocf_left_ms(a->ocf) : 1000);
    rc = fm_nginx_conf_read(a->configfile, d.prefix, &a->conf, err, sizeof(err));
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
    rc = resolve_pid_file(a, &d);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    a->pid_directive = false;
    fm_apache_conf_port_list(&a->conf, false, a->port_list, sizeof(a->port_list));
    base_url(a, a->base_url, sizeof(a->base_url));
    if (statusurl != NULL && statusurl[0] != '\0') {
        snprintf(a->status_url, sizeof(a->status_url), "%s", statusurl);
    } else {
        snprintf(a->status_url, sizeof(a->status_url), "%s%s", a->base_url, a->conf.status_location);
    }
    return PCMK_OCF_OK;
}

/* Level 0 of heartbeat checks the process only; faultmon's loop probes
 * every listen of the configuration (Port_list), unless the resource names
 * its own targets. */
int
fm_nginx_translate_params(const char *port_list, const char *status_url, const char *base_url)
{
    if (!fm_apache_param_set("Port_list") && port_list[0] != '\0') {
        fm_ocf_param_set("Port_list", port_list);
    }
    return fm_web_overload_url(false, status_url, base_url);
}

bool
fm_nginx_heartbeat_mode(void)
{
    return false;
}

void
fm_nginx_params_digest(char out[17])
{
    static const char *const names[] = { "httpd", "options", "configfile" };

    fm_web_params_digest(names, sizeof(names) / sizeof(names[0]), out);
}
