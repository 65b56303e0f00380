/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:apache: its entry point, its reader of
 * the Apache configuration, and what its files give the web agents'
 * struct fm_web_ops (ocf_web.h).
 */
#ifndef FAULTMON_OCF_APACHE_H
#define FAULTMON_OCF_APACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "ocf_common.h"
#include "ocf_web_conf.h"

#define FM_APACHE_MAX_DEFINES 64

struct fm_web;

/* ---- the agent (ocf_apache.c) ---- */

/*! \brief The actions of ocf:faultmon:apache; returns the OCF exit code. */
int fm_ocf_apache_main(struct fm_ocf *ocf);

/* ---- reading the configuration (ocf_apache_conf.c) ---- */

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
                        struct fm_web_conf *conf, char *err, size_t err_len);

/* ---- parameters (ocf_apache_params.c) ---- */

/*! \brief httpd: the parameter (checked), else heartbeat's search list. \return an OCF code */
int fm_apache_resolve_httpd(struct fm_web *w);

/*! \brief configfile, use_ipv6, port and options. \return an OCF code */
int fm_apache_resolve_params(struct fm_web *w);

/*! \brief Take over what the envfiles export (read by /bin/sh). \return an OCF code */
int fm_apache_load_envfiles(struct fm_web *w);

/*! \brief Read the configuration: pid file, Listen targets, status URL. \return an OCF code */
int fm_apache_read_config(struct fm_web *w);

/*! \brief The three after resolve_params, in the order they need. \return an OCF code */
int fm_apache_resolve_rest(struct fm_web *w);

/*! \return whether the resource asks for ocf:heartbeat:apache's check */
bool fm_apache_heartbeat_mode(void);

/*!
 * \brief Set the loop's parameters (OCF_RESKEY_* of this process) from the
 *        resource's and what the configuration says.
 * \return an OCF code
 */
int fm_apache_translate_params(const char *port_list, const char *status_url, const char *base_url);

/*! \brief httpd's own parameters (httpd, options, envfiles, configfile) as
 *         given, in 16 hex digits: a reload that changes them restarts httpd. */
void fm_apache_params_digest(char out[17]);

/* ---- the OCF_CHECK_LEVEL=10 test (ocf_apache_level10.c) ---- */

/*!
 * \brief Put the level-10 test, if any, into FAULTMON_OCF_TEST_* for the
 *        probe helper; with \p check_only, just validate it.
 * \return an OCF code
 */
int fm_apache_level10_prepare(const struct fm_ocf *ocf, const char *base_url, const char *status_url,
                              bool check_only);

#endif
