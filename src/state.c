/*
 * faultmon: the state directory of a resource.  Writes are atomic; reads
 * trust nothing (a truncated, corrupt or foreign file is an error, never a
 * decision).
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/state.h>
#include <faultmon/target.h>

#define FM_STATE_HEADER "faultmon-state 1"
#define FM_STATE_MAX_BYTES (256 * 1024)

static int
state_err(char *err, size_t err_len, int rc, const char *fmt, ...)
{
    va_list ap;

    if (err != NULL && err_len > 0) {
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

bool
fm_resource_name_valid(const char *name)
{
    size_t len = (name != NULL)? strlen(name) : 0;

    if (len == 0 || len >= FM_RESOURCE_NAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char) name[i]) && strchr("._-:", name[i]) == NULL) {
            return false;
        }
    }
    return true;
}

int
fm_state_dir(const char *resource, char *buf, size_t buf_len)
{
    const char *base = getenv("FAULTMON_STATE_DIR");
    int n = 0;

    if (!fm_resource_name_valid(resource)) {
        return EINVAL;
    }
    if (base == NULL || base[0] != '/') {
        base = FM_STATE_DIR;
    }
    n = snprintf(buf, buf_len, "%s/%s", base, resource);
    return (n < 0 || (size_t) n >= buf_len)? ENAMETOOLONG : 0;
}

int
fm_state_dir_create(const char *dir)
{
    char parent[4096];
    char *slash = NULL;
    struct stat st;

    snprintf(parent, sizeof(parent), "%s", dir);
    slash = strrchr(parent, '/');
    if (slash != NULL && slash != parent) {
        *slash = '\0';
        if (mkdir(parent, 0755) != 0 && errno != EEXIST) {
            return errno;
        }
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        return errno;
    }
    if (lstat(dir, &st) != 0) {
        return errno;
    }
    if (!S_ISDIR(st.st_mode)) {
        return ENOTDIR;
    }
    /* A directory left with wider rights (by hand, or an old version)
     * would let others read probe records: fix it. */
    if ((st.st_mode & 0777) != 0700 && chmod(dir, 0700) != 0) {
        return errno;
    }
    return 0;
}

/* Text fields are one line each; anything else is replaced. */
static void
put_text(FILE *out, const char *key, const char *text)
{
    fprintf(out, "%s=", key);
    for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++) {
        fputc((*p < 0x20 || *p == 0x7f)? '?' : *p, out);
    }
    fputc('\n', out);
}

static void
write_body(FILE *out, const struct fm_run_state *st)
{
    const struct fm_decide_state *d = &st->decide;

    fprintf(out, FM_STATE_HEADER "\n");
    put_text(out, "resource", st->resource);
    fprintf(out, "pid=%" PRId64 "\n", st->pid);
    fprintf(out, "updated_mono_us=%" PRIu64 "\n", st->updated_mono_us);
    fprintf(out, "updated_wall_s=%" PRId64 "\n", st->updated_wall_s);
    fprintf(out, "interval_ms=%" PRIu64 "\n", st->interval_ms);
    fprintf(out, "probe_timeout_ms=%" PRIu64 "\n", st->probe_timeout_ms);
    fprintf(out, "cycles=%" PRIu64 "\n", st->cycles);
    fprintf(out, "state=%d\n", (int) st->state);
    fprintf(out, "action=%d\n", (int) st->action);
    fprintf(out, "ocf_rc=%d\n", st->ocf_rc);
    put_text(out, "reason", st->reason);
    fprintf(out, "pending=%d\n", (int) st->pending);
    fprintf(out, "weight=%" PRIu32 "\n", st->weight);
    fprintf(out, "restarts_in_window=%" PRIu32 "\n", st->restarts_in_window);
    put_text(out, "next_failure", st->next_failure);

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
    for (size_t i = 0; i < st->n_targets; i++) {
        const struct fm_state_target *t = &st->targets[i];

        fprintf(out, "target=%d %d %d %" PRIu64 " ", (int) t->cls, (int) t->reason,
                t->http_status, t->latency_us);
        put_text(out, "", t->target);
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
    char tmp[4096];
    char path[4096];
    FILE *out = NULL;
    int fd = -1;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s/.%s.%ld.tmp", dir, name, (long) getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        return errno;
    }
    out = fdopen(fd, "w");
    if (out == NULL) {
        rc = errno;
        close(fd);
        unlink(tmp);
        return rc;
    }
    write_fn(out, data);
    if (fflush(out) != 0 || fsync(fd) != 0) {
        rc = errno;
    }
    if (fclose(out) != 0 && rc == 0) {
        rc = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        return rc;
    }
    /* Make the rename itself durable. */
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    return 0;
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
        return state_err(err, err_len, rc, "cannot write %s/state: %s", dir, strerror(rc));
    }
    return 0;
}

static bool
parse_i64(const char *text, int64_t *out)
{
    char *end = NULL;
    long long v = 0;

    errno = 0;
    v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0') {
        return false;
    }
    *out = (int64_t) v;
    return true;
}

static bool
parse_u64(const char *text, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v = 0;

    if (!isdigit((unsigned char) text[0])) {
        return false;
    }
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0') {
        return false;
    }
    *out = (uint64_t) v;
    return true;
}

static bool
parse_int_range(const char *text, int lo, int hi, int *out)
{
    int64_t v = 0;

    if (!parse_i64(text, &v) || v < lo || v > hi) {
        return false;
    }
    *out = (int) v;
    return true;
}

/* One "key=value" line into the struct; false if the key is unknown or
 * the value does not parse. */
static bool
parse_line(char *key, char *value, struct fm_run_state *st)
{
    struct fm_decide_state *d = &st->decide;
    int v = 0;
    uint64_t u = 0;

#define I64_FIELD(name, field) \
    if (strcmp(key, name) == 0) { return parse_i64(value, &(field)); }
#define U64_FIELD(name, field) \
    if (strcmp(key, name) == 0) { return parse_u64(value, &(field)); }
#define TEXT_FIELD(name, field) \
    if (strcmp(key, name) == 0) { snprintf(field, sizeof(field), "%s", value); return true; }

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

    if (strcmp(key, "state") == 0) {
        if (!parse_int_range(value, FM_STATE_UP, FM_STATE_HELD, &v)) {
            return false;
        }
        st->state = (enum fm_state) v;
        return true;
    }
    if (strcmp(key, "action") == 0 || strcmp(key, "pending") == 0) {
        if (!parse_int_range(value, FM_ACTION_NONE, FM_ACTION_DEGRADED, &v)) {
            return false;
        }
        *((strcmp(key, "action") == 0)? &st->action : &st->pending) = (enum fm_action) v;
        return true;
    }
    if (strcmp(key, "ocf_rc") == 0) {
        return parse_int_range(value, 0, 255, &st->ocf_rc);
    }
    if (strcmp(key, "weight") == 0 || strcmp(key, "restarts_in_window") == 0) {
        if (!parse_u64(value, &u) || u > 100000) {
            return false;
        }
        *((strcmp(key, "weight") == 0)? &st->weight : &st->restarts_in_window) = (uint32_t) u;
        return true;
    }
    if (strcmp(key, "d.failure") == 0) {
        long long at = 0;
        long long weight = 0;
        char extra = 0;

        if (d->n_failures >= FM_DECIDE_MAX_FAILURES
            || sscanf(value, "%lld %lld %c", &at, &weight, &extra) != 2) {
            return false;
        }
        d->failure_us[d->n_failures] = at;
        d->failure_weight[d->n_failures] = weight;
        d->n_failures++;
        return true;
    }
    if (strcmp(key, "d.restart") == 0) {
        if (d->n_restarts >= FM_DECIDE_MAX_RESTARTS || !parse_i64(value, &d->restart_us[d->n_restarts])) {
            return false;
        }
        d->n_restarts++;
        return true;
    }
    if (strcmp(key, "target") == 0) {
        struct fm_state_target *t = &st->targets[st->n_targets];
        int cls = 0;
        int reason = 0;
        int status = 0;
        unsigned long long latency = 0;
        int used = 0;

        if (st->n_targets >= FM_STATE_MAX_TARGETS
            || sscanf(value, "%d %d %d %llu =%n", &cls, &reason, &status, &latency, &used) != 4
            || used == 0 || cls < 0 || cls > FM_CLASS_COMPLETE || reason < 0
            || reason >= FM_REASON__COUNT || status < 0 || status > 999) {
            return false;
        }
        t->cls = (enum fm_class) cls;
        t->reason = (enum fm_reason) reason;
        t->http_status = status;
        t->latency_us = latency;
        snprintf(t->target, sizeof(t->target), "%s", value + used);
        st->n_targets++;
        return true;
    }
    if (strcmp(key, "record") == 0) {
        struct fm_state_record *r = &st->records[st->n_records];
        long long wall = 0;
        int cls = 0;
        unsigned long long latency = 0;
        int action = 0;
        char extra = 0;

        if (st->n_records >= FM_STATE_MAX_RECORDS
            || sscanf(value, "%lld %d %llu %d %c", &wall, &cls, &latency, &action, &extra) != 4
            || cls < 0 || cls > FM_CLASS_COMPLETE || action < 0 || action > FM_ACTION_DEGRADED) {
            return false;
        }
        r->wall_s = wall;
        r->cls = (enum fm_class) cls;
        r->latency_us = latency;
        r->action = (enum fm_action) action;
        st->n_records++;
        return true;
    }
    return false;
}

int
fm_state_read(const char *dir, struct fm_run_state *st, char *err, size_t err_len)
{
    char path[4096];
    char *buf = NULL;
    ssize_t len = 0;
    int fd = -1;
    char *line = NULL;
    char *save = NULL;
    int line_no = 0;
    bool ended = false;
    struct stat sb;

    memset(st, 0, sizeof(*st));
    snprintf(path, sizeof(path), "%s/state", dir);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        return state_err(err, err_len, (errno == ENOENT)? ENOENT : EINVAL,
                         "cannot read %s: %s", path, strerror(errno));
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > FM_STATE_MAX_BYTES) {
        close(fd);
        return state_err(err, err_len, EINVAL, "%s is not a regular file of at most %d bytes",
                         path, FM_STATE_MAX_BYTES);
    }
    buf = calloc(1, (size_t) sb.st_size + 1);
    if (buf == NULL) {
        close(fd);
        return ENOMEM;
    }
    len = read(fd, buf, (size_t) sb.st_size);
    close(fd);
    if (len != sb.st_size) {
        free(buf);
        return state_err(err, err_len, EINVAL, "%s: short read", path);
    }
    if (memchr(buf, '\0', (size_t) len) != NULL) {
        free(buf);
        return state_err(err, err_len, EINVAL, "%s: binary data", path);
    }
    for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        char *eq = NULL;

        line_no++;
        if (ended) {
            break;
        }
        if (line_no == 1) {
            if (strcmp(line, FM_STATE_HEADER) != 0) {
                break;
            }
            continue;
        }
        if (strcmp(line, "end") == 0) {
            ended = true;
            continue;
        }
        eq = strchr(line, '=');
        if (eq == NULL) {
            break;
        }
        *eq = '\0';
        if (!parse_line(line, eq + 1, st)) {
            *eq = '=';
            break;
        }
    }
    if (!ended || line != NULL) {
        char shown[64];

        snprintf(shown, sizeof(shown), "%s", (line != NULL)? line : "(end of file)");
        fm_escape_controls(shown, sizeof(shown));
        free(buf);
        memset(st, 0, sizeof(*st));
        if (line_no <= 1 && line != NULL) {
            return state_err(err, err_len, EINVAL, "%s: not a faultmon state file", path);
        }
        return state_err(err, err_len, EINVAL, "%s: bad line %d: '%s'", path, line_no, shown);
    }
    free(buf);
    return 0;
}

int
fm_state_set_aside(const char *dir)
{
    char from[4096];
    char to[4096];

    snprintf(from, sizeof(from), "%s/state", dir);
    snprintf(to, sizeof(to), "%s/state.%lld.bad", dir, (long long) time(NULL));
    return (rename(from, to) == 0)? 0 : errno;
}

int64_t
fm_state_loop_pid(const char *dir)
{
    char path[4096];
    char buf[64] = "";
    char comm[64] = "";
    int64_t pid = 0;
    FILE *in = NULL;

    snprintf(path, sizeof(path), "%s/pid", dir);
    in = fopen(path, "re");
    if (in == NULL) {
        return 0;
    }
    if (fgets(buf, sizeof(buf), in) == NULL) {
        fclose(in);
        return 0;
    }
    fclose(in);
    buf[strcspn(buf, "\n")] = '\0';
    if (!parse_i64(buf, &pid) || pid <= 1) {
        return 0;
    }
    /* A stale pid file may name a process that reused the number. */
    snprintf(path, sizeof(path), "/proc/%lld/comm", (long long) pid);
    in = fopen(path, "re");
    if (in == NULL) {
        return 0;
    }
    if (fgets(comm, sizeof(comm), in) == NULL) {
        comm[0] = '\0';
    }
    fclose(in);
    return (strncmp(comm, "faultmon", 8) == 0)? pid : 0;
}
