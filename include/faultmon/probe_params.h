/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the probe parameters, defined once (libfmcore, libc only).
 *
 * One row per parameter, in the manner of Pacemaker's cluster_options[]:
 * its name (as OCF_RESKEY_<name> and `faultmon run --param` spell it), its
 * long option of `faultmon probe`, its type and range, its default as the
 * meta-data shows it, its setter (the one check of a value) and a line of
 * help.  The run configuration (runconf.c), `faultmon probe`'s options and
 * metadata/check-metadata.sh (through `faultmon probe --list-params`) read
 * this table; nothing else checks a probe parameter's value.
 */
#ifndef FAULTMON_PROBE_PARAMS_H
#define FAULTMON_PROBE_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fm_run_config;

enum fm_probe_param_type {
    FM_PARAM_TARGETS,       /* a list of targets or URIs */
    FM_PARAM_DURATION_MS,   /* fm_parse_duration_ms() within [min, max] */
    FM_PARAM_SIZE_BYTES,    /* fm_parse_size_bytes() within [min, max] */
    FM_PARAM_BOOL,          /* fm_parse_bool() */
    FM_PARAM_TEXT,          /* any text; a parameter's "" unsets */
    FM_PARAM_CHECKED,       /* text its setter checks (status list, regex...) */
};

struct fm_probe_opts;
struct fm_probe_param;

/* Where a value comes from: a parameter (OCF_RESKEY_*, --param) or an
 * option of faultmon probe, which gives one item of a list (one --header,
 * one --uri), refuses "" rather than take it for the default, and whose
 * --tls-no-verify wins in any order. */
enum fm_probe_param_source {
    FM_PARAM_FROM_PARAMETER,
    FM_PARAM_FROM_OPTION,
};

/* A check of struct fm_probe_opts that also sets (fm_probe_opts_set_expect()
 * and the like): 0, or an error with why said in err. */
typedef int (*fm_probe_opts_checker)(struct fm_probe_opts *opts, const char *value,
                                     char *err, size_t err_len);

/*!
 * \brief Set one parameter of \p cfg from its text.
 *
 * \return 0; EINVAL or ERANGE for a bad value (for a row with an expected
 *         text the caller words the message from it and \p why is unset;
 *         otherwise \p why says what is wrong); ENOMEM
 */
typedef int (*fm_probe_param_setter)(struct fm_run_config *cfg,
                                     const struct fm_probe_param *param, const char *value,
                                     enum fm_probe_param_source source, char *why,
                                     size_t why_len);

struct fm_probe_param {
    const char *name;               /* OCF parameter name */
    const char *option;             /* long option of `faultmon probe`, or NULL */
    int short_option;               /* its short option, or 0 */
    bool option_takes_value;        /* false: a flag that sets "true" */
    enum fm_probe_param_type type;
    uint64_t min;                   /* range of a duration or size */
    uint64_t max;
    const char *default_text;       /* as the meta-data's default= says it */
    /* What a value must be, for "invalid NAME 'VALUE': expected ..." (a
     * parameter) and "invalid value 'VALUE' for --OPTION: expected ..." (an
     * option); NULL when the setter explains the error itself. */
    const char *expected;
    const char *option_expected;
    bool why_says_all;              /* the setter's why is the whole message,
                                       naming the parameter (Probe_timeout:
                                       the decision engine's row words it) */
    size_t offset;                  /* field of struct fm_probe_opts, for generic setters */
    fm_probe_opts_checker check;    /* for FM_PARAM_CHECKED: the options' own check */
    fm_probe_param_setter set;
    const char *help;
};

/*! \brief The table, in meta-data order. \param[out] n_params its size */
const struct fm_probe_param *fm_probe_params(size_t *n_params);

/*!
 * \brief Find a parameter by name: in any case, with '-' for '_' (Port_list,
 *        port_list, port-list), as the decision engine matches its names.
 * \return the row, or NULL
 */
const struct fm_probe_param *fm_probe_param_find(const char *name);

/*!
 * \brief Set a parameter and word a failure as the run configuration does:
 *        "invalid NAME 'VALUE': expected ...", "NAME: why", or the why alone
 *        when the row says it is the whole message.
 * \return 0, EINVAL, ENOMEM
 */
int fm_probe_param_apply(struct fm_run_config *cfg, const struct fm_probe_param *param,
                         const char *value, char *err, size_t err_len);

/*! What fm_probe_params_finish() found wrong in a combination of parameters. */
enum fm_probe_params_conflict {
    FM_PROBE_PARAMS_OK = 0,
    FM_PROBE_PARAMS_REVERSE_WITHOUT_REGEX,  /* reverse without receive_regex
                                             * or expect_regex */
    FM_PROBE_PARAMS_NO_VERIFY_WITH_CA,      /* tls_verify false and tls_ca_file */
    FM_PROBE_PARAMS_KEY_WITHOUT_CERT,       /* tls_key_file without tls_cert_file */
};

/*!
 * \brief Cross-check the probe parameters once all are set, and settle what
 *        depends on several: certificates are verified when tls_verify is
 *        true or a CA file is given (and tls_verify is not false), and the
 *        receive window is at most the reply cap.
 *
 * Each caller words a conflict its own way (parameters or options).
 *
 * \return FM_PROBE_PARAMS_OK or the conflict
 */
enum fm_probe_params_conflict fm_probe_params_finish(struct fm_run_config *cfg);

#endif
