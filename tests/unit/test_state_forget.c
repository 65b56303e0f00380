/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: what an offline `faultmon reset` and `faultmon resume` forget
 * in a state file (src/core/state_forget.c): the file stays one the reader
 * accepts, a hold survives a reset, and the bytes written are those the two
 * commands wrote before they shared fm_state_forget().
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/clock.h>
#include <faultmon/kvfile.h>
#include <faultmon/monitor.h>
#include <faultmon/state.h>
#include <faultmon/target.h>

#include "ocf_tmpdir.h"

/* fall for state_after(); 0 for the default */
static unsigned fall_cycles;

static int
dir_setup(void **state)
{
    (void) state;
    return ocf_tmpdir_make("test_state_forget");
}

static int
dir_teardown(void **state)
{
    static const char *const files[] = { "state", "sources", NULL };

    (void) state;
    return ocf_tmpdir_remove(files);
}

/*
 * A loop's state after \p n_bad cycles failed with \p bad then \p n_good
 * good ones, one a second, as the monitor leaves it (retry_count 0: the
 * first recovery decided is a failover).
 */
static struct fm_run_state *
state_after(enum fm_reason bad, unsigned n_bad, unsigned n_good, bool manual_resume)
{
    struct fm_decide_opts opts;
    struct fm_monitor *mon = calloc(1, sizeof(*mon));
    struct fm_monitor_out *out = calloc(1, sizeof(*out));
    struct fm_run_state *st = calloc(1, sizeof(*st));
    struct fm_target target = { .text = (char *) "tcp://127.0.0.1:1" };
    struct fm_result result = { .target = &target };
    struct fm_monitor_cycle cycle = { .results = &result, .n = 1 };

    assert_non_null(mon);
    assert_non_null(out);
    assert_non_null(st);
    fm_decide_opts_init(&opts);
    opts.retry_count = 0;
    opts.manual_resume = manual_resume;
    if (fall_cycles != 0) {
        opts.fall = fall_cycles;
    }
    assert_int_equal(fm_monitor_init(mon, &opts, "web", FM_KIND_APACHE, true), 0);
    mon->st.pid = 1234;
    cycle.now_us = fm_now_us() - (uint64_t) (n_bad + n_good) * 1000000u;
    cycle.now_wall_s = 1700000000;
    for (unsigned i = 0; i < n_bad + n_good; i++) {
        result.reason = (i < n_bad)? bad : FM_REASON_OK;
        cycle.start_us = cycle.now_us;
        fm_monitor_cycle_done(mon, &cycle, out);
        if (i + 1 == n_bad) {
            fm_monitor_reported(mon);   /* a cluster node: the good cycles reach the engine */
        }
        cycle.now_us += 1000000u;
        cycle.now_wall_s++;
    }
    *st = mon->st;
    fm_monitor_clear(mon);
    free(mon);
    free(out);
    return st;
}

static void
assert_valid(const struct fm_run_state *st)
{
    char err[512] = "";

    if (fm_state_validate(st, "web", fm_now_us(), err, sizeof(err)) != 0) {
        fail_msg("state refused: %s", err);
    }
}

/* What fm_state_write() makes of \p st (free it). */
static char *
written(const struct fm_run_state *st)
{
    char path[512];
    char err[512] = "";
    char *text = NULL;
    size_t len = 0;

    assert_int_equal(fm_state_write(ocf_tmpdir, st, err, sizeof(err)), 0);
    snprintf(path, sizeof(path), "%s/state", ocf_tmpdir);
    assert_int_equal(fm_kvfile_load(path, 1 << 20, &text, &len, err, sizeof(err)), 0);
    return text;
}

/* cmd_reset.c's own code before fm_state_forget(), kept here frozen, as
 * the reference for the bytes (a deliberate copy: do not share it). */
static void
reset_as_before(struct fm_run_state *st)
{
    st->decide.n_failures = 0;
    st->decide.n_restarts = 0;
    st->decide.fail_streak = 0;
    st->decide.miss_streak = 0;
    st->action = FM_ACTION_NONE;
    st->weight = 0;
    st->restarts_in_window = 0;
    st->next_failure[0] = '\0';
    if (st->decide.held == 0) {
        st->decide.down = 0;
        st->decide.last_action = 0;
        st->decide.last_action_us = 0;
        st->pending = FM_ACTION_NONE;
        st->state = FM_STATE_UP;
        snprintf(st->reason, sizeof(st->reason), "history and decision reset");
    }
    st->ocf_rc = fm_state_ocf_rc(st);
}

/* cmd_status.c's resume before fm_state_forget(), frozen likewise. */
static void
resume_as_before(struct fm_run_state *st)
{
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
    st->next_failure[0] = '\0';
    snprintf(st->reason, sizeof(st->reason), "resumed by an administrator");
}

static void
assert_same_bytes(const struct fm_run_state *a, const struct fm_run_state *b)
{
    char *text_a = written(a);
    char *text_b = written(b);

    assert_string_equal(text_a, text_b);
    free(text_a);
    free(text_b);
}

/* A copy of \p st, to apply the commands' former code to. */
static struct fm_run_state *
copy_of(const struct fm_run_state *st)
{
    struct fm_run_state *copy = calloc(1, sizeof(*copy));

    assert_non_null(copy);
    *copy = *st;
    return copy;
}

/* A failover decided, then good cycles: a reset forgets it all (but the
 * good streak, as before). */
static void
test_reset(void **state)
{
    struct fm_run_state *st = state_after(FM_REASON_CONNECT_FAILED, 3, 2, false);
    struct fm_run_state *before = copy_of(st);

    (void) state;
    assert_int_equal(st->decide.last_action, FM_ACTION_FAILOVER);
    assert_int_not_equal(st->decide.ok_streak, 0);
    fm_state_forget(st, FM_STATE_FORGET_HISTORY);
    assert_valid(st);
    assert_int_equal(st->pending, FM_ACTION_NONE);
    assert_int_equal(st->state, FM_STATE_UP);
    assert_int_equal(st->decide.n_failures, 0);
    assert_int_equal(st->decide.n_restarts, 0);
    assert_int_equal(st->ocf_rc, 0);
    assert_string_equal(st->reason, "history and decision reset");
    reset_as_before(before);
    assert_same_bytes(st, before);
    free(before);
    free(st);
}

/* Reset in the middle of a failure streak (fall 3, one failed cycle): the
 * worst failure goes with the streak, so the state stays one the reader
 * accepts (the reset's own code left it, and the reset was refused). */
static void
test_reset_mid_streak(void **state)
{
    struct fm_run_state *st = NULL;
    struct fm_run_state *before = NULL;
    char err[512] = "";

    fall_cycles = 3;
    st = state_after(FM_REASON_READ_TIMEOUT, 1, 0, false);
    fall_cycles = 0;
    before = copy_of(st);

    (void) state;
    assert_int_not_equal(st->decide.fail_streak, 0);
    reset_as_before(before);
    assert_int_not_equal(fm_state_validate(before, "web", fm_now_us(), err, sizeof(err)), 0);
    free(before);
    fm_state_forget(st, FM_STATE_FORGET_HISTORY);
    assert_valid(st);
    assert_int_equal(st->decide.fail_streak, 0);
    assert_int_equal(st->decide.fail_worst, FM_CLASS_OK);
    free(st);
}

/* A hold survives a reset, with its pending failover; resume lifts it. */
static void
test_hold_then_resume(void **state)
{
    struct fm_run_state *st = state_after(FM_REASON_CONNECT_FAILED, 3, 0, true);
    struct fm_run_state *before = copy_of(st);

    (void) state;
    assert_int_not_equal(st->decide.held, 0);
    fm_state_forget(st, FM_STATE_FORGET_HISTORY);
    assert_valid(st);
    assert_int_not_equal(st->decide.held, 0);
    assert_int_equal(st->pending, FM_ACTION_FAILOVER);
    assert_int_equal(st->ocf_rc, 4);
    reset_as_before(before);
    assert_same_bytes(st, before);
    free(before);

    before = copy_of(st);
    fm_state_forget(st, FM_STATE_FORGET_HOLD);
    assert_valid(st);
    assert_int_equal(st->decide.held, 0);
    assert_int_equal(st->pending, FM_ACTION_NONE);
    assert_int_equal(st->state, FM_STATE_UP);
    assert_int_equal(st->ocf_rc, 0);
    assert_string_equal(st->reason, "resumed by an administrator");
    resume_as_before(before);
    assert_same_bytes(st, before);
    free(before);
    free(st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reset, dir_setup, dir_teardown),
        cmocka_unit_test(test_reset_mid_streak),
        cmocka_unit_test_setup_teardown(test_hold_then_resume, dir_setup, dir_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
