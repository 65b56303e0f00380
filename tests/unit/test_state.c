/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the one state reader (fm_state_parse) accepts what the loop
 * writes and nothing the loop would refuse, the OCF code it yields is
 * always one of 0, 1, 4 and 190, and the loop lock admits one holder.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/state.h>

/* The monotonic "now" the cases are judged at: after the file's times. */
#define NOW_US UINT64_C(5000000000)

/* A restart asked after one complete failure, as the loop writes it. */
static const char *const base_lines[] = {
    "faultmon-state 1",
    "resource=web",
    "pid=1234",
    "updated_mono_us=4900000100",
    "updated_wall_s=1700000060",
    "interval_ms=60000",
    "probe_timeout_ms=5000",
    "cycles=2",
    "state=2",
    "action=1",
    "ocf_rc=1",
    "reason=complete failure, weight 100 within Retry_interval 300 s: restart 1 of Retry_count 2",
    "pending=1",
    "weight=100",
    "restarts_in_window=1",
    "next_failure=restart: complete failure",
    "d.version=1",
    "d.have_time=1",
    "d.clock_us=4000000000",
    "d.last_now_us=4900000000",
    "d.down=1",
    "d.held=0",
    "d.fail_streak=0",
    "d.fail_worst=0",
    "d.ok_streak=0",
    "d.miss_streak=0",
    "d.last_action=1",
    "d.last_action_us=4000000000",
    "d.restart=4000000000",
    "target=2 3 0 1200 =127.0.0.1:8080",
    "record=1700000000 0 1000 0",
    "record=1700000060 2 5000 1",
    "end",
};
#define N_BASE (sizeof(base_lines) / sizeof(base_lines[0]))

/* The base file with the line "KEY=..." replaced by \p repl (NULL: removed),
 * or, when KEY is not a key of the base, \p repl added before "end". */
static char *
variant(const char *key, const char *repl)
{
    size_t cap = 8192;
    char *out = calloc(1, cap);
    size_t key_len = (key != NULL)? strlen(key) : 0;
    bool done = false;

    assert_non_null(out);
    for (size_t i = 0; i < N_BASE; i++) {
        const char *line = base_lines[i];

        if (!done && key != NULL && strncmp(line, key, key_len) == 0 && line[key_len] == '=') {
            done = true;
            if (repl != NULL) {
                strcat(out, repl);
                strcat(out, "\n");
            }
            continue;
        }
        if (!done && key != NULL && strcmp(line, "end") == 0 && repl != NULL) {
            strcat(out, repl);
            strcat(out, "\n");
            done = true;
        }
        strcat(out, line);
        strcat(out, "\n");
    }
    return out;
}

static int
parse_text(const char *text, struct fm_run_state *st, char *err, size_t err_len)
{
    return fm_state_parse(text, strlen(text), "web", NOW_US, st, err, err_len);
}

static void
test_base_is_accepted(void **state)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256] = "";
    char *text = variant(NULL, NULL);

    (void) state;
    assert_int_equal(parse_text(text, st, err, sizeof(err)), 0);
    assert_int_equal(st->pending, FM_ACTION_RESTART);
    assert_int_equal(st->ocf_rc, 1);
    assert_int_equal(fm_state_ocf_rc(st), 1);
    assert_int_equal(st->n_targets, 1);
    assert_string_equal(st->targets[0].target, "127.0.0.1:8080");
    assert_int_equal(st->n_records, 2);
    assert_int_equal(st->decide.n_restarts, 1);
    free(text);
    free(st);
}

/* What fm_state_write() writes is what fm_state_read() accepts, unchanged. */
static void
test_write_read_round_trip(void **state)
{
    char dir[] = "/tmp/test_state.XXXXXX";
    char rdir[64];
    struct fm_run_state *a = calloc(1, sizeof(*a));
    struct fm_run_state *b = calloc(1, sizeof(*b));
    char err[512] = "";
    char *text = variant(NULL, NULL);

    (void) state;
    assert_non_null(mkdtemp(dir));
    snprintf(rdir, sizeof(rdir), "%s/web", dir);
    assert_int_equal(mkdir(rdir, 0700), 0);
    /* Judged at the real clock now: times of this boot. */
    assert_int_equal(parse_text(text, a, err, sizeof(err)), 0);
    a->decide.clock_us = 1;
    a->decide.last_now_us = 2;
    a->decide.last_action_us = 1;
    a->decide.restart_us[0] = 1;
    a->updated_mono_us = 3;
    assert_int_equal(fm_state_write(rdir, a, err, sizeof(err)), 0);
    assert_int_equal(fm_state_read(rdir, b, err, sizeof(err)), 0);
    assert_memory_equal(a, b, sizeof(*a));
    /* The same file under another resource's directory is foreign. */
    snprintf(rdir, sizeof(rdir), "%s/web", dir);
    {
        char other[80];

        snprintf(other, sizeof(other), "%s/db", dir);
        assert_int_equal(rename(rdir, other), 0);
        assert_int_equal(fm_state_read(other, b, err, sizeof(err)), EINVAL);
        assert_non_null(strstr(err, "another resource"));
        unlink(strcat(other, "/state"));
        other[strlen(other) - strlen("/state")] = '\0';
        rmdir(other);
    }
    rmdir(dir);
    free(text);
    free(a);
    free(b);
}

struct bad_case {
    const char *key;        /* line replaced or, if not a key, added */
    const char *repl;       /* NULL: the line removed */
    const char *why;        /* what the case is */
};

static const struct bad_case bad_cases[] = {
    /* The examples: each was shown as a verdict. */
    { "d.version", "d.version=7", "a decision history of another version" },
    { "d.restart", "d.restart=-5", "a negative restart time" },
    { "d.last_action", "d.last_action=0", "pending restart without a recovery on record" },
    { "ocf_rc", "ocf_rc=200", "an ocf_rc outside the documented set" },
    { "ocf_rc", "ocf_rc=4", "ocf_rc 4 for a pending restart" },
    { "ocf_rc", "ocf_rc=0", "ocf_rc 0 for a pending restart" },
    { "pending", "pending=3", "degraded is not a recovery that can be pending" },
    { "pending", "pending=2", "pending failover next to a restart" },
    { "state", "state=0", "up while the engine is down" },
    { "state", "state=4", "held while the engine is not" },
    { "d.held", "d.held=1", "held engine, state down" },
    { "action", "action=0", "no action, yet weight 100 and nothing on record" },
    { "weight", "weight=6500", "a weight above any the engine's 64 failures add up to" },
    { "restarts_in_window", "restarts_in_window=2", "more restarts than on record" },
    { "d.fail_streak", "d.fail_streak=1", "a fail streak without its worst class" },
    { "d.last_now_us", "d.last_now_us=9900000000", "history from another boot (in the future)" },
    { "updated_mono_us", "updated_mono_us=99000000000", "written in the future" },
    { "updated_mono_us", "updated_mono_us=4800000000", "history newer than the file" },
    { "d.failure", "d.failure=3000000000 70", "a failure weight other than 50 or 100" },
    { "record", "record=1700000000 3 1000 0", "a record class out of range" },
    { "target", "target=0 3 0 1200 =127.0.0.1:8080", "target class not that of its reason" },
    { "target", "target=2 14 0 1200 =127.0.0.1:8080", "status failure without a status" },
    { "target", "target=2 3 0 1200 =", "a target without a name" },
    { "target", "target=2 3 0 1200 127.0.0.1:8080", "a target name without its '='" },
    { "target", "target=2 3 1000 1200 =127.0.0.1:8080", "an HTTP status above 999" },
    { "target", "target=2 3 x 1200 =127.0.0.1:8080", "a status that is not a number" },
    { "target", "target=2 3 0 12x0 =127.0.0.1:8080", "a latency that is not a number" },
    { "target", NULL, "cycles without targets" },
    { "cycles", "cycles=0", "targets without cycles" },
    { "pid", "pid=1", "pid 1 is not a loop" },
    { "interval_ms", "interval_ms=18446744073709551615", "an interval beyond any the loop accepts" },
    { "probe_timeout_ms", "probe_timeout_ms=0", "no probe timeout" },
    { "resource", "resource=db", "another resource's file" },
    { "resource", "resource=../x", "not a resource name" },
    { "reason", "reason=a\tb", "a control character in a text" },
    /* Syntax: every key once, whole numbers as the writer prints them. */
    { "weight", NULL, "a missing key" },
    { "x", "weight=100", "a key given twice" },
    { "x", "Color=blue", "a key no writer names (an unknown one is ignored: test_state_compat)" },
    { "x", "weight =100", "a key with a space" },
    { "x", "", "an empty line" },
    { "cycles", "cycles=+2", "a number with a sign the writer never prints" },
    { "cycles", "cycles= 2", "a number with a space" },
    { "cycles", "cycles=02", "a number with a leading zero" },
    { "d.fail_streak", "d.fail_streak=-0", "a negative zero" },
    { "d.clock_us", "d.clock_us=4000000000x", "trailing garbage after a number" },
    { "record", "record=1700000000 0 1000 0 9", "a record with an extra field" },
    { "record", "record=1700000000  0 1000 0", "a record with a double space" },
    /* kind: optional, once, a known agent; httpmon asks for nothing. */
    { "x", "kind=httpmon", "a pending restart in the state of an httpmon loop" },
    { "x", "kind=frob", "an unknown kind" },
    { "x", "kind=", "an empty kind" },
    { "x", "kind=apache\nkind=apache", "kind given twice" },
};

static void
test_rejected(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *c = &bad_cases[i];
        struct fm_run_state *st = calloc(1, sizeof(*st));
        char err[256] = "";
        char *text = variant(c->key, c->repl);
        int rc = parse_text(text, st, err, sizeof(err));

        if (rc != EINVAL) {
            fail_msg("accepted %s (%s=%s)", c->why, c->key, (c->repl != NULL)? c->repl : "(removed)");
        }
        assert_true(err[0] != '\0');
        assert_null(strchr(err, '\n'));
        /* A rejected file leaves nothing to act on. */
        assert_int_equal(st->pending, FM_ACTION_NONE);
        assert_int_equal(st->ocf_rc, 0);
        free(text);
        free(st);
    }
}

static void
test_framing_rejected(void **state)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256];
    char *text = variant(NULL, NULL);
    size_t len = strlen(text);
    char *more = calloc(1, len + 32);

    (void) state;
    /* Every proper prefix: truncated. */
    for (size_t cut = 0; cut < len; cut++) {
        if (fm_state_parse(text, cut, "web", NOW_US, st, err, sizeof(err)) != EINVAL) {
            fail_msg("accepted a prefix of %zu of %zu bytes", cut, len);
        }
    }
    /* Anything after "end". */
    snprintf(more, len + 32, "%spending=0\n", text);
    assert_int_equal(parse_text(more, st, err, sizeof(err)), EINVAL);
    /* A NUL inside. */
    memcpy(more, text, len);
    more[10] = '\0';
    assert_int_equal(fm_state_parse(more, len, "web", NOW_US, st, err, sizeof(err)), EINVAL);
    /* Another header. */
    snprintf(more, len + 32, "faultmon-state 2%s", text + strlen("faultmon-state 1"));
    assert_int_equal(parse_text(more, st, err, sizeof(err)), EINVAL);
    free(more);
    free(text);
    free(st);
}

/* \p text with each of \p lines ("KEY=VALUE", NULL-terminated) in place of
 * its line "KEY=..."; "-KEY" removes that line.  \p text is freed. */
static char *
with_lines(char *text, const char *const *lines)
{
    for (; *lines != NULL; lines++) {
        bool drop = (**lines == '-');
        const char *line = *lines + (drop? 1 : 0);
        size_t key_len = strcspn(line, "=");
        char *hit = text;
        char *end = NULL;
        char *out = calloc(1, strlen(text) + strlen(line) + 2);

        while ((hit = strchr(hit, '\n')) != NULL
               && (strncmp(hit + 1, line, key_len) != 0 || hit[1 + key_len] != '=')) {
            hit++;
        }
        assert_non_null(hit);
        assert_non_null(out);
        end = strchr(hit + 1, '\n');
        memcpy(out, text, (size_t) (hit + 1 - text));
        strcat(out, drop? "" : line);
        strcat(out, drop? end + 1 : end);
        free(text);
        text = out;
    }
    return text;
}

/* Files the engine's import takes, each with one field that disagrees with
 * the rest: refused, while the same file without that field is accepted
 * (the positive control).  Mutants that dropped each check survived. */
static void
test_rejected_inconsistent(void **state)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256] = "";
    char *degraded = NULL;
    char *text = NULL;

    (void) state;
    assert_non_null(st);
    /* Degraded: a partial failure on record, not down, nothing asked. */
    degraded = with_lines(variant("d.restart", "d.failure=3900000000 50"), (const char *const[]) {
        "state=1", "action=0", "ocf_rc=0", "pending=0", "weight=50", "restarts_in_window=0", "d.down=0",
        "d.ok_streak=1", "d.last_action=0", "d.last_action_us=0", "target=0 0 0 1200 =127.0.0.1:8080", NULL });
    assert_int_equal(parse_text(degraded, st, err, sizeof(err)), 0);
    assert_int_equal(st->state, FM_STATE_DEGRADED);

    /* "up" with that failure on record: up means nothing on record ... */
    text = with_lines(strdup(degraded), (const char *const[]) { "state=0", NULL });
    assert_int_equal(parse_text(text, st, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "state up"));
    /* ... and up once the failure is no longer on record: accepted. */
    text = with_lines(text, (const char *const[]) { "-d.failure", "weight=0", NULL });
    assert_int_equal(parse_text(text, st, err, sizeof(err)), 0);
    assert_int_equal(st->state, FM_STATE_UP);
    free(text);

    /* A restart asked (action=1, pending=1) by an engine that is not down
     * (flapping: one failure in a row): the base, down, is accepted. */
    text = with_lines(variant(NULL, NULL), (const char *const[]) {
        "d.down=0", "state=3", "d.fail_streak=1", "d.fail_worst=2", NULL });
    assert_int_equal(parse_text(text, st, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "action restart"));
    free(text);
    free(degraded);
    free(st);
}

/* FM_STATE_MAX_TARGETS target lines fill the array and one more is refused,
 * a name is the rest of its line, a reason past the last one is refused. */
static void
test_target_count_limit(void **state)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256] = "";
    char *text = NULL;
    char *more = calloc(FM_STATE_MAX_TARGETS + 1, 48);

    (void) state;
    assert_non_null(st);
    assert_non_null(more);
    for (int i = 1; i < FM_STATE_MAX_TARGETS; i++) {
        snprintf(more + strlen(more), 48, "%starget=2 3 0 1200 =127.0.0.%d:8080", (i > 1)? "\n" : "", i + 1);
    }
    text = variant("x", more);                      /* base's target + 63 */
    assert_int_equal(parse_text(text, st, err, sizeof(err)), 0);
    assert_int_equal(st->n_targets, FM_STATE_MAX_TARGETS);
    free(text);
    strcat(more, "\ntarget=2 3 0 1200 =127.0.0.99:8080");
    text = variant("x", more);
    assert_int_equal(parse_text(text, st, err, sizeof(err)), EINVAL);
    free(text);
    text = variant("target", "target=2 3 0 1200 =http://127.0.0.1:8080/a b");
    assert_int_equal(parse_text(text, st, err, sizeof(err)), 0);
    assert_string_equal(st->targets[0].target, "http://127.0.0.1:8080/a b");
    free(text);
    snprintf(more, 48, "target=2 %d 0 1200 =127.0.0.1:8080", (int) FM_REASON__COUNT);
    text = variant("target", more);
    assert_int_equal(parse_text(text, st, err, sizeof(err)), EINVAL);
    free(text);
    free(more);
    free(st);
}

/* The states the loop and the tools make are accepted and consistent. */
static void
test_consistent_variants(void **state)
{
    static const char *const ok_failover[][2] = {
        { "pending", "pending=2" }, { "action", "action=2" }, { "ocf_rc", "ocf_rc=4" },
        { "d.last_action", "d.last_action=2" },
    };
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256] = "";
    char *text = variant(NULL, NULL);
    char *cur = NULL;

    (void) state;
    /* A failover: every field that says so, together. */
    cur = strdup(text);
    for (size_t i = 0; i < 4; i++) {
        char *p = strstr(cur, "\n");
        char key[32];
        char *hit = NULL;

        snprintf(key, sizeof(key), "\n%s=", ok_failover[i][0]);
        hit = strstr(cur, key);
        assert_non_null(hit);
        p = strchr(hit + 1, '\n');
        assert_int_equal((size_t) (p - hit - 1), strlen(ok_failover[i][1]));
        memcpy(hit + 1, ok_failover[i][1], strlen(ok_failover[i][1]));
    }
    assert_int_equal(parse_text(cur, st, err, sizeof(err)), 0);
    assert_int_equal(fm_state_ocf_rc(st), 4);

    /* A restart made after a hold: every failure held meanwhile weighed
     * (found on a remote node, where the agent's monitor is the only way
     * the loop's recovery reaches Pacemaker: refusing it lost the restart). */
    {
        char *held = variant("weight", "weight=1150");

        assert_int_equal(parse_text(held, st, err, sizeof(err)), 0);
        assert_int_equal(fm_state_ocf_rc(st), 1);
        free(held);
        held = variant("weight", "weight=6400");
        assert_int_equal(parse_text(held, st, err, sizeof(err)), 0);
        free(held);
    }

    /* A refused start clears the request; the result is still accepted. */
    fm_state_clear_pending(st);
    assert_int_equal(st->pending, FM_ACTION_NONE);
    assert_int_equal(fm_state_validate(st, "web", NOW_US, err, sizeof(err)), 0);
    assert_int_equal(fm_state_ocf_rc(st), 190);
    free(cur);
    free(text);
    free(st);
}

/* The state of an httpmon loop (kind=httpmon): a recovery on record,
 * nothing pending, and 0 as the OCF code; kind=apache is the default. */
static void
test_kind(void **state)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256] = "";
    char *text = variant("x", "kind=httpmon");
    char *p = NULL;

    (void) state;
    p = strstr(text, "\npending=1\n");
    assert_non_null(p);
    p[9] = '0';
    p = strstr(text, "\nocf_rc=1\n");
    assert_non_null(p);
    p[8] = '0';
    if (parse_text(text, st, err, sizeof(err)) != 0) {
        fail_msg("httpmon state rejected: %s", err);
    }
    assert_string_equal(st->kind, FM_KIND_HTTPMON);
    assert_int_equal(st->action, FM_ACTION_RESTART);
    assert_int_equal(st->pending, FM_ACTION_NONE);
    assert_int_equal(fm_state_ocf_rc(st), 0);
    free(text);

    text = variant("x", "kind=apache");
    assert_int_equal(parse_text(text, st, err, sizeof(err)), 0);
    assert_int_equal(fm_state_ocf_rc(st), 1);
    free(text);
    free(st);
}

/* Whatever the struct holds, the code is one of the documented four. */
static void
test_ocf_rc_set(void **state)
{
    struct fm_run_state st;

    (void) state;
    memset(&st, 0, sizeof(st));
    for (int p = -3; p < 8; p++) {
        for (int a = -3; a < 8; a++) {
            int rc = 0;

            st.pending = (enum fm_action) p;
            st.action = (enum fm_action) a;
            st.ocf_rc = 200;
            rc = fm_state_ocf_rc(&st);
            assert_true(rc == 0 || rc == 1 || rc == 4 || rc == 190);
        }
    }
}

/* ---- the loop lock ---- */

static char lock_dir[64];

static int
lock_setup(void **state)
{
    (void) state;
    snprintf(lock_dir, sizeof(lock_dir), "/tmp/test_state_lock.XXXXXX");
    return (mkdtemp(lock_dir) != NULL)? 0 : -1;
}

static int
lock_teardown(void **state)
{
    char path[128];

    (void) state;
    snprintf(path, sizeof(path), "%s/lock", lock_dir);
    unlink(path);
    rmdir(lock_dir);
    return 0;
}

static void
test_lock_one_holder(void **state)
{
    int fd = -1;
    int fd2 = -1;
    int64_t pid = 0;
    bool is_loop = true;

    (void) state;
    assert_int_equal(fm_state_lock(lock_dir, &fd, &pid, &is_loop), 0);
    assert_true(fd >= 0);
    /* Not inherited by a program the loop runs. */
    assert_true((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    assert_int_equal(fm_state_lock_check(lock_dir, fd), 0);
    /* An OFD lock conflicts even within one process. */
    assert_int_equal(fm_state_lock(lock_dir, &fd2, &pid, &is_loop), EBUSY);
    assert_int_equal(fd2, -1);
    /* The holder here is a test program, not a faultmon loop. */
    assert_false(is_loop);
    assert_true(fm_state_lock_holder(lock_dir, &pid, &is_loop));
    assert_int_equal(fm_state_loop_pid(lock_dir), 0);
    assert_int_equal(fm_state_loop_died(lock_dir), 0);

    /* A clean stop: free, and no PID left behind. */
    fm_state_unlock(fd);
    assert_false(fm_state_lock_holder(lock_dir, &pid, &is_loop));
    assert_int_equal(fm_state_loop_died(lock_dir), 0);

    /* A holder that dies without unlocking: the kernel frees the lock and
     * its PID stays in the file. */
    assert_int_equal(fm_state_lock(lock_dir, &fd, &pid, &is_loop), 0);
    close(fd);
    assert_false(fm_state_lock_holder(lock_dir, &pid, &is_loop));
    assert_int_equal(fm_state_loop_died(lock_dir), (int64_t) getpid());
    assert_int_equal(fm_state_lock(lock_dir, &fd, &pid, &is_loop), 0);
    assert_int_equal(fm_state_loop_died(lock_dir), 0);
    fm_state_unlock(fd);
}

/* A POSIX lock held by another program is named by its PID. */
static void
test_lock_foreign_holder(void **state)
{
    char path[128];
    int ready[2];
    int go[2];
    pid_t child = 0;
    int fd = -1;
    int64_t pid = 0;
    bool is_loop = true;
    char c = 0;
    int status = 0;

    (void) state;
    snprintf(path, sizeof(path), "%s/lock", lock_dir);
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        struct flock fl;
        int lfd = open(path, O_RDWR | O_CREAT, 0600);

        memset(&fl, 0, sizeof(fl));
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (lfd < 0 || fcntl(lfd, F_SETLK, &fl) != 0) {
            _exit(1);
        }
        if (write(ready[1], "x", 1) != 1 || read(go[0], &c, 1) < 0) {
            _exit(1);
        }
        _exit(0);
    }
    assert_int_equal(read(ready[0], &c, 1), 1);
    assert_int_equal(fm_state_lock(lock_dir, &fd, &pid, &is_loop), EBUSY);
    assert_int_equal(pid, (int64_t) child);
    assert_false(is_loop);
    assert_int_equal(fm_state_loop_pid(lock_dir), 0);
    assert_int_equal(write(go[1], "x", 1), 1);
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(fm_state_lock(lock_dir, &fd, &pid, &is_loop), 0);
    fm_state_unlock(fd);
    close(ready[0]);
    close(ready[1]);
    close(go[0]);
    close(go[1]);
}

/* The directory removed under a holder: its lock no longer guards it. */
static void
test_lock_dir_removed(void **state)
{
    char path[128];
    int fd = -1;
    int fd2 = -1;
    int64_t pid = 0;
    bool is_loop = false;

    (void) state;
    assert_int_equal(fm_state_lock(lock_dir, &fd, &pid, &is_loop), 0);
    snprintf(path, sizeof(path), "%s/lock", lock_dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(fm_state_lock_check(lock_dir, fd), ESTALE);
    /* A new lock file can be taken: the holder must notice and re-lock. */
    assert_int_equal(fm_state_lock(lock_dir, &fd2, &pid, &is_loop), 0);
    assert_int_equal(fm_state_lock_check(lock_dir, fd2), 0);
    fm_state_unlock(fd2);
    fm_state_unlock(fd);
}

/* Between checks by path the loop asks one fstat whether its lock file still
 * has a name: a removed file is seen at once, a directory renamed away (the
 * name count kept) by the next check by path, which comes within
 * FM_STATE_LOCK_PATH_CHECK_US or before any write. */
static void
test_lock_recheck(void **state)
{
    char path[192];
    char moved[160];
    int fd = -1;
    int fd2 = -1;
    int64_t pid = 0;
    bool is_loop = false;
    uint64_t checked_us = 0;
    const uint64_t t0_us = 1000000;

    (void) state;
    assert_int_equal(fm_state_lock(lock_dir, &fd, &pid, &is_loop), 0);
    assert_int_equal(fm_state_lock_recheck(lock_dir, fd, false, t0_us, &checked_us), 0);
    assert_int_equal(checked_us, t0_us);        /* the first is by path */

    /* The directory renamed away and a new one locked in its place. */
    snprintf(moved, sizeof(moved), "%s.moved", lock_dir);
    assert_int_equal(rename(lock_dir, moved), 0);
    assert_int_equal(mkdir(lock_dir, 0700), 0);
    assert_int_equal(fm_state_lock(lock_dir, &fd2, &pid, &is_loop), 0);
    assert_int_equal(fm_state_lock_recheck(lock_dir, fd, false, t0_us + 1000, &checked_us), 0);
    assert_int_equal(fm_state_lock_recheck(lock_dir, fd, true, t0_us + 2000, &checked_us), ESTALE);
    checked_us = t0_us;
    assert_int_equal(fm_state_lock_recheck(lock_dir, fd, false,
                                           t0_us + FM_STATE_LOCK_PATH_CHECK_US, &checked_us),
                     ESTALE);
    /* The new holder's own file, removed: seen at once, by the name count. */
    assert_int_equal(fm_state_lock_recheck(lock_dir, fd2, false, t0_us + 3000, &checked_us), 0);
    snprintf(path, sizeof(path), "%s/lock", lock_dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(fm_state_lock_recheck(lock_dir, fd2, false, t0_us + 4000, &checked_us), ESTALE);
    fm_state_unlock(fd2);
    fm_state_unlock(fd);
    snprintf(path, sizeof(path), "%s/lock", moved);
    unlink(path);
    rmdir(moved);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_is_accepted),
        cmocka_unit_test(test_write_read_round_trip),
        cmocka_unit_test(test_rejected),
        cmocka_unit_test(test_rejected_inconsistent),
        cmocka_unit_test(test_target_count_limit),
        cmocka_unit_test(test_framing_rejected),
        cmocka_unit_test(test_consistent_variants),
        cmocka_unit_test(test_ocf_rc_set),
        cmocka_unit_test(test_kind),
        cmocka_unit_test_setup_teardown(test_lock_one_holder, lock_setup, lock_teardown),
        cmocka_unit_test_setup_teardown(test_lock_foreign_holder, lock_setup, lock_teardown),
        cmocka_unit_test_setup_teardown(test_lock_dir_removed, lock_setup, lock_teardown),
        cmocka_unit_test_setup_teardown(test_lock_recheck, lock_setup, lock_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
