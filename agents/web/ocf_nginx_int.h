/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: what the files of ocf:faultmon:nginx share: its
 * parameters (ocf_nginx_params.c) and its server control and monitor tests
 * (ocf_nginx.c), the struct fm_web_ops of the shared actions.
 *
 * No .c of its name: a pure interface between the nginx agent's files.
 */
#ifndef FAULTMON_OCF_NGINX_INT_H
#define FAULTMON_OCF_NGINX_INT_H

#include <stdbool.h>

#include "ocf_apache_int.h"

/* What `nginx -V` says about its compiled-in defaults. */
struct fm_nginx_defaults {
    char conf_path[FM_OCF_PATH_MAX];
    char pid_path[FM_OCF_PATH_MAX];
    char prefix[FM_OCF_PATH_MAX];
};

/*! \brief configfile (as given), port and options. \return an OCF code */
int fm_nginx_resolve_params(struct apache *a);

/*! \brief The nginx program, its defaults, the configuration, the pid file,
 *         Port_list, the base URL and the status URL. \return an OCF code */
int fm_nginx_resolve_rest(struct apache *a);

/*! \brief Port_list from the configuration, unless set. \return an OCF code */
int fm_nginx_translate_params(const char *port_list, const char *status_url, const char *base_url);

/*! \return false: heartbeat's level 0 checks the process only */
bool fm_nginx_heartbeat_mode(void);

/*! \brief nginx's own parameters (httpd, options, configfile) as given, in 16 hex digits. */
void fm_nginx_params_digest(char out[17]);

#endif
