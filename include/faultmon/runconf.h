/*
 * faultmon: the configuration of a monitored resource, from agent-style
 * parameters (the names of OCF_RESKEY_<name>), shared by `faultmon run`, the
 * agents' validate-all and `faultmon simulate`.
 *
 * Probe parameters (this module):
 *   Port_list          targets probed with HTTP/1.0 HEAD, separated by blanks
 *                      or commas; each is a URI (http://, https://, tcp://,
 *                      tls://), HOST:PORT, [V6]:PORT, PORT, or the Sun
 *                      Cluster forms PORT/tcp and HOST/PORT/tcp; a target
 *                      without a scheme is http://HOST:PORT/ (host 127.0.0.1)
 *   Monitor_Uri_List   http(s) URIs fetched with HTTP/1.1 GET, blank-separated
 *   Probe_timeout      deadline of one probe cycle [5s]
 *   expect_status      statuses that pass [200-399 for Monitor_Uri_List GETs,
 *                      100-499 for Port_list HEADs; a list sets both]
 *   receive_regex      POSIX extended regex the reply must match
 *   reverse            a receive_regex match means failure [false]
 *   http_method        method of every request [HEAD; GET for URIs]
 *   http_headers       extra headers, "Name: value", separated by newlines or '|'
 *   tls_request        send the HTTP request over TLS to https targets [false]
 *   tls_verify         verify certificates [false]
 *   tls_ca_file        CA bundle (implies tls_verify)
 *   tls_sni            server name to send and verify
 *   max_reply_bytes    read cap per reply [64k]
 *   receive_bytes      body bytes receive_regex looks at [4k; at most max_reply_bytes]
 * Every other name goes to fm_decide_opts_set() (Retry_count,
 * Retry_interval, Thorough_probe_interval, rise, fall, ...).
 */
#ifndef FAULTMON_RUNCONF_H
#define FAULTMON_RUNCONF_H

#include <stdbool.h>
#include <stddef.h>

#include <faultmon/decide.h>
#include <faultmon/target.h>

struct fm_run_config {
    struct fm_probe_opts probe;
    struct fm_decide_opts decide;
    struct fm_target *targets;      /* Port_list first, then Monitor_Uri_List */
    size_t n_targets;
    bool have_port_list;
    bool verify_set;
    bool no_verify;
};

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

/*! \brief Names of the probe parameters, NULL-terminated (for help and meta-data). */
extern const char *const fm_run_config_probe_names[];

#endif
