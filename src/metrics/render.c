/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the Prometheus text format of the state files (see
 * faultmon/metrics.h).  libc only; reads states that fm_state_read()
 * accepted, never a probe.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <faultmon/decide.h>
#include <faultmon/metrics.h>
#include <faultmon/result.h>
#include <faultmon/state.h>

/* The length of the UTF-8 sequence at \p s (1-4), 0 when it is not one. */
static size_t
utf8_len(const unsigned char *s)
{
    size_t n = 0;

    if (s[0] < 0x80) {
        return 1;
    } else if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        n = 2;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
    }
    /* overlong three-byte forms, surrogates, beyond U+10FFFF */
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)
        || (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)) {
        return 0;
    }
    return n;
}

void
fm_metrics_put_label(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *) text;

    while (*s != '\0') {
        size_t n = utf8_len(s);

        if (*s == '\\' || *s == '"') {
            fputc('\\', out);
            fputc(*s, out);
        } else if (*s == '\n') {
            fputs("\\n", out);
        } else if (n == 0 || *s < 0x20 || *s == 0x7f) {
            fputc('?', out);
            n = 1;
        } else {
            fwrite(s, 1, n, out);
        }
        s += (n == 0)? 1 : n;
    }
}

/* One family: its name, type, help, and the function that writes its series
 * for one resource (after HELP and TYPE, once for every resource). */
struct family {
    const char *name;
    const char *type;
    const char *help;
    void (*series)(FILE *out, const char *name, const struct fm_metrics_resource *r);
    /* NULL series: one series per shown target, of this value. */
    void (*target_value)(FILE *out, const struct fm_state_target *t);
};

static void
put_labels(FILE *out, const char *name, const char *resource, const char *key, const char *value)
{
    fprintf(out, "%s{resource=\"", name);
    fm_metrics_put_label(out, resource);
    if (key != NULL) {
        fprintf(out, "\",%s=\"", key);
        fm_metrics_put_label(out, value);
    }
    fputs("\"} ", out);
}

static void
series_valid(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    put_labels(out, name, r->name, NULL, NULL);
    fprintf(out, "%d\n", (r->st != NULL)? 1 : 0);
}

static void
series_state(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    static const enum fm_state states[] = {
        FM_STATE_UP, FM_STATE_DEGRADED, FM_STATE_FLAPPING, FM_STATE_DOWN, FM_STATE_HELD,
    };

    if (r->st == NULL) {
        return;     /* no verdict: no state at all, rather than a wrong one */
    }
    for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
        put_labels(out, name, r->name, "state", fm_state_name(states[i]));
        fprintf(out, "%d\n", (r->st->state == states[i])? 1 : 0);
    }
}

/* A per-resource number of a trusted state. */
static void
put_resource_u64(FILE *out, const char *name, const struct fm_metrics_resource *r, uint64_t v)
{
    put_labels(out, name, r->name, NULL, NULL);
    fprintf(out, "%" PRIu64 "\n", v);
}

static void
series_weight(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    if (r->st != NULL) {
        put_resource_u64(out, name, r, r->st->weight);
    }
}

static void
series_restarts(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    if (r->st != NULL) {
        put_resource_u64(out, name, r, r->st->restarts_in_window);
    }
}

static void
series_cycles(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    if (r->st != NULL) {
        put_resource_u64(out, name, r, r->st->cycles);
    }
}

static void
series_updated(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    if (r->st != NULL && r->st->updated_wall_s > 0) {
        put_resource_u64(out, name, r, (uint64_t) r->st->updated_wall_s);
    }
}

/* The engine keeps the time of its last recovery in engine time, which
 * advances with the loop's monotonic clock; the state's write time gives
 * the wall clock at the engine's last input, a cycle's length later at
 * most. */
static void
series_last_decision(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    const struct fm_decide_state *d = (r->st != NULL)? &r->st->decide : NULL;
    int64_t ago_s = 0;

    if (d == NULL || d->last_action_us <= 0 || d->clock_us < d->last_action_us
        || r->st->updated_wall_s <= 0) {
        return;
    }
    ago_s = (d->clock_us - d->last_action_us) / 1000000;
    put_labels(out, name, r->name, NULL, NULL);
    fprintf(out, "%" PRId64 "\n", r->st->updated_wall_s - ago_s);
}

static void
series_pending(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    static const enum fm_action actions[] = { FM_ACTION_RESTART, FM_ACTION_FAILOVER };

    if (r->st == NULL) {
        return;
    }
    for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
        put_labels(out, name, r->name, "action", fm_action_name(actions[i]));
        fprintf(out, "%d\n", (r->st->pending == actions[i])? 1 : 0);
    }
}

/* Whether the resource's target \p i gets series: not when an earlier one
 * has the same text and source (the same probe listed twice, "80" and
 * "127.0.0.1:80" in Port_list), whose series would have the same labels. */
static bool
target_shown(const struct fm_run_state *st, size_t i)
{
    for (size_t j = 0; j < i; j++) {
        if (st->targets[j].source == st->targets[i].source
            && strcmp(st->targets[j].target, st->targets[i].target) == 0) {
            return false;
        }
    }
    return true;
}

/* The number of targets of a trusted state to look at. */
static size_t
n_targets(const struct fm_metrics_resource *r)
{
    if (r->st == NULL) {
        return 0;
    }
    return (r->st->n_targets < FM_STATE_MAX_TARGETS)? r->st->n_targets : FM_STATE_MAX_TARGETS;
}

/* A target's series up to its value: resource, target, source (the
 * parameter it came from: the same URL may be a Port_list HEAD and a
 * Monitor_Uri_List GET) and, unless \p key is NULL, KEY=VALUE. */
static void
put_target_labels(FILE *out, const char *name, const struct fm_metrics_resource *r,
                  const struct fm_state_target *t, const char *key, const char *value)
{
    fprintf(out, "%s{resource=\"", name);
    fm_metrics_put_label(out, r->name);
    fputs("\",target=\"", out);
    fm_metrics_put_label(out, t->target);
    fprintf(out, "\",source=\"%s\"", fm_state_source_name(t->source));
    if (key != NULL) {
        fprintf(out, ",%s=\"%s\"", key, value);
    }
    fputs("} ", out);
}

/* Per target: resource, target, source and the value \p fn picks. */
static void
put_targets(FILE *out, const char *name, const struct fm_metrics_resource *r,
            void (*fn)(FILE *out, const struct fm_state_target *t))
{
    for (size_t i = 0; i < n_targets(r); i++) {
        if (target_shown(r->st, i)) {
            put_target_labels(out, name, r, &r->st->targets[i], NULL, NULL);
            fn(out, &r->st->targets[i]);
        }
    }
}

static void
value_success(FILE *out, const struct fm_state_target *t)
{
    fprintf(out, "%d\n", (t->cls == FM_CLASS_OK)? 1 : 0);
}

/* Microseconds as the format's seconds, exactly. */
static void
put_seconds(FILE *out, uint64_t us)
{
    fprintf(out, "%" PRIu64 ".%06" PRIu64 "\n", us / 1000000, us % 1000000);
}

static void
value_duration(FILE *out, const struct fm_state_target *t)
{
    put_seconds(out, t->latency_us);
}

static void
value_status(FILE *out, const struct fm_state_target *t)
{
    fprintf(out, "%d\n", t->http_status);
}

static void
value_partial(FILE *out, const struct fm_state_target *t)
{
    fprintf(out, "%d\n", (t->cls == FM_CLASS_PARTIAL)? 1 : 0);
}

/* Only the phases the probe went through: a numeric address has no
 * resolve, a plain target no tls, a TCP connect check no request. */
static void
series_phases(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    for (size_t i = 0; i < n_targets(r); i++) {
        const struct fm_state_target *t = &r->st->targets[i];

        for (size_t p = 0; target_shown(r->st, i) && p < FM_PHASE__COUNT; p++) {
            if ((t->phases & (1u << p)) != 0) {
                put_target_labels(out, name, r, t, "phase", fm_probe_phase_name((enum fm_probe_phase) p));
                put_seconds(out, t->phase_us[p]);
            }
        }
    }
}

static void
series_failures(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    static const enum fm_class classes[] = { FM_CLASS_PARTIAL, FM_CLASS_COMPLETE };

    for (size_t i = 0; i < n_targets(r); i++) {
        for (size_t c = 0; target_shown(r->st, i) && c < sizeof(classes) / sizeof(classes[0]); c++) {
            put_target_labels(out, name, r, &r->st->targets[i], "class", fm_class_name(classes[c]));
            fprintf(out, "%" PRIu64 "\n", r->st->targets[i].failures[classes[c]]);
        }
    }
}

/* Only the targets whose handshake showed a certificate. */
static void
series_cert_expiry(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    for (size_t i = 0; i < n_targets(r); i++) {
        if (r->st->targets[i].cert_not_after > 0 && target_shown(r->st, i)) {
            put_target_labels(out, name, r, &r->st->targets[i], NULL, NULL);
            fprintf(out, "%" PRId64 "\n", r->st->targets[i].cert_not_after);
        }
    }
}

static void
series_loop_running(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    if (r->st != NULL) {
        put_resource_u64(out, name, r, r->loop_running? 1 : 0);
    }
}

static void
series_loop_died(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    if (r->st != NULL) {
        put_resource_u64(out, name, r, r->loop_died? 1 : 0);
    }
}

static void
series_decisions(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    static const enum fm_action actions[] = { FM_ACTION_RESTART, FM_ACTION_FAILOVER };

    for (size_t i = 0; r->st != NULL && i < sizeof(actions) / sizeof(actions[0]); i++) {
        put_labels(out, name, r->name, "action", fm_action_name(actions[i]));
        fprintf(out, "%" PRIu64 "\n", r->st->decisions[actions[i]]);
    }
}

/* One family, the replies by class, so that a series is never repeated:
 * all, 5xx, slow (the share is a ratio of two, in PromQL). */
static void
series_access_log(FILE *out, const char *name, const struct fm_metrics_resource *r)
{
    if (r->st == NULL || !r->have_access_log) {
        return;
    }
    put_labels(out, name, r->name, "class", "all");
    fprintf(out, "%" PRIu64 "\n", r->access_log.requests);
    put_labels(out, name, r->name, "class", "5xx");
    fprintf(out, "%" PRIu64 "\n", r->access_log.errors);
    put_labels(out, name, r->name, "class", "slow");
    fprintf(out, "%" PRIu64 "\n", r->access_log.slow);
}

static const struct family families[] = {
    { "faultmon_state_valid", "gauge",
      "1 when the resource's state file is one the reader trusts; 0: no verdict, no other series",
      series_valid },
    { "faultmon_state", "gauge",
      "The loop's state, one series per state, 1 for the current one", series_state },
    { "faultmon_loop_running", "gauge",
      "1 when a faultmon loop runs for the resource on this node; 0: the state is the last "
      "loop's, history (the resource stopped or moved) unless faultmon_loop_died", series_loop_running },
    { "faultmon_loop_died", "gauge",
      "1 when no loop runs though one should: the last one died, or the service was started "
      "here and not stopped (faultmon status: loop-not-running)", series_loop_died },
    { "faultmon_window_weight", "gauge",
      "Failure weight within Retry_interval (100 asks for recovery)", series_weight },
    { "faultmon_restarts_in_window", "gauge",
      "Restarts asked within Retry_interval", series_restarts },
    { "faultmon_pending_recovery", "gauge",
      "1 while a recovery asked of Pacemaker is not yet carried out", series_pending },
    { "faultmon_cycles_total", "counter",
      "Probe cycles since the loop started", series_cycles },
    { "faultmon_last_decision_timestamp_seconds", "gauge",
      "When the loop last asked for a restart or a failover (within about one cycle)",
      series_last_decision },
    { "faultmon_state_updated_timestamp_seconds", "gauge",
      "When the loop last wrote the state", series_updated },
    { "faultmon_probe_success", "gauge",
      "1 when the target's last probe was ok", NULL, value_success },
    { "faultmon_probe_partial", "gauge",
      "1 when the target's last probe was a partial failure", NULL, value_partial },
    { "faultmon_probe_duration_seconds", "gauge",
      "The target's last probe, from the cycle's start to its verdict", NULL, value_duration },
    { "faultmon_probe_http_status_code", "gauge",
      "The HTTP status of the target's last reply; 0 without one", NULL, value_status },
    { "faultmon_probe_phase_duration_seconds", "gauge",
      "The target's last probe, the time of each phase it went through (their sum is at most "
      "faultmon_probe_duration_seconds)", series_phases },
    { "faultmon_probe_tls_cert_expiry_timestamp_seconds", "gauge",
      "The notAfter of the target's leaf certificate, as of its last TLS handshake",
      series_cert_expiry },
    { "faultmon_probe_failures_total", "counter",
      "The target's failed probes by class, kept across restarts of the loop", series_failures },
    { "faultmon_decisions_total", "counter",
      "Recoveries decided by action, kept across restarts of the loop", series_decisions },
    { "faultmon_access_log_window_replies", "gauge",
      "Replies in the access log's last window (access_log_window) by class: all, 5xx, slow",
      series_access_log },
};

void
fm_metrics_render(FILE *out, const struct fm_metrics_resource *res, size_t n)
{
    /* Which faultmon a dashboard looks at, as node_exporter's and
     * Prometheus' own *_build_info: always 1, the version in a label. */
    fputs("# HELP faultmon_build_info The faultmon version serving these metrics\n"
          "# TYPE faultmon_build_info gauge\nfaultmon_build_info{version=\"", out);
    fm_metrics_put_label(out, PACKAGE_VERSION);
    fputs("\"} 1\n", out);
    for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
        fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", families[f].name, families[f].help,
                families[f].name, families[f].type);
        for (size_t i = 0; i < n; i++) {
            if (families[f].series != NULL) {
                families[f].series(out, families[f].name, &res[i]);
            } else {
                put_targets(out, families[f].name, &res[i], families[f].target_value);
            }
        }
    }
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(((const struct fm_metrics_resource *) a)->name,
                  ((const struct fm_metrics_resource *) b)->name);
}

/* Read one resource's state into \p r (st NULL when it is not trusted). */
static void
read_one(struct fm_metrics_resource *r, struct fm_run_state *st)
{
    char dir[4096];
    char err[512];

    r->st = NULL;
    r->loop_running = false;
    r->loop_died = false;
    r->have_access_log = false;
    if (fm_state_dir(r->name, dir, sizeof(dir)) == 0
        && fm_state_read(dir, st, err, sizeof(err)) == 0) {
        r->st = st;
        r->loop_running = fm_state_loop_pid(dir) != 0;
        r->have_access_log = (fm_state_accesslog_read(dir, &r->access_log, &(uint64_t) { 0 }) == 0);
        /* As faultmon status judges it: the agent's record outlives its
         * loop only when the loop died (the agent's stop removes both). */
        if (!r->loop_running) {
            char path[4200];

            snprintf(path, sizeof(path), "%s/agent", dir);
            r->loop_died = fm_state_loop_died(dir) != 0 || access(path, F_OK) == 0;
        }
    }
}

int
fm_metrics_render_dir(FILE *out)
{
    char base[4096];
    DIR *dir = NULL;
    struct dirent *ent = NULL;
    struct fm_metrics_resource *res = NULL;
    struct fm_run_state *states = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;

    fm_state_dir("x", base, sizeof(base));
    base[strlen(base) - 2] = '\0';
    dir = opendir(base);
    if (dir == NULL) {
        rc = errno;
    }
    while (dir != NULL && (ent = readdir(dir)) != NULL) {
        if (ent->d_name[0] == '.' || !fm_resource_name_valid(ent->d_name)) {
            continue;
        }
        if (n == cap) {
            void *more = realloc(res, (cap + 64) * sizeof(*res));

            if (more == NULL) {
                rc = ENOMEM;
                break;
            }
            res = more;
            cap += 64;
        }
        snprintf(res[n].name, sizeof(res[n].name), "%.63s", ent->d_name);     /* valid: at most 63 */
        n++;
    }
    if (dir != NULL) {
        closedir(dir);
    }
    states = (n > 0)? calloc(n, sizeof(*states)) : NULL;
    if (n > 0 && states == NULL) {
        rc = ENOMEM;
        n = 0;
    }
    if (n > 1) {
        qsort(res, n, sizeof(*res), by_name);
    }
    for (size_t i = 0; i < n; i++) {
        read_one(&res[i], &states[i]);
    }
    fm_metrics_render(out, res, n);
    free(states);
    free(res);
    return rc;
}
