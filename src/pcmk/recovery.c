/*
 * faultmon: the pending-recovery protocol between the loop and the agents
 * (see faultmon/recovery.h).  libc only: the agent program links it.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <faultmon/kvfile.h>
#include <faultmon/ocf_rc.h>
#include <faultmon/recovery.h>

#define RECOVERY_PATH_MAX 4200
#define RECOVERY_LINE_MAX 64

enum fm_action
fm_recovery_pending(enum fm_action pending, const struct fm_decision *dec, bool publish_only)
{
    if (publish_only) {
        return FM_ACTION_NONE;
    }
    if (dec->action == FM_ACTION_RESTART || dec->action == FM_ACTION_FAILOVER) {
        return dec->action;
    }
    if (dec->state == FM_STATE_UP) {
        /* Up again while still running: nobody carried the recovery out
         * (no cluster, or the service came back by itself); it is moot. */
        return FM_ACTION_NONE;
    }
    return pending;
}

int
fm_recovery_ocf_rc(enum fm_action pending, const struct fm_decision *dec, bool publish_only)
{
    if (publish_only) {
        return 0;                   /* httpmon answers 0 and publishes */
    }
    return (int) fm_ocf_rc_for_action((pending != FM_ACTION_NONE)? pending : dec->action);
}

bool
fm_recovery_state_stale(const struct fm_run_state *st, uint64_t now_mono_us, uint64_t *age_s)
{
    uint64_t stale_us = (2 * (st->interval_ms + st->probe_timeout_ms) + FM_RECOVERY_STALE_GRACE_MS) * 1000u;

    if (age_s != NULL) {
        *age_s = (now_mono_us > st->updated_mono_us)? (now_mono_us - st->updated_mono_us) / 1000000u : 0;
    }
    return st->updated_mono_us + stale_us < now_mono_us;
}

enum fm_refusal
fm_recovery_start_refusal(const struct fm_run_state *st, bool resume_requested)
{
    if (st->pending == FM_ACTION_FAILOVER) {
        return (st->decide.held != 0)? FM_REFUSAL_HELD_FAILOVER : FM_REFUSAL_FAILOVER;
    }
    if (st->decide.held != 0 && !resume_requested) {
        return FM_REFUSAL_HELD;
    }
    return FM_REFUSAL_NONE;
}

int
fm_recovery_refuse_once(const char *dir, struct fm_run_state *st, char *err, size_t err_len)
{
    fm_state_clear_pending(st);
    return fm_state_write(dir, st, err, err_len);
}

static void
recovery_path(char *buf, size_t buf_len, const char *dir, const char *name)
{
    snprintf(buf, buf_len, "%s/%s", dir, name);
}

bool
fm_recovery_file_exists(const char *dir, const char *name)
{
    char path[RECOVERY_PATH_MAX];

    recovery_path(path, sizeof(path), dir, name);
    return access(path, F_OK) == 0;
}

int
fm_recovery_file_mark(const char *dir, const char *name, bool present)
{
    char path[RECOVERY_PATH_MAX];
    int fd = -1;

    recovery_path(path, sizeof(path), dir, name);
    if (!present) {
        return (unlink(path) == 0 || errno == ENOENT)? 0 : errno;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        return errno;
    }
    close(fd);
    return 0;
}

static void
write_text(FILE *out, const void *data)
{
    fputs(data, out);
}

int
fm_recovery_note_asked(const char *dir, int64_t now_wall_s, int64_t window_s)
{
    char path[RECOVERY_PATH_MAX];
    char line[RECOVERY_LINE_MAX];
    char *text = calloc(FM_RECOVERY_ASKED_MAX + 1, sizeof(line));
    size_t used = 0;
    size_t n = 0;
    FILE *in = NULL;
    int rc = 0;

    if (text == NULL) {
        return ENOMEM;
    }
    recovery_path(path, sizeof(path), dir, FM_RECOVERY_ASKED);
    in = fopen(path, "re");
    /* One slot is kept for this request. */
    while (in != NULL && fgets(line, sizeof(line), in) != NULL && n < FM_RECOVERY_ASKED_MAX - 1) {
        long long t = strtoll(line, NULL, 10);

        if (t > 0 && now_wall_s - t <= window_s) {
            used += (size_t) snprintf(text + used, sizeof(line), "%lld\n", t);
            n++;
        }
    }
    if (in != NULL) {
        fclose(in);
    }
    snprintf(text + used, sizeof(line), "%lld\n", (long long) now_wall_s);
    rc = fm_kvfile_write(dir, FM_RECOVERY_ASKED, write_text, text);
    free(text);
    return rc;
}

int
fm_recovery_write_cause(const char *dir, const char *cause)
{
    return fm_kvfile_write(dir, FM_RECOVERY_CAUSE, write_text, cause);
}

int
fm_recovery_read_event(const char *dir, char *cause, size_t cause_len)
{
    static const char prefix[] = "complete ";
    char path[RECOVERY_PATH_MAX];
    char line[600] = "";
    FILE *in = NULL;

    recovery_path(path, sizeof(path), dir, FM_RECOVERY_EVENT);
    in = fopen(path, "re");
    if (in == NULL) {
        return ENOENT;
    }
    if (fgets(line, sizeof(line), in) == NULL) {
        line[0] = '\0';
    }
    fclose(in);
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, prefix, sizeof(prefix) - 1) != 0) {
        snprintf(cause, cause_len, "%s", line);
        return EINVAL;
    }
    snprintf(cause, cause_len, "%s", line + sizeof(prefix) - 1);
    return 0;
}
