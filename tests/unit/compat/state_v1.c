/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FROZEN: a copy of src/core/state.c at 391a9ef (tests/unit/compat/state_v1_names.h).
 * faultmon: the state file of a resource's loop, DIR/state: what its keys
 * are, how they are written and read back, and what makes a state
 * consistent.  Writes are atomic and the framing is checked by kvfile.c;
 * reads trust nothing (a truncated, corrupt or foreign file is an error,
 * never a decision).  The directory and its lock are state_dir.c's.
 */
#include <config.h>

#include "state_v1_names.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/kvfile.h>
#include <faultmon/ocf_rc.h>
#include <faultmon/parse.h>
#include <faultmon/state.h>
#include <faultmon/target.h>
#include <faultmon/text.h>

#include "state_v1_int.h"

#define FM_STATE_HEADER "faultmon-state 1"
#define FM_STATE_MAX_BYTES (256 * 1024)

static void
write_body(FILE *out, const struct fm_run_state *st)
{
    const struct fm_decide_state *d = &st->decide;

    fprintf(out, FM_STATE_HEADER "\n");
    fm_kvfile_put_text(out, "resource", st->resource);
    fprintf(out, "pid=%" PRId64 "\n", st->pid);
    fprintf(out, "updated_mono_us=%" PRIu64 "\n", st->updated_mono_us);
    fprintf(out, "updated_wall_s=%" PRId64 "\n", st->updated_wall_s);
    fprintf(out, "interval_ms=%" PRIu64 "\n", st->interval_ms);
    fprintf(out, "probe_timeout_ms=%" PRIu64 "\n", st->probe_timeout_ms);
    fprintf(out, "cycles=%" PRIu64 "\n", st->cycles);
    if (st->kind[0] != '\0' && strcmp(st->kind, FM_KIND_APACHE) != 0) {
        /* Only when not the default, so that an apache loop's file stays
         * readable by the agents of the previous version. */
        fm_kvfile_put_text(out, "kind", st->kind);
    }
    fprintf(out, "state=%d\n", (int) st->state);
    fprintf(out, "action=%d\n", (int) st->action);
    fprintf(out, "ocf_rc=%d\n", st->ocf_rc);
    fm_kvfile_put_text(out, "reason", st->reason);
    fprintf(out, "pending=%d\n", (int) st->pending);
    fprintf(out, "weight=%" PRIu32 "\n", st->weight);
    fprintf(out, "restarts_in_window=%" PRIu32 "\n", st->restarts_in_window);
    fm_kvfile_put_text(out, "next_failure", st->next_failure);

    fprintf(out, "d.version=%" PRId64 "\n", d->version);
    fprintf(out, "d.have_time=%" PRId64 "\n", d->have_time);
    fprintf(out, "d.clock_us=%" PRId64 "\n", d->clock_us);
    fprintf(out, "d.last_now_us=%" PRId64 "\n", d->last_now_us);
    fprintf(out, "d.down=%" PRId64 "\n", d->down);
    fprintf(out, "d.held=%" PRId64 "\n", d->held);
    fprintf(out, "d.fail_streak=%" PRId64 "\n", d->fail_streak);
    fprintf(out, "d.fail_worst=%" PRId64 "\n", d->fail_worst);
    fprintf(out, "d.ok_streak=%" PRId64 "\n", d->ok_streak);
    fprintf(out, "d.miss_streak=%" PRId64 "\n", d->miss_streak);
    fprintf(out, "d.last_action=%" PRId64 "\n", d->last_action);
    fprintf(out, "d.last_action_us=%" PRId64 "\n", d->last_action_us);
    for (int64_t i = 0; i < d->n_failures && i < FM_DECIDE_MAX_FAILURES; i++) {
        fprintf(out, "d.failure=%" PRId64 " %" PRId64 "\n", d->failure_us[i], d->failure_weight[i]);
    }
    for (int64_t i = 0; i < d->n_restarts && i < FM_DECIDE_MAX_RESTARTS; i++) {
        fprintf(out, "d.restart=%" PRId64 "\n", d->restart_us[i]);
    }
    fm_state_metrics_write(out, st);
    for (size_t i = 0; i < st->n_targets; i++) {
        const struct fm_state_target *t = &st->targets[i];

        fprintf(out, "target=%d %d %d %" PRIu64 " ", (int) t->cls, (int) t->reason,
                t->http_status, t->latency_us);
        fm_kvfile_put_text(out, "", t->target);
        fm_state_metrics_write_target(out, t);
    }
    for (size_t i = 0; i < st->n_records; i++) {
        const struct fm_state_record *r = &st->records[i];

        fprintf(out, "record=%" PRId64 " %d %" PRIu64 " %d\n", r->wall_s, (int) r->cls,
                r->latency_us, (int) r->action);
    }
    fprintf(out, "end\n");
}

int
fm_state_file_write(const char *dir, const char *name,
                    void (*write_fn)(FILE *out, const void *data), const void *data)
{
    return fm_kvfile_write(dir, name, write_fn, data);
}

static void
write_state_body(FILE *out, const void *data)
{
    write_body(out, data);
}

int
fm_state_write(const char *dir, const struct fm_run_state *st, char *err, size_t err_len)
{
    int rc = fm_state_file_write(dir, "state", write_state_body, st);

    if (rc != 0) {
        return fm_errf(err, err_len, rc, "cannot write %s/state: %s", dir, strerror(rc));
    }
    return 0;
}

/* A whole number as the writer prints it: an optional '-', digits, no
 * spaces, no '+', no leading zeros beyond a lone "0". */
static bool
parse_i64(const char *text, int64_t *out)
{
    return fm_parse_i64(text, INT64_MIN, INT64_MAX, FM_PARSE_CANONICAL, out) == 0;
}

static bool
parse_u64(const char *text, uint64_t *out)
{
    return fm_parse_u64(text, 0, UINT64_MAX, FM_PARSE_CANONICAL, out) == 0;
}

static bool
parse_int_range(const char *text, int lo, int hi, int *out)
{
    int64_t v = 0;

    if (fm_parse_i64(text, lo, hi, FM_PARSE_CANONICAL, &v) != 0) {
        return false;
    }
    *out = (int) v;
    return true;
}

bool
fm_state_split_fields(char *value, char **fields, size_t n, bool rest)
{
    char *p = value;

    for (size_t i = 0; i < n; i++) {
        char *space = NULL;

        fields[i] = p;
        if (i + 1 == n) {
            return rest || strchr(p, ' ') == NULL;
        }
        space = strchr(p, ' ');
        if (space == NULL) {
            return false;
        }
        *space = '\0';
        p = space + 1;
    }
    return false;
}

/* A text field as put_text() writes it: printable, and not cut short. */
static bool
parse_text(const char *value, char *field, size_t field_len)
{
    size_t len = strlen(value);

    if (len >= field_len) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char) value[i] < 0x20 || value[i] == 0x7f) {
            return false;
        }
    }
    memcpy(field, value, len + 1);
    return true;
}

/* The keys that appear exactly once, in the writer's order. */
static const char *const single_keys[] = {
    "resource", "pid", "updated_mono_us", "updated_wall_s", "interval_ms",
    "probe_timeout_ms", "cycles", "state", "action", "ocf_rc", "reason", "pending",
    "weight", "restarts_in_window", "next_failure", "d.version", "d.have_time",
    "d.clock_us", "d.last_now_us", "d.down", "d.held", "d.fail_streak", "d.fail_worst",
    "d.ok_streak", "d.miss_streak", "d.last_action", "d.last_action_us",
};
#define N_SINGLE_KEYS (sizeof(single_keys) / sizeof(single_keys[0]))

static int
single_key_index(const char *key)
{
    for (size_t i = 0; i < N_SINGLE_KEYS; i++) {
        if (strcmp(key, single_keys[i]) == 0) {
            return (int) i;
        }
    }
    return -1;
}

/* The numbers and texts that appear once; false if \p key is none of them
 * or its value does not parse. */
static bool
parse_plain_field(const char *key, const char *value, struct fm_run_state *st, bool *known)
{
    struct fm_decide_state *d = &st->decide;

    *known = true;
#define I64_FIELD(name, field) \
    if (strcmp(key, name) == 0) { return parse_i64(value, &(field)); }
#define U64_FIELD(name, field) \
    if (strcmp(key, name) == 0) { return parse_u64(value, &(field)); }
#define TEXT_FIELD(name, field) \
    if (strcmp(key, name) == 0) { return parse_text(value, field, sizeof(field)); }

    TEXT_FIELD("resource", st->resource);
    I64_FIELD("pid", st->pid);
    U64_FIELD("updated_mono_us", st->updated_mono_us);
    I64_FIELD("updated_wall_s", st->updated_wall_s);
    U64_FIELD("interval_ms", st->interval_ms);
    U64_FIELD("probe_timeout_ms", st->probe_timeout_ms);
    U64_FIELD("cycles", st->cycles);
    TEXT_FIELD("reason", st->reason);
    TEXT_FIELD("next_failure", st->next_failure);
    I64_FIELD("d.version", d->version);
    I64_FIELD("d.have_time", d->have_time);
    I64_FIELD("d.clock_us", d->clock_us);
    I64_FIELD("d.last_now_us", d->last_now_us);
    I64_FIELD("d.down", d->down);
    I64_FIELD("d.held", d->held);
    I64_FIELD("d.fail_streak", d->fail_streak);
    I64_FIELD("d.fail_worst", d->fail_worst);
    I64_FIELD("d.ok_streak", d->ok_streak);
    I64_FIELD("d.miss_streak", d->miss_streak);
    I64_FIELD("d.last_action", d->last_action);
    I64_FIELD("d.last_action_us", d->last_action_us);
#undef I64_FIELD
#undef U64_FIELD
#undef TEXT_FIELD

    *known = false;
    return false;
}

/* The enums and small numbers that appear once, each within its range. */
static bool
parse_ranged_field(const char *key, const char *value, struct fm_run_state *st)
{
    int v = 0;
    uint64_t u = 0;

    if (strcmp(key, "state") == 0) {
        if (!parse_int_range(value, FM_STATE_UP, FM_STATE_HELD, &v)) {
            return false;
        }
        st->state = (enum fm_state) v;
        return true;
    }
    if (strcmp(key, "action") == 0) {
        if (!parse_int_range(value, FM_ACTION_NONE, FM_ACTION_DEGRADED, &v)) {
            return false;
        }
        st->action = (enum fm_action) v;
        return true;
    }
    if (strcmp(key, "pending") == 0) {
        /* Only a recovery can be pending. */
        if (!parse_int_range(value, FM_ACTION_NONE, FM_ACTION_FAILOVER, &v)) {
            return false;
        }
        st->pending = (enum fm_action) v;
        return true;
    }
    if (strcmp(key, "ocf_rc") == 0) {
        return parse_int_range(value, 0, 255, &st->ocf_rc);
    }
    if (strcmp(key, "weight") == 0 || strcmp(key, "restarts_in_window") == 0) {
        if (fm_parse_u64(value, 0, UINT32_MAX, FM_PARSE_CANONICAL, &u) != 0) {
            return false;
        }
        *((strcmp(key, "weight") == 0)? &st->weight : &st->restarts_in_window) = (uint32_t) u;
        return true;
    }
    return false;
}

/* kind: optional (absent: apache), at most once, a known agent. */
static bool
parse_kind(const char *value, struct fm_run_state *st)
{
    if (st->kind[0] != '\0'
        || (strcmp(value, FM_KIND_APACHE) != 0 && strcmp(value, FM_KIND_HTTPMON) != 0)) {
        return false;
    }
    snprintf(st->kind, sizeof(st->kind), "%s", value);
    return true;
}

/* d.failure=US WEIGHT, one per failure on record. */
static bool
parse_failure(char *value, struct fm_decide_state *d)
{
    char *f[2];

    if (d->n_failures >= FM_DECIDE_MAX_FAILURES || !fm_state_split_fields(value, f, 2, false)
        || !parse_i64(f[0], &d->failure_us[d->n_failures])
        || !parse_i64(f[1], &d->failure_weight[d->n_failures])) {
        return false;
    }
    d->n_failures++;
    return true;
}

/* d.restart=US, one per restart on record. */
static bool
parse_restart(const char *value, struct fm_decide_state *d)
{
    if (d->n_restarts >= FM_DECIDE_MAX_RESTARTS || !parse_i64(value, &d->restart_us[d->n_restarts])) {
        return false;
    }
    d->n_restarts++;
    return true;
}

/* target=CLASS REASON STATUS LATENCY_US =TEXT, one per target of the last
 * cycle. */
static bool
parse_target(char *value, struct fm_run_state *st)
{
    struct fm_state_target *t = &st->targets[st->n_targets];
    char *f[5];
    int cls = 0;
    int reason = 0;

    /* fm_kvfile_put_text() wrote the target as "=TEXT". */
    if (st->n_targets >= FM_STATE_MAX_TARGETS || !fm_state_split_fields(value, f, 5, true)
        || !parse_int_range(f[0], FM_CLASS_OK, FM_CLASS_COMPLETE, &cls)
        || !parse_int_range(f[1], 0, FM_REASON__COUNT - 1, &reason)
        || !parse_int_range(f[2], 0, 999, &t->http_status)
        || !parse_u64(f[3], &t->latency_us)
        || f[4][0] != '=' || !parse_text(f[4] + 1, t->target, sizeof(t->target))) {
        return false;
    }
    t->cls = (enum fm_class) cls;
    t->reason = (enum fm_reason) reason;
    st->n_targets++;
    return true;
}

/* record=WALL_S CLASS LATENCY_US ACTION, one per cycle kept. */
static bool
parse_record(char *value, struct fm_run_state *st)
{
    struct fm_state_record *r = &st->records[st->n_records];
    char *f[4];
    int cls = 0;
    int action = 0;

    if (st->n_records >= FM_STATE_MAX_RECORDS || !fm_state_split_fields(value, f, 4, false)
        || !parse_i64(f[0], &r->wall_s)
        || !parse_int_range(f[1], FM_CLASS_OK, FM_CLASS_COMPLETE, &cls)
        || !parse_u64(f[2], &r->latency_us)
        || !parse_int_range(f[3], FM_ACTION_NONE, FM_ACTION_DEGRADED, &action)) {
        return false;
    }
    r->cls = (enum fm_class) cls;
    r->action = (enum fm_action) action;
    st->n_records++;
    return true;
}

/* One "key=value" line into the struct; false if the key is unknown or
 * the value does not parse or is out of its range. */
static bool
parse_line(char *key, char *value, struct fm_run_state *st)
{
    bool known = false;
    bool ok = parse_plain_field(key, value, st, &known);

    if (known) {
        return ok;
    }
    if (strcmp(key, "kind") == 0) {
        return parse_kind(value, st);
    }
    if (strcmp(key, "d.failure") == 0) {
        return parse_failure(value, &st->decide);
    }
    if (strcmp(key, "d.restart") == 0) {
        return parse_restart(value, &st->decide);
    }
    if (strcmp(key, "target") == 0) {
        return parse_target(value, st);
    }
    if (strcmp(key, "record") == 0) {
        return parse_record(value, st);
    }
    return parse_ranged_field(key, value, st);
}

int
fm_state_ocf_rc(const struct fm_run_state *st)
{
    struct fm_decision dec;

    if (strcmp(st->kind, FM_KIND_HTTPMON) == 0) {
        return PCMK_OCF_OK;         /* its monitor answers 0; the attribute tells */
    }
    memset(&dec, 0, sizeof(dec));
    dec.action = (st->pending != FM_ACTION_NONE)? st->pending : st->action;
    switch (dec.action) {
        case FM_ACTION_NONE:
        case FM_ACTION_RESTART:
        case FM_ACTION_FAILOVER:
        case FM_ACTION_DEGRADED:
            return (int) fm_ocf_rc_for_action(dec.action);
    }
    return PCMK_OCF_OK;
}

void
fm_state_clear_pending(struct fm_run_state *st)
{
    const struct fm_decide_state *d = &st->decide;
    int64_t sum = 0;

    st->pending = FM_ACTION_NONE;
    if (st->action == FM_ACTION_RESTART || st->action == FM_ACTION_FAILOVER) {
        /* As a cycle without a recovery would have said. */
        st->action = (st->state == FM_STATE_UP)? FM_ACTION_NONE : FM_ACTION_DEGRADED;
        for (int64_t i = 0; i < d->n_failures && i < FM_DECIDE_MAX_FAILURES; i++) {
            sum += d->failure_weight[i];
        }
        st->weight = (sum > 0 && sum < FM_DECIDE_THRESHOLD)? (uint32_t) sum : 0;
    }
    st->ocf_rc = fm_state_ocf_rc(st);
}

/* What the engine's own import demands, on a scratch engine: the checks
 * there do not depend on the loop's parameters. */
static int
validate_decide(const struct fm_decide_state *d, uint64_t now_mono_us, char *err, size_t err_len)
{
    struct fm_decide_opts opts;
    struct fm_decide *engine = NULL;
    char why[256] = "";
    int rc = 0;

    fm_decide_opts_init(&opts);
    opts.manual_resume = true;
    if (fm_decide_new(&opts, &engine) != 0) {
        return fm_errf(err, err_len, EINVAL, "cannot create a decision engine to check the state");
    }
    rc = fm_decide_import(engine, d, now_mono_us, why, sizeof(why));
    fm_decide_free(engine);
    if (rc != 0) {
        return fm_errf(err, err_len, EINVAL, "decision history: %s", why);
    }
    return 0;
}

/* The largest interval or timeout the loop accepts (the engine's bound). */
#define FM_STATE_MAX_INTERVAL_MS FM_DECIDE_MAX_INTERVAL_MS

/* Whose state it is, when it was written, and the engine's own import. */
static int
validate_header(const struct fm_run_state *st, const char *resource, uint64_t now_mono_us,
                char *err, size_t err_len)
{
    const struct fm_decide_state *d = &st->decide;
    int rc = 0;

    if (!fm_resource_name_valid(st->resource)) {
        return fm_errf(err, err_len, EINVAL, "resource is not a valid resource name");
    }
    if (resource != NULL && strcmp(st->resource, resource) != 0) {
        return fm_errf(err, err_len, EINVAL, "the file is the state of another resource");
    }
    if (st->pid <= 1 || st->pid > FM_STATE_MAX_PID) {
        return fm_errf(err, err_len, EINVAL, "pid %" PRId64 " is not a process ID", st->pid);
    }
    if (st->updated_mono_us == 0
        || (st->updated_mono_us > now_mono_us
            && st->updated_mono_us - now_mono_us > FM_DECIDE_IMPORT_SLACK_US)) {
        return fm_errf(err, err_len, EINVAL, "updated_mono_us %" PRIu64 " is not a time of this boot",
                       st->updated_mono_us);
    }
    if (st->updated_wall_s < 0) {
        return fm_errf(err, err_len, EINVAL, "updated_wall_s is negative");
    }
    if (st->interval_ms > FM_STATE_MAX_INTERVAL_MS || st->probe_timeout_ms == 0
        || st->probe_timeout_ms > FM_STATE_MAX_INTERVAL_MS) {
        return fm_errf(err, err_len, EINVAL, "interval_ms %" PRIu64 " or probe_timeout_ms %" PRIu64
                       " is out of range", st->interval_ms, st->probe_timeout_ms);
    }
    rc = validate_decide(d, now_mono_us, err, err_len);
    if (rc != 0) {
        return rc;
    }
    if (d->have_time && (uint64_t) d->last_now_us > st->updated_mono_us) {
        return fm_errf(err, err_len, EINVAL, "the decision history is newer than the file");
    }
    return 0;
}

/* The state as the engine derives it from its counters. */
static int
validate_engine_state(const struct fm_run_state *st, char *err, size_t err_len)
{
    const struct fm_decide_state *d = &st->decide;

    if ((st->state == FM_STATE_HELD) != (d->held == 1)) {
        return fm_errf(err, err_len, EINVAL, "state %s does not match d.held %" PRId64,
                       fm_state_name(st->state), d->held);
    }
    if (d->down == 1 && d->held == 0
        && st->state != ((d->ok_streak > 0)? FM_STATE_FLAPPING : FM_STATE_DOWN)) {
        return fm_errf(err, err_len, EINVAL, "state %s does not match a down engine", fm_state_name(st->state));
    }
    if (d->down == 0) {
        if (st->state == FM_STATE_DOWN || (st->state == FM_STATE_FLAPPING) != (d->fail_streak > 0)) {
            return fm_errf(err, err_len, EINVAL, "state %s does not match an engine that is not down",
                           fm_state_name(st->state));
        }
    }
    if (st->restarts_in_window != (uint64_t) d->n_restarts) {
        return fm_errf(err, err_len, EINVAL, "restarts_in_window %" PRIu32 " is not the %" PRId64
                       " restarts on record", st->restarts_in_window, d->n_restarts);
    }
    return 0;
}

/* The decision and what the loop made of it.  An httpmon loop asks nobody
 * for recovery: nothing is ever pending there. */
static int
validate_decision(const struct fm_run_state *st, char *err, size_t err_len)
{
    const struct fm_decide_state *d = &st->decide;
    int64_t sum = 0;

    for (int64_t i = 0; i < d->n_failures; i++) {
        sum += d->failure_weight[i];
    }
    if (strcmp(st->kind, FM_KIND_HTTPMON) == 0 && st->pending != FM_ACTION_NONE) {
        return fm_errf(err, err_len, EINVAL, "pending %s in the state of an httpmon loop",
                       fm_action_name(st->pending));
    }
    if (st->action == FM_ACTION_RESTART || st->action == FM_ACTION_FAILOVER) {
        /* The weight that asked: one cycle past the threshold, or, after an
         * impaired observer or the node's budget held the recovery, every
         * failure recorded meanwhile, up to a full ring of complete ones. */
        if (st->pending != ((strcmp(st->kind, FM_KIND_HTTPMON) == 0)? FM_ACTION_NONE : st->action)
            || d->down != 1 || d->last_action != (int64_t) st->action
            || st->weight > FM_DECIDE_MAX_FAILURES * FM_DECIDE_THRESHOLD) {
            return fm_errf(err, err_len, EINVAL, "action %s does not match the engine's recovery",
                           fm_action_name(st->action));
        }
    } else if (st->weight != (uint64_t) sum) {
        return fm_errf(err, err_len, EINVAL, "weight %" PRIu32 " is not the %" PRId64 " of the failures on record",
                       st->weight, sum);
    }
    if (st->pending != FM_ACTION_NONE && d->last_action != (int64_t) st->pending) {
        return fm_errf(err, err_len, EINVAL, "pending %s is not the engine's last recovery",
                       fm_action_name(st->pending));
    }
    if (st->state == FM_STATE_UP
        && (st->action != FM_ACTION_NONE || st->pending != FM_ACTION_NONE || d->miss_streak != 0
            || sum != 0)) {
        return fm_errf(err, err_len, EINVAL, "state up with action %s, pending %s",
                       fm_action_name(st->action), fm_action_name(st->pending));
    }
    if (st->ocf_rc != fm_state_ocf_rc(st)) {
        return fm_errf(err, err_len, EINVAL, "ocf_rc %d is not the %d of pending %s and action %s", st->ocf_rc,
                       fm_state_ocf_rc(st), fm_action_name(st->pending), fm_action_name(st->action));
    }
    return 0;
}

int
fm_state_validate(const struct fm_run_state *st, const char *resource, uint64_t now_mono_us,
                  char *err, size_t err_len)
{
    int rc = validate_header(st, resource, now_mono_us, err, err_len);

    if (rc == 0) {
        rc = validate_engine_state(st, err, err_len);
    }
    if (rc == 0) {
        rc = validate_decision(st, err, err_len);
    }
    if (rc == 0) {
        rc = fm_state_validate_targets(st, err, err_len);
    }
    return rc;
}

/* The framing is kvfile's; the keys are ours. */
static const struct fm_kvfile_format state_format = {
    .header = FM_STATE_HEADER,
    .name = "faultmon state file",
    .max_bytes = FM_STATE_MAX_BYTES,
};

struct state_parse {
    struct fm_run_state *st;
    bool seen[N_SINGLE_KEYS];
    struct fm_state_metrics_parse metrics;
};

static const char *
state_entry(char *key, char *value, void *data)
{
    struct state_parse *sp = data;
    int idx = single_key_index(key);
    bool metrics = false;
    const char *why = fm_state_metrics_entry(key, value, sp->st, &sp->metrics, &metrics);

    if (metrics) {
        return why;
    }
    if (idx >= 0 && sp->seen[idx]) {
        return "a key given twice";
    }
    if (!parse_line(key, value, sp->st)) {
        return "unknown key or bad value";
    }
    if (idx >= 0) {
        sp->seen[idx] = true;
    }
    return NULL;
}

int
fm_state_parse(const char *text, size_t len, const char *resource, uint64_t now_mono_us,
               struct fm_run_state *st, char *err, size_t err_len)
{
    struct state_parse sp;
    int rc = 0;

    memset(st, 0, sizeof(*st));
    memset(&sp, 0, sizeof(sp));
    sp.st = st;
    rc = fm_kvfile_parse(text, len, &state_format, state_entry, &sp, err, err_len);
    for (size_t i = 0; rc == 0 && i < N_SINGLE_KEYS; i++) {
        if (!sp.seen[i]) {
            rc = fm_errf(err, err_len, EINVAL, "key %s is missing", single_keys[i]);
        }
    }
    if (rc == 0) {
        rc = fm_state_validate(st, resource, now_mono_us, err, err_len);
    }
    if (rc != 0) {
        memset(st, 0, sizeof(*st));
    }
    return rc;
}

int
fm_state_read(const char *dir, struct fm_run_state *st, char *err, size_t err_len)
{
    char path[4096];
    char why[512] = "";
    const char *resource = strrchr(dir, '/');
    char *buf = NULL;
    size_t len = 0;
    int rc = 0;

    resource = (resource != NULL)? resource + 1 : dir;
    snprintf(path, sizeof(path), "%s/state", dir);
    rc = fm_kvfile_load(path, FM_STATE_MAX_BYTES, &buf, &len, err, err_len);
    if (rc != 0) {
        memset(st, 0, sizeof(*st));
        return rc;
    }
    rc = fm_state_parse(buf, len, resource, fm_now_us(), st, why, sizeof(why));
    free(buf);
    if (rc != 0) {
        return fm_errf(err, err_len, EINVAL, "%s: %s", path, why);
    }
    return 0;
}
