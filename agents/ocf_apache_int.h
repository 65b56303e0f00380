/*
 * faultmon OCF agents: what the files of ocf:faultmon:apache share (not the
 * configuration reader's interface, which is ocf_apache.h): the resolved
 * invocation, and the functions of its parameters, its level-10 test and
 * its httpd control, each in its own file.
 */
#ifndef FAULTMON_OCF_APACHE_INT_H
#define FAULTMON_OCF_APACHE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ocf_apache.h"

/* The longest statusurl, testurl or testregex10 (with its NUL). */
#define FM_APACHE_URL_MAX 2048

/* Everything the actions need, resolved once per invocation. */
struct apache {
    struct fm_ocf *ocf;
    char httpd[FM_OCF_PATH_MAX];
    char configfile[FM_OCF_PATH_MAX];
    char **options;
    size_t n_options;
    bool ipv6;
    unsigned port;
    struct fm_apache_conf conf;
    char pid_file[FM_OCF_PATH_MAX];
    bool pid_directive;             /* no PidFile: pass -c "PidFile ..." */
    char port_list[4096];           /* derived from Listen */
    char base_url[300];             /* of relative URLs */
    char status_url[1024];          /* inferred from the configuration */
};

/* ---- parameters and validate-all (ocf_apache_params.c) ---- */

/*! \return whether OCF_RESKEY_<name> is set and not empty */
bool fm_apache_param_set(const char *name);

/*! \brief httpd: the parameter (checked), else heartbeat's search list. \return an OCF code */
int fm_apache_resolve_httpd(struct apache *a);

/*! \brief configfile, use_ipv6, port and options. \return an OCF code */
int fm_apache_resolve_params(struct apache *a);

/*! \brief Take over what the envfiles export (read by /bin/sh). \return an OCF code */
int fm_apache_load_envfiles(struct apache *a);

/*! \brief Read the configuration: pid file, Listen targets, status URL. \return an OCF code */
int fm_apache_read_config(struct apache *a);

/*! \brief All four above, in the order they need. \return an OCF code */
int fm_apache_prepare(struct apache *a);

/*! \brief A URL as heartbeat's fixtesturl: one not starting with "http" is relative to \p base. */
void fm_apache_absolute_url(const char *base, const char *url, char *out, size_t out_len);

/*! \return whether the resource asks for ocf:heartbeat:apache's check */
bool fm_apache_heartbeat_mode(void);

/*!
 * \brief Set the loop's parameters (OCF_RESKEY_* of this process) from the
 *        resource's and what the configuration says.
 * \return an OCF code
 */
int fm_apache_translate_params(const char *port_list, const char *status_url, const char *base_url);

/*! \return PCMK_OCF_OK, or PCMK_OCF_NOT_CONFIGURED when the resource name is not usable */
int fm_apache_check_resource_name(const struct fm_ocf *ocf);

/*! \brief Thorough_probe_interval and Probe_timeout from the monitor operation, when unset. */
void fm_apache_derive_timing(const struct fm_ocf *ocf);

/*! \brief validate-all (with \p configtest, httpd -t too). \return an OCF code */
int fm_apache_validate(struct apache *a, bool configtest);

/* ---- the OCF_CHECK_LEVEL=10 test (ocf_apache_level10.c) ---- */

/*!
 * \brief Put the level-10 test, if any, into FAULTMON_OCF_TEST_* for the
 *        probe helper; with \p check_only, just validate it.
 * \return an OCF code
 */
int fm_apache_level10_prepare(const char *base_url, bool check_only);

/* ---- httpd (ocf_apache_httpd.c) ---- */

/*! \return the PID in \p pid_file when it is a live \p httpd, else 0 */
pid_t fm_apache_httpd_pid(const char *pid_file, const char *httpd);

/*! \brief httpd -t within \p timeout_ms. \return an OCF code */
int fm_apache_httpd_configtest(const struct apache *a, uint64_t timeout_ms);

/*! \brief The directories envvars and the configuration name, as apache2ctl makes them. */
void fm_apache_make_runtime_dirs(const struct apache *a);

/*! \brief Start httpd and wait until every Listen answers. \return an OCF code */
int fm_apache_httpd_start(struct apache *a);

/*! \brief Stop httpd (\p pid, 0 when unknown) and every process of it. \return an OCF code */
int fm_apache_httpd_stop(struct apache *a, pid_t pid);

/* ocf_apache_reload.c */

/*! \brief httpd's own parameters (httpd, options, envfiles, configfile) as
 *         given, in 16 hex digits: a reload that changes them restarts httpd. */
void fm_apache_httpd_params_digest(char out[17]);
/*! \brief validate-all in a child process (validation rewrites this
 *         process's parameters). \return its OCF exit code */
int fm_apache_validate_in_child(struct apache *a);

#endif
