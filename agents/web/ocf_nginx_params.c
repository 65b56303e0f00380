/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:nginx's parameters, with
 * ocf:heartbeat:nginx's defaults and meaning: the nginx program, what
 * `nginx -V` says about its defaults, the configuration and what it says,
 * and the loop's targets derived from it.  The monitor tests of
 * OCF_CHECK_LEVEL 10, 20 and 30 are in ocf_nginx.c.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ocf_nginx.h"
#include "ocf_web.h"
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
fm_nginx_resolve_params(struct fm_web *w)
{
    const char *config = fm_ocf_param("configfile");

    /* Empty: `nginx -V`'s --conf-path, known once the program is. */
    snprintf(w->configfile, sizeof(w->configfile), "%s", (config != NULL)? config : "");
    w->ipv6 = false;
    /* heartbeat's validate-all: "Port number ... is invalid", OCF_ERR_ARGS. */
    return fm_web_resolve_port_options(w, PCMK_OCF_INVALID_PARAM);
}

static int
resolve_nginx(struct fm_web *w)
{
    const char *given = fm_ocf_param("httpd");

    if (given != NULL && strcmp(given, HEARTBEAT_HTTPD_DEFAULT) == 0) {
        given = NULL;
    }
    return fm_web_resolve_program(w, given, nginx_search, "nginx binary not found (tried /usr/sbin/nginx and "
                                  "/usr/local/sbin/nginx); install nginx or set httpd");
}

/* The value of --NAME= in `nginx -V`'s "configure arguments:" line. */
static void
configure_arg(const char *out, const char *name, char *buf, size_t buf_len)
{
    const char *args = strstr(out, "configure arguments:");
    char key[64];

    snprintf(key, sizeof(key), " --%s=", name);
    fm_ocf_text_value((args != NULL)? args : "", NULL, key, " \n", buf, buf_len);
}

/* What heartbeat takes from `nginx -V`: the default configuration file and
 * pid file; and the prefix, where nginx puts a relative pid. */
static void
nginx_defaults(const struct fm_web *w, struct fm_nginx_defaults *d)
{
    char *argv[] = { (char *) w->program, (char *) "-V", NULL };
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
    for (size_t i = 0; i + 1 < w->n_options; i++) {
        if (strcmp(w->options[i], "-p") == 0) {
            snprintf(d->prefix, sizeof(d->prefix), "%s", w->options[i + 1]);
        }
    }
}

/* heartbeat's buildlocalurl: http:// and the first listen (plain http even
 * for an ssl one, as heartbeat's), or the port when there is none. */
static void
base_url(const struct fm_web *w, char *buf, size_t buf_len)
{
    const struct fm_web_listen *l = &w->conf.listen[0];

    if (w->conf.n_listen == 0) {
        snprintf(buf, buf_len, "http://127.0.0.1:%u", w->port);
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
resolve_pid_file(struct fm_web *w, const struct fm_nginx_defaults *d)
{
    const char *pid = (w->conf.pid_file[0] != '\0')? w->conf.pid_file : d->pid_path;

    if (pid[0] == '\0') {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "Cannot parse config file [%s]: no pid directive, and "
                           "%s -V names no --pid-path", w->configfile, w->program);
    }
    if (pid[0] == '/') {
        snprintf(w->pid_file, sizeof(w->pid_file), "%s", pid);
    } else if (snprintf(w->pid_file, sizeof(w->pid_file), "%s/%s", d->prefix, pid) >= (int) sizeof(w->pid_file)) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "pid file %s/%s: path too long", d->prefix, pid);
    }
    return PCMK_OCF_OK;
}

int
fm_nginx_resolve_rest(struct fm_web *w)
{
    struct fm_nginx_defaults d;
    char err[512] = "";
    const char *statusurl = fm_ocf_param("status10url");
    int rc = resolve_nginx(w);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    nginx_defaults(w, &d);
    if (w->configfile[0] == '\0') {
        snprintf(w->configfile, sizeof(w->configfile), "%s", (d.conf_path[0] != '\0')? d.conf_path : FALLBACK_CONF);
    }
    if (access(w->configfile, F_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "Configuration file %s not found!", w->configfile);
    }
    fm_web_conf_budget(w);
    rc = fm_nginx_conf_read(w->configfile, d.prefix, &w->conf, err, sizeof(err));
    rc = fm_web_conf_outcome(w, rc, err);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    rc = resolve_pid_file(w, &d);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    w->pid_directive = false;
    fm_web_conf_port_list(&w->conf, false, w->port_list, sizeof(w->port_list));
    base_url(w, w->base_url, sizeof(w->base_url));
    if (statusurl != NULL && statusurl[0] != '\0') {
        snprintf(w->status_url, sizeof(w->status_url), "%s", statusurl);
    } else {
        snprintf(w->status_url, sizeof(w->status_url), "%s%s", w->base_url, w->conf.status_location);
    }
    return PCMK_OCF_OK;
}

/* Level 0 of heartbeat checks the process only; faultmon's loop probes
 * every listen of the configuration (Port_list), unless the resource names
 * its own targets. */
int
fm_nginx_translate_params(const char *port_list, const char *status_url, const char *base_url)
{
    if (!fm_web_param_set("Port_list") && port_list[0] != '\0') {
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
