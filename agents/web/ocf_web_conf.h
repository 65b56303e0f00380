/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: what the web agents take from a server's
 * configuration (filled by ocf_apache_conf.c and ocf_nginx_conf.c), and
 * what they derive from it alike: the pid file, the probe targets and the
 * base URL; and the state both readers carry (ocf_web_conf.c).
 */
#ifndef FAULTMON_OCF_WEB_CONF_H
#define FAULTMON_OCF_WEB_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ocf_common.h"
#include "ocf_conf_chain.h"

#define FM_WEB_MAX_LISTEN 64

/* One Listen (httpd) or listen (nginx) directive. */
struct fm_web_listen {
    char host[128];                 /* "" for every address; IPv6 without brackets */
    uint16_t port;
    bool https;                     /* protocol https, or port 443 without one */
};

/* What the agent needs from the configuration (the server reads the rest). */
struct fm_web_conf {
    char server_root[FM_OCF_PATH_MAX];  /* httpd's ServerRoot, nginx's prefix */
    char pid_file[FM_OCF_PATH_MAX];     /* as written, "" when absent */
    char runtime_dir[FM_OCF_PATH_MAX];  /* DefaultRuntimeDir as written */
    struct fm_web_listen listen[FM_WEB_MAX_LISTEN];
    size_t n_listen;
    char status_location[512];          /* the server-status or stub_status location */
    size_t n_files;                     /* configuration files read */
};

/* What both configuration readers carry through a read: where it writes,
 * the files it is inside of, and its one line of error. */
struct fm_web_conf_read {
    struct fm_web_conf *conf;
    struct fm_conf_chain files;
    char *err;
    size_t err_len;
};

/*! \brief Start a read into \p conf (emptied), its error into \p err. */
void fm_web_conf_read_init(struct fm_web_conf_read *rd, struct fm_web_conf *conf, char *err, size_t err_len);

/*! \brief The directory of \p path ("/" for a file in it), or \p none when
 *         \p path has no slash. */
void fm_web_conf_dir_of(const char *path, const char *none, char *buf, size_t buf_len);

/*!
 * \brief The pid file as the server resolves it: absolute, or relative to
 *        server_root.
 * \return false when the configuration has no pid file (or one whose path
 *         does not fit \p buf_len: the agent then chooses its own)
 */
bool fm_web_conf_pid_file(const struct fm_web_conf *conf, char *buf, size_t buf_len);

/*!
 * \brief The probe targets of the listen directives, as a Port_list value:
 *        "HOST:PORT" for http, "https://HOST:PORT/" for https; every address
 *        (and 0.0.0.0, *) is probed on 127.0.0.1, or [::1] with \p ipv6 or
 *        for [::].  Duplicates are dropped.
 */
void fm_web_conf_port_list(const struct fm_web_conf *conf, bool ipv6, char *buf, size_t buf_len);

/*! \brief "http://HOST:PORT" of the first listen (the base of relative URLs),
 *         or of 127.0.0.1 (or [::1]) and \p port when there is none. */
void fm_web_conf_base_url(const struct fm_web_conf *conf, bool ipv6, unsigned port, char *buf,
                          size_t buf_len);

#endif
