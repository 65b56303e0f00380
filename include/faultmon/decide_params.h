/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the decision engine's parameters.
 *
 * One table (fm_decide_params()) gives each parameter its name, meta-data
 * type, default, help line, kind, range and the option field it sets; the
 * parser (fm_decide_opts_set()), the checker (fm_decide_opts_validate()),
 * `faultmon simulate`'s options and help, and metadata/check-metadata.sh all
 * read it, in the manner of Pacemaker's cluster_options[].
 *
 * No .c of its name: the interface of src/decide/params.c (the decide_ prefix
 * keeps the public name apart from probe_params.h).
 */
#ifndef FAULTMON_DECIDE_PARAMS_H
#define FAULTMON_DECIDE_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Probe_timeout's default: the probe's own (FM_DEFAULT_TIMEOUT_MS of
 * probe_opts.h, which a unit test holds it to; the engine does not include the
 * probe options for one number). */
#define FM_DECIDE_DEFAULT_PROBE_TIMEOUT_MS 5000

/* Bounds that the engine's persisted history and the loop's state file are
 * checked against too: the longest probe interval or timeout, and the
 * longest streaks. */
#define FM_DECIDE_MAX_INTERVAL_MS (UINT64_C(3600) * 1000)
#define FM_DECIDE_MAX_RISE_FALL 100
#define FM_DECIDE_MAX_ADAPTIVE_MISSES 64

/*
 * Parameters, parsed by fm_decide_opts_set() from the agent-style names in
 * the comments (see fm_decide_params() for defaults and one-line help).
 */
struct fm_decide_opts {
    uint32_t retry_count;           /* Retry_count: restarts before a failover */
    uint64_t retry_interval_ms;     /* Retry_interval: the window */
    uint64_t interval_up_ms;        /* Thorough_probe_interval */
    uint64_t interval_down_ms;      /* down_interval; 0: Thorough_probe_interval */
    uint64_t interval_flapping_ms;  /* flapping_interval; 0: Thorough_probe_interval */
    uint64_t probe_timeout_ms;      /* Probe_timeout (only checked against the others) */
    uint32_t rise;                  /* successes before a down service is up */
    uint32_t fall;                  /* consecutive failed cycles that make one failure */
    bool manual_resume;             /* once down, held until resumed */
    bool report_degraded;           /* answer degraded (190) when not up; else 0 */
    int adaptive;                   /* -1: on if a limit is set; 0 off; 1 on */
    uint64_t adaptive_limit_ms;     /* absolute limit over the mean; 0 off */
    uint32_t adaptive_limit_pct;    /* relative limit in percent; 0 off */
    uint64_t adaptive_window_ms;    /* how much latency history makes the mean */
    uint32_t adaptive_misses;       /* consecutive misses that make one failure */
    uint32_t cert_warn_days;        /* degraded when the cert expires sooner; 0 off */
    uint32_t quorum;                /* failed targets of one cycle that count as a
                                       failure (1: any; capped at the targets) */
    uint64_t startup_grace_ms;      /* after a start or a restart, failures shown
                                       but not weighed until the first success or
                                       this long; 0 off */
    uint64_t overload_grace_ms;     /* a failure while the server says every
                                       worker is busy is shown, not weighed,
                                       for at most this long; 0 off */
    uint32_t observer_pressure_pct; /* the loop's node is impaired at this PSI
                                       (some avg10, %) or above; 0 off */
    uint64_t observer_late_ms;      /* ... or when a cycle starts this late; 0 off */
    uint64_t observer_hold_ms;      /* how long an impaired observer may hold
                                       a recovery back */
    bool observer_loopback;         /* ... or when a connection to a listener
                                       of the loop's own on 127.0.0.1 fails */
    bool observer_corosync;         /* ... or when corosync-cfgtool shows this
                                       node cut off from its peers */
    uint32_t node_budget;           /* resources of the node asking for
                                       recovery within the window that make
                                       the node the suspect; 0 off */
    uint64_t node_budget_window_ms;
    bool publish_only;              /* not a parameter: set for a loop whose
                                       agent only publishes the verdict
                                       (httpmon); a recovery marks the service
                                       unhealthy, counts no restart, never
                                       fails over, and the reasons say so */
};

/* How a parameter's text becomes a value, and which field type it fills. */
enum fm_decide_param_kind {
    FM_DECIDE_PARAM_COUNT = 0,      /* whole number into a uint32_t */
    FM_DECIDE_PARAM_DURATION,       /* duration into a uint64_t of ms */
    FM_DECIDE_PARAM_FLAG,           /* boolean into a bool */
    FM_DECIDE_PARAM_AUTO_FLAG,      /* boolean into an int: 1 or 0, -1 unset */
};

/* Flags of a parameter (fm_decide_param.flags). */
#define FM_DECIDE_PARAM_ZERO_OK 0x1u    /* 0 (off, or "the default") is allowed
                                           below min */
#define FM_DECIDE_PARAM_BARE_MS 0x2u    /* a bare number is ms, not seconds */
#define FM_DECIDE_PARAM_CODE_MIN_1 0x4u /* options built in code may go down to
                                           1 (Probe_timeout: the loop copies the
                                           probe's own timeout, which takes any
                                           positive duration) */

/* One parameter: documentation, and the rules that parse and check it. */
struct fm_decide_param {
    const char *name;               /* as in OCF_RESKEY_<name> */
    const char *ocf_type;           /* content type for agent meta-data:
                                       "integer", "boolean" or "string" */
    const char *default_text;       /* its first word is the default value */
    const char *help;               /* one line */
    enum fm_decide_param_kind kind;
    uint64_t min;                   /* range of a count or duration (ms) */
    uint64_t max;
    unsigned int flags;             /* FM_DECIDE_PARAM_* */
    size_t offset;                  /* of its field in struct fm_decide_opts */
};

/*!
 * \brief The parameters fm_decide_opts_set() knows, in documentation order.
 *
 * \param[out] n  how many
 * \return a static table
 */
const struct fm_decide_param *fm_decide_params(size_t *n);

/*! \brief Fill \p o with the defaults (plain Sun behaviour). */
void fm_decide_opts_init(struct fm_decide_opts *o);

/*!
 * \brief Set one parameter from its agent-style name and text value.
 *
 * Names match case-insensitively and '-' stands for '_', so that
 * "Retry_count", "retry_count" and "retry-count" are the same parameter.
 * Durations are a whole number with an optional unit: "300", "300s", "5m",
 * "500ms", "1h"; a bare number is seconds, except for adaptive_limit_ms where
 * it is milliseconds.  Booleans: true/false, yes/no, on/off, 1/0.
 *
 * \param[in,out] o        options to change
 * \param[in]     name     parameter name
 * \param[in]     value    its text
 * \param[out]    err      on failure, one line naming the parameter and value
 * \param[in]     err_len  size of \p err
 * \return 0, ENOENT for a name this module does not know (the caller may try
 *         its own parameters), EINVAL for a bad value
 */
int fm_decide_opts_set(struct fm_decide_opts *o, const char *name,
                       const char *value, char *err, size_t err_len);

/*!
 * \brief Check the parameters against each other.
 *
 * \param[in]  o         options
 * \param[out] err       on failure, why, in one line
 * \param[in]  err_len   size of \p err
 * \param[out] warn      on success, empty or a one-line warning about a
 *                       setting that works but probably not as meant
 *                       (may be NULL)
 * \param[in]  warn_len  size of \p warn
 * \return 0 or EINVAL
 */
int fm_decide_opts_validate(const struct fm_decide_opts *o, char *err,
                            size_t err_len, char *warn, size_t warn_len);

/*!
 * \brief Every parameter of \p o as "Name=value" lines that
 *        fm_decide_opts_set() reads back (durations in ms; adaptive only
 *        when set), in the table's order.
 * \return the length of the whole text (as snprintf(): truncated when it is
 *         \p len or more)
 */
size_t fm_decide_opts_format(const struct fm_decide_opts *o, char *buf, size_t len);

/*! \return whether adaptive response time is in effect for \p o */
bool fm_decide_opts_adaptive(const struct fm_decide_opts *o);

#endif
