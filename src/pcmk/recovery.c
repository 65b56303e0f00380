/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the pending-recovery protocol between the loop and the agents
 * (see faultmon/recovery.h).  libc only: the agent program links it.
 */
#include <config.h>

#include <faultmon/recovery.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/kvfile.h>
#include <faultmon/ocf_rc.h>

#define RECOVERY_PATH_MAX 4200
#define RECOVERY_LINE_MAX 64
/* The largest file of the protocol believed: `asked` holds 64 short lines,
 * the others one. */
#define RECOVERY_FILE_MAX_BYTES 65536

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
    return fm_ocf_rc_for_state(pending, dec->action, publish_only);
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

/*
 * The bytes of DIR/NAME, only when it is a regular file itself:
 * fm_kvfile_load() refuses a symbolic link or a FIFO put there at once,
 * without blocking, since what it says could not be trusted.
 * \return 0 (free *text), ENOENT when there is none, another errno
 */
static int
recovery_load(const char *dir, const char *name, char **text)
{
    char path[RECOVERY_PATH_MAX];
    size_t len = 0;

    recovery_path(path, sizeof(path), dir, name);
    *text = NULL;
    return fm_kvfile_load(path, RECOVERY_FILE_MAX_BYTES, text, &len, NULL, 0);
}

bool
fm_recovery_file_exists(const char *dir, const char *name)
{
    char path[RECOVERY_PATH_MAX];
    struct stat sb;

    /* Only a marker one of the two sides made counts: a link or a FIFO
     * says nothing. */
    recovery_path(path, sizeof(path), dir, name);
    return lstat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int
fm_recovery_file_mark(const char *dir, const char *name, bool present)
{
    char path[RECOVERY_PATH_MAX];
    struct stat sb;
    int fd = -1;
    int rc = 0;

    recovery_path(path, sizeof(path), dir, name);
    if (!present) {
        return (unlink(path) == 0 || errno == ENOENT)? 0 : errno;
    }
    /* Never through a link, and never waiting on a FIFO's reader. */
    fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (fd < 0) {
        return errno;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        rc = EINVAL;
    } else if (futimens(fd, NULL) != 0) {
        rc = errno;     /* when it was marked: `reported` is bounded by it */
    }
    close(fd);
    return rc;
}

bool
fm_recovery_reported(const char *dir)
{
    char path[RECOVERY_PATH_MAX];
    struct stat sb;
    time_t now = time(NULL);

    recovery_path(path, sizeof(path), dir, FM_RECOVERY_REPORTED);
    if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        return false;
    }
    /* Marked when the request was taken (fm_recovery_file_mark() sets the
     * time); a clock set back counts as now. */
    return sb.st_mtime >= now || now - sb.st_mtime < FM_RECOVERY_UNDER_WAY_MAX_S;
}

int
fm_recovery_forget(const char *dir)
{
    int rc = fm_recovery_file_mark(dir, FM_RECOVERY_ASKED, false);
    int rc_cause = fm_recovery_file_mark(dir, FM_RECOVERY_CAUSE, false);

    return (rc != 0)? rc : rc_cause;
}

static void
write_text(FILE *out, const void *data)
{
    fputs(data, out);
}

unsigned
fm_recovery_asked_count(const char *dir)
{
    char *text = NULL;
    unsigned n = 0;

    if (recovery_load(dir, FM_RECOVERY_ASKED, &text) != 0) {
        return 0;
    }
    /* Its lines, the last one with or without its newline. */
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '\n' || p[1] == '\0') {
            n++;
        }
    }
    free(text);
    return n;
}

int
fm_recovery_note_asked(const char *dir, int64_t now_wall_s, int64_t window_s)
{
    char *old = NULL;
    char *text = calloc(FM_RECOVERY_ASKED_MAX + 1, RECOVERY_LINE_MAX);
    char *save = NULL;
    size_t used = 0;
    size_t n = 0;
    int rc = 0;

    if (text == NULL) {
        return ENOMEM;
    }
    /* A file we cannot read as ours starts the list afresh. */
    if (recovery_load(dir, FM_RECOVERY_ASKED, &old) != 0) {
        old = NULL;
    }
    /* One slot is kept for this request. */
    for (char *line = (old != NULL)? strtok_r(old, "\n", &save) : NULL;
         line != NULL && n < FM_RECOVERY_ASKED_MAX - 1; line = strtok_r(NULL, "\n", &save)) {
        long long t = strtoll(line, NULL, 10);

        if (t > 0 && now_wall_s - t <= window_s) {
            used += (size_t) snprintf(text + used, RECOVERY_LINE_MAX, "%lld\n", t);
            n++;
        }
    }
    free(old);
    snprintf(text + used, RECOVERY_LINE_MAX, "%lld\n", (long long) now_wall_s);
    rc = fm_kvfile_write(dir, FM_RECOVERY_ASKED, write_text, text);
    free(text);
    return rc;
}

int
fm_recovery_write_cause(const char *dir, const char *cause)
{
    return fm_kvfile_write(dir, FM_RECOVERY_CAUSE, write_text, cause);
}

/* The first line of DIR/NAME into \p buf ("" when it cannot be read). */
static int
read_first_line(const char *dir, const char *name, char *buf, size_t buf_len)
{
    char *text = NULL;
    int rc = recovery_load(dir, name, &text);

    buf[0] = '\0';
    if (rc != 0) {
        return rc;
    }
    snprintf(buf, buf_len, "%.*s", (int) strcspn(text, "\n"), text);
    free(text);
    return 0;
}

int
fm_recovery_read_cause(const char *dir, char *cause, size_t cause_len)
{
    return read_first_line(dir, FM_RECOVERY_CAUSE, cause, cause_len);
}

static void
write_event(FILE *out, const void *data)
{
    const char *cause = data;

    /* One line: the loop reads only the first. */
    fprintf(out, "complete %.*s\n", (int) strcspn(cause, "\n"), cause);
}

int
fm_recovery_post_event(const char *dir, const char *cause)
{
    /* An old answer must not be read as this event's. */
    fm_recovery_file_mark(dir, FM_RECOVERY_EVENT_SAME, false);
    return fm_kvfile_write(dir, FM_RECOVERY_EVENT, write_event, cause);
}

bool
fm_recovery_event_waiting(const char *dir)
{
    char path[RECOVERY_PATH_MAX];
    struct stat sb;

    /* Whatever is there: the loop removes it once it has decided. */
    recovery_path(path, sizeof(path), dir, FM_RECOVERY_EVENT);
    return lstat(path, &sb) == 0;
}

void
fm_recovery_withdraw_event(const char *dir)
{
    fm_recovery_file_mark(dir, FM_RECOVERY_EVENT, false);
}

bool
fm_recovery_take_event_same(const char *dir)
{
    if (!fm_recovery_file_exists(dir, FM_RECOVERY_EVENT_SAME)) {
        return false;
    }
    fm_recovery_file_mark(dir, FM_RECOVERY_EVENT_SAME, false);
    return true;
}

int
fm_recovery_read_event(const char *dir, char *cause, size_t cause_len)
{
    static const char prefix[] = "complete ";
    char line[600] = "";
    int rc = read_first_line(dir, FM_RECOVERY_EVENT, line, sizeof(line));

    if (rc == ENOENT) {
        return ENOENT;
    }
    if (rc != 0 || strncmp(line, prefix, sizeof(prefix) - 1) != 0) {
        /* A link, a FIFO or another line: no event to judge. */
        snprintf(cause, cause_len, "%s", line);
        return EINVAL;
    }
    snprintf(cause, cause_len, "%s", line + sizeof(prefix) - 1);
    return 0;
}
