/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: what both web agents take alike from a
 * configuration read by ocf_apache_conf.c or ocf_nginx_conf.c: the pid
 * file as the server resolves it, and the probe targets and base URL of
 * its listen directives; and the start of a read, which both readers share.
 */
#include <config.h>

#include "ocf_web_conf.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void
fm_web_conf_read_init(struct fm_web_conf_read *rd, struct fm_web_conf *conf, char *err, size_t err_len)
{
    memset(rd, 0, sizeof(*rd));
    memset(conf, 0, sizeof(*conf));
    if (err_len > 0) {
        err[0] = '\0';
    }
    rd->conf = conf;
    rd->err = err;
    rd->err_len = err_len;
}

void
fm_web_conf_dir_of(const char *path, const char *none, char *buf, size_t buf_len)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL) {
        snprintf(buf, buf_len, "%s", none);
    } else if (slash == path) {
        snprintf(buf, buf_len, "/");
    } else {
        snprintf(buf, buf_len, "%.*s", (int) (slash - path), path);
    }
}

bool
fm_web_conf_pid_file(const struct fm_web_conf *conf, char *buf, size_t buf_len)
{
    if (conf->pid_file[0] == '\0') {
        return false;
    }
    if (conf->pid_file[0] == '/') {
        snprintf(buf, buf_len, "%s", conf->pid_file);
    } else if (snprintf(buf, buf_len, "%s/%s", conf->server_root, conf->pid_file) >= (int) buf_len) {
        /* Cut, it would name another file: the agent then chooses one
         * (httpd: and passes it with -c, which overrides this one). */
        return false;
    }
    return true;
}

static void
listen_host(const struct fm_web_listen *l, bool ipv6, char *buf, size_t len)
{
    if (l->host[0] == '\0') {
        snprintf(buf, len, "%s", ipv6? "[::1]" : "127.0.0.1");
    } else if (strcmp(l->host, "::") == 0) {
        snprintf(buf, len, "[::1]");
    } else if (strchr(l->host, ':') != NULL) {
        snprintf(buf, len, "[%s]", l->host);
    } else {
        snprintf(buf, len, "%s", l->host);
    }
}

void
fm_web_conf_port_list(const struct fm_web_conf *conf, bool ipv6, char *buf,
                         size_t buf_len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < conf->n_listen; i++) {
        const struct fm_web_listen *l = &conf->listen[i];
        char host[160];
        char item[256];
        int n = 0;

        listen_host(l, ipv6, host, sizeof(host));
        if (l->https) {
            snprintf(item, sizeof(item), "https://%s:%u/", host, (unsigned) l->port);
        } else {
            snprintf(item, sizeof(item), "%s:%u", host, (unsigned) l->port);
        }
        /* The same address twice (Listen in two files) is one target. */
        {
            char padded[300];
            char all[4200];

            snprintf(padded, sizeof(padded), " %s ", item);
            snprintf(all, sizeof(all), " %s ", buf);
            if (strstr(all, padded) != NULL) {
                continue;
            }
        }
        n = snprintf(buf + used, buf_len - used, "%s%s", (used > 0)? " " : "", item);
        if (n < 0 || (size_t) n >= buf_len - used) {
            buf[used] = '\0';
            return;
        }
        used += (size_t) n;
    }
}

void
fm_web_conf_base_url(const struct fm_web_conf *conf, bool ipv6, unsigned port,
                        char *buf, size_t buf_len)
{
    char host[160];

    if (conf->n_listen > 0) {
        listen_host(&conf->listen[0], ipv6, host, sizeof(host));
        snprintf(buf, buf_len, "%s://%s:%u", conf->listen[0].https? "https" : "http", host,
                 (unsigned) conf->listen[0].port);
        return;
    }
    snprintf(buf, buf_len, "http://%s:%u", ipv6? "[::1]" : "127.0.0.1", port);
}
