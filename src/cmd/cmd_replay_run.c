/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon simulate --replay: the replay itself (see src/cmd/cmd_replay.h).
 * Each recorded outcome goes to the loop's own monitor, as the loop handed
 * it over: a cycle through fm_monitor_input_done(), an event, a resume, a
 * reset; a new loop (a LOOP_START record) gets a new monitor that restores
 * the earlier one's history when the recorded loop restored one.  The
 * monitor notes its own record of each outcome, in the recorded form, which
 * is what the recorded one is compared with.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <faultmon/commands.h>
#include <faultmon/json.h>

#include "cmd_replay.h"

#define UNSEEN_REASON "not seen by the engine: the recovery asked is under way (the same outage)"

static const char *
input_name(const struct fm_history_rec *r)
{
    switch (r->kind) {
        case FM_HISTORY_CYCLE:
            return ((r->flags & FM_HISTORY_F_START_ERROR) != 0)? "no-start" : fm_class_name(r->cls);
        case FM_HISTORY_EVENT:
            return "event";
        case FM_HISTORY_RESUME:
            return "resume";
        case FM_HISTORY_RESET:
            return "reset";
        case FM_HISTORY_LOOP_START:
        case FM_HISTORY_CERT:
            break;
    }
    return "-";
}

static void
fmt_wall(char *buf, size_t len, uint32_t wall_s)
{
    time_t t = (time_t) wall_s;
    struct tm tm;

    if (localtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) == 0) {
        snprintf(buf, len, "%" PRIu32, wall_s);
    }
}

static void
fmt_span(char *buf, size_t len, uint64_t s)
{
    if (s >= 86400) {
        snprintf(buf, len, "%" PRIu64 " d %" PRIu64 " h", s / 86400, (s % 86400) / 3600);
    } else if (s >= 3600) {
        snprintf(buf, len, "%" PRIu64 " h %" PRIu64 " min", s / 3600, (s % 3600) / 60);
    } else if (s >= 60) {
        snprintf(buf, len, "%" PRIu64 " min %" PRIu64 " s", s / 60, s % 60);
    } else {
        snprintf(buf, len, "%" PRIu64 " s", s);
    }
}

/* A new loop: a new monitor, which restores the earlier loop's history as
 * the recorded loop did (when it did: else it started afresh). */
static int
loop_start(struct replay *rp, const struct fm_history_rec *r)
{
    char err[256];
    bool restore = (rp->mon != NULL) && ((r->flags & FM_HISTORY_F_AUX) != 0);

    if (rp->mon != NULL) {
        *rp->old = rp->mon->st;
        fm_monitor_clear(rp->mon);
    } else {
        rp->mon = calloc(1, sizeof(*rp->mon));
        if (rp->mon == NULL) {
            return ENOMEM;
        }
    }
    if (fm_monitor_init(rp->mon, &rp->opts, rp->cli->resource, rp->kind, rp->cluster) != 0) {
        return ENOMEM;
    }
    if (restore && fm_monitor_restore(rp->mon, rp->old, r->mono_ms * 1000u, err, sizeof(err)) != 0) {
        /* As the loop does with a state it refuses: a fresh engine. */
        rp->mon->history.restored = false;
    }
    rp->have_cert = false;
    rp->foreign = (r->value != rp->params_hash);
    return 0;
}

/* Hand one recorded outcome to the monitor; \p got: its own record of it. */
static void
step(struct replay *rp, const struct fm_history_rec *r, struct fm_history_rec *got)
{
    struct fm_monitor_out out;
    uint64_t now_us = r->mono_ms * 1000u;
    int64_t wall_s = (int64_t) r->wall_s;
    bool aux = (r->flags & FM_HISTORY_F_AUX) != 0;

    if (r->kind == FM_HISTORY_CYCLE) {
        struct fm_monitor_cycle cycle = { .start_us = now_us, .now_us = now_us, .now_wall_s = wall_s };
        struct fm_decide_input in = {
            .cls = r->cls,
            .have_latency = r->have_latency,
            .latency_us = r->have_latency? r->value : 0,
            .have_cert = rp->have_cert,
            .cert_left_s = rp->cert_left_s,
            .maintenance = r->maintenance,
            .n_targets = r->n_targets,
            .n_failed = (r->cls != FM_CLASS_OK)? r->value : 0,
        };

        if ((r->flags & FM_HISTORY_F_IMPAIRED) != 0) {
            cycle.observer_impaired = "this node was impaired (as recorded)";
        }
        if ((r->flags & FM_HISTORY_F_START_ERROR) != 0) {
            cycle.start_error = "as recorded";
        }
        fm_monitor_input_done(rp->mon, &cycle, &in, &out);
    } else if (r->kind == FM_HISTORY_EVENT) {
        fm_monitor_event(rp->mon, "recorded event", aux, now_us, wall_s, &out);
    } else if (r->kind == FM_HISTORY_RESUME) {
        (void) fm_monitor_resume(rp->mon, now_us, wall_s, &out);
    } else {
        (void) fm_monitor_reset(rp->mon, now_us, wall_s, &out);
    }
    memset(got, 0, sizeof(*got));
    if (rp->mon->history.n > 0) {
        *got = rp->mon->history.recs[rp->mon->history.n - 1];
    }
    rp->mon->history.n = 0;
}

static void
print_diff(const struct replay *rp, const struct fm_history_rec *r, const struct fm_history_rec *got)
{
    bool po = rp->opts.publish_only;
    const char *reason = ((got->flags & FM_HISTORY_F_UNSEEN) != 0)? UNSEEN_REASON : rp->mon->st.reason;
    char when[32];

    fmt_wall(when, sizeof(when), r->wall_s);
    if (rp->cli->json) {
        printf("{\"time\":%" PRIu32 ",\"when\":\"%s\",\"input\":\"%s\",\"recorded\":\"%s\",\"replayed\":\"%s\","
               "\"state\":\"%s\",\"reason\":", r->wall_s, when, input_name(r), fm_action_word(r->action, po),
               fm_action_word(got->action, po), fm_state_name(got->state));
        fm_json_string(stdout, reason);
        fputs("}\n", stdout);
        return;
    }
    printf("%-19s  %-8s  %-9s  %-9s  %-8s  %s\n", when, input_name(r), fm_action_word(r->action, po),
           fm_action_word(got->action, po), fm_state_name(got->state), reason);
}

static void
compare(struct replay *rp, const struct fm_history_rec *r, const struct fm_history_rec *got)
{
    struct replay_sum *s = &rp->sum;

    if (s->outcomes++ == 0) {
        s->first_wall_s = r->wall_s;
    }
    s->last_wall_s = r->wall_s;
    s->recorded[r->action & 3u]++;
    s->replayed[got->action & 3u]++;
    s->foreign += rp->foreign? 1 : 0;
    if (r->action != got->action) {
        s->differ++;
        print_diff(rp, r, got);
    }
}

/* "Retry_count 2 -> 5, fall 1 -> 2": the parameters --param changed. */
static void
print_changes(const struct replay *rp)
{
    char before[FM_HISTORY_PARAMS_MAX + 1] = "\n";
    char after[FM_HISTORY_PARAMS_MAX];
    const char *sep = "";
    char *save = NULL;

    fm_decide_opts_format(&rp->recorded, before + 1, sizeof(before) - 1);
    fm_decide_opts_format(&rp->opts, after, sizeof(after));
    printf("# replayed with ");
    for (char *line = strtok_r(after, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        char key[80];
        const char *eq = strchr(line, '=');
        const char *old = NULL;
        size_t old_len = 4;

        snprintf(key, sizeof(key), "\n%.*s", (int) (eq - line + 1), line);
        old = strstr(before, key);
        if (old != NULL) {
            old += strlen(key);
            old_len = strcspn(old, "\n");
            if (strlen(eq + 1) == old_len && strncmp(old, eq + 1, old_len) == 0) {
                continue;
            }
        }
        printf("%s%.*s %.*s -> %s", sep, (int) (eq - line), line, (int) old_len, (old != NULL)? old : "auto",
               eq + 1);
        sep = ", ";
    }
    printf("%s\n", (sep[0] == '\0')? "the recorded parameters (history.params)" : "");
}

static void
print_header(const struct replay *rp, const struct fm_history_rec *recs, size_t n)
{
    char from[32];
    char to[32];

    fmt_wall(from, sizeof(from), recs[0].wall_s);
    fmt_wall(to, sizeof(to), recs[n - 1].wall_s);
    printf("# replay of %s: %zu records from %s to %s\n", rp->cli->resource, n, from, to);
    print_changes(rp);
    printf("#%-18s  %-8s  %-9s  %-9s  %-8s  %s\n", "time", "input", "recorded", "replayed", "state",
           "reason (replayed)");
}

static void
print_summary(const struct replay *rp)
{
    const struct replay_sum *s = &rp->sum;
    uint64_t span_s = (s->last_wall_s > s->first_wall_s)? s->last_wall_s - s->first_wall_s : 0;
    char span[48];

    fmt_span(span, sizeof(span), span_s);
    if (rp->cli->json) {
        printf("{\"summary\":{\"resource\":\"%s\",\"outcomes\":%" PRIu64 ",\"seconds\":%" PRIu64
               ",\"differ\":%" PRIu64 ",\"restarts_recorded\":%" PRIu64 ",\"restarts_replayed\":%" PRIu64
               ",\"failovers_recorded\":%" PRIu64 ",\"failovers_replayed\":%" PRIu64
               ",\"under_other_parameters\":%" PRIu64 "}}\n", rp->cli->resource, s->outcomes, span_s,
               s->differ, s->recorded[FM_ACTION_RESTART], s->replayed[FM_ACTION_RESTART],
               s->recorded[FM_ACTION_FAILOVER], s->replayed[FM_ACTION_FAILOVER], s->foreign);
        return;
    }
    printf("%s: %" PRIu64 " cycles replayed over %s: restarts %" PRIu64 " recorded, %" PRIu64
           " replayed; failovers %" PRIu64 " recorded, %" PRIu64 " replayed; %" PRIu64 " decision%s differ%s\n",
           rp->cli->resource, s->outcomes, span, s->recorded[FM_ACTION_RESTART], s->replayed[FM_ACTION_RESTART],
           s->recorded[FM_ACTION_FAILOVER], s->replayed[FM_ACTION_FAILOVER], s->differ,
           (s->differ == 1)? "" : "s", (s->differ == 1)? "s" : "");
    if (s->foreign > 0) {
        printf("# %" PRIu64 " of them were recorded by a loop with other parameters than history.params "
               "(before a reload): their recorded decisions followed those\n", s->foreign);
    }
}

int
fm_replay_run(struct replay *rp, const struct fm_history_rec *recs, size_t n)
{
    static const struct fm_history_rec first = { .kind = FM_HISTORY_LOOP_START };
    time_t now = time(NULL);
    int rc = 0;

    rp->old = calloc(1, sizeof(*rp->old));
    if (rp->old == NULL) {
        return fm_cli_error("simulate", "out of memory");
    }
    if (rp->cli->have_since && (uint64_t) now > rp->cli->since_ms / 1000u) {
        rp->cut_wall_s = (uint32_t) ((uint64_t) now - rp->cli->since_ms / 1000u);
    }
    if (!rp->cli->json) {
        print_header(rp, recs, n);
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct fm_history_rec *r = &recs[i];
        struct fm_history_rec got;

        if (r->kind == FM_HISTORY_LOOP_START || rp->mon == NULL) {
            struct fm_history_rec start = first;

            start.value = rp->params_hash;
            rc = loop_start(rp, (r->kind == FM_HISTORY_LOOP_START)? r : &start);
            if (r->kind == FM_HISTORY_LOOP_START) {
                continue;
            }
        }
        if (rc != 0) {
            break;
        }
        if (r->kind == FM_HISTORY_CERT) {
            rp->have_cert = true;
            rp->cert_left_s = (int32_t) r->value;
            continue;
        }
        step(rp, r, &got);
        /* Earlier outcomes shape the engine's history, unreported. */
        if (r->wall_s >= rp->cut_wall_s) {
            compare(rp, r, &got);
        }
    }
    if (rc == 0) {
        print_summary(rp);
    }
    if (rp->mon != NULL) {
        fm_monitor_clear(rp->mon);
        free(rp->mon);
    }
    free(rp->old);
    if (rc != 0) {
        return fm_cli_error("simulate", "cannot replay: %s", strerror(rc));
    }
    return (fflush(stdout) == 0)? 0 : EXIT_FAILURE;
}
