/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the configuration of a monitored resource, from agent-style
 * parameters (the names of OCF_RESKEY_<name>), shared by `faultmon run`, the
 * agents' validate-all and `faultmon simulate`.
 *
 * The probe parameters (Port_list, Monitor_Uri_List, Probe_timeout,
 * expect_status, receive_regex, receive_bytes, reverse, http_method,
 * http_headers, tls_*, max_reply_bytes) are the rows of one table,
 * probe_params.h: their names, ranges, defaults and checks are there.
 * Every other name goes to fm_decide_opts_set() (Retry_count,
 * Retry_interval, Thorough_probe_interval, rise, fall, ...).
 */
#ifndef FAULTMON_RUNCONF_H
#define FAULTMON_RUNCONF_H

#include <stdbool.h>
#include <stddef.h>

#include <faultmon/decide.h>
#include <faultmon/probe_opts.h>
#include <faultmon/target.h>

struct fm_run_config {
    struct fm_probe_opts probe;
    struct fm_decide_opts decide;
    struct fm_target *targets;      /* Port_list first, then Monitor_Uri_List */
    size_t n_targets;
    bool have_port_list;
    bool verify_set;
    bool no_verify;
    char warn[256];                 /* the planning warning simulate gives, or "" */
};

/* Port_list and Monitor_Uri_List together give at most this many targets. */
#define FM_RUN_CONFIG_MAX_TARGETS 1024

void fm_run_config_init(struct fm_run_config *cfg);
void fm_run_config_clear(struct fm_run_config *cfg);

/*!
 * \brief Set one parameter.
 *
 * \return 0; ENOENT for a name neither this module nor the decision engine
 *         knows; EINVAL with a one-line err naming parameter and value
 */
int fm_run_config_set(struct fm_run_config *cfg, const char *name, const char *value,
                      char *err, size_t err_len);

/*!
 * \brief Parse one target and add it (no limit: the callers that have one
 *        check it).
 *
 * \param[in,out] cfg      the configuration
 * \param[in]     text     the target URI
 * \param[in]     is_uri   true for a Monitor_Uri_List entry (GET)
 * \param[out]    err      why it failed: fm_target_parse()'s message
 * \param[in]     err_len  size of err
 * \return 0, EINVAL, ENOMEM
 */
int fm_run_config_add_target(struct fm_run_config *cfg, const char *text, bool is_uri,
                             char *err, size_t err_len);

/*!
 * \brief Parse one exec target (a Probe_command line, faultmon probe --exec)
 *        and add it: fm_target_parse_exec()'s rules and messages.
 * \return 0, EINVAL, ENOMEM
 */
int fm_run_config_add_exec(struct fm_run_config *cfg, const char *command, char *err,
                           size_t err_len);

/*!
 * \brief Set every known parameter found as OCF_RESKEY_<name> in the
 *        environment (unknown OCF_RESKEY_ names are left to the agent).
 * \return 0 or EINVAL (err says which)
 */
int fm_run_config_from_env(struct fm_run_config *cfg, char *err, size_t err_len);

/*!
 * \brief Finish: default target when none, cross-checks, request bytes.
 * \return 0 or EINVAL
 */
int fm_run_config_finish(struct fm_run_config *cfg, char *err, size_t err_len);

#endif
