/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:nginx: its entry point, its reader of
 * the nginx configuration, and what its files give the web agents' struct
 * fm_web_ops (ocf_web.h).  The configuration lands in the web agents'
 * struct fm_web_conf (ocf_web_conf.h), so that both agents derive their
 * probe targets with the same code (ocf_web_conf.c).
 */
#ifndef FAULTMON_OCF_NGINX_H
#define FAULTMON_OCF_NGINX_H

#include <stdbool.h>
#include <stddef.h>

#include "ocf_common.h"
#include "ocf_web_conf.h"

struct fm_web;

/* ---- the agent, its server control and monitor tests (ocf_nginx.c) ---- */

/*! \brief The actions of ocf:faultmon:nginx; returns the OCF exit code. */
int fm_ocf_nginx_main(struct fm_ocf *ocf);

/* ---- reading the configuration (ocf_nginx_conf.c) ---- */

/*!
 * \brief Read the nginx configuration \p configfile and the files it
 *        includes, for the agent: the main context's pid directive, the
 *        listen directives of the server blocks of http{} (a server without
 *        one listens on *:80; "ssl" on a listen, or "ssl on" in its server,
 *        makes it https), and the last location with "stub_status on".
 *
 * Include patterns are globs relative to the directory of \p configfile, as
 * nginx takes them.  Includes nested more than 16 deep, include loops,
 * files that are not regular files, files over 4 MiB, unbalanced braces and
 * overlong tokens are refused with one line in \p err.
 *
 * \param[in]  configfile  path
 * \param[in]  prefix      nginx's prefix (-p), where a relative pid lives
 * \param[out] conf        what was found; conf->server_root is \p prefix
 * \param[out] err         why it failed, one line
 * \param[in]  err_len     size of \p err
 * \return 0, ENOENT when \p configfile cannot be read, ELOOP for include
 *         loops or nesting, EINVAL for a file that nginx would refuse too
 */
int fm_nginx_conf_read(const char *configfile, const char *prefix, struct fm_web_conf *conf, char *err,
                       size_t err_len);

/* ---- parameters (ocf_nginx_params.c) ---- */

/* What `nginx -V` says about its compiled-in defaults. */
struct fm_nginx_defaults {
    char conf_path[FM_OCF_PATH_MAX];
    char pid_path[FM_OCF_PATH_MAX];
    char prefix[FM_OCF_PATH_MAX];
};

/*! \brief configfile (as given), port and options. \return an OCF code */
int fm_nginx_resolve_params(struct fm_web *w);

/*! \brief The nginx program, its defaults, the configuration, the pid file,
 *         Port_list, the base URL and the status URL. \return an OCF code */
int fm_nginx_resolve_rest(struct fm_web *w);

/*! \brief Port_list from the configuration, unless set. \return an OCF code */
int fm_nginx_translate_params(const char *port_list, const char *status_url, const char *base_url);

/*! \return false: heartbeat's level 0 checks the process only */
bool fm_nginx_heartbeat_mode(void);

/*! \brief nginx's own parameters (httpd, options, configfile) as given, in 16 hex digits. */
void fm_nginx_params_digest(char out[17]);

#endif
