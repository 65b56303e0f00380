/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the decision engine's parameters (see
 * include/faultmon/decide_params.h): the one table, the parser of each kind
 * and the checks that options built in code go through too.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/decide.h>
#include <faultmon/parse.h>
#include <faultmon/text.h>

#include "decide_int.h"

/* Defaults: Sun Cluster's resource type defaults (Thorough_probe_interval 60,
 * Retry_count 2, Retry_interval 300) and F5's adaptive settings. */
#define DEF_RETRY_COUNT 2
#define DEF_RETRY_INTERVAL_MS (UINT64_C(300) * 1000)
#define DEF_INTERVAL_UP_MS (UINT64_C(60) * 1000)
#define DEF_ADAPTIVE_WINDOW_MS (UINT64_C(300) * 1000)
#define DEF_ADAPTIVE_MISSES 3

#define MIN_INTERVAL_MS UINT64_C(100)
#define MAX_INTERVAL_MS FM_DECIDE_MAX_INTERVAL_MS
/* Probe_timeout's one least value, for faultmon probe --timeout as for the
 * parameter (issue 32: the probe table took 1 ms, this one 100 ms).  A
 * deadline under 100 ms is never what a Pacemaker administrator means (a
 * bare "50" is 50 s, so a value below it is written in ms on purpose) and
 * on a busy node the scheduler alone can take that long: every such probe
 * would be a failure of the node, not of the service, and a false recovery
 * is one of the two worst things the monitor can do.  The agents already
 * never cap it below 100 ms (agents/ocf/ocf_loop.c), the benchmarks run at
 * 900 ms, and HAProxy's default check timeout is its 2 s inter. */
#define MIN_PROBE_TIMEOUT_MS UINT64_C(100)
#define MIN_RETRY_INTERVAL_MS UINT64_C(1000)
#define MAX_RETRY_INTERVAL_MS (UINT64_C(7) * 24 * 3600 * 1000)
#define MIN_ADAPTIVE_WINDOW_MS (UINT64_C(10) * 1000)
#define MAX_ADAPTIVE_PCT 10000
#define MAX_CERT_WARN_DAYS 3650
#define MAX_QUORUM 256
#define MAX_STARTUP_GRACE_MS (UINT64_C(3600) * 1000)
#define DEF_OVERLOAD_GRACE_MS (UINT64_C(300) * 1000)
#define MAX_OVERLOAD_GRACE_MS (UINT64_C(24) * 3600 * 1000)
#define DEF_OBSERVER_HOLD_MS (UINT64_C(60) * 1000)
#define MIN_OBSERVER_HOLD_MS UINT64_C(1000)
#define MAX_OBSERVER_HOLD_MS (UINT64_C(3600) * 1000)
#define DEF_NODE_BUDGET_WINDOW_MS (UINT64_C(60) * 1000)
#define MIN_NODE_BUDGET_WINDOW_MS (UINT64_C(10) * 1000)

enum param_id {
    P_RETRY_COUNT = 0,
    P_RETRY_INTERVAL,
    P_THOROUGH_PROBE_INTERVAL,
    P_PROBE_TIMEOUT,
    P_DOWN_INTERVAL,
    P_FLAPPING_INTERVAL,
    P_RISE,
    P_FALL,
    P_MANUAL_RESUME,
    P_REPORT_DEGRADED,
    P_ADAPTIVE,
    P_ADAPTIVE_LIMIT_MS,
    P_ADAPTIVE_LIMIT_PCT,
    P_ADAPTIVE_WINDOW,
    P_ADAPTIVE_MISSES,
    P_CERT_WARN_DAYS,
    P_QUORUM,
    P_STARTUP_GRACE,
    P_OVERLOAD_GRACE,
    P_OBSERVER_PRESSURE,
    P_OBSERVER_LATE,
    P_OBSERVER_HOLD,
    P_OBSERVER_LOOPBACK,
    P_OBSERVER_COROSYNC,
    P_NODE_BUDGET,
    P_NODE_BUDGET_WINDOW,
    P__COUNT
};

#define COUNT FM_DECIDE_PARAM_COUNT
#define DURATION FM_DECIDE_PARAM_DURATION
#define FLAG FM_DECIDE_PARAM_FLAG
#define AUTO_FLAG FM_DECIDE_PARAM_AUTO_FLAG
#define ZERO_OK FM_DECIDE_PARAM_ZERO_OK
#define BARE_MS FM_DECIDE_PARAM_BARE_MS
#define FIELD(f) offsetof(struct fm_decide_opts, f)

/* metadata/check-metadata.sh reads the names from the first line of each
 * entry: keep "[P_...] = { "name"," there. */
static const struct fm_decide_param param_table[P__COUNT] = {
    [P_RETRY_COUNT] = { "Retry_count", "integer", "2",
        "restarts allowed within Retry_interval, then failover (0-64)",
        COUNT, 0, FM_DECIDE_MAX_RESTARTS, 0, FIELD(retry_count) },
    [P_RETRY_INTERVAL] = { "Retry_interval", "string", "300s",
        "window in which failures add up and restarts are counted",
        DURATION, MIN_RETRY_INTERVAL_MS, MAX_RETRY_INTERVAL_MS, 0, FIELD(retry_interval_ms) },
    [P_THOROUGH_PROBE_INTERVAL] = { "Thorough_probe_interval", "string", "60s",
        "time between probes while up or degraded",
        DURATION, MIN_INTERVAL_MS, MAX_INTERVAL_MS, 0, FIELD(interval_up_ms) },
    [P_PROBE_TIMEOUT] = { "Probe_timeout", "string", "5s",
        "deadline of one probe cycle (here: checked against Retry_interval)",
        DURATION, MIN_PROBE_TIMEOUT_MS, MAX_INTERVAL_MS, FM_DECIDE_PARAM_CODE_MIN_1,
        FIELD(probe_timeout_ms) },
    [P_DOWN_INTERVAL] = { "down_interval", "string", "0 (Thorough_probe_interval)",
        "time between probes while down or held",
        DURATION, MIN_INTERVAL_MS, MAX_INTERVAL_MS, ZERO_OK, FIELD(interval_down_ms) },
    [P_FLAPPING_INTERVAL] = { "flapping_interval", "string", "0 (Thorough_probe_interval)",
        "time between probes while flapping between up and down",
        DURATION, MIN_INTERVAL_MS, MAX_INTERVAL_MS, ZERO_OK, FIELD(interval_flapping_ms) },
    [P_RISE] = { "rise", "integer", "1",
        "successes in a row before a recovered service is up (1-100)",
        COUNT, 1, FM_DECIDE_MAX_RISE_FALL, 0, FIELD(rise) },
    [P_FALL] = { "fall", "integer", "1",
        "failed probes in a row that make one failure (1-100)",
        COUNT, 1, FM_DECIDE_MAX_RISE_FALL, 0, FIELD(fall) },
    [P_MANUAL_RESUME] = { "manual_resume", "boolean", "false",
        "once down, stay held until 'faultmon resume'",
        FLAG, 0, 1, 0, FIELD(manual_resume) },
    [P_REPORT_DEGRADED] = { "report_degraded", "boolean", "true",
        "answer degraded (OCF 190) in every state but up; false: answer 0",
        FLAG, 0, 1, 0, FIELD(report_degraded) },
    [P_ADAPTIVE] = { "adaptive", "boolean", "on if a limit is set",
        "judge each latency against the running mean (F5 adaptive)",
        AUTO_FLAG, 0, 1, 0, FIELD(adaptive) },
    [P_ADAPTIVE_LIMIT_MS] = { "adaptive_limit_ms", "string", "0 (off)",
        "a latency more than this above the mean is a miss",
        DURATION, 1, MAX_INTERVAL_MS, ZERO_OK | BARE_MS, FIELD(adaptive_limit_ms) },
    [P_ADAPTIVE_LIMIT_PCT] = { "adaptive_limit_pct", "integer", "0 (off)",
        "a latency more than this percentage above the mean is a miss",
        COUNT, 0, MAX_ADAPTIVE_PCT, 0, FIELD(adaptive_limit_pct) },
    [P_ADAPTIVE_WINDOW] = { "adaptive_window", "string", "300s",
        "how much latency history makes the running mean",
        DURATION, MIN_ADAPTIVE_WINDOW_MS, MAX_INTERVAL_MS, 0, FIELD(adaptive_window_ms) },
    [P_ADAPTIVE_MISSES] = { "adaptive_misses", "integer", "3",
        "latency misses in a row that make one complete failure (1-64)",
        COUNT, 1, FM_DECIDE_MAX_ADAPTIVE_MISSES, 0, FIELD(adaptive_misses) },
    [P_CERT_WARN_DAYS] = { "cert_warn_days", "integer", "0 (off)",
        "degraded when the peer certificate expires within this many days",
        COUNT, 0, MAX_CERT_WARN_DAYS, 0, FIELD(cert_warn_days) },
    [P_QUORUM] = { "quorum", "integer", "1",
        "failed targets in one cycle that make a failure; fewer: degraded (1-256)",
        COUNT, 1, MAX_QUORUM, 0, FIELD(quorum) },
    [P_STARTUP_GRACE] = { "startup_grace", "string", "0 (off)",
        "after a start or restart, failures shown, not weighed, until a success",
        DURATION, 1, MAX_STARTUP_GRACE_MS, ZERO_OK, FIELD(startup_grace_ms) },
    [P_OVERLOAD_GRACE] = { "overload_grace", "string", "300s",
        "longest a failure while the status page says all workers busy is not weighed; 0 off",
        DURATION, 1, MAX_OVERLOAD_GRACE_MS, ZERO_OK, FIELD(overload_grace_ms) },
    [P_OBSERVER_PRESSURE] = { "observer_pressure", "integer", "0 (off)",
        "this node's PSI (some avg10, %) at which recovery is held (0-100)",
        COUNT, 0, 100, 0, FIELD(observer_pressure_pct) },
    [P_OBSERVER_LATE] = { "observer_late", "string", "0 (off)",
        "a cycle starting this late marks this node impaired: recovery held",
        DURATION, 1, MAX_INTERVAL_MS, ZERO_OK, FIELD(observer_late_ms) },
    [P_OBSERVER_HOLD] = { "observer_hold", "string", "60s",
        "longest an impaired node holds a recovery back; then the rules apply",
        DURATION, MIN_OBSERVER_HOLD_MS, MAX_OBSERVER_HOLD_MS, 0, FIELD(observer_hold_ms) },
    [P_OBSERVER_LOOPBACK] = { "observer_loopback", "boolean", "false",
        "a failed connect to the loop's own listener on 127.0.0.1 marks this node impaired",
        FLAG, 0, 1, 0, FIELD(observer_loopback) },
    [P_OBSERVER_COROSYNC] = { "observer_corosync", "boolean", "false",
        "this node's corosync links down to every peer mark this node impaired",
        FLAG, 0, 1, 0, FIELD(observer_corosync) },
    [P_NODE_BUDGET] = { "node_budget", "integer", "0 (off)",
        "resources of this node recovering within the window that mark the node (2-64)",
        COUNT, 2, 64, ZERO_OK, FIELD(node_budget) },
    [P_NODE_BUDGET_WINDOW] = { "node_budget_window", "string", "60s",
        "the window of node_budget",
        DURATION, MIN_NODE_BUDGET_WINDOW_MS, MAX_INTERVAL_MS, 0, FIELD(node_budget_window_ms) },
};

const struct fm_decide_param *
fm_decide_params(size_t *n)
{
    *n = P__COUNT;
    return param_table;
}

const char *
fm_decide_fmt_duration(char *buf, size_t len, uint64_t ms)
{
    if (ms % 1000 == 0) {
        snprintf(buf, len, "%" PRIu64 " s", ms / 1000);
    } else {
        snprintf(buf, len, "%" PRIu64 " ms", ms);
    }
    return buf;
}

void
fm_decide_opts_init(struct fm_decide_opts *o)
{
    /* Every setting not named here is 0 or false (off, or "the default"). */
    memset(o, 0, sizeof(*o));
    o->retry_count = DEF_RETRY_COUNT;
    o->retry_interval_ms = DEF_RETRY_INTERVAL_MS;
    o->interval_up_ms = DEF_INTERVAL_UP_MS;
    o->probe_timeout_ms = FM_DECIDE_DEFAULT_PROBE_TIMEOUT_MS;
    o->rise = 1;
    o->fall = 1;
    o->report_degraded = true;
    o->adaptive = -1;
    o->adaptive_window_ms = DEF_ADAPTIVE_WINDOW_MS;
    o->adaptive_misses = DEF_ADAPTIVE_MISSES;
    o->quorum = 1;
    o->overload_grace_ms = DEF_OVERLOAD_GRACE_MS;
    o->observer_hold_ms = DEF_OBSERVER_HOLD_MS;
    o->node_budget_window_ms = DEF_NODE_BUDGET_WINDOW_MS;
}

bool
fm_decide_opts_adaptive(const struct fm_decide_opts *o)
{
    if (o->adaptive >= 0) {
        return o->adaptive == 1;
    }
    return (o->adaptive_limit_ms > 0) || (o->adaptive_limit_pct > 0);
}

/* ---- from text ---- */

/* Names compare case-insensitively, with '-' for '_'. */
static bool
name_matches(const char *given, const char *canonical)
{
    for (; *given != '\0' && *canonical != '\0'; given++, canonical++) {
        char g = (*given == '-')? '_' : (char) tolower((unsigned char) *given);
        char c = (char) tolower((unsigned char) *canonical);

        if (g != c) {
            return false;
        }
    }
    return (*given == '\0') && (*canonical == '\0');
}

static bool
all_digits(const char *text)
{
    if (*text == '\0') {
        return false;
    }
    for (; *text != '\0'; text++) {
        if (!isdigit((unsigned char) *text)) {
            return false;
        }
    }
    return true;
}

/* Where parameter \p p keeps its value in \p o (of the type its kind says). */
static void *
field_of(struct fm_decide_opts *o, const struct fm_decide_param *p)
{
    return (char *) o + p->offset;
}

static const void *
const_field_of(const struct fm_decide_opts *o, const struct fm_decide_param *p)
{
    return (const char *) o + p->offset;
}

static bool
in_param_range(const struct fm_decide_param *p, uint64_t v, uint64_t min)
{
    bool zero_ok = (p->flags & FM_DECIDE_PARAM_ZERO_OK) != 0;

    return (zero_ok && (v == 0)) || ((v >= min) && (v <= p->max));
}

/* A duration within the range of \p p, into its uint64_t field. */
static int
set_duration(struct fm_decide_opts *o, const struct fm_decide_param *p,
             const char *name, const char *value, char *err, size_t err_len)
{
    bool bare_is_ms = (p->flags & FM_DECIDE_PARAM_BARE_MS) != 0;
    bool zero_ok = (p->flags & FM_DECIDE_PARAM_ZERO_OK) != 0;
    uint64_t ms = 0;
    int rc = 0;
    char lo[32];
    char hi[32];

    if (bare_is_ms && all_digits(value)) {
        rc = fm_parse_u64(value, 0, p->max, FM_PARSE_DEFAULT, &ms);
    } else {
        rc = fm_parse_duration_ms(value, &ms);
    }
    if ((rc == 0) && !in_param_range(p, ms, p->min)) {
        rc = ERANGE;
    }
    if (rc != 0) {
        return fm_errf(err, err_len, EINVAL,
                       "invalid value '%s' for %s: expected a duration such as %s, %s, 5m "
                       "or 500ms, from %s%s to %s",
                       value, name, bare_is_ms? "200" : "300", bare_is_ms? "1s" : "300s",
                       zero_ok? "0 or " : "", fm_decide_fmt_duration(lo, sizeof(lo), p->min),
                       fm_decide_fmt_duration(hi, sizeof(hi), p->max));
    }
    *(uint64_t *) field_of(o, p) = ms;
    return 0;
}

/* A whole number within the range of \p p, into its uint32_t field. */
static int
set_count(struct fm_decide_opts *o, const struct fm_decide_param *p,
          const char *name, const char *value, char *err, size_t err_len)
{
    bool zero_ok = (p->flags & FM_DECIDE_PARAM_ZERO_OK) != 0;
    uint64_t v = 0;

    if (fm_parse_u64(value, 0, p->max, FM_PARSE_DEFAULT, &v) != 0 || !in_param_range(p, v, p->min)) {
        return fm_errf(err, err_len, EINVAL,
                       "invalid value '%s' for %s: expected a whole number from %s%" PRIu64
                       " to %" PRIu64, value, name, zero_ok? "0 or " : "", p->min, p->max);
    }
    *(uint32_t *) field_of(o, p) = (uint32_t) v;
    return 0;
}

/* A boolean, into a bool field or (adaptive) an int that is -1 until set. */
static int
set_flag(struct fm_decide_opts *o, const struct fm_decide_param *p,
         const char *name, const char *value, char *err, size_t err_len)
{
    bool flag = false;

    if (fm_parse_bool(value, &flag) != 0) {
        return fm_errf(err, err_len, EINVAL,
                       "invalid value '%s' for %s: expected true or false (yes/no, on/off, 1/0)",
                       value, name);
    }
    if (p->kind == FM_DECIDE_PARAM_AUTO_FLAG) {
        *(int *) field_of(o, p) = flag? 1 : 0;
    } else {
        *(bool *) field_of(o, p) = flag;
    }
    return 0;
}

/* Messages name the parameter and value as given (fm_errf() keeps a control
 * character in them, from the command line or the CIB, from breaking the
 * line). */
int
fm_decide_opts_set(struct fm_decide_opts *o, const char *name,
                   const char *value, char *err, size_t err_len)
{
    const struct fm_decide_param *p = NULL;

    if ((name == NULL) || (value == NULL)) {
        return fm_errf(err, err_len, EINVAL, "missing parameter name or value");
    }
    for (int i = 0; (i < P__COUNT) && (p == NULL); i++) {
        if (name_matches(name, param_table[i].name)) {
            p = &param_table[i];
        }
    }
    if (p == NULL) {
        return fm_errf(err, err_len, ENOENT, "unknown parameter '%s'", name);
    }
    switch (p->kind) {
        case FM_DECIDE_PARAM_COUNT:
            return set_count(o, p, name, value, err, err_len);
        case FM_DECIDE_PARAM_DURATION:
            return set_duration(o, p, name, value, err, err_len);
        case FM_DECIDE_PARAM_FLAG:
        case FM_DECIDE_PARAM_AUTO_FLAG:
            break;
    }
    return set_flag(o, p, name, value, err, err_len);
}

/* ---- checks ---- */

/* The same bounds as fm_decide_opts_set(), for options built in code: each
 * count and duration of the table within its range. */
static int
check_ranges(const struct fm_decide_opts *o, char *err, size_t err_len)
{
    for (int i = 0; i < P__COUNT; i++) {
        const struct fm_decide_param *p = &param_table[i];
        bool seconds = (p->flags & FM_DECIDE_PARAM_BARE_MS) == 0;
        uint64_t min = p->min;
        uint64_t v = 0;

        if (p->kind == FM_DECIDE_PARAM_COUNT) {
            v = *(const uint32_t *) const_field_of(o, p);
        } else if (p->kind == FM_DECIDE_PARAM_DURATION) {
            v = *(const uint64_t *) const_field_of(o, p);
        } else {
            continue;
        }
        if ((p->flags & FM_DECIDE_PARAM_CODE_MIN_1) != 0) {
            min = 1;
        }
        if (!in_param_range(p, v, min)) {
            return fm_errf(err, err_len, EINVAL,
                           "%s%s %" PRIu64 " is outside %s%" PRIu64 "..%" PRIu64, p->name, (p->kind == FM_DECIDE_PARAM_DURATION && seconds)? " (ms)" : "",
                           v, ((p->flags & FM_DECIDE_PARAM_ZERO_OK) != 0)? "0 or " : "", min,
                           p->max);
        }
    }
    if ((o->adaptive < -1) || (o->adaptive > 1)) {
        return fm_errf(err, err_len, EINVAL, "adaptive %d is not -1 (auto), 0 or 1", o->adaptive);
    }
    return 0;
}

/* Settings that work but probably not as meant; the first that applies. */
static void
warn_settings(const struct fm_decide_opts *o, char *warn, size_t warn_len)
{
    uint64_t sun_min_ms = 2 * (uint64_t) o->retry_count * (o->interval_up_ms + o->probe_timeout_ms);
    char a[32];
    char b[32];

    /* Sun Cluster's planning guide: Retry_interval should be at least
     * 2 x Retry_count x (Thorough_probe_interval + Probe_timeout), the 2
     * allowing for partial failures, or failures never add up to a failover. */
    if ((o->retry_count > 0) && !o->publish_only && (o->retry_interval_ms < sun_min_ms)) {
        snprintf(warn, warn_len,
                 "Retry_interval %s is shorter than 2 x Retry_count x "
                 "(Thorough_probe_interval + Probe_timeout) = %s: repeated "
                 "failures may never lead to a failover",
                 fm_decide_fmt_duration(a, sizeof(a), o->retry_interval_ms),
                 fm_decide_fmt_duration(b, sizeof(b), sun_min_ms));
    } else if (o->interval_up_ms > o->retry_interval_ms) {
        snprintf(warn, warn_len,
                 "Thorough_probe_interval %s is longer than Retry_interval %s: "
                 "two partial failures can never add up",
                 fm_decide_fmt_duration(a, sizeof(a), o->interval_up_ms),
                 fm_decide_fmt_duration(b, sizeof(b), o->retry_interval_ms));
    } else if (fm_decide_opts_adaptive(o)
               && (o->adaptive_window_ms
                   < FM_DECIDE_ADAPTIVE_MIN_SAMPLES * o->interval_up_ms)) {
        snprintf(warn, warn_len,
                 "adaptive_window %s holds fewer than %d probes at "
                 "Thorough_probe_interval %s: latencies are never judged",
                 fm_decide_fmt_duration(a, sizeof(a), o->adaptive_window_ms),
                 FM_DECIDE_ADAPTIVE_MIN_SAMPLES,
                 fm_decide_fmt_duration(b, sizeof(b), o->interval_up_ms));
    }
}

int
fm_decide_opts_validate(const struct fm_decide_opts *o, char *err,
                        size_t err_len, char *warn, size_t warn_len)
{
    if ((warn != NULL) && (warn_len > 0)) {
        warn[0] = '\0';
    }
    if (check_ranges(o, err, err_len) != 0) {
        return EINVAL;
    }
    if ((o->adaptive == 1) && (o->adaptive_limit_ms == 0)
        && (o->adaptive_limit_pct == 0)) {
        return fm_errf(err, err_len, EINVAL,
                       "adaptive is on but neither adaptive_limit_ms nor "
                       "adaptive_limit_pct is set: nothing could be a miss");
    }
    if (warn != NULL) {
        warn_settings(o, warn, warn_len);
    }
    return 0;
}

/* ---- to text ---- */

size_t
fm_decide_opts_format(const struct fm_decide_opts *o, char *buf, size_t len)
{
    size_t used = 0;

    if (len > 0) {
        buf[0] = '\0';
    }
    for (int i = 0; i < P__COUNT; i++) {
        const struct fm_decide_param *p = &param_table[i];
        const void *field = const_field_of(o, p);
        char value[32];
        int n = 0;

        switch (p->kind) {
            case FM_DECIDE_PARAM_COUNT:
                snprintf(value, sizeof(value), "%" PRIu32, *(const uint32_t *) field);
                break;
            case FM_DECIDE_PARAM_DURATION:
                snprintf(value, sizeof(value), "%" PRIu64 "ms", *(const uint64_t *) field);
                break;
            case FM_DECIDE_PARAM_FLAG:
                snprintf(value, sizeof(value), "%s", *(const bool *) field? "true" : "false");
                break;
            case FM_DECIDE_PARAM_AUTO_FLAG:
                if (*(const int *) field < 0) {
                    continue;       /* unset: decided by the limits */
                }
                snprintf(value, sizeof(value), "%s", (*(const int *) field == 1)? "true" : "false");
                break;
        }
        n = snprintf(buf + used, (used < len)? len - used : 0, "%s=%s\n", p->name, value);
        used += (n > 0)? (size_t) n : 0;
    }
    return used;
}
