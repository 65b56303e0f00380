/*
 * faultmon: the decision engine (see include/faultmon/decide.h for the rules).
 *
 * Every cycle goes through one function, decide_step(), which records the
 * failure, applies the window and Retry_count, moves the state and writes the
 * reason, so that the rules live in one place whatever fed the engine.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <faultmon/decide.h>
#include <faultmon/target.h>        /* fm_parse_duration_ms, FM_DEFAULT_TIMEOUT_MS */

#define US_PER_MS UINT64_C(1000)
#define US_PER_S UINT64_C(1000000)
#define S_PER_DAY INT64_C(86400)

/* Defaults: Sun Cluster's resource type defaults (Thorough_probe_interval 60,
 * Retry_count 2, Retry_interval 300) and F5's adaptive settings. */
#define DEF_RETRY_COUNT 2
#define DEF_RETRY_INTERVAL_MS (UINT64_C(300) * 1000)
#define DEF_INTERVAL_UP_MS (UINT64_C(60) * 1000)
#define DEF_ADAPTIVE_WINDOW_MS (UINT64_C(300) * 1000)
#define DEF_ADAPTIVE_MISSES 3

#define MIN_INTERVAL_MS UINT64_C(100)
#define MAX_INTERVAL_MS (UINT64_C(3600) * 1000)
#define MIN_RETRY_INTERVAL_MS UINT64_C(1000)
#define MAX_RETRY_INTERVAL_MS (UINT64_C(7) * 24 * 3600 * 1000)
#define MIN_ADAPTIVE_WINDOW_MS (UINT64_C(10) * 1000)
#define MAX_RISE_FALL 100
#define MAX_ADAPTIVE_MISSES 64
#define MAX_ADAPTIVE_PCT 10000
#define MAX_CERT_WARN_DAYS 3650

/* A ring of records, oldest at head. */
struct ring {
    uint32_t head;
    uint32_t n;
    uint32_t cap;
};

struct fm_decide {
    struct fm_decide_opts opts;
    uint64_t retry_interval_us;
    uint64_t adaptive_window_us;

    bool have_time;
    uint64_t clock_us;              /* engine time: only ever moves forward */
    uint64_t last_now_us;           /* the caller's previous now */

    bool down;
    bool held;
    uint32_t fail_streak;
    enum fm_class fail_worst;
    uint32_t ok_streak;
    uint32_t miss_streak;
    enum fm_action last_action;
    uint64_t last_action_us;

    bool have_cert;
    int64_t cert_left_s;

    struct ring failures;
    uint64_t failure_us[FM_DECIDE_MAX_FAILURES];
    uint8_t failure_weight[FM_DECIDE_MAX_FAILURES];

    struct ring restarts;
    uint64_t restart_us[FM_DECIDE_MAX_RESTARTS];

    struct ring samples;
    uint64_t sample_us[FM_DECIDE_MAX_SAMPLES];
    uint32_t sample_latency_us[FM_DECIDE_MAX_SAMPLES];
    uint64_t sample_sum_us;
};

static void
set_msg(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
set_msg(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (buf == NULL || len == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* Append to a reason, separating parts with "; "; truncates silently. */
static void
add_reason(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
add_reason(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;

    if (used + 1 >= len) {
        return;
    }
    if (used > 0) {
        snprintf(buf + used, len - used, "; ");
        used = strlen(buf);
    }
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* "300 s" for whole seconds, else "1500 ms". */
static const char *
fmt_duration(char *buf, size_t len, uint64_t ms)
{
    if (ms % 1000 == 0) {
        snprintf(buf, len, "%" PRIu64 " s", ms / 1000);
    } else {
        snprintf(buf, len, "%" PRIu64 " ms", ms);
    }
    return buf;
}

/* Latency for reasons: "350 ms", or "0.4 ms" below one millisecond. */
static const char *
fmt_latency(char *buf, size_t len, uint64_t us)
{
    if (us >= 10 * US_PER_MS) {
        snprintf(buf, len, "%" PRIu64 " ms", (us + 500) / US_PER_MS);
    } else {
        snprintf(buf, len, "%" PRIu64 ".%" PRIu64 " ms", us / US_PER_MS,
                 (us % US_PER_MS) / 100);
    }
    return buf;
}

/* ---- rings ---- */

static uint32_t
ring_index(const struct ring *r, uint32_t i)
{
    return (r->head + i) % r->cap;
}

/* Make room at the tail, dropping the oldest record when full. */
static uint32_t
ring_push(struct ring *r)
{
    if (r->n == r->cap) {
        r->head = (r->head + 1) % r->cap;
        r->n--;
    }
    r->n++;
    return ring_index(r, r->n - 1);
}

static void
ring_pop(struct ring *r)
{
    r->head = (r->head + 1) % r->cap;
    r->n--;
}

static void
ring_clear(struct ring *r)
{
    r->head = 0;
    r->n = 0;
}

/* Inside the window: age <= window.  Records are never later than now. */
static bool
in_window(uint64_t now_us, uint64_t t_us, uint64_t window_us)
{
    return (now_us - t_us) <= window_us;
}

/* ---- names ---- */

const char *
fm_action_name(enum fm_action action)
{
    switch (action) {
        case FM_ACTION_NONE:     return "none";
        case FM_ACTION_RESTART:  return "restart";
        case FM_ACTION_FAILOVER: return "failover";
        case FM_ACTION_DEGRADED: return "degraded";
    }
    return "unknown";
}

const char *
fm_action_word(enum fm_action action, bool publish_only)
{
    if (publish_only && ((action == FM_ACTION_RESTART) || (action == FM_ACTION_FAILOVER))) {
        return "unhealthy";
    }
    return fm_action_name(action);
}

const char *
fm_state_name(enum fm_state state)
{
    switch (state) {
        case FM_STATE_UP:       return "up";
        case FM_STATE_DEGRADED: return "degraded";
        case FM_STATE_DOWN:     return "down";
        case FM_STATE_FLAPPING: return "flapping";
        case FM_STATE_HELD:     return "held";
    }
    return "unknown";
}

/* ---- the OCF mapping ---- */

/*
 * Why these codes (Pacemaker 2.1.5, lib/pengine/unpack.c, remap_operation()
 * and unpack_rsc_op_failure(); measured on a real cluster too):
 *
 * - restart: PCMK_OCF_UNKNOWN_ERROR (1).  The scheduler treats it as a soft
 *   error: stop and start on the same node, fail-count + 1.  Pacemaker's own
 *   docs call it "hard" in places; the code does not.  With
 *   migration-threshold set, enough soft errors move the resource anyway,
 *   which is Pacemaker's rule and not ours to override.
 * - failover: PCMK_OCF_INSUFFICIENT_PRIV (4).  2, 4 and 5 are all mapped to
 *   PCMK_EXEC_ERROR_HARD ("hard-error": -INFINITY for this node until a
 *   cleanup), so the resource moves to another node.  Not 2
 *   (OCF_ERR_ARGS): it says the parameters are wrong, which sends the
 *   administrator to the configuration.  Not 5 (OCF_ERR_INSTALLED): the
 *   scheduler gives it special meanings that break a failover: a probe
 *   (monitor with interval 0, as after a cleanup) that returns 5 is taken as
 *   "not running here", so a service still running would be left unstopped
 *   while it starts elsewhere; the hard failure is logged only at notice
 *   level; and in an asymmetric cluster it is not even recorded as a failed
 *   action.  4 has none of these special cases; its text ("insufficient
 *   privileges") is wrong, which is why the exit reason says what happened.
 *   Not 6 (OCF_ERR_CONFIGURED): fatal, stops the resource everywhere.
 * - degraded: PCMK_OCF_DEGRADED (190), OCF 1.1's "running but may fail
 *   soon": the scheduler and the controller treat it as 0 (no recovery, no
 *   fail-count) and crm_mon lists it, which is exactly "shown, not
 *   recovered".
 * - none: PCMK_OCF_OK (0).
 */
enum ocf_exitcode
fm_decide_ocf_rc(const struct fm_decision *dec)
{
    switch (dec->action) {
        case FM_ACTION_RESTART:  return PCMK_OCF_UNKNOWN_ERROR;
        case FM_ACTION_FAILOVER: return PCMK_OCF_INSUFFICIENT_PRIV;
        case FM_ACTION_DEGRADED: return PCMK_OCF_DEGRADED;
        case FM_ACTION_NONE:     return PCMK_OCF_OK;
    }
    return PCMK_OCF_OK;
}

/* ---- parameters ---- */

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
    P__COUNT
};

static const struct fm_decide_param param_table[P__COUNT] = {
    [P_RETRY_COUNT] = { "Retry_count", "integer", "2",
        "restarts allowed within Retry_interval, then failover (0-64)" },
    [P_RETRY_INTERVAL] = { "Retry_interval", "string", "300s",
        "window in which failures add up and restarts are counted" },
    [P_THOROUGH_PROBE_INTERVAL] = { "Thorough_probe_interval", "string", "60s",
        "time between probes while up or degraded" },
    [P_PROBE_TIMEOUT] = { "Probe_timeout", "string", "5s",
        "deadline of one probe cycle (here: checked against Retry_interval)" },
    [P_DOWN_INTERVAL] = { "down_interval", "string", "0 (Thorough_probe_interval)",
        "time between probes while down or held" },
    [P_FLAPPING_INTERVAL] = { "flapping_interval", "string", "0 (Thorough_probe_interval)",
        "time between probes while flapping between up and down" },
    [P_RISE] = { "rise", "integer", "1",
        "successes in a row before a recovered service is up (1-100)" },
    [P_FALL] = { "fall", "integer", "1",
        "failed probes in a row that make one failure (1-100)" },
    [P_MANUAL_RESUME] = { "manual_resume", "boolean", "false",
        "once down, stay held until 'faultmon resume'" },
    [P_REPORT_DEGRADED] = { "report_degraded", "boolean", "true",
        "answer degraded (OCF 190) in every state but up; false: answer 0" },
    [P_ADAPTIVE] = { "adaptive", "boolean", "on if a limit is set",
        "judge each latency against the running mean (F5 adaptive)" },
    [P_ADAPTIVE_LIMIT_MS] = { "adaptive_limit_ms", "string", "0 (off)",
        "a latency more than this above the mean is a miss" },
    [P_ADAPTIVE_LIMIT_PCT] = { "adaptive_limit_pct", "integer", "0 (off)",
        "a latency more than this percentage above the mean is a miss" },
    [P_ADAPTIVE_WINDOW] = { "adaptive_window", "string", "300s",
        "how much latency history makes the running mean" },
    [P_ADAPTIVE_MISSES] = { "adaptive_misses", "integer", "3",
        "latency misses in a row that make one complete failure (1-64)" },
    [P_CERT_WARN_DAYS] = { "cert_warn_days", "integer", "0 (off)",
        "degraded when the peer certificate expires within this many days" },
};

const struct fm_decide_param *
fm_decide_params(size_t *n)
{
    *n = P__COUNT;
    return param_table;
}

void
fm_decide_opts_init(struct fm_decide_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->retry_count = DEF_RETRY_COUNT;
    o->retry_interval_ms = DEF_RETRY_INTERVAL_MS;
    o->interval_up_ms = DEF_INTERVAL_UP_MS;
    o->interval_down_ms = 0;
    o->interval_flapping_ms = 0;
    o->probe_timeout_ms = FM_DEFAULT_TIMEOUT_MS;
    o->rise = 1;
    o->fall = 1;
    o->manual_resume = false;
    o->report_degraded = true;
    o->adaptive = -1;
    o->adaptive_limit_ms = 0;
    o->adaptive_limit_pct = 0;
    o->adaptive_window_ms = DEF_ADAPTIVE_WINDOW_MS;
    o->adaptive_misses = DEF_ADAPTIVE_MISSES;
    o->cert_warn_days = 0;
}

bool
fm_decide_opts_adaptive(const struct fm_decide_opts *o)
{
    if (o->adaptive >= 0) {
        return o->adaptive == 1;
    }
    return (o->adaptive_limit_ms > 0) || (o->adaptive_limit_pct > 0);
}

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

static int
parse_uint(const char *text, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (!isdigit((unsigned char) *text)) {
        return EINVAL;
    }
    for (const char *p = text; *p != '\0'; p++) {
        if (!isdigit((unsigned char) *p)) {
            return EINVAL;
        }
        v = v * 10 + (uint64_t) (*p - '0');
        if (v > max) {
            return ERANGE;
        }
    }
    *out = v;
    return 0;
}

static int
parse_bool(const char *text, bool *out)
{
    static const char *const yes[] = { "true", "yes", "on", "1", "y" };
    static const char *const no[] = { "false", "no", "off", "0", "n" };

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(text, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(text, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return EINVAL;
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

/* A duration within [min_ms, max_ms]; 0 is also allowed when zero_ok. */
static int
parse_duration(const char *name, const char *value, bool bare_is_ms,
               uint64_t min_ms, uint64_t max_ms, bool zero_ok,
               uint64_t *out_ms, char *err, size_t err_len)
{
    uint64_t ms = 0;
    int rc = 0;
    char lo[32];
    char hi[32];

    if (bare_is_ms && all_digits(value)) {
        rc = parse_uint(value, max_ms, &ms);
    } else {
        rc = fm_parse_duration_ms(value, &ms);
    }
    if ((rc == 0) && ((ms > max_ms) || ((ms < min_ms) && !(zero_ok && (ms == 0))))) {
        rc = ERANGE;
    }
    if (rc != 0) {
        set_msg(err, err_len,
                "invalid value '%s' for %s: expected a duration such as %s, %s, 5m "
                "or 500ms, from %s%s to %s",
                value, name, bare_is_ms? "200" : "300", bare_is_ms? "1s" : "300s",
                zero_ok? "0 or " : "", fmt_duration(lo, sizeof(lo), min_ms),
                fmt_duration(hi, sizeof(hi), max_ms));
        return EINVAL;
    }
    *out_ms = ms;
    return 0;
}

static int
parse_count(const char *name, const char *value, uint64_t min, uint64_t max,
            uint32_t *out, char *err, size_t err_len)
{
    uint64_t v = 0;

    if ((parse_uint(value, max, &v) != 0) || (v < min)) {
        set_msg(err, err_len,
                "invalid value '%s' for %s: expected a whole number from %" PRIu64
                " to %" PRIu64, value, name, min, max);
        return EINVAL;
    }
    *out = (uint32_t) v;
    return 0;
}

static int
parse_flag(const char *name, const char *value, bool *out, char *err,
           size_t err_len)
{
    if (parse_bool(value, out) != 0) {
        set_msg(err, err_len,
                "invalid value '%s' for %s: expected true or false (yes/no, on/off, 1/0)",
                value, name);
        return EINVAL;
    }
    return 0;
}

static int
opts_set(struct fm_decide_opts *o, const char *name, const char *value,
         char *err, size_t err_len);

int
fm_decide_opts_set(struct fm_decide_opts *o, const char *name,
                   const char *value, char *err, size_t err_len)
{
    int rc = opts_set(o, name, value, err, err_len);

    /* Names and values come from the command line or the CIB: keep a
     * control character in them from breaking the one-line message. */
    if ((rc != 0) && (err != NULL) && (err_len > 0)) {
        fm_escape_controls(err, err_len);
    }
    return rc;
}

static int
opts_set(struct fm_decide_opts *o, const char *name, const char *value,
         char *err, size_t err_len)
{
    enum param_id id = P__COUNT;
    bool flag = false;
    int rc = 0;

    if ((name == NULL) || (value == NULL)) {
        set_msg(err, err_len, "missing parameter name or value");
        return EINVAL;
    }
    for (int i = 0; i < P__COUNT; i++) {
        if (name_matches(name, param_table[i].name)) {
            id = (enum param_id) i;
            break;
        }
    }

    switch (id) {
        case P_RETRY_COUNT:
            return parse_count(name, value, 0, FM_DECIDE_MAX_RESTARTS,
                               &o->retry_count, err, err_len);
        case P_RETRY_INTERVAL:
            return parse_duration(name, value, false, MIN_RETRY_INTERVAL_MS,
                                  MAX_RETRY_INTERVAL_MS, false,
                                  &o->retry_interval_ms, err, err_len);
        case P_THOROUGH_PROBE_INTERVAL:
            return parse_duration(name, value, false, MIN_INTERVAL_MS,
                                  MAX_INTERVAL_MS, false, &o->interval_up_ms,
                                  err, err_len);
        case P_PROBE_TIMEOUT:
            return parse_duration(name, value, false, MIN_INTERVAL_MS,
                                  MAX_INTERVAL_MS, false, &o->probe_timeout_ms,
                                  err, err_len);
        case P_DOWN_INTERVAL:
            return parse_duration(name, value, false, MIN_INTERVAL_MS,
                                  MAX_INTERVAL_MS, true, &o->interval_down_ms,
                                  err, err_len);
        case P_FLAPPING_INTERVAL:
            return parse_duration(name, value, false, MIN_INTERVAL_MS,
                                  MAX_INTERVAL_MS, true,
                                  &o->interval_flapping_ms, err, err_len);
        case P_RISE:
            return parse_count(name, value, 1, MAX_RISE_FALL, &o->rise, err,
                               err_len);
        case P_FALL:
            return parse_count(name, value, 1, MAX_RISE_FALL, &o->fall, err,
                               err_len);
        case P_MANUAL_RESUME:
            return parse_flag(name, value, &o->manual_resume, err, err_len);
        case P_REPORT_DEGRADED:
            return parse_flag(name, value, &o->report_degraded, err, err_len);
        case P_ADAPTIVE:
            rc = parse_flag(name, value, &flag, err, err_len);
            if (rc == 0) {
                o->adaptive = flag? 1 : 0;
            }
            return rc;
        case P_ADAPTIVE_LIMIT_MS:
            return parse_duration(name, value, true, 1, MAX_INTERVAL_MS, true,
                                  &o->adaptive_limit_ms, err, err_len);
        case P_ADAPTIVE_LIMIT_PCT:
            return parse_count(name, value, 0, MAX_ADAPTIVE_PCT,
                               &o->adaptive_limit_pct, err, err_len);
        case P_ADAPTIVE_WINDOW:
            return parse_duration(name, value, false, MIN_ADAPTIVE_WINDOW_MS,
                                  MAX_INTERVAL_MS, false,
                                  &o->adaptive_window_ms, err, err_len);
        case P_ADAPTIVE_MISSES:
            return parse_count(name, value, 1, MAX_ADAPTIVE_MISSES,
                               &o->adaptive_misses, err, err_len);
        case P_CERT_WARN_DAYS:
            return parse_count(name, value, 0, MAX_CERT_WARN_DAYS,
                               &o->cert_warn_days, err, err_len);
        case P__COUNT:
            break;
    }
    set_msg(err, err_len, "unknown parameter '%s'", name);
    return ENOENT;
}

/* For fm_decide_opts_validate(): \p v within [min, max], or 0 if zero_ok. */
static bool
in_range(char *err, size_t err_len, const char *name, uint64_t v, uint64_t min,
         uint64_t max, bool zero_ok)
{
    if ((zero_ok && (v == 0)) || ((v >= min) && (v <= max))) {
        return true;
    }
    set_msg(err, err_len, "%s %" PRIu64 " is outside %s%" PRIu64 "..%" PRIu64, name, v,
            zero_ok? "0 or " : "", min, max);
    return false;
}

int
fm_decide_opts_validate(const struct fm_decide_opts *o, char *err,
                        size_t err_len, char *warn, size_t warn_len)
{
    char a[32];
    char b[32];

    if ((warn != NULL) && (warn_len > 0)) {
        warn[0] = '\0';
    }

    /* The same bounds as fm_decide_opts_set(), for options built in code. */
    if (!in_range(err, err_len, "Retry_count", o->retry_count, 0, FM_DECIDE_MAX_RESTARTS, false)
        || !in_range(err, err_len, "Retry_interval (ms)", o->retry_interval_ms,
                     MIN_RETRY_INTERVAL_MS, MAX_RETRY_INTERVAL_MS, false)
        || !in_range(err, err_len, "Thorough_probe_interval (ms)", o->interval_up_ms,
                     MIN_INTERVAL_MS, MAX_INTERVAL_MS, false)
        || !in_range(err, err_len, "down_interval (ms)", o->interval_down_ms,
                     MIN_INTERVAL_MS, MAX_INTERVAL_MS, true)
        || !in_range(err, err_len, "flapping_interval (ms)", o->interval_flapping_ms,
                     MIN_INTERVAL_MS, MAX_INTERVAL_MS, true)
        || !in_range(err, err_len, "Probe_timeout (ms)", o->probe_timeout_ms, 1,
                     MAX_INTERVAL_MS, false)
        || !in_range(err, err_len, "rise", o->rise, 1, MAX_RISE_FALL, false)
        || !in_range(err, err_len, "fall", o->fall, 1, MAX_RISE_FALL, false)
        || !in_range(err, err_len, "adaptive_limit_ms", o->adaptive_limit_ms, 1,
                     MAX_INTERVAL_MS, true)
        || !in_range(err, err_len, "adaptive_limit_pct", o->adaptive_limit_pct, 0,
                     MAX_ADAPTIVE_PCT, false)
        || !in_range(err, err_len, "adaptive_window (ms)", o->adaptive_window_ms,
                     MIN_ADAPTIVE_WINDOW_MS, MAX_INTERVAL_MS, false)
        || !in_range(err, err_len, "adaptive_misses", o->adaptive_misses, 1,
                     MAX_ADAPTIVE_MISSES, false)
        || !in_range(err, err_len, "cert_warn_days", o->cert_warn_days, 0,
                     MAX_CERT_WARN_DAYS, false)) {
        return EINVAL;
    }
    if ((o->adaptive < -1) || (o->adaptive > 1)) {
        set_msg(err, err_len, "adaptive %d is not -1 (auto), 0 or 1", o->adaptive);
        return EINVAL;
    }

    if ((o->adaptive == 1) && (o->adaptive_limit_ms == 0)
        && (o->adaptive_limit_pct == 0)) {
        set_msg(err, err_len,
                "adaptive is on but neither adaptive_limit_ms nor "
                "adaptive_limit_pct is set: nothing could be a miss");
        return EINVAL;
    }

    if (warn == NULL) {
        return 0;
    }

    /* Sun Cluster's planning guide: Retry_interval should be at least
     * 2 x Retry_count x (Thorough_probe_interval + Probe_timeout), the 2
     * allowing for partial failures, or failures never add up to a failover. */
    if ((o->retry_count > 0) && !o->publish_only
        && (o->retry_interval_ms
            < 2 * (uint64_t) o->retry_count * (o->interval_up_ms + o->probe_timeout_ms))) {
        set_msg(warn, warn_len,
                "Retry_interval %s is shorter than 2 x Retry_count x "
                "(Thorough_probe_interval + Probe_timeout) = %s: repeated "
                "failures may never lead to a failover",
                fmt_duration(a, sizeof(a), o->retry_interval_ms),
                fmt_duration(b, sizeof(b),
                             2 * (uint64_t) o->retry_count
                             * (o->interval_up_ms + o->probe_timeout_ms)));
    } else if (o->interval_up_ms > o->retry_interval_ms) {
        set_msg(warn, warn_len,
                "Thorough_probe_interval %s is longer than Retry_interval %s: "
                "two partial failures can never add up",
                fmt_duration(a, sizeof(a), o->interval_up_ms),
                fmt_duration(b, sizeof(b), o->retry_interval_ms));
    } else if (fm_decide_opts_adaptive(o)
               && (o->adaptive_window_ms
                   < FM_DECIDE_ADAPTIVE_MIN_SAMPLES * o->interval_up_ms)) {
        set_msg(warn, warn_len,
                "adaptive_window %s holds fewer than %d probes at "
                "Thorough_probe_interval %s: latencies are never judged",
                fmt_duration(a, sizeof(a), o->adaptive_window_ms),
                FM_DECIDE_ADAPTIVE_MIN_SAMPLES,
                fmt_duration(b, sizeof(b), o->interval_up_ms));
    }
    return 0;
}

/* ---- the engine ---- */

static void
engine_reset(struct fm_decide *d)
{
    struct fm_decide_opts opts = d->opts;

    memset(d, 0, sizeof(*d));
    d->opts = opts;
    d->retry_interval_us = opts.retry_interval_ms * US_PER_MS;
    d->adaptive_window_us = opts.adaptive_window_ms * US_PER_MS;
    d->fail_worst = FM_CLASS_OK;
    d->last_action = FM_ACTION_NONE;
    d->failures.cap = FM_DECIDE_MAX_FAILURES;
    d->restarts.cap = FM_DECIDE_MAX_RESTARTS;
    d->samples.cap = FM_DECIDE_MAX_SAMPLES;
}

int
fm_decide_new(const struct fm_decide_opts *o, struct fm_decide **out)
{
    struct fm_decide *d = NULL;

    *out = NULL;
    if (fm_decide_opts_validate(o, NULL, 0, NULL, 0) != 0) {
        return EINVAL;
    }
    d = calloc(1, sizeof(*d));
    if (d == NULL) {
        return ENOMEM;
    }
    d->opts = *o;
    engine_reset(d);
    *out = d;
    return 0;
}

void
fm_decide_free(struct fm_decide *d)
{
    free(d);
}

/* Move engine time on by what the caller's clock moved forward; see
 * fm_decide_cycle() for why a step back counts as no time at all. */
static bool
advance_clock(struct fm_decide *d, uint64_t now_us, uint64_t *back_us)
{
    bool stepped_back = false;

    if (!d->have_time) {
        d->have_time = true;
        d->clock_us = now_us;
    } else if (now_us >= d->last_now_us) {
        d->clock_us += now_us - d->last_now_us;
    } else {
        stepped_back = true;
        if (back_us != NULL) {
            *back_us = d->last_now_us - now_us;
        }
    }
    d->last_now_us = now_us;
    return stepped_back;
}

/* Engine time that a caller's \p now_us would give, without moving. */
static uint64_t
peek_clock(const struct fm_decide *d, uint64_t now_us)
{
    if (!d->have_time) {
        return now_us;
    }
    if (now_us >= d->last_now_us) {
        return d->clock_us + (now_us - d->last_now_us);
    }
    return d->clock_us;
}

static void
prune(struct fm_decide *d, uint64_t t)
{
    while ((d->failures.n > 0)
           && !in_window(t, d->failure_us[d->failures.head], d->retry_interval_us)) {
        ring_pop(&d->failures);
    }
    while ((d->restarts.n > 0)
           && !in_window(t, d->restart_us[d->restarts.head], d->retry_interval_us)) {
        ring_pop(&d->restarts);
    }
    while ((d->samples.n > 0)
           && !in_window(t, d->sample_us[d->samples.head], d->adaptive_window_us)) {
        d->sample_sum_us -= d->sample_latency_us[d->samples.head];
        ring_pop(&d->samples);
    }
}

static uint32_t
window_weight(const struct fm_decide *d)
{
    uint32_t sum = 0;

    for (uint32_t i = 0; i < d->failures.n; i++) {
        sum += d->failure_weight[ring_index(&d->failures, i)];
    }
    return sum;
}

static uint32_t
class_weight(enum fm_class cls)
{
    switch (cls) {
        case FM_CLASS_COMPLETE: return FM_DECIDE_WEIGHT_COMPLETE;
        case FM_CLASS_PARTIAL:  return FM_DECIDE_WEIGHT_PARTIAL;
        case FM_CLASS_OK:       return 0;
    }
    return 0;
}

static const char *
class_text(enum fm_class cls)
{
    switch (cls) {
        case FM_CLASS_COMPLETE: return "complete failure";
        case FM_CLASS_PARTIAL:  return "partial failure";
        case FM_CLASS_OK:       return "ok";
    }
    return "unknown";
}

static uint64_t
state_interval_ms(const struct fm_decide_opts *o, enum fm_state state)
{
    switch (state) {
        case FM_STATE_DOWN:
        case FM_STATE_HELD:
            return (o->interval_down_ms != 0)? o->interval_down_ms : o->interval_up_ms;
        case FM_STATE_FLAPPING:
            return (o->interval_flapping_ms != 0)? o->interval_flapping_ms
                                                 : o->interval_up_ms;
        case FM_STATE_UP:
        case FM_STATE_DEGRADED:
            break;
    }
    return o->interval_up_ms;
}

static bool
cert_warning(const struct fm_decide *d)
{
    return d->have_cert && (d->opts.cert_warn_days > 0)
           && (d->cert_left_s < (int64_t) d->opts.cert_warn_days * S_PER_DAY);
}

/*
 * Judge one latency against the mean of the samples before it, then add it.
 * \return true when this miss completes adaptive_misses in a row
 */
static bool
adaptive_step(struct fm_decide *d, uint64_t t, uint64_t latency_us,
              struct fm_decision *out, char *why, size_t why_len)
{
    const struct fm_decide_opts *o = &d->opts;
    bool failure = false;
    uint32_t idx = 0;
    uint32_t stored = (latency_us > UINT32_MAX)? UINT32_MAX : (uint32_t) latency_us;

    if (d->samples.n >= FM_DECIDE_ADAPTIVE_MIN_SAMPLES) {
        uint64_t mean = d->sample_sum_us / d->samples.n;
        uint64_t over = (latency_us > mean)? latency_us - mean : 0;
        bool miss_abs = (o->adaptive_limit_ms > 0)
                        && (over > o->adaptive_limit_ms * US_PER_MS);
        bool miss_rel = (o->adaptive_limit_pct > 0)
                        && (over * 100 > mean * o->adaptive_limit_pct);
        char l[32];
        char m[32];

        out->have_mean = true;
        out->mean_latency_us = mean;
        if (miss_abs || miss_rel) {
            d->miss_streak++;
            if (miss_abs) {
                set_msg(why, why_len, "latency %s exceeds mean %s by more than %" PRIu64 " ms",
                        fmt_latency(l, sizeof(l), latency_us), fmt_latency(m, sizeof(m), mean),
                        o->adaptive_limit_ms);
            } else {
                set_msg(why, why_len, "latency %s exceeds mean %s by more than %" PRIu32 " %%",
                        fmt_latency(l, sizeof(l), latency_us), fmt_latency(m, sizeof(m), mean),
                        o->adaptive_limit_pct);
            }
            if (d->miss_streak >= o->adaptive_misses) {
                failure = true;
            }
        } else {
            d->miss_streak = 0;
        }
    } else {
        /* Too little history to judge: neither a miss nor a hit, but a
         * streak from before the gap is no longer "in a row". */
        d->miss_streak = 0;
    }

    /* Misses enter the mean too: that is what makes the limit adaptive (a
     * lasting slowdown becomes the new normal) as in F5's running mean. */
    if (d->samples.n == d->samples.cap) {
        d->sample_sum_us -= d->sample_latency_us[d->samples.head];
    }
    idx = ring_push(&d->samples);
    d->sample_us[idx] = t;
    d->sample_latency_us[idx] = stored;
    d->sample_sum_us += stored;
    return failure;
}

/*
 * Ask for recovery: restart, or failover once Retry_count restarts are in
 * the window.  Resets the accumulation, as Sun does after acting.  The
 * reason leads with what Pacemaker must keep (it cuts exit reasons at 128
 * bytes); \p detail, if any, comes last.
 */
static void
recover(struct fm_decide *d, uint64_t t, const char *what, uint32_t weight,
        const char *detail, struct fm_decision *out)
{
    const struct fm_decide_opts *o = &d->opts;
    char ri[32];

    fmt_duration(ri, sizeof(ri), o->retry_interval_ms);
    if (o->publish_only) {
        /* httpmon: nothing is restarted, so nothing counts towards
         * Retry_count; the verdict goes down until rise successes. */
        out->action = o->manual_resume? FM_ACTION_FAILOVER : FM_ACTION_RESTART;
        set_msg(out->reason, sizeof(out->reason),
                "%s, weight %" PRIu32 " within Retry_interval %s: unhealthy%s", what, weight, ri,
                o->manual_resume? ", held until resumed (manual_resume)" : "");
    } else if (o->manual_resume) {
        /* A restart in place would bring the service back without the
         * administrator; held means it moves away and stays away from this
         * node until resumed. */
        out->action = FM_ACTION_FAILOVER;
        set_msg(out->reason, sizeof(out->reason),
                "%s, weight %" PRIu32 " within Retry_interval %s: failing over, "
                "held until resumed (manual_resume)", what, weight, ri);
    } else if (d->restarts.n >= o->retry_count) {
        uint32_t would_be = d->restarts.n + 1;

        out->action = FM_ACTION_FAILOVER;
        set_msg(out->reason, sizeof(out->reason),
                "%" PRIu32 " restart%s within Retry_interval %s exceed%s Retry_count %"
                PRIu32 ": failing over (%s)",
                would_be, (would_be == 1)? "" : "s", ri, (would_be == 1)? "s" : "",
                o->retry_count, what);
    } else {
        uint32_t idx = ring_push(&d->restarts);

        d->restart_us[idx] = t;
        out->action = FM_ACTION_RESTART;
        set_msg(out->reason, sizeof(out->reason),
                "%s, weight %" PRIu32 " within Retry_interval %s: restart %" PRIu32
                " of Retry_count %" PRIu32,
                what, weight, ri, d->restarts.n, o->retry_count);
    }
    if ((detail != NULL) && (detail[0] != '\0')) {
        add_reason(out->reason, sizeof(out->reason), "%s", detail);
    }
    ring_clear(&d->failures);
    d->fail_streak = 0;
    d->fail_worst = FM_CLASS_OK;
    d->ok_streak = 0;
    d->miss_streak = 0;
    d->down = true;
    if (o->manual_resume) {
        d->held = true;
    }
    d->last_action = out->action;
    d->last_action_us = t;
}

/* The state follows from the counters; one function so that cycle, status
 * and import agree. */
static enum fm_state
derive_state(const struct fm_decide *d, uint32_t weight)
{
    if (d->held) {
        return FM_STATE_HELD;
    }
    if (d->down) {
        return (d->ok_streak > 0)? FM_STATE_FLAPPING : FM_STATE_DOWN;
    }
    if (d->fail_streak > 0) {
        return FM_STATE_FLAPPING;
    }
    if ((weight > 0) || (d->miss_streak > 0) || cert_warning(d)) {
        return FM_STATE_DEGRADED;
    }
    return FM_STATE_UP;
}

/* Reason for a cycle that asked for no recovery: what holds the state. */
static void
describe_state(const struct fm_decide *d, enum fm_state state, uint32_t weight,
               struct fm_decision *out)
{
    const struct fm_decide_opts *o = &d->opts;
    char ri[32];

    fmt_duration(ri, sizeof(ri), o->retry_interval_ms);
    switch (state) {
        case FM_STATE_HELD:
            add_reason(out->reason, sizeof(out->reason),
                       "held after %s until resumed (manual_resume)",
                       o->publish_only? "a failure" :
                       (d->last_action == FM_ACTION_FAILOVER)? "a failover" : "a restart");
            break;
        case FM_STATE_DOWN:
            add_reason(out->reason, sizeof(out->reason),
                       "%s: up again after %" PRIu32 " success%s in a row (rise)",
                       o->publish_only? "unhealthy" :
                       (d->last_action == FM_ACTION_FAILOVER)? "down after a failover" :
                       "down after a restart",
                       o->rise, (o->rise == 1)? "" : "es");
            break;
        case FM_STATE_FLAPPING:
            if (d->down) {
                add_reason(out->reason, sizeof(out->reason),
                           "success %" PRIu32 " of rise %" PRIu32 " after recovery",
                           d->ok_streak, o->rise);
            } else {
                add_reason(out->reason, sizeof(out->reason),
                           "%s %" PRIu32 " of fall %" PRIu32 " in a row",
                           class_text(d->fail_worst), d->fail_streak, o->fall);
            }
            break;
        case FM_STATE_DEGRADED:
        case FM_STATE_UP:
            break;
    }
    if (weight > 0) {
        add_reason(out->reason, sizeof(out->reason),
                   "weight %" PRIu32 " of %d within Retry_interval %s", weight,
                   FM_DECIDE_THRESHOLD, ri);
    }
    if ((d->miss_streak > 0) && (state != FM_STATE_HELD)) {
        add_reason(out->reason, sizeof(out->reason),
                   "latency miss %" PRIu32 " of %" PRIu32 " in a row",
                   d->miss_streak, o->adaptive_misses);
    }
    if (cert_warning(d)) {
        if (d->cert_left_s < 0) {
            add_reason(out->reason, sizeof(out->reason),
                       "certificate expired %" PRId64 " days ago",
                       -d->cert_left_s / S_PER_DAY);
        } else {
            add_reason(out->reason, sizeof(out->reason),
                       "certificate expires in %" PRId64 " days (cert_warn_days %" PRIu32 ")",
                       d->cert_left_s / S_PER_DAY, o->cert_warn_days);
        }
    }
    if (out->reason[0] == '\0') {
        add_reason(out->reason, sizeof(out->reason), "ok");
    }
}

static void
finish(const struct fm_decide *d, uint32_t weight, struct fm_decision *out)
{
    out->state = derive_state(d, weight);
    out->interval_ms = state_interval_ms(&d->opts, out->state);
    out->fail_streak = d->fail_streak;
    out->ok_streak = d->ok_streak;
    out->miss_streak = d->miss_streak;
    out->restarts_in_window = d->restarts.n;
    if (out->action == FM_ACTION_NONE) {
        if ((out->state != FM_STATE_UP) && d->opts.report_degraded) {
            out->action = FM_ACTION_DEGRADED;
        }
        describe_state(d, out->state, weight, out);
    }
}

/*
 * The one place where an input changes the engine, once the clock has moved
 * to \p t.  \p in is NULL for a failed restart.
 */
static void
decide_event(struct fm_decide *d, uint64_t t, const struct fm_decide_input *in,
             struct fm_decision *out)
{
    const struct fm_decide_opts *o = &d->opts;
    uint32_t event_weight = 0;
    uint32_t weight = 0;
    const char *what = NULL;
    char why[160] = "";
    char misses[48];
    bool was_down = d->down;

    if (in == NULL) {
        out->weight = window_weight(d);
        out->action = FM_ACTION_FAILOVER;
        set_msg(out->reason, sizeof(out->reason),
                "the restart did not bring the service back: failing over");
        ring_clear(&d->failures);
        d->fail_streak = 0;
        d->fail_worst = FM_CLASS_OK;
        d->ok_streak = 0;
        d->miss_streak = 0;
        d->down = true;
        d->held = o->manual_resume;
        d->last_action = FM_ACTION_FAILOVER;
        d->last_action_us = t;
        finish(d, 0, out);
        return;
    }

    if (in->have_cert) {
        d->have_cert = true;
        d->cert_left_s = in->cert_left_s;
    }

    if (in->cls == FM_CLASS_OK) {
        if (d->ok_streak < UINT32_MAX) {
            d->ok_streak++;
        }
        d->fail_streak = 0;
        d->fail_worst = FM_CLASS_OK;
        if (fm_decide_opts_adaptive(o) && in->have_latency
            && adaptive_step(d, t, in->latency_us, out, why, sizeof(why))) {
            event_weight = FM_DECIDE_WEIGHT_COMPLETE;
            snprintf(misses, sizeof(misses), "%" PRIu32 " latency misses in a row",
                     o->adaptive_misses);
            what = misses;
            d->miss_streak = 0;
        }
    } else {
        d->ok_streak = 0;
        /* The failure is counted by the rule below; a latency streak
         * running through it would count the same trouble twice. */
        d->miss_streak = 0;
        d->fail_streak++;
        if (in->cls > d->fail_worst) {
            d->fail_worst = in->cls;
        }
        if (d->fail_streak >= o->fall) {
            event_weight = class_weight(d->fail_worst);
            what = class_text(d->fail_worst);
            d->fail_streak = 0;
            d->fail_worst = FM_CLASS_OK;
        } else {
            what = class_text(in->cls);
        }
    }

    if (event_weight > 0) {
        uint32_t idx = ring_push(&d->failures);

        d->failure_us[idx] = t;
        d->failure_weight[idx] = (uint8_t) event_weight;
    }
    weight = window_weight(d);
    out->weight = weight;

    if ((event_weight > 0) && (weight >= FM_DECIDE_THRESHOLD)) {
        recover(d, t, what, weight, why, out);
        finish(d, weight, out);
        return;
    }

    if (d->down && !d->held && (d->ok_streak >= o->rise)) {
        d->down = false;
    }
    if (event_weight > 0) {
        add_reason(out->reason, sizeof(out->reason), "%s", what);
    }
    if (why[0] != '\0') {
        add_reason(out->reason, sizeof(out->reason), "%s", why);
    }
    if (was_down && !d->down) {
        add_reason(out->reason, sizeof(out->reason),
                   "up again after %" PRIu32 " success%s in a row (rise %" PRIu32 ")",
                   d->ok_streak, (d->ok_streak == 1)? "" : "es", o->rise);
    }
    finish(d, weight, out);
}

/* Every input goes through here: the clock first, then the rules. */
static void
decide_step(struct fm_decide *d, uint64_t now_us, const struct fm_decide_input *in,
            struct fm_decision *out)
{
    uint64_t t = 0;
    uint64_t back_us = 0;

    memset(out, 0, sizeof(*out));
    out->action = FM_ACTION_NONE;
    out->clock_stepped_back = advance_clock(d, now_us, &back_us);
    t = d->clock_us;
    prune(d, t);
    decide_event(d, t, in, out);
    if (out->clock_stepped_back) {
        char b[32];

        add_reason(out->reason, sizeof(out->reason),
                   "the clock stepped back %s: counted as no time",
                   fmt_duration(b, sizeof(b), back_us / US_PER_MS));
    }
}

void
fm_decide_cycle(struct fm_decide *d, uint64_t now_us,
                const struct fm_decide_input *in, struct fm_decision *out)
{
    decide_step(d, now_us, in, out);
}

void
fm_decide_restart_failed(struct fm_decide *d, uint64_t now_us,
                         struct fm_decision *out)
{
    decide_step(d, now_us, NULL, out);
}

int
fm_decide_resume(struct fm_decide *d, uint64_t now_us, struct fm_decision *out)
{
    uint64_t t = 0;
    bool was_held = d->held;

    memset(out, 0, sizeof(*out));
    out->clock_stepped_back = advance_clock(d, now_us, NULL);
    t = d->clock_us;
    prune(d, t);
    if (was_held) {
        d->held = false;
        d->down = false;
        ring_clear(&d->failures);
        d->fail_streak = 0;
        d->fail_worst = FM_CLASS_OK;
        d->ok_streak = 0;
        d->miss_streak = 0;
        set_msg(out->reason, sizeof(out->reason), "resumed by the administrator");
    } else {
        set_msg(out->reason, sizeof(out->reason), "not held: nothing to resume");
    }
    out->weight = window_weight(d);
    finish(d, out->weight, out);
    return was_held? 0 : EALREADY;
}

void
fm_decide_status(const struct fm_decide *d, uint64_t now_us,
                 struct fm_decision *out)
{
    /* A copy keeps the caller's engine untouched while reusing the same
     * pruning and state rules; the engine holds no pointers. */
    struct fm_decide tmp = *d;

    memset(out, 0, sizeof(*out));
    if (tmp.have_time) {
        uint64_t t = peek_clock(&tmp, now_us);

        tmp.clock_us = t;
        tmp.last_now_us = now_us;
        prune(&tmp, t);
    }
    out->weight = window_weight(&tmp);
    if (tmp.samples.n > 0) {
        out->have_mean = true;
        out->mean_latency_us = tmp.sample_sum_us / tmp.samples.n;
    }
    finish(&tmp, out->weight, out);
}

void
fm_decide_preview(const struct fm_decide *d, uint64_t now_us, enum fm_class cls,
                  struct fm_decision *out)
{
    struct fm_decide tmp = *d;
    struct fm_decide_input in = { .cls = cls };

    decide_step(&tmp, now_us, &in, out);
}

/* ---- persistence ---- */

void
fm_decide_export(const struct fm_decide *d, struct fm_decide_state *s)
{
    memset(s, 0, sizeof(*s));
    s->version = FM_DECIDE_STATE_VERSION;
    s->have_time = d->have_time? 1 : 0;
    s->clock_us = (int64_t) d->clock_us;
    s->last_now_us = (int64_t) d->last_now_us;
    s->down = d->down? 1 : 0;
    s->held = d->held? 1 : 0;
    s->fail_streak = d->fail_streak;
    s->fail_worst = d->fail_worst;
    s->ok_streak = d->ok_streak;
    s->miss_streak = d->miss_streak;
    s->last_action = d->last_action;
    s->last_action_us = (int64_t) d->last_action_us;
    s->n_failures = d->failures.n;
    for (uint32_t i = 0; i < d->failures.n; i++) {
        uint32_t idx = ring_index(&d->failures, i);

        s->failure_us[i] = (int64_t) d->failure_us[idx];
        s->failure_weight[i] = d->failure_weight[idx];
    }
    s->n_restarts = d->restarts.n;
    for (uint32_t i = 0; i < d->restarts.n; i++) {
        s->restart_us[i] = (int64_t) d->restart_us[ring_index(&d->restarts, i)];
    }
}

static bool
is_bool(int64_t v)
{
    return (v == 0) || (v == 1);
}

/* Check one ordered list of times: each within [0, clock], oldest first. */
static int
check_times(const char *what, const int64_t *t, int64_t n, int64_t clock_us,
            char *err, size_t err_len)
{
    for (int64_t i = 0; i < n; i++) {
        if ((t[i] < 0) || (t[i] > clock_us)) {
            set_msg(err, err_len,
                    "%s[%" PRId64 "] %" PRId64 " is outside 0..clock %" PRId64,
                    what, i, t[i], clock_us);
            return EINVAL;
        }
        if ((i > 0) && (t[i] < t[i - 1])) {
            set_msg(err, err_len, "%s[%" PRId64 "] %" PRId64 " is older than the one before it",
                    what, i, t[i]);
            return EINVAL;
        }
    }
    return 0;
}

int
fm_decide_import(struct fm_decide *d, const struct fm_decide_state *s,
                 uint64_t now_us, char *err, size_t err_len)
{
    int64_t sum = 0;

    if (s->version != FM_DECIDE_STATE_VERSION) {
        set_msg(err, err_len, "version %" PRId64 " is not %d", s->version,
                FM_DECIDE_STATE_VERSION);
        return EINVAL;
    }
    if (!is_bool(s->have_time) || !is_bool(s->down) || !is_bool(s->held)) {
        set_msg(err, err_len, "have_time, down and held must be 0 or 1");
        return EINVAL;
    }
    if (s->held && !s->down) {
        set_msg(err, err_len, "held without down");
        return EINVAL;
    }
    if ((s->clock_us < 0) || (s->last_now_us < 0)) {
        set_msg(err, err_len, "negative clock_us or last_now_us");
        return EINVAL;
    }
    if ((uint64_t) s->last_now_us > now_us
        && ((uint64_t) s->last_now_us - now_us) > FM_DECIDE_IMPORT_SLACK_US) {
        set_msg(err, err_len,
                "last_now_us %" PRId64 " lies %" PRIu64 " s in the future "
                "(written under another boot, or corrupt)",
                s->last_now_us, ((uint64_t) s->last_now_us - now_us) / US_PER_S);
        return EINVAL;
    }
    if (!s->have_time && ((s->n_failures != 0) || (s->n_restarts != 0))) {
        set_msg(err, err_len, "history without a time");
        return EINVAL;
    }
    if ((s->fail_streak < 0) || (s->fail_streak > MAX_RISE_FALL)
        || (s->ok_streak < 0) || (s->ok_streak > UINT32_MAX)
        || (s->miss_streak < 0) || (s->miss_streak > MAX_ADAPTIVE_MISSES)) {
        set_msg(err, err_len, "a streak is negative or out of range");
        return EINVAL;
    }
    if ((s->fail_worst < FM_CLASS_OK) || (s->fail_worst > FM_CLASS_COMPLETE)
        || ((s->fail_streak == 0) != (s->fail_worst == FM_CLASS_OK))) {
        set_msg(err, err_len, "fail_worst %" PRId64 " does not fit fail_streak %" PRId64,
                s->fail_worst, s->fail_streak);
        return EINVAL;
    }
    if ((s->last_action < FM_ACTION_NONE) || (s->last_action > FM_ACTION_FAILOVER)) {
        set_msg(err, err_len, "last_action %" PRId64 " is not none, restart or failover",
                s->last_action);
        return EINVAL;
    }
    if ((s->last_action_us < 0) || (s->last_action_us > s->clock_us)) {
        set_msg(err, err_len, "last_action_us %" PRId64 " is outside 0..clock",
                s->last_action_us);
        return EINVAL;
    }
    if ((s->n_failures < 0) || (s->n_failures > FM_DECIDE_MAX_FAILURES)) {
        set_msg(err, err_len, "n_failures %" PRId64 " is outside 0..%d", s->n_failures,
                FM_DECIDE_MAX_FAILURES);
        return EINVAL;
    }
    if ((s->n_restarts < 0) || (s->n_restarts > FM_DECIDE_MAX_RESTARTS)) {
        set_msg(err, err_len, "n_restarts %" PRId64 " is outside 0..%d", s->n_restarts,
                FM_DECIDE_MAX_RESTARTS);
        return EINVAL;
    }
    if ((check_times("failure_us", s->failure_us, s->n_failures, s->clock_us,
                     err, err_len) != 0)
        || (check_times("restart_us", s->restart_us, s->n_restarts, s->clock_us,
                        err, err_len) != 0)) {
        return EINVAL;
    }
    for (int64_t i = 0; i < s->n_failures; i++) {
        if ((s->failure_weight[i] != FM_DECIDE_WEIGHT_PARTIAL)
            && (s->failure_weight[i] != FM_DECIDE_WEIGHT_COMPLETE)) {
            set_msg(err, err_len, "failure_weight[%" PRId64 "] %" PRId64 " is not %d or %d",
                    i, s->failure_weight[i], FM_DECIDE_WEIGHT_PARTIAL,
                    FM_DECIDE_WEIGHT_COMPLETE);
            return EINVAL;
        }
        sum += s->failure_weight[i];
    }
    if (sum >= FM_DECIDE_THRESHOLD) {
        set_msg(err, err_len,
                "failure weights add up to %" PRId64 ", which would already have "
                "asked for recovery", sum);
        return EINVAL;
    }

    engine_reset(d);
    d->have_time = (s->have_time == 1);
    d->clock_us = (uint64_t) s->clock_us;
    d->last_now_us = (uint64_t) s->last_now_us;
    d->down = (s->down == 1);
    d->held = (s->held == 1) && d->opts.manual_resume;
    d->fail_streak = (uint32_t) s->fail_streak;
    d->fail_worst = (enum fm_class) s->fail_worst;
    d->ok_streak = (uint32_t) s->ok_streak;
    d->miss_streak = (uint32_t) s->miss_streak;
    d->last_action = (enum fm_action) s->last_action;
    d->last_action_us = (uint64_t) s->last_action_us;
    for (int64_t i = 0; i < s->n_failures; i++) {
        uint32_t idx = ring_push(&d->failures);

        d->failure_us[idx] = (uint64_t) s->failure_us[i];
        d->failure_weight[idx] = (uint8_t) s->failure_weight[i];
    }
    for (int64_t i = 0; i < s->n_restarts; i++) {
        uint32_t idx = ring_push(&d->restarts);

        d->restart_us[idx] = (uint64_t) s->restart_us[i];
    }
    /* fall may have been lowered since the state was written. */
    if (d->fail_streak >= d->opts.fall) {
        d->fail_streak = d->opts.fall - 1;
        if (d->fail_streak == 0) {
            d->fail_worst = FM_CLASS_OK;
        }
    }
    return 0;
}
