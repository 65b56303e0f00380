/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: two versions of faultmon read each other's state files
 * (doc/reference/state-format.md).  The previous version's reader and writer
 * are frozen in tests/unit/compat/ (fm_state_v1_*); during a rolling upgrade
 * or downgrade an agent of one version judges the file a loop of the other
 * wrote.  Both directions, with every kind of key (the targets' metrics, the
 * decision history, an httpmon loop's kind); then the rule for what comes
 * later: a minor version's unknown keys are ignored, a required key missing
 * is named, another major version is refused with the reason.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/state.h>

/* The frozen copies (tests/unit/compat/state_v1_names.h). */
int fm_state_v1_write(const char *dir, const struct fm_run_state *st, char *err, size_t err_len);
int fm_state_v1_read(const char *dir, struct fm_run_state *st, char *err, size_t err_len);
int fm_state_v1_parse(const char *text, size_t len, const char *resource, uint64_t now_mono_us,
                      struct fm_run_state *st, char *err, size_t err_len);

#define NOW_US UINT64_C(5000000000)

/* A restart asked after one complete failure, with the metrics' keys. */
static const char base_apache[] =
    "faultmon-state 1\n"
    "resource=web\n"
    "pid=1234\n"
    "updated_mono_us=4900000100\n"
    "updated_wall_s=1700000060\n"
    "interval_ms=60000\n"
    "probe_timeout_ms=5000\n"
    "cycles=2\n"
    "state=2\n"
    "action=1\n"
    "ocf_rc=1\n"
    "reason=complete failure, weight 100 within Retry_interval 300 s: restart 1 of Retry_count 2\n"
    "pending=1\n"
    "weight=100\n"
    "restarts_in_window=1\n"
    "next_failure=restart: complete failure\n"
    "d.version=1\n"
    "d.have_time=1\n"
    "d.clock_us=4000000000\n"
    "d.last_now_us=4900000000\n"
    "d.down=1\n"
    "d.held=0\n"
    "d.fail_streak=0\n"
    "d.fail_worst=0\n"
    "d.ok_streak=0\n"
    "d.miss_streak=0\n"
    "d.last_action=1\n"
    "d.last_action_us=4000000000\n"
    "d.restart=4000000000\n"
    "decisions=1 0\n"
    "target=2 3 0 1200 =127.0.0.1:8080\n"
    "target.failures=0 1\n"
    "record=1700000000 0 1000 0\n"
    "record=1700000060 2 5000 1\n"
    "end\n";

/* An httpmon loop's: kind=httpmon, nothing pending, two failures. */
static const char base_httpmon[] =
    "faultmon-state 1\n"
    "resource=web\n"
    "pid=1234\n"
    "updated_mono_us=4900000100\n"
    "updated_wall_s=1700000060\n"
    "interval_ms=60000\n"
    "probe_timeout_ms=5000\n"
    "cycles=2\n"
    "kind=httpmon\n"
    "state=2\n"
    "action=1\n"
    "ocf_rc=0\n"
    "reason=unhealthy\n"
    "pending=0\n"
    "weight=100\n"
    "restarts_in_window=1\n"
    "next_failure=\n"
    "d.version=1\n"
    "d.have_time=1\n"
    "d.clock_us=4000000000\n"
    "d.last_now_us=4900000000\n"
    "d.down=1\n"
    "d.held=0\n"
    "d.fail_streak=0\n"
    "d.fail_worst=0\n"
    "d.ok_streak=0\n"
    "d.miss_streak=0\n"
    "d.last_action=1\n"
    "d.last_action_us=4000000000\n"
    "d.restart=4000000000\n"
    "target=2 3 0 1200 =http://127.0.0.1:8080/health\n"
    "record=1700000000 0 1000 0\n"
    "record=1700000060 2 5000 1\n"
    "end\n";

static char tmp_dir[64];
static char res_dir[96];

static int
setup(void **state)
{
    (void) state;
    snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/test_state_compat.XXXXXX");
    assert_non_null(mkdtemp(tmp_dir));
    snprintf(res_dir, sizeof(res_dir), "%s/web", tmp_dir);
    assert_int_equal(mkdir(res_dir, 0700), 0);
    return 0;
}

static int
teardown(void **state)
{
    char path[128];

    (void) state;
    snprintf(path, sizeof(path), "%s/state", res_dir);
    unlink(path);
    rmdir(res_dir);
    rmdir(tmp_dir);
    return 0;
}

/* A state of this boot, as a loop now would hold it (a file read back at
 * the real clock must not be in its future). */
static struct fm_run_state *
state_of(const char *text)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256] = "";

    assert_non_null(st);
    if (fm_state_parse(text, strlen(text), "web", NOW_US, st, err, sizeof(err)) != 0) {
        fail_msg("fixture refused: %s", err);
    }
    st->decide.clock_us = 1;
    st->decide.last_now_us = 2;
    st->decide.last_action_us = 1;
    st->decide.restart_us[0] = 1;
    st->updated_mono_us = 3;
    return st;
}

/* Writer A's file, read by reader B: the same state, field for field. */
static void
check_direction(const char *text, bool new_writes)
{
    struct fm_run_state *a = state_of(text);
    struct fm_run_state *b = calloc(1, sizeof(*b));
    char err[512] = "";
    int rc = 0;

    assert_non_null(b);
    rc = new_writes? fm_state_write(res_dir, a, err, sizeof(err)) : fm_state_v1_write(res_dir, a, err, sizeof(err));
    assert_int_equal(rc, 0);
    rc = new_writes? fm_state_v1_read(res_dir, b, err, sizeof(err)) : fm_state_read(res_dir, b, err, sizeof(err));
    if (rc != 0) {
        fail_msg("the %s reader refuses the %s writer's file: %s", new_writes? "previous" : "new",
                 new_writes? "new" : "previous", err);
    }
    assert_memory_equal(a, b, sizeof(*a));
    assert_int_equal(fm_state_ocf_rc(b), fm_state_ocf_rc(a));
    free(a);
    free(b);
}

static void
test_old_reader_reads_new_writer(void **state)
{
    (void) state;
    check_direction(base_apache, true);
    check_direction(base_httpmon, true);
}

static void
test_new_reader_reads_old_writer(void **state)
{
    (void) state;
    check_direction(base_apache, false);
    check_direction(base_httpmon, false);
}

/* The text with \p from replaced by \p to (first occurrence). */
static char *
edited(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    char *out = calloc(1, strlen(text) + strlen(to) + 1);

    assert_non_null(p);
    assert_non_null(out);
    memcpy(out, text, (size_t) (p - text));
    strcat(out, to);
    strcat(out, p + strlen(from));
    return out;
}

/* A later minor version: its header and keys this reader does not know
 * (between the others, after a target, twice) are ignored; what it knows
 * reads as from format 1.0.  The previous reader refuses the same file:
 * which is why this writer writes neither. */
static void
test_minor_version_unknown_keys_ignored(void **state)
{
    struct fm_run_state *plain = calloc(1, sizeof(*plain));
    struct fm_run_state *later = calloc(1, sizeof(*later));
    char err[512] = "";
    char *t1 = edited(base_apache, "faultmon-state 1\n", "faultmon-state 1.4\n");
    char *t2 = edited(t1, "cycles=2\n", "cycles=2\nhistory.mode=ring 64\n");
    char *t3 = edited(t2, "target.failures=0 1\n",
                      "target.failures=0 1\ntarget.future=7\ntarget.future=8\n");

    (void) state;
    assert_int_equal(fm_state_parse(base_apache, strlen(base_apache), "web", NOW_US, plain, err, sizeof(err)), 0);
    if (fm_state_parse(t3, strlen(t3), "web", NOW_US, later, err, sizeof(err)) != 0) {
        fail_msg("a minor version's file refused: %s", err);
    }
    assert_memory_equal(plain, later, sizeof(*plain));
    /* The frozen reader: any other header, any unknown key, refused. */
    assert_int_equal(fm_state_v1_parse(t1, strlen(t1), "web", NOW_US, later, err, sizeof(err)), EINVAL);
    assert_int_equal(fm_state_v1_parse(base_apache, strlen(base_apache), "web", NOW_US, later, err,
                                       sizeof(err)), 0);
    free(t3);
    t3 = edited(base_apache, "cycles=2\n", "cycles=2\nhistory.mode=ring 64\n");
    assert_int_equal(fm_state_v1_parse(t3, strlen(t3), "web", NOW_US, later, err, sizeof(err)), EINVAL);
    free(t1);
    free(t2);
    free(t3);
    free(plain);
    free(later);
}

/* What this writer writes: "faultmon-state 1" and format 1.0's keys only
 * (the previous reader's whole vocabulary, checked line by line). */
static void
test_writer_writes_format_1_0(void **state)
{
    struct fm_run_state *a = state_of(base_apache);
    struct fm_run_state *b = calloc(1, sizeof(*b));
    char path[128];
    char line[1024];
    char err[512] = "";
    FILE *in = NULL;

    (void) state;
    assert_int_equal(fm_state_write(res_dir, a, err, sizeof(err)), 0);
    snprintf(path, sizeof(path), "%s/state", res_dir);
    in = fopen(path, "r");
    assert_non_null(in);
    assert_non_null(fgets(line, sizeof(line), in));
    assert_string_equal(line, "faultmon-state 1\n");
    fclose(in);
    assert_int_equal(fm_state_v1_read(res_dir, b, err, sizeof(err)), 0);
    free(a);
    free(b);
}

/* A required key missing is named; another major version is refused, and
 * says which and why. */
static void
test_required_and_major(void **state)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[512] = "";
    char *t = edited(base_apache, "weight=100\n", "");

    (void) state;
    assert_int_equal(fm_state_parse(t, strlen(t), "web", NOW_US, st, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "required key weight is missing"));
    free(t);
    t = edited(base_apache, "faultmon-state 1\n", "faultmon-state 2\n");
    assert_int_equal(fm_state_parse(t, strlen(t), "web", NOW_US, st, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "state format 2 (written by a newer faultmon): this faultmon reads format 1"));
    assert_null(strchr(err, '\n'));
    free(t);
    t = edited(base_apache, "faultmon-state 1\n", "faultmon-state 2.1\n");
    assert_int_equal(fm_state_parse(t, strlen(t), "web", NOW_US, st, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "state format 2"));
    free(t);
    /* Not a version: not a state file at all. */
    t = edited(base_apache, "faultmon-state 1\n", "faultmon-state 1.x\n");
    assert_int_equal(fm_state_parse(t, strlen(t), "web", NOW_US, st, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "not a faultmon state file"));
    free(t);
    t = edited(base_apache, "faultmon-state 1\n", "faultmon-state 01\n");
    assert_int_equal(fm_state_parse(t, strlen(t), "web", NOW_US, st, err, sizeof(err)), EINVAL);
    /* A rejected file leaves nothing to act on. */
    assert_int_equal(st->pending, FM_ACTION_NONE);
    free(t);
    free(st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_old_reader_reads_new_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_reader_reads_old_writer, setup, teardown),
        cmocka_unit_test(test_minor_version_unknown_keys_ignored),
        cmocka_unit_test_setup_teardown(test_writer_writes_format_1_0, setup, teardown),
        cmocka_unit_test(test_required_and_major),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
