/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:nginx, and what it reads from the nginx
 * configuration.  The configuration lands in the Apache reader's struct
 * (ocf_apache.h), so that both agents derive their probe targets with the
 * same code (ocf_apache_targets.c).
 */
#ifndef FAULTMON_OCF_NGINX_H
#define FAULTMON_OCF_NGINX_H

#include <stdbool.h>
#include <stddef.h>

#include "ocf_apache.h"

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
int fm_nginx_conf_read(const char *configfile, const char *prefix, struct fm_apache_conf *conf, char *err,
                       size_t err_len);

/*! \brief The actions of ocf:faultmon:nginx; returns the OCF exit code. */
int fm_ocf_nginx_main(struct fm_ocf *ocf);

#endif
