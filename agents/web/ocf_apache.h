/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:apache, and what it reads from the
 * Apache configuration.
 */
#ifndef FAULTMON_OCF_APACHE_H
#define FAULTMON_OCF_APACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ocf_common.h"

#define FM_APACHE_MAX_LISTEN 64
#define FM_APACHE_MAX_DEFINES 64

/* One Listen directive. */
struct fm_apache_listen {
    char host[128];                 /* "" for every address; IPv6 without brackets */
    uint16_t port;
    bool https;                     /* protocol https, or port 443 without one */
};

/* What the agent needs from the configuration (httpd reads the rest). */
struct fm_apache_conf {
    char server_root[FM_OCF_PATH_MAX];
    char pid_file[FM_OCF_PATH_MAX];     /* as written, "" when absent */
    char runtime_dir[FM_OCF_PATH_MAX];  /* DefaultRuntimeDir as written */
    struct fm_apache_listen listen[FM_APACHE_MAX_LISTEN];
    size_t n_listen;
    char status_location[512];          /* last <Location> with SetHandler server-status */
    size_t n_files;                     /* configuration files read */
};

/* ---- reading it (ocf_apache_conf.c) ---- */

/*!
 * \brief Read \p configfile and the files it includes.
 *
 * Honours ServerRoot (default: the configuration file's directory),
 * Include and IncludeOptional (wildcards, directories), Define/UnDefine,
 * ${VAR} (defines, then the environment), and the IfModule, IfDefine and
 * IfFile sections; other sections count as true.
 *
 * \param[in]  configfile  path
 * \param[in]  defines     names defined with -D on httpd's command line
 * \param[in]  n_defines   how many
 * \param[out] conf        what was found
 * \param[out] err         why it failed, one line
 * \param[in]  err_len     size of \p err
 * \return 0, ENOENT when \p configfile cannot be read, ELOOP for includes
 *         nested too deep
 */
int fm_apache_conf_read(const char *configfile, char *const *defines, size_t n_defines,
                        struct fm_apache_conf *conf, char *err, size_t err_len);

/* ---- what the agent takes from it (ocf_apache_targets.c) ---- */

/*!
 * \brief The PidFile as httpd resolves it: absolute, or relative to
 *        ServerRoot.
 * \return false when the configuration has no PidFile (or one whose path
 *         does not fit \p buf_len: the agent then chooses its own)
 */
bool fm_apache_conf_pid_file(const struct fm_apache_conf *conf, char *buf, size_t buf_len);

/*!
 * \brief The probe targets of the Listen directives, as a Port_list value:
 *        "HOST:PORT" for http, "https://HOST:PORT/" for https; every address
 *        (and 0.0.0.0, *) is probed on 127.0.0.1, or [::1] with \p ipv6 or
 *        for [::].  Duplicates are dropped.
 */
void fm_apache_conf_port_list(const struct fm_apache_conf *conf, bool ipv6, char *buf,
                              size_t buf_len);

/*! \brief "http://HOST:PORT" of the first Listen (the base of relative URLs),
 *         or of 127.0.0.1 (or [::1]) and \p port when there is none. */
void fm_apache_conf_base_url(const struct fm_apache_conf *conf, bool ipv6, unsigned port,
                             char *buf, size_t buf_len);

/* ---- the agent (ocf_apache.c; its parts share ocf_apache_int.h) ---- */

/*! \brief The actions of ocf:faultmon:apache; returns the OCF exit code. */
int fm_ocf_apache_main(struct fm_ocf *ocf);

#endif
