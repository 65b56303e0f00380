/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: what the web agents (ocf:faultmon:apache,
 * ocf:faultmon:nginx) share: the server's struct fm_web_ops, the resolved
 * invocation (struct fm_web), and the functions of the shared actions
 * (ocf_web.c, ocf_web_monitor.c), parameters (ocf_web_params.c), server
 * control (ocf_web_server.c) and monitor tests (ocf_web_leveltest.c).
 *
 * The files call downwards only: a server's entry point (ocf_apache.c,
 * ocf_nginx.c) calls the actions with its ops; the actions call the
 * parameters and the server control; what a server does its own way is
 * reached through its ops, never by name.
 */
#ifndef FAULTMON_OCF_WEB_H
#define FAULTMON_OCF_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ocf_common.h"
#include "ocf_web_conf.h"

/* The longest statusurl, testurl or testregex10 (with its NUL). */
#define FM_WEB_URL_MAX 2048

struct fm_web;

/*
 * What differs between the web servers whose agents share the actions of
 * ocf_web.c: how the server's parameters and configuration are resolved,
 * its command line, which processes are its own, and heartbeat's monitor
 * tests.  Everything else (the loop, the record, the decisions) is the
 * same for both.
 */
struct fm_web_ops {
    const char *agent;              /* "apache": the record's agent */
    const char *server;             /* "httpd", "nginx": the server in messages */
    int stop_signal;                /* the first signal of a stop */
    bool strict_levels;             /* a partial failure at OCF_CHECK_LEVEL >= 10 fails */
    /*! configfile, port, options... (no file read). \return an OCF code */
    int (*resolve_params)(struct fm_web *w);
    /*! the program, and what the configuration says. \return an OCF code */
    int (*resolve_rest)(struct fm_web *w);
    /*! the server's argv: program, \p extra (e.g. "-t") when not NULL,
     *  options, configuration; \p buf is scratch space. NULL: no memory */
    char **(*argv)(const struct fm_web *w, const char *extra, char *buf, size_t buf_len);
    /*! the directories the server needs and does not create */
    void (*make_runtime_dirs)(const struct fm_web *w);
    /*! whether \p pid (\p cmdline, NUL-separated, \p len bytes) is one of
     *  the processes of this server, whose main process was \p main_pid */
    bool (*own_process)(const struct fm_web *w, pid_t pid, pid_t main_pid, const char *cmdline,
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

/* Everything the actions need, resolved once per invocation. */
struct fm_web {
    struct fm_ocf *ocf;
    const struct fm_web_ops *ops;
    char program[FM_OCF_PATH_MAX];  /* the server program (parameter httpd) */
    char configfile[FM_OCF_PATH_MAX];
    char **options;
    size_t n_options;
    bool ipv6;
    unsigned port;
    struct fm_web_conf conf;
    char pid_file[FM_OCF_PATH_MAX];
    bool pid_directive;             /* httpd without PidFile: pass -c "PidFile ..." */
    char port_list[4096];           /* derived from the listen directives */
    char base_url[300];             /* of relative URLs */
    char status_url[1024];          /* inferred from the configuration */
    bool loop_only;                 /* reload: only the loop restarts; its first
                                     * cycle's verdict is the monitor's to report */
};

/* ---- the actions (ocf_web.c, ocf_web_monitor.c) ---- */

/*! \brief The actions, for the agent whose server \p ops describes. \return the OCF exit code */
int fm_web_main(struct fm_ocf *ocf, const struct fm_web_ops *ops);

/*! \brief monitor (or, with \p status_only, status). \return the OCF exit code */
int fm_web_monitor(struct fm_web *w, bool status_only);

/* ---- the parameters both servers share, validate-all (ocf_web_params.c) ---- */

/*! \return the value of \p key in the agent's record, else \p dflt */
const char *fm_web_record_or(const struct fm_ocf_record *rec, const char *key, const char *dflt);

/*! \return whether OCF_RESKEY_<name> is set and not empty */
bool fm_web_param_set(const char *name);

/*! \brief The server program into w->program: \p given (checked), else the
 *         first of \p search (NULL-terminated); \p missing is the exit
 *         reason when there is none. \return an OCF code */
int fm_web_resolve_program(struct fm_web *w, const char *given, const char *const *search,
                           const char *missing);

/*! \brief port (a bad one fails with \p bad_port_rc) and options. \return an OCF code */
int fm_web_resolve_port_options(struct fm_web *w, int bad_port_rc);

/*! \brief Bound the configuration read that follows by what the action has left. */
void fm_web_conf_budget(const struct fm_web *w);

/*! \brief A configuration reader's \p rc and \p err as an OCF code and exit reason. */
int fm_web_conf_outcome(const struct fm_web *w, int rc, const char *err);

/*! \brief A URL as heartbeat's fixtesturl: one not starting with "http" is relative to \p base. */
void fm_web_absolute_url(const char *base, const char *url, char *out, size_t out_len);

/*! \return PCMK_OCF_OK, or PCMK_OCF_NOT_CONFIGURED when the resource name is not usable */
int fm_web_check_resource_name(const struct fm_ocf *ocf);

/* The loop's interval derived from the monitor's: at most this (heartbeat's
 * default monitor interval), so that a 60 s monitor, the meta-data's
 * default, still gives a check every 10 s. */
#define FM_WEB_DERIVED_INTERVAL_MAX_MS 10000

/*!
 * \brief The Thorough_probe_interval a start derives from the monitor's
 *        interval: min(interval / 2, 10 s), at least 1 s.
 * \param[in] monitor_interval_ms  the monitor operation's interval
 * \return the loop's interval in ms
 */
uint64_t fm_web_derived_probe_interval_ms(uint64_t monitor_interval_ms);

/*! \brief Thorough_probe_interval and Probe_timeout from the monitor operation, when unset. */
void fm_web_derive_timing(const struct fm_ocf *ocf);

/*! \brief What a start derived and kept in the record, into the parameters
 *         of a loop the monitor restarts. */
void fm_web_params_from_record(const struct fm_ocf_record *rec);

/*! \brief validate-all (with \p configtest, the server's -t too). \return an OCF code */
int fm_web_validate(struct fm_web *w, bool configtest);

/*! \brief validate-all in a child process (validation rewrites this
 *         process's parameters). \return its OCF exit code */
int fm_web_validate_in_child(struct fm_web *w);

/*! \brief A digest of the parameters \p names (as given) in 16 hex digits. */
void fm_web_params_digest(const char *const *names, size_t n_names, char out[17]);

/* ---- the server's processes (ocf_web_server.c) ---- */

/*! \return the PID in \p pid_file when it is a live \p program, else 0 */
pid_t fm_web_server_pid(const char *pid_file, const char *program);

/*! \brief The server's configuration test (-t) within \p timeout_ms. \return an OCF code */
int fm_web_server_configtest(const struct fm_web *w, uint64_t timeout_ms);

/*! \brief Start the server and wait until every listen answers. \return an OCF code */
int fm_web_server_start(struct fm_web *w);

/*! \brief Stop the server (\p pid, 0 when unknown) and every process of it. \return an OCF code */
int fm_web_server_stop(struct fm_web *w, pid_t pid);

/*! \brief What the loop needs to watch the server (its pid file, its name;
 *         \p kept: it ran before this start). */
void fm_web_watch_env(const struct fm_web *w, const char *pid_file, bool kept);

/* ---- heartbeat's monitor tests, shared (ocf_web_leveltest.c) ---- */

/*! \brief \p s without the blanks around it, in place. */
void fm_web_trim(char *s);

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

#endif
