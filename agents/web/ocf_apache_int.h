/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: what the files of ocf:faultmon:apache share (not the
 * configuration reader's interface, which is ocf_apache.h): the resolved
 * invocation, and the functions of its parameters, its level-10 test and
 * its httpd control, each in its own file.
 *
 * No .c of its name: a pure interface between the apache agent's files.
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

struct apache;

/*
 * What differs between the web servers whose agents share the actions of
 * ocf_apache.c (ocf:faultmon:apache, ocf:faultmon:nginx): how the server's
 * parameters and configuration are resolved, its command line, which
 * processes are its own, and heartbeat's monitor tests.  Everything else
 * (the loop, the record, the decisions) is the same for both.
 */
struct fm_web_ops {
    const char *agent;              /* "apache": the record's agent */
    const char *server;             /* "httpd": the server in messages */
    int stop_signal;                /* the first signal of a stop */
    bool strict_levels;             /* a partial failure at OCF_CHECK_LEVEL >= 10 fails */
    /*! configfile, port, options... (no file read). \return an OCF code */
    int (*resolve_params)(struct apache *a);
    /*! the program, and what the configuration says. \return an OCF code */
    int (*resolve_rest)(struct apache *a);
    /*! the server's argv: program, \p extra (e.g. "-t") when not NULL,
     *  options, configuration; \p buf is scratch space. NULL: no memory */
    char **(*argv)(const struct apache *a, const char *extra, char *buf, size_t buf_len);
    /*! the directories the server needs and does not create */
    void (*make_runtime_dirs)(const struct apache *a);
    /*! whether \p pid (\p cmdline, NUL-separated, \p len bytes) is one of
     *  the processes of this server, whose main process was \p main_pid */
    bool (*own_process)(const struct apache *a, pid_t pid, pid_t main_pid, const char *cmdline,
                        size_t len);
    /*! whether the loop checks heartbeat's status page instead of Port_list */
    bool (*heartbeat_mode)(void);
    /*! heartbeat's parameters into the loop's. \return an OCF code */
    int (*translate)(const char *port_list, const char *status_url, const char *base_url);
    /*! the monitor tests of OCF_CHECK_LEVEL (checked only, with \p
     *  check_only), for the probe helper. \return an OCF code */
    int (*test_prepare)(const struct fm_ocf *ocf, const char *base_url, const char *status_url,
                        bool check_only);
    /*! the server's own parameters, as given, in 16 hex digits */
    void (*digest)(char out[17]);
};

/*! \brief The actions, for the agent whose server \p ops describes. \return the OCF exit code */
int fm_web_main(struct fm_ocf *ocf, const struct fm_web_ops *ops);

/*! \brief A digest of the parameters \p names (as given) in 16 hex digits (ocf_apache_reload.c). */
void fm_web_params_digest(const char *const *names, size_t n_names, char out[17]);

/* Everything the actions need, resolved once per invocation. */
struct apache {
    struct fm_ocf *ocf;
    const struct fm_web_ops *ops;
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
    bool loop_only;                 /* reload: only the loop restarts; its first
                                     * cycle's verdict is the monitor's to report */
};

/* ---- parameters and validate-all (ocf_apache_params.c) ---- */

/*! \return whether OCF_RESKEY_<name> is set and not empty */
bool fm_apache_param_set(const char *name);

/*! \brief httpd: the parameter (checked), else heartbeat's search list. \return an OCF code */
int fm_apache_resolve_httpd(struct apache *a);

/*! \brief The server program into a->httpd: \p given (checked), else the
 *         first of \p search (NULL-terminated); \p missing is the exit
 *         reason when there is none. \return an OCF code */
int fm_web_resolve_program(struct apache *a, const char *given, const char *const *search,
                           const char *missing);

/*! \brief port (a bad one fails with \p bad_port_rc) and options. \return an OCF code */
int fm_web_resolve_port_options(struct apache *a, int bad_port_rc);

/*! \brief configfile, use_ipv6, port and options. \return an OCF code */
int fm_apache_resolve_params(struct apache *a);

/*! \brief Take over what the envfiles export (read by /bin/sh). \return an OCF code */
int fm_apache_load_envfiles(struct apache *a);

/*! \brief Read the configuration: pid file, Listen targets, status URL. \return an OCF code */
int fm_apache_read_config(struct apache *a);

/*! \brief The three after resolve_params, in the order they need. \return an OCF code */
int fm_apache_resolve_rest(struct apache *a);

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

/*! \brief What a start derived and kept in the record, into the parameters
 *         of a loop the monitor restarts. */
void fm_apache_params_from_record(const struct fm_ocf_record *rec);

/*! \brief validate-all (with \p configtest, httpd -t too). \return an OCF code */
int fm_apache_validate(struct apache *a, bool configtest);

/* ---- the OCF_CHECK_LEVEL=10 test (ocf_apache_level10.c) ---- */

/*!
 * \brief Put the level-10 test, if any, into FAULTMON_OCF_TEST_* for the
 *        probe helper; with \p check_only, just validate it.
 * \return an OCF code
 */
int fm_apache_level10_prepare(const struct fm_ocf *ocf, const char *base_url, const char *status_url,
                              bool check_only);

/*!
 * \brief heartbeat's test configuration file (testconffile, test20conffile):
 *        "test NAME", then key/value lines up to "end"; the test \p name,
 *        or the first one.  \p what names the parameter in exit reasons.
 * \return an OCF code
 */
int fm_web_read_testconf(const char *what, const char *file, const char *name, char *url, size_t url_len,
                         char *regex, size_t regex_len, char *user, size_t user_len, char *password,
                         size_t password_len);

/*!
 * \brief Check a test (absolute URL \p full, regex \p regex matched
 *        regardless of case) as the probe helper will take it and, unless
 *        \p check_only, hand it to the helper (FAULTMON_OCF_TEST_*).  \p
 *        url_what and \p regex_what name the parameters in exit reasons.
 * \return an OCF code
 */
int fm_web_test_export(const char *url_what, const char *regex_what, const char *full, const char *regex,
                       const char *user, const char *password, bool check_only);

/* ---- httpd (ocf_apache_httpd.c) ---- */

/*! \return the PID in \p pid_file when it is a live \p httpd, else 0 */
pid_t fm_apache_httpd_pid(const char *pid_file, const char *httpd);

/*! \brief httpd -t within \p timeout_ms. \return an OCF code */
int fm_apache_httpd_configtest(const struct apache *a, uint64_t timeout_ms);

/*! \brief Whether a TCP connection to \p host (an address; a name counts as yes) and \p port opens. */
bool fm_web_tcp_answers(const char *host, uint16_t port);

/*! \brief ocf:faultmon:apache's struct fm_web_ops (ocf_apache_httpd.c). */
extern const struct fm_web_ops fm_apache_ops;

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
