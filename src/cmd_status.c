/*
 * faultmon status and faultmon resume: reading and nudging the loops'
 * state directories.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/commands.h>
#include <faultmon/deadline.h>
#include <faultmon/json.h>
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

static const char *
state_label(const struct fm_run_state *st)
{
    if (st->state == FM_STATE_HELD) {
        return "held";
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
print_one_text(const char *resource, const struct fm_run_state *st, int64_t loop_pid)
{
    char buf[1024];

    printf("%s: %s%s\n", shown(resource, buf, sizeof(buf)), state_label(st),
           (loop_pid == 0)? " (loop not running)" : "");
    printf("  reason:        %s\n", (st->reason[0] != '\0')? shown(st->reason, buf, sizeof(buf)) : "-");
    printf("  window:        weight %" PRIu32 "/100, %" PRIu32 " restart(s) asked\n", st->weight,
           st->restarts_in_window);
    printf("  next failure:  %s\n",
           (st->next_failure[0] != '\0')? shown(st->next_failure, buf, sizeof(buf)) : "-");
    printf("  cycles:        %" PRIu64 ", next probe in <= %" PRIu64 " ms, Probe_timeout %" PRIu64 " ms\n",
           st->cycles, st->interval_ms, st->probe_timeout_ms);
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
print_one_json(const char *resource, const struct fm_run_state *st, int64_t loop_pid, bool first)
{
    printf("%s{\"resource\":", first? "" : ",");
    json_shown(resource);
    printf(",\"state\":\"%s\",\"loop_running\":%s,\"ocf_rc\":%d,\"pending\":\"%s\",\"reason\":",
           state_label(st), (loop_pid != 0)? "true" : "false", st->ocf_rc,
           fm_action_name(st->pending));
    json_shown(st->reason);
    printf(",\"weight\":%" PRIu32 ",\"restarts_in_window\":%" PRIu32 ",\"next_failure\":",
           st->weight, st->restarts_in_window);
    json_shown(st->next_failure);
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
               fm_action_name(r->action));
    }
    printf("]}");
}

static int
status_one(const char *resource, bool json, bool first)
{
    char dir[4096];
    char err[512];
    struct fm_run_state *st = calloc(1, sizeof(*st));
    int rc = 0;

    if (st == NULL) {
        return ENOMEM;
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
        return 1;
    }
    if (json) {
        print_one_json(resource, st, fm_state_loop_pid(dir), first);
    } else {
        print_one_text(resource, st, fm_state_loop_pid(dir));
    }
    free(st);
    return 0;
}

int
fm_cmd_status(int argc, char **argv)
{
    bool json = false;
    const char *resource = NULL;
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("Usage: faultmon status [RESOURCE] [--json]\n\n"
                   "Show each monitored resource's state (up, degraded, down, flapping, held),\n"
                   "each target's last result, the failures and restarts inside Retry_interval,\n"
                   "and what the next failure would cause.\n");
            return 0;
        } else if (argv[i][0] == '-' || resource != NULL) {
            return fm_cli_error("status", "unexpected argument '%s' (see faultmon status --help)", argv[i]);
        } else {
            resource = argv[i];
        }
    }
    if (json) {
        printf("{\"resources\":[");
    }
    if (resource != NULL) {
        rc = status_one(resource, json, true);
    } else {
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
            if (status_one(ent->d_name, json, first) == 0) {
                first = false;
            }
        }
        if (dir != NULL) {
            closedir(dir);
        }
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
    int fd = -1;

    if (argc != 2 || argv[1][0] == '-') {
        if (argc == 2 && strcmp(argv[1], "--help") == 0) {
            printf("Usage: faultmon resume RESOURCE\n\n"
                   "Put a service held for manual resume back in service on this node.  Then\n"
                   "let Pacemaker start it here again: pcs resource cleanup RESOURCE.\n");
            return 0;
        }
        fprintf(stderr, "faultmon resume: expected one RESOURCE name (see faultmon resume --help)\n");
        return FM_EXIT_USAGE;
    }
    if (fm_state_dir(argv[1], dir, sizeof(dir)) != 0) {
        return fm_cli_error("resume", "invalid resource name '%s'", argv[1]);
    }
    snprintf(path, sizeof(path), "%s/resume", dir);
    pid = fm_state_loop_pid(dir);
    if (pid != 0) {
        /* The loop owns the state: leave the request and wake it. */
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) {
            fm_cli_error("resume", "cannot write %s: %s", path, strerror(errno));
            return 1;
        }
        close(fd);
        kill((pid_t) pid, SIGUSR1);
        printf("%s: resume requested from the running loop (pid %lld)\n", argv[1], (long long) pid);
        return 0;
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return 1;
    }
    if (fm_state_read(dir, st, err, sizeof(err)) != 0) {
        fm_cli_error("resume", "%s: %s", argv[1], err);
        free(st);
        return 1;
    }
    /* No loop: clear the hold in the file that the next loop will read,
     * as the engine's own resume does, so that the file stays one the
     * reader accepts. */
    st->decide.held = 0;
    st->decide.down = 0;
    st->decide.n_failures = 0;
    st->decide.fail_streak = 0;
    st->decide.fail_worst = FM_CLASS_OK;
    st->decide.ok_streak = 0;
    st->decide.miss_streak = 0;
    st->state = FM_STATE_UP;
    fm_state_clear_pending(st);
    st->action = FM_ACTION_NONE;
    st->weight = 0;
    st->ocf_rc = fm_state_ocf_rc(st);
    st->next_failure[0] = '\0';    /* the next loop works it out */
    snprintf(st->reason, sizeof(st->reason), "resumed by an administrator");
    if (fm_state_write(dir, st, err, sizeof(err)) != 0) {
        fm_cli_error("resume", "%s", err);
        free(st);
        return 1;
    }
    free(st);
    printf("%s: resumed; run 'pcs resource cleanup %s' to let Pacemaker start it here\n", argv[1], argv[1]);
    return 0;
}
