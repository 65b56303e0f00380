/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon status and faultmon resume: reading and nudging the loops'
 * state directories.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/accesslog.h>
#include <faultmon/commands.h>
#include <faultmon/deadline.h>
#include <faultmon/json.h>
#include <faultmon/recovery.h>
#include <faultmon/state.h>
#include <faultmon/text.h>

/* A text of the state directory as a user sees it: the file could be old,
 * made by hand or hostile, so it is redacted and escaped here again. */
static const char *
shown(const char *text, char *buf, size_t buf_len)
{
    fm_text_format(buf, buf_len, "%s", text);
    return buf;
}

/* fm_json_string() of a shown text. */
static void
json_shown(const char *text)
{
    char buf[1024];

    fm_json_string(stdout, shown(text, buf, sizeof(buf)));
}

/*
 * Exit codes of `faultmon status`, for scripts (README, faultmon(1)); with
 * several resources the most urgent wins, in the order of status_rank().
 */
enum status_exit {
    STATUS_UP = 0,          /* the loop runs and the service is up */
    STATUS_DEGRADED = 1,    /* degraded or flapping: watch it */
    STATUS_DOWN = 2,        /* down, recovering, failed over, held, unhealthy */
    STATUS_STOPPED = 3,     /* no loop runs: stopped, or the loop died */
    STATUS_UNKNOWN = 4,     /* no state on this node, or a state not trusted */
};

/* What `status` says about one resource: a label and its exit code. */
struct status_view {
    const char *label;
    enum status_exit code;
    bool running;           /* a loop runs for it */
    bool publish_only;      /* httpmon: a verdict, not a recovery */
    int64_t age_s;          /* since the last write of the state */
    char policy[512];       /* STATE_DIR/policy: a stricter policy the agent chose */
    bool have_access_log;   /* STATE_DIR/accesslog: access_log's rates */
    struct fm_accesslog_rate access_log;
};

static int
status_rank(enum status_exit code)
{
    switch (code) {
        case STATUS_DOWN:     return 4;
        case STATUS_DEGRADED: return 3;
        case STATUS_STOPPED:  return 2;
        case STATUS_UNKNOWN:  return 1;
        case STATUS_UP:       return 0;
    }
    return 0;
}

/* The last loop's decision, whether a loop still runs or not. */
static const char *
decision_label(const struct fm_run_state *st, bool publish_only)
{
    if (st->state == FM_STATE_HELD) {
        return "held";
    }
    if (publish_only && st->state == FM_STATE_DOWN) {
        return "unhealthy";
    }
    if (st->pending == FM_ACTION_FAILOVER) {
        return "failing-over";
    }
    if (st->pending == FM_ACTION_RESTART) {
        return "restarting";
    }
    return fm_state_name(st->state);
}

static void
status_view(const char *dir, const struct fm_run_state *st, struct status_view *v)
{
    char path[4200];
    bool failed_over = st->pending == FM_ACTION_FAILOVER
                       || (st->decide.down != 0 && st->decide.last_action == FM_ACTION_FAILOVER);
    int64_t now_s = (int64_t) time(NULL);

    v->running = fm_state_loop_pid(dir) != 0;
    v->publish_only = strcmp(st->kind, FM_KIND_HTTPMON) == 0;
    v->age_s = (now_s > st->updated_wall_s)? now_s - st->updated_wall_s : 0;
    v->code = STATUS_DOWN;
    if (!v->running) {
        /* What the last loop left: only a verdict that keeps the service
         * off this node still matters; the rest is history. */
        snprintf(path, sizeof(path), "%s/agent", dir);
        if (st->state == FM_STATE_HELD) {
            v->label = "held";
        } else if (failed_over && !v->publish_only) {
            v->label = "failed-over";
        } else {
            v->code = STATUS_STOPPED;
            /* A loop that died leaves its PID in the lock file, and the
             * agent's record outlives its loop only then (the agent's stop
             * removes both). */
            v->label = (fm_state_loop_died(dir) != 0 || access(path, F_OK) == 0)?
                       "loop-not-running" : "stopped";
        }
        return;
    }
    v->label = decision_label(st, v->publish_only);
    if (st->pending == FM_ACTION_NONE && st->state == FM_STATE_UP) {
        v->code = STATUS_UP;
    } else if (st->pending == FM_ACTION_NONE
               && (st->state == FM_STATE_DEGRADED || st->state == FM_STATE_FLAPPING)) {
        v->code = STATUS_DEGRADED;
    }
}

/* "75 s", "12 min 5 s", "3 h 20 min", "2 d 4 h" */
static const char *
fmt_age(char *buf, size_t len, int64_t s)
{
    if (s < 60) {
        snprintf(buf, len, "%lld s", (long long) s);
    } else if (s < 3600) {
        snprintf(buf, len, "%lld min %lld s", (long long) (s / 60), (long long) (s % 60));
    } else if (s < 86400) {
        snprintf(buf, len, "%lld h %lld min", (long long) (s / 3600), (long long) (s % 3600 / 60));
    } else {
        snprintf(buf, len, "%lld d %lld h", (long long) (s / 86400), (long long) (s % 86400 / 3600));
    }
    return buf;
}

/* The first line of STATE_DIR/policy, written by the agent's start when
 * the loop runs with a stricter policy than its parameters say. */
static void
read_policy(const char *dir, char *buf, size_t buf_len)
{
    char path[4200];
    FILE *in = NULL;

    buf[0] = '\0';
    snprintf(path, sizeof(path), "%s/policy", dir);
    in = fopen(path, "re");
    if (in == NULL) {
        return;
    }
    if (fgets(buf, (int) buf_len, in) == NULL) {
        buf[0] = '\0';
    }
    buf[strcspn(buf, "\n")] = '\0';
    fclose(in);
}

static void
print_one_text(const char *resource, const struct fm_run_state *st, const struct status_view *v)
{
    char age[64];
    char buf[1024];

    fmt_age(age, sizeof(age), v->age_s);
    if (v->running) {
        printf("%s: %s\n", shown(resource, buf, sizeof(buf)), v->label);
    } else {
        printf("%s: %s (no fault-monitor loop runs; its last result is %s old)\n",
               shown(resource, buf, sizeof(buf)), v->label, age);
    }
    printf("  agent:         %s\n", v->publish_only?
           "httpmon: a node attribute carries the verdict; no recovery" :
           "apache: recovery is a restart or a failover");
    printf("  reason:        %s\n", (st->reason[0] != '\0')? shown(st->reason, buf, sizeof(buf)) : "-");
    if (v->policy[0] != '\0') {
        printf("  policy:        %s\n", shown(v->policy, buf, sizeof(buf)));
    }
    if (v->publish_only) {
        printf("  window:        weight %" PRIu32 "/100\n", st->weight);
    } else {
        printf("  window:        weight %" PRIu32 "/100, %" PRIu32 " restart(s) asked\n", st->weight,
               st->restarts_in_window);
    }
    if (v->running) {
        printf("  next failure:  %s\n",
               (st->next_failure[0] != '\0')? shown(st->next_failure, buf, sizeof(buf)) : "-");
        printf("  cycles:        %" PRIu64 ", next probe in <= %" PRIu64 " ms, Probe_timeout %" PRIu64
               " ms\n", st->cycles, st->interval_ms, st->probe_timeout_ms);
        printf("  last results:  %s ago\n", age);
    } else {
        printf("  cycles:        %" PRIu64 " (none to come until the agent starts a loop)\n", st->cycles);
        printf("  last results:  %s ago, when the last loop stopped\n", age);
    }
    if (v->have_access_log) {
        printf("  access log:    %" PRIu64 " of %" PRIu64 " replies 5xx (%.1f%%), %" PRIu64 " slow, in %" PRIu64
               " s\n", v->access_log.errors, v->access_log.requests,
               (v->access_log.requests > 0)? 100.0 * (double) v->access_log.errors
                                              / (double) v->access_log.requests : 0.0,
               v->access_log.slow, v->access_log.window_ms / 1000u);
    }
    for (size_t i = 0; i < st->n_targets; i++) {
        const struct fm_state_target *t = &st->targets[i];

        printf("  %-40s %-8s %-18s %9.3f ms", shown(t->target, buf, sizeof(buf)), fm_class_name(t->cls),
               fm_reason_name(t->reason), (double) t->latency_us / 1000.0);
        if (t->http_status != 0) {
            printf("  HTTP %d", t->http_status);
        }
        putchar('\n');
    }
}

static void
print_one_json(const char *resource, const struct fm_run_state *st, const struct status_view *v, bool first)
{
    printf("%s{\"resource\":", first? "" : ",");
    json_shown(resource);
    printf(",\"kind\":\"%s\",\"status\":\"%s\",\"exit\":%d,\"state\":\"%s\",\"loop_running\":%s,"
           "\"age_s\":%" PRId64, v->publish_only? FM_KIND_HTTPMON : FM_KIND_APACHE, v->label, (int) v->code,
           decision_label(st, v->publish_only), v->running? "true" : "false", v->age_s);
    if (!v->publish_only) {
        /* httpmon's monitor always answers 0; its verdict is the attribute. */
        printf(",\"ocf_rc\":%d", st->ocf_rc);
    }
    printf(",\"pending\":\"%s\",\"reason\":", fm_action_word(st->pending, v->publish_only));
    json_shown(st->reason);
    if (v->policy[0] != '\0') {
        printf(",\"policy\":");
        json_shown(v->policy);
    }
    printf(",\"weight\":%" PRIu32, st->weight);
    if (!v->publish_only) {
        printf(",\"restarts_in_window\":%" PRIu32, st->restarts_in_window);
    }
    printf(",\"next_failure\":");
    json_shown(st->next_failure);
    if (v->have_access_log) {
        printf(",\"access_log\":{\"requests\":%" PRIu64 ",\"errors_5xx\":%" PRIu64 ",\"slow\":%" PRIu64
               ",\"window_s\":%" PRIu64 "}", v->access_log.requests, v->access_log.errors, v->access_log.slow,
               v->access_log.window_ms / 1000u);
    }
    printf(",\"cycles\":%" PRIu64 ",\"updated\":%" PRId64 ",\"targets\":[", st->cycles, st->updated_wall_s);
    for (size_t i = 0; i < st->n_targets; i++) {
        const struct fm_state_target *t = &st->targets[i];

        printf("%s{\"target\":", (i > 0)? "," : "");
        json_shown(t->target);
        printf(",\"verdict\":\"%s\",\"reason\":\"%s\",\"status\":%d,\"latency_us\":%" PRIu64 "}",
               fm_class_name(t->cls), fm_reason_name(t->reason), t->http_status, t->latency_us);
    }
    printf("],\"history\":[");
    for (size_t i = 0; i < st->n_records; i++) {
        const struct fm_state_record *r = &st->records[i];

        printf("%s{\"time\":%" PRId64 ",\"verdict\":\"%s\",\"latency_us\":%" PRIu64 ",\"action\":\"%s\"}",
               (i > 0)? "," : "", r->wall_s, fm_class_name(r->cls), r->latency_us,
               fm_action_word(r->action, v->publish_only));
    }
    printf("]}");
}

/* \return an enum status_exit code, or FM_EXIT_USAGE */
static int
status_one(const char *resource, bool json, bool first)
{
    char dir[4096];
    char err[512];
    struct fm_run_state *st = calloc(1, sizeof(*st));
    struct status_view v;
    int rc = 0;

    if (st == NULL) {
        return STATUS_UNKNOWN;
    }
    if (fm_state_dir(resource, dir, sizeof(dir)) != 0) {
        free(st);
        return fm_cli_error("status", "invalid resource name '%s'", resource);
    }
    rc = fm_state_read(dir, st, err, sizeof(err));
    if (rc != 0) {
        /* A file the loop would refuse is no verdict, whatever it says. */
        fm_cli_error("status", "%s: %s%s", resource,
                     (rc == ENOENT)? "no state (never monitored on this node)" : "no verdict: ",
                     (rc == ENOENT)? "" : err);
        free(st);
        return STATUS_UNKNOWN;
    }
    memset(&v, 0, sizeof(v));
    status_view(dir, st, &v);
    read_policy(dir, v.policy, sizeof(v.policy));
    v.have_access_log = (fm_state_accesslog_read(dir, &v.access_log, &(uint64_t) { 0 }) == 0);
    if (json) {
        print_one_json(resource, st, &v, first);
    } else {
        print_one_text(resource, st, &v);
    }
    free(st);
    return (int) v.code;
}

/* Every resource with a state directory on this node: the first exit
 * status of 2, 1, 3, 4, 0 that applies; 4 when there is none. */
static int
status_all(bool json)
{
    int rc = 0;
    bool any = false;
    char base[4096];
    DIR *dir = NULL;
    struct dirent *ent = NULL;
    bool first = true;

    fm_state_dir("x", base, sizeof(base));
    base[strlen(base) - 2] = '\0';
    dir = opendir(base);
    while (dir != NULL && (ent = readdir(dir)) != NULL) {
        if (ent->d_name[0] == '.' || !fm_resource_name_valid(ent->d_name)) {
            continue;
        }
        int one = status_one(ent->d_name, json, first);

        if (one != STATUS_UNKNOWN && one != FM_EXIT_USAGE) {
            first = false;      /* it printed something */
        }
        if (!any || status_rank((enum status_exit) one) > status_rank((enum status_exit) rc)) {
            rc = one;
        }
        any = true;
    }
    if (dir != NULL) {
        closedir(dir);
    }
    if (!any) {
        rc = STATUS_UNKNOWN;
    }
    if (first && !json) {
        /* Nothing printed: say so rather than leave an empty screen. */
        printf("no resource is monitored on this node (no state in %s)\n", base);
    }
    return rc;
}

int
fm_cmd_status(int argc, char **argv)
{
    bool json = false;
    bool cluster = false;
    const char *resource = NULL;
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--json=", 7) == 0) {
            return fm_cli_error("status", "option '--json' takes no value: '%s' (see faultmon status --help)",
                                argv[i]);
        } else if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--cluster") == 0) {
            cluster = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("Usage: faultmon status [RESOURCE] [--json]\n"
                   "       faultmon status --cluster [--json]\n\n"
                   "Show each monitored resource's state, each target's last result and its age,\n"
                   "the failures and restarts inside Retry_interval, and what the next failure\n"
                   "would cause.  With --cluster: every node's view of every faultmon resource\n"
                   "(state and weight) and dependency (Dependency_list), from the node\n"
                   "attributes in the CIB (exit status 0, or 4 when it cannot be read).\n\n"
                   "Exit status (with no RESOURCE: the first that applies to any of them, in\n"
                   "this order: 2, 1, 3, 4, 0):\n"
                   "  0  up: the loop runs and the last cycle was ok\n"
                   "  1  degraded or flapping\n"
                   "  2  down, restarting, failing-over, failed-over, held, or (httpmon) unhealthy\n"
                   "  3  stopped: no fault-monitor loop runs (loop-not-running: it died)\n"
                   "  4  no state on this node (never monitored here), or a state not trusted\n"
                   " 64  usage error\n");
            return 0;
        } else if (argv[i][0] == '-' || resource != NULL) {
            return fm_cli_error("status", "unexpected argument '%s' (see faultmon status --help)", argv[i]);
        } else {
            resource = argv[i];
        }
    }
    if (cluster) {
        return (resource == NULL)? fm_cmd_status_cluster(json)
                                 : fm_cli_error("status", "--cluster shows every resource: no RESOURCE");
    }
    if (json) {
        printf("{\"resources\":[");
    }
    if (resource != NULL) {
        rc = status_one(resource, json, true);
    } else {
        rc = status_all(json);
    }
    if (json) {
        printf("]}\n");
    }
    return rc;
}

int
fm_cmd_resume(int argc, char **argv)
{
    char dir[4096];
    char path[4200];
    char err[512];
    struct fm_run_state *st = NULL;
    int64_t pid = 0;
    int rc = 0;

    if (argc != 2 || argv[1][0] == '-') {
        if (argc == 2 && strcmp(argv[1], "--help") == 0) {
            printf("Usage: faultmon resume RESOURCE\n\n"
                   "Put a service held for manual resume back in service on this node.  Then\n"
                   "let Pacemaker start it here again: pcs resource cleanup RESOURCE.\n\n"
                   "Exit status:\n"
                   "  0  resumed, or resume requested from the running loop\n"
                   "  1  the state cannot be read or written\n"
                   "  2  nothing is held for manual resume on this node: nothing changed\n"
                   " 64  usage error\n");
            return 0;
        }
        if (argc >= 2 && argv[1][0] == '-') {
            return fm_cli_error("resume", "unknown option '%s' (see faultmon resume --help)", argv[1]);
        }
        fprintf(stderr, "faultmon resume: expected one RESOURCE name (see faultmon resume --help)\n");
        return FM_EXIT_USAGE;
    }
    if (fm_state_dir(argv[1], dir, sizeof(dir)) != 0) {
        return fm_cli_error("resume", "invalid resource name '%s'", argv[1]);
    }
    snprintf(path, sizeof(path), "%s/%s", dir, FM_RECOVERY_RESUME);
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return 1;
    }
    /* Nothing held (a state the reader trusts says so): say it and change
     * nothing.  "resume requested" would send an administrator on the wrong
     * node, or a script, on to a cleanup that lifts no hold. */
    if (fm_state_read(dir, st, err, sizeof(err)) == 0 && st->decide.held == 0 && st->state != FM_STATE_HELD) {
        printf("%s: nothing is held for manual resume on this node (%s); nothing changed\n", argv[1],
               fm_state_name(st->state));
        free(st);
        return 2;
    }
    pid = fm_state_loop_pid(dir);
    if (pid != 0) {
        /* The loop owns the state: leave the request and wake it. */
        rc = fm_recovery_file_mark(dir, FM_RECOVERY_RESUME, true);
        if (rc != 0) {
            fm_cli_error("resume", "cannot write %s: %s", path, strerror(rc));
            free(st);
            return 1;
        }
        kill((pid_t) pid, SIGUSR1);
        printf("%s: resume requested from the running loop (pid %lld)\n", argv[1], (long long) pid);
        free(st);
        return 0;
    }
    if (fm_state_read(dir, st, err, sizeof(err)) != 0) {
        fm_cli_error("resume", "%s: %s", argv[1], err);
        free(st);
        return 1;
    }
    /* No loop: clear the hold in the file that the next loop will read,
     * as the engine's own resume does, so that the file stays one the
     * reader accepts. */
    fm_state_forget(st, FM_STATE_FORGET_HOLD);
    if (fm_state_write(dir, st, err, sizeof(err)) != 0) {
        fm_cli_error("resume", "%s", err);
        free(st);
        return 1;
    }
    free(st);
    printf("%s: resumed; run 'pcs resource cleanup %s' to let Pacemaker start it here\n", argv[1], argv[1]);
    return 0;
}
