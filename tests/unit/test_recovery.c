/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the pending-recovery protocol between the loop and the agents
 * (src/pcmk/recovery.c): the pending rule, the OCF code, staleness with a
 * pretend clock, the start refusal and its one rewrite, and the files:
 * each reader and writer, and FIFOs and symbolic links at their names
 * refused without blocking.
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
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/clock.h>
#include <faultmon/kvfile.h>
#include <faultmon/monitor.h>
#include <faultmon/recovery.h>
#include <faultmon/target.h>

static struct fm_decision
decision(enum fm_action action, enum fm_state st)
{
    struct fm_decision dec;

    memset(&dec, 0, sizeof(dec));
    dec.action = action;
    dec.state = st;
    return dec;
}

static void
test_pending_rule(void **state)
{
    struct fm_decision restart = decision(FM_ACTION_RESTART, FM_STATE_DOWN);
    struct fm_decision failover = decision(FM_ACTION_FAILOVER, FM_STATE_DOWN);
    struct fm_decision degraded = decision(FM_ACTION_DEGRADED, FM_STATE_DEGRADED);
    struct fm_decision down = decision(FM_ACTION_NONE, FM_STATE_DOWN);
    struct fm_decision up = decision(FM_ACTION_NONE, FM_STATE_UP);

    (void) state;
    assert_int_equal(fm_recovery_pending(FM_ACTION_NONE, &restart, false), FM_ACTION_RESTART);
    assert_int_equal(fm_recovery_pending(FM_ACTION_RESTART, &failover, false), FM_ACTION_FAILOVER);
    /* Still down, or degraded: what was asked stays pending. */
    assert_int_equal(fm_recovery_pending(FM_ACTION_RESTART, &down, false), FM_ACTION_RESTART);
    assert_int_equal(fm_recovery_pending(FM_ACTION_FAILOVER, &degraded, false), FM_ACTION_FAILOVER);
    /* Up again: moot. */
    assert_int_equal(fm_recovery_pending(FM_ACTION_RESTART, &up, false), FM_ACTION_NONE);
    /* Nobody carries out httpmon's. */
    assert_int_equal(fm_recovery_pending(FM_ACTION_NONE, &restart, true), FM_ACTION_NONE);
}

static void
test_ocf_rc(void **state)
{
    struct fm_decision restart = decision(FM_ACTION_RESTART, FM_STATE_DOWN);
    struct fm_decision degraded = decision(FM_ACTION_DEGRADED, FM_STATE_DEGRADED);
    struct fm_decision none = decision(FM_ACTION_NONE, FM_STATE_UP);

    (void) state;
    assert_int_equal(fm_recovery_ocf_rc(FM_ACTION_NONE, &none, false), 0);
    assert_int_equal(fm_recovery_ocf_rc(FM_ACTION_NONE, &degraded, false), 190);
    assert_int_equal(fm_recovery_ocf_rc(FM_ACTION_RESTART, &restart, false), 1);
    /* The pending recovery speaks, not the cycle's action. */
    assert_int_equal(fm_recovery_ocf_rc(FM_ACTION_RESTART, &degraded, false), 1);
    assert_int_equal(fm_recovery_ocf_rc(FM_ACTION_FAILOVER, &none, false), 4);
    assert_int_equal(fm_recovery_ocf_rc(FM_ACTION_RESTART, &restart, true), 0);
}

/* Stale after 2 x (interval + Probe_timeout) + 30 s, on the pretend clock. */
static void
test_stale(void **state)
{
    struct fm_run_state st;
    uint64_t written_us = UINT64_C(1000) * 1000000;
    uint64_t age_s = 0;

    (void) state;
    memset(&st, 0, sizeof(st));
    st.interval_ms = 10000;
    st.probe_timeout_ms = 5000;
    st.updated_mono_us = written_us;
    assert_false(fm_recovery_state_stale(&st, written_us, &age_s));
    assert_int_equal(age_s, 0);
    assert_false(fm_recovery_state_stale(&st, written_us + 60 * 1000000, &age_s));
    assert_int_equal(age_s, 60);
    assert_true(fm_recovery_state_stale(&st, written_us + 60 * 1000000 + 1, &age_s));
    assert_true(fm_recovery_state_stale(&st, written_us + 3600 * UINT64_C(1000000), NULL));
    /* A clock behind the state (never on one boot) is not stale. */
    assert_false(fm_recovery_state_stale(&st, written_us - 1, &age_s));
    assert_int_equal(age_s, 0);
}

static void
test_start_refusal(void **state)
{
    struct fm_run_state st;

    (void) state;
    memset(&st, 0, sizeof(st));
    assert_int_equal(fm_recovery_start_refusal(&st, false), FM_REFUSAL_NONE);
    st.pending = FM_ACTION_RESTART;
    assert_int_equal(fm_recovery_start_refusal(&st, false), FM_REFUSAL_NONE);
    st.pending = FM_ACTION_FAILOVER;
    assert_int_equal(fm_recovery_start_refusal(&st, false), FM_REFUSAL_FAILOVER);
    st.decide.held = 1;
    assert_int_equal(fm_recovery_start_refusal(&st, true), FM_REFUSAL_HELD_FAILOVER);
    st.pending = FM_ACTION_NONE;
    assert_int_equal(fm_recovery_start_refusal(&st, false), FM_REFUSAL_HELD);
    assert_int_equal(fm_recovery_start_refusal(&st, true), FM_REFUSAL_NONE);
}

static char top[64];
static char dir[128];

static int
dir_setup(void **state)
{
    (void) state;
    snprintf(top, sizeof(top), "/tmp/test_recovery.XXXXXX");
    if (mkdtemp(top) == NULL) {
        return -1;
    }
    snprintf(dir, sizeof(dir), "%s/web", top);
    return mkdir(dir, 0700);
}

static int
dir_teardown(void **state)
{
    char cmd[256];

    (void) state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
    return system(cmd);
}

static void
read_file(const char *name, char *buf, size_t buf_len)
{
    char path[256];
    FILE *in = NULL;
    size_t n = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    in = fopen(path, "r");
    assert_non_null(in);
    n = fread(buf, 1, buf_len - 1, in);
    buf[n] = '\0';
    fclose(in);
}

static void
put_text(FILE *out, const void *data)
{
    fputs(data, out);
}

/* As the other side writes them: atomically. */
static void
write_file(const char *name, const char *text)
{
    assert_int_equal(fm_kvfile_write(dir, name, put_text, text), 0);
}

static void
test_marker_files(void **state)
{
    (void) state;
    assert_false(fm_recovery_file_exists(dir, FM_RECOVERY_REPORTED));
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_REPORTED, true), 0);
    assert_true(fm_recovery_file_exists(dir, FM_RECOVERY_REPORTED));
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_REPORTED, false), 0);
    assert_false(fm_recovery_file_exists(dir, FM_RECOVERY_REPORTED));
    /* Removing what is not there is no error. */
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_REPORTED, false), 0);
}

/* `asked` keeps the requests within the window, and at most 64. */
static void
test_asked(void **state)
{
    char text[8192];
    char *many = calloc(100, 16);
    size_t used = 0;
    size_t lines = 0;

    (void) state;
    assert_non_null(many);
    write_file(FM_RECOVERY_ASKED, "1000\n1250\njunk\n0\n");
    assert_int_equal(fm_recovery_note_asked(dir, 1300, 100), 0);
    read_file(FM_RECOVERY_ASKED, text, sizeof(text));
    assert_string_equal(text, "1250\n1300\n");

    /* Exactly Retry_interval old is still in the window; 0 is no time, 1 is. */
    write_file(FM_RECOVERY_ASKED, "0\n1\n1000\n");
    assert_int_equal(fm_recovery_note_asked(dir, 1100, 1099), 0);
    read_file(FM_RECOVERY_ASKED, text, sizeof(text));
    assert_string_equal(text, "1\n1000\n1100\n");
    write_file(FM_RECOVERY_ASKED, "0\n");
    assert_int_equal(fm_recovery_note_asked(dir, 50, 100), 0);
    read_file(FM_RECOVERY_ASKED, text, sizeof(text));
    assert_string_equal(text, "50\n");

    for (int i = 0; i < 100; i++) {
        used += (size_t) snprintf(many + used, 16, "%d\n", 2000 + i);
    }
    write_file(FM_RECOVERY_ASKED, many);
    free(many);
    assert_int_equal(fm_recovery_note_asked(dir, 2100, 300), 0);
    read_file(FM_RECOVERY_ASKED, text, sizeof(text));
    for (const char *p = text; *p != '\0'; p++) {
        lines += (*p == '\n');
    }
    assert_int_equal(lines, FM_RECOVERY_ASKED_MAX);
    assert_non_null(strstr(text, "\n2100\n"));
}

static void
test_cause_and_event(void **state)
{
    char text[700];

    (void) state;
    assert_int_equal(fm_recovery_write_cause(dir, "httpd (pid 42) exited"), 0);
    read_file(FM_RECOVERY_CAUSE, text, sizeof(text));
    assert_string_equal(text, "httpd (pid 42) exited");

    assert_int_equal(fm_recovery_read_event(dir, text, sizeof(text)), ENOENT);
    write_file(FM_RECOVERY_EVENT, "complete httpd is not running\n");
    assert_int_equal(fm_recovery_read_event(dir, text, sizeof(text)), 0);
    assert_string_equal(text, "httpd is not running");
    write_file(FM_RECOVERY_EVENT, "partial something\n");
    assert_int_equal(fm_recovery_read_event(dir, text, sizeof(text)), EINVAL);
    assert_string_equal(text, "partial something");
}

/* "Under way" is bounded: a fail request the controller took (or whose
 * acknowledgement did not come in time, taken as yes) that nobody carries
 * out must not leave the agent's monitor answering "under way" forever
 * (tests/cluster/remote-nodes.sh found one).  Past the bound the marker no
 * longer counts; a new request marks it again and it counts again. */
static void
test_reported_bounded(void **state)
{
    char path[512];
    struct timespec old[2];

    (void) state;
    snprintf(path, sizeof(path), "%s/%s", dir, FM_RECOVERY_REPORTED);
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_REPORTED, true), 0);
    assert_true(fm_recovery_reported(dir));
    old[0].tv_sec = old[1].tv_sec = time(NULL) - FM_RECOVERY_UNDER_WAY_MAX_S + 5;
    old[0].tv_nsec = old[1].tv_nsec = 0;
    assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
    assert_true(fm_recovery_reported(dir));
    old[0].tv_sec = old[1].tv_sec = time(NULL) - FM_RECOVERY_UNDER_WAY_MAX_S - 1;
    assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
    assert_false(fm_recovery_reported(dir));
    assert_true(fm_recovery_file_exists(dir, FM_RECOVERY_REPORTED));
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_REPORTED, true), 0);
    assert_true(fm_recovery_reported(dir));
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_REPORTED, false), 0);
}

/* The markers are regular files the two sides made. */
static void
test_reported_and_forget(void **state)
{
    char text[700];

    (void) state;
    assert_false(fm_recovery_reported(dir));
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_REPORTED, true), 0);
    assert_true(fm_recovery_reported(dir));

    assert_int_equal(fm_recovery_asked_count(dir), 0);
    write_file(FM_RECOVERY_ASKED, "1000\n1250\n1300\n");
    assert_int_equal(fm_recovery_asked_count(dir), 3);

    assert_int_equal(fm_recovery_read_cause(dir, text, sizeof(text)), ENOENT);
    assert_string_equal(text, "");
    assert_int_equal(fm_recovery_write_cause(dir, "httpd (pid 42) exited\nmore"), 0);
    assert_int_equal(fm_recovery_read_cause(dir, text, sizeof(text)), 0);
    assert_string_equal(text, "httpd (pid 42) exited");

    /* An offline reset takes `asked` and `cause`, and nothing else. */
    assert_int_equal(fm_recovery_forget(dir), 0);
    assert_false(fm_recovery_file_exists(dir, FM_RECOVERY_ASKED));
    assert_false(fm_recovery_file_exists(dir, FM_RECOVERY_CAUSE));
    assert_true(fm_recovery_reported(dir));
    assert_int_equal(fm_recovery_forget(dir), 0);
}

/* Edges that mutants of recovery.c survived: a marker is the loop's own
 * (mode 0600), a FIFO someone holds open is no marker, the last line of
 * `asked` counts without its newline, and a forget that cannot remove
 * `asked` says so. */
static void
test_marker_edges(void **state)
{
    char path[256];
    struct stat sb;
    int reader = -1;
    mode_t old_mask = umask(022);

    (void) state;
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_REPORTED, true), 0);
    snprintf(path, sizeof(path), "%s/%s", dir, FM_RECOVERY_REPORTED);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0600);
    umask(old_mask);

    snprintf(path, sizeof(path), "%s/%s", dir, FM_RECOVERY_CAUSE);
    assert_int_equal(mkfifo(path, 0600), 0);
    reader = open(path, O_RDONLY | O_NONBLOCK);
    assert_true(reader >= 0);
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_CAUSE, true), EINVAL);
    close(reader);
    assert_int_equal(unlink(path), 0);

    write_file(FM_RECOVERY_ASKED, "1000\n1250");
    assert_int_equal(fm_recovery_asked_count(dir), 2);

    /* `asked` a directory: unlink fails, and forget says so. */
    snprintf(path, sizeof(path), "%s/%s", dir, FM_RECOVERY_ASKED);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_not_equal(fm_recovery_forget(dir), 0);
    assert_int_equal(rmdir(path), 0);
}

/* The agent posts an event, the loop reads and removes it, and may leave
 * event.same, which the agent consumes once. */
static void
test_event_handshake(void **state)
{
    char text[700];

    (void) state;
    assert_int_equal(fm_recovery_post_event(dir, "httpd is not running\nsecond line"), 0);
    assert_true(fm_recovery_event_waiting(dir));
    read_file(FM_RECOVERY_EVENT, text, sizeof(text));
    assert_string_equal(text, "complete httpd is not running\n");
    assert_int_equal(fm_recovery_read_event(dir, text, sizeof(text)), 0);
    assert_string_equal(text, "httpd is not running");

    /* An answer to an earlier event goes when the next is posted. */
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_EVENT_SAME, true), 0);
    assert_int_equal(fm_recovery_post_event(dir, "status check failed"), 0);
    assert_false(fm_recovery_file_exists(dir, FM_RECOVERY_EVENT_SAME));
    fm_recovery_withdraw_event(dir);
    assert_false(fm_recovery_event_waiting(dir));
    assert_false(fm_recovery_take_event_same(dir));
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_EVENT_SAME, true), 0);
    assert_true(fm_recovery_take_event_same(dir));
    assert_false(fm_recovery_take_event_same(dir));
}

static void
path_in(char *buf, size_t buf_len, const char *name)
{
    snprintf(buf, buf_len, "%s/%s", dir, name);
}

static void
plant_fifo(const char *name)
{
    char path[256];

    path_in(path, sizeof(path), name);
    assert_int_equal(mkfifo(path, 0600), 0);
}

/* A link to a file that says what the other side would say. */
static void
plant_link(const char *name, const char *text)
{
    char path[256];
    char target_name[64];
    char target[256];

    snprintf(target_name, sizeof(target_name), "elsewhere-%s", name);
    assert_int_equal(fm_kvfile_write(top, target_name, put_text, text), 0);
    snprintf(target, sizeof(target), "%s/%s", top, target_name);
    path_in(path, sizeof(path), name);
    assert_int_equal(symlink(target, path), 0);
}

/* A FIFO at a protocol name: refused at once, never waited on. */
static void
test_fifos_refused(void **state)
{
    char text[700] = "x";

    (void) state;
    plant_fifo(FM_RECOVERY_REPORTED);
    assert_false(fm_recovery_reported(dir));
    /* ENXIO: a FIFO with no reader, opened without waiting for one. */
    assert_int_not_equal(fm_recovery_file_mark(dir, FM_RECOVERY_REPORTED, true), 0);
    assert_false(fm_recovery_reported(dir));

    plant_fifo(FM_RECOVERY_ASKED);
    assert_int_equal(fm_recovery_asked_count(dir), 0);
    /* The loop's next request replaces it. */
    assert_int_equal(fm_recovery_note_asked(dir, 1300, 100), 0);
    read_file(FM_RECOVERY_ASKED, text, sizeof(text));
    assert_string_equal(text, "1300\n");

    plant_fifo(FM_RECOVERY_CAUSE);
    assert_int_not_equal(fm_recovery_read_cause(dir, text, sizeof(text)), 0);
    assert_string_equal(text, "");

    plant_fifo(FM_RECOVERY_EVENT);
    assert_int_equal(fm_recovery_read_event(dir, text, sizeof(text)), EINVAL);

    plant_fifo(FM_RECOVERY_EVENT_SAME);
    assert_false(fm_recovery_take_event_same(dir));
    plant_fifo(FM_RECOVERY_RESUME);
    assert_false(fm_recovery_file_exists(dir, FM_RECOVERY_RESUME));
    /* Removing one is allowed: it is how the sides clear their names. */
    assert_int_equal(fm_recovery_file_mark(dir, FM_RECOVERY_RESUME, false), 0);
}

/* A symbolic link at a protocol name: what it points to is not read, and
 * a marker is not made through it. */
static void
test_links_refused(void **state)
{
    char text[700] = "x";
    char target[256];

    static const char *const planted[][2] = {
        { FM_RECOVERY_REPORTED, "" },
        { FM_RECOVERY_ASKED, "1\n2\n3\n" },
        { FM_RECOVERY_CAUSE, "a cause\n" },
        { FM_RECOVERY_EVENT, "complete httpd is not running\n" },
        { FM_RECOVERY_EVENT_SAME, "" },
        { FM_RECOVERY_RESUME, "" },
    };

    (void) state;
    for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
        plant_link(planted[i][0], planted[i][1]);
    }
    assert_false(fm_recovery_reported(dir));
    assert_int_equal(fm_recovery_asked_count(dir), 0);
    assert_int_not_equal(fm_recovery_read_cause(dir, text, sizeof(text)), 0);
    assert_string_equal(text, "");
    assert_int_equal(fm_recovery_read_event(dir, text, sizeof(text)), EINVAL);
    assert_false(fm_recovery_take_event_same(dir));
    assert_false(fm_recovery_file_exists(dir, FM_RECOVERY_RESUME));

    /* A dangling link: the marker is not created where it points. */
    snprintf(target, sizeof(target), "%s/made-through-a-link", top);
    path_in(text, sizeof(text), FM_RECOVERY_RESET);
    assert_int_equal(symlink(target, text), 0);
    assert_int_not_equal(fm_recovery_file_mark(dir, FM_RECOVERY_RESET, true), 0);
    assert_int_not_equal(access(target, F_OK), 0);
    assert_false(fm_recovery_file_exists(dir, FM_RECOVERY_RESET));
}

/* The loop writes a failover; the agent's start refuses once and clears
 * it, keeping the file one the reader accepts; the next start goes. */
static void
test_refuse_once(void **state)
{
    struct fm_decide_opts opts;
    struct fm_monitor *mon = calloc(1, sizeof(*mon));
    struct fm_monitor_out *out = calloc(1, sizeof(*out));
    struct fm_run_state *st = calloc(1, sizeof(*st));
    struct fm_target target = { .text = (char *) "tcp://127.0.0.1:1" };
    struct fm_result result = { .target = &target, .reason = FM_REASON_CONNECT_FAILED };
    struct fm_monitor_cycle cycle = { .results = &result, .n = 1 };
    char err[512] = "";

    (void) state;
    assert_non_null(mon);
    assert_non_null(out);
    assert_non_null(st);
    fm_decide_opts_init(&opts);
    opts.retry_count = 0;
    assert_int_equal(fm_monitor_init(mon, &opts, "web", FM_KIND_APACHE, true), 0);
    mon->st.pid = 1234;
    cycle.now_us = fm_now_us();
    cycle.start_us = cycle.now_us;
    cycle.now_wall_s = 1700000000;
    fm_monitor_cycle_done(mon, &cycle, out);
    assert_int_equal(mon->st.pending, FM_ACTION_FAILOVER);
    assert_int_equal(fm_state_write(dir, &mon->st, err, sizeof(err)), 0);
    fm_monitor_clear(mon);

    assert_int_equal(fm_state_read(dir, st, err, sizeof(err)), 0);
    assert_int_equal(fm_recovery_start_refusal(st, false), FM_REFUSAL_FAILOVER);
    assert_int_equal(fm_recovery_refuse_once(dir, st, err, sizeof(err)), 0);
    assert_int_equal(fm_state_read(dir, st, err, sizeof(err)), 0);
    assert_int_equal(st->pending, FM_ACTION_NONE);
    assert_int_equal(fm_recovery_start_refusal(st, false), FM_REFUSAL_NONE);
    free(mon);
    free(out);
    free(st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pending_rule),
        cmocka_unit_test(test_ocf_rc),
        cmocka_unit_test(test_stale),
        cmocka_unit_test(test_start_refusal),
        cmocka_unit_test_setup_teardown(test_marker_files, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_asked, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_cause_and_event, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_refuse_once, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_reported_bounded, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_reported_and_forget, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_event_handshake, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_fifos_refused, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_links_refused, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_marker_edges, dir_setup, dir_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
