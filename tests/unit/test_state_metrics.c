/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the state file's keys of the metrics (src/core/state_metrics.c):
 * a file of the previous version, without them, reads as zero counts; what
 * the loop writes reads back the same; and a key the writer would never
 * write is refused, as any other bad line of the file is.
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

#define NOW_US UINT64_C(5000000000)

/* An up state after a restart, as the previous version wrote it: none of
 * the metrics' keys.  "@" is where a case puts its lines: after the first
 * target's line. */
static const char old_file[] =
    "faultmon-state 1\n"
    "resource=web\n"
    "pid=4321\n"
    "updated_mono_us=4900000100\n"
    "updated_wall_s=1700000060\n"
    "interval_ms=10000\n"
    "probe_timeout_ms=2000\n"
    "cycles=3\n"
    "state=0\naction=0\nocf_rc=0\nreason=up\npending=0\nweight=0\n"
    "restarts_in_window=1\n"
    "next_failure=restart: complete failure\n"
    "d.version=1\nd.have_time=1\nd.clock_us=4000000000\nd.last_now_us=4900000000\n"
    "d.down=0\nd.held=0\nd.fail_streak=0\nd.fail_worst=0\nd.ok_streak=2\n"
    "d.miss_streak=0\nd.last_action=0\nd.last_action_us=4000000000\n"
    "d.restart=4000000000\n"
    "target=0 0 200 30000 =https://127.0.0.1:8443/\n"
    "@"
    "target=0 0 0 900 =tcp://127.0.0.1:22\n"
    "end\n";

/* The old file with \p lines at "@" ("" for none). */
static char *
with_lines(const char *lines)
{
    const char *at = strchr(old_file, '@');
    size_t len = strlen(old_file) + strlen(lines);
    char *text = calloc(1, len + 1);

    assert_non_null(text);
    memcpy(text, old_file, (size_t) (at - old_file));
    strcat(text, lines);
    strcat(text, at + 1);
    return text;
}

static int
parse(const char *lines, struct fm_run_state *st, char *err, size_t err_len)
{
    char *text = with_lines(lines);
    int rc = fm_state_parse(text, strlen(text), "web", NOW_US, st, err, err_len);

    free(text);
    return rc;
}

static void
test_previous_version_reads_as_zero(void **state)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256] = "";

    (void) state;
    assert_non_null(st);
    if (parse("", st, err, sizeof(err)) != 0) {
        fail_msg("the previous version's file is refused: %s", err);
    }
    assert_int_equal(st->n_targets, 2);
    for (size_t i = 0; i < st->n_targets; i++) {
        assert_int_equal(st->targets[i].phases, 0);
        assert_int_equal(st->targets[i].cert_not_after, 0);
        assert_int_equal(st->targets[i].failures[FM_CLASS_PARTIAL], 0);
        assert_int_equal(st->targets[i].failures[FM_CLASS_COMPLETE], 0);
    }
    assert_int_equal(st->decisions[FM_ACTION_RESTART], 0);
    assert_int_equal(st->decisions[FM_ACTION_FAILOVER], 0);
    free(st);
}

static void
test_keys_read_for_their_target(void **state)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256] = "";
    const struct fm_state_target *t = NULL;

    (void) state;
    assert_non_null(st);
    if (parse("target.phases=- 1000 20000 50 8950\ntarget.cert=1893456000\n"
              "target.failures=2 5\ndecisions=1 0\n", st, err, sizeof(err)) != 0) {
        fail_msg("refused: %s", err);
    }
    t = &st->targets[0];
    assert_int_equal(t->phases, (1u << FM_PHASE_CONNECT) | (1u << FM_PHASE_TLS)
                     | (1u << FM_PHASE_REQUEST) | (1u << FM_PHASE_REPLY));
    assert_int_equal(t->phase_us[FM_PHASE_RESOLVE], 0);
    assert_int_equal(t->phase_us[FM_PHASE_TLS], 20000);
    assert_int_equal(t->phase_us[FM_PHASE_REPLY], 8950);
    assert_int_equal(t->cert_not_after, 1893456000);
    assert_int_equal(t->failures[FM_CLASS_PARTIAL], 2);
    assert_int_equal(t->failures[FM_CLASS_COMPLETE], 5);
    assert_int_equal(st->decisions[FM_ACTION_RESTART], 1);
    /* the second target's are its own: none */
    assert_int_equal(st->targets[1].phases, 0);
    assert_int_equal(st->targets[1].failures[FM_CLASS_COMPLETE], 0);
    free(st);
}

/* What the writer writes of them is read back the same; and what holds
 * nothing (or what the reader would refuse) is not written. */
static void
test_write_read_round_trip(void **state)
{
    char dir[] = "/tmp/test_state_metrics.XXXXXX";
    char rdir[64], path[96];
    struct fm_run_state *a = calloc(1, sizeof(*a));
    struct fm_run_state *b = calloc(1, sizeof(*b));
    char err[512] = "";
    char text[8192] = "";
    FILE *in = NULL;

    (void) state;
    assert_non_null(mkdtemp(dir));
    snprintf(rdir, sizeof(rdir), "%s/web", dir);
    snprintf(path, sizeof(path), "%s/state", rdir);
    assert_int_equal(mkdir(rdir, 0700), 0);
    assert_int_equal(parse("target.phases=0 1 2 3 4\ntarget.cert=1\ntarget.failures=0 18446744073709551615\n"
                           "target.source=monitor_uri\ndecisions=0 7\n", a, err, sizeof(err)), 0);
    assert_int_equal(a->targets[0].source, FM_SOURCE_MONITOR_URI);
    assert_int_equal(a->targets[1].source, FM_SOURCE_PORT_LIST);    /* none: Port_list */
    a->targets[1].phases = 1u << FM_PHASE_CONNECT;
    a->targets[1].phase_us[FM_PHASE_CONNECT] = 900;
    /* Times of this boot, for the reader at the real clock. */
    a->decide.clock_us = a->decide.last_action_us = a->decide.restart_us[0] = 1;
    a->decide.last_now_us = 2;
    a->updated_mono_us = 3;
    assert_int_equal(fm_state_write(rdir, a, err, sizeof(err)), 0);
    assert_int_equal(fm_state_read(rdir, b, err, sizeof(err)), 0);
    assert_memory_equal(a, b, sizeof(*a));
    in = fopen(path, "r");
    assert_non_null(in);
    assert_true(fread(text, 1, sizeof(text) - 1, in) > 0);
    fclose(in);
    assert_non_null(strstr(text, "\ntarget.phases=0 1 2 3 4\ntarget.cert=1\n"));
    assert_non_null(strstr(text, "=tcp://127.0.0.1:22\ntarget.phases=- 900 - - -\n"));
    assert_non_null(strstr(text, "\ndecisions=0 7\n"));
    /* The sources are not keys of the state (the version before this one
     * refuses an unknown key): they are in the file beside it. */
    assert_null(strstr(text, "target.source="));
    snprintf(path, sizeof(path), "%s/sources", rdir);
    in = fopen(path, "r");
    assert_non_null(in);
    memset(text, 0, sizeof(text));
    assert_true(fread(text, 1, sizeof(text) - 1, in) > 0);
    fclose(in);
    assert_string_equal(text, "faultmon-sources 1\nsource=monitor_uri\nsource=port_list\nend\n");
    snprintf(path, sizeof(path), "%s/state", rdir);
    /* Nothing to say: no key. */
    memset(a->decisions, 0, sizeof(a->decisions));
    memset(a->targets[0].failures, 0, sizeof(a->targets[0].failures));
    a->targets[0].cert_not_after = -5;      /* before 1970: the reader takes none */
    assert_int_equal(fm_state_write(rdir, a, err, sizeof(err)), 0);
    in = fopen(path, "r");
    assert_non_null(in);
    memset(text, 0, sizeof(text));
    assert_true(fread(text, 1, sizeof(text) - 1, in) > 0);
    fclose(in);
    assert_null(strstr(text, "decisions="));
    assert_null(strstr(text, "target.failures="));
    assert_null(strstr(text, "target.cert="));
    assert_int_equal(fm_state_read(rdir, b, err, sizeof(err)), 0);
    unlink(path);
    rmdir(rdir);
    rmdir(dir);
    free(a);
    free(b);
}

static void
test_rejected(void **state)
{
    static const struct { const char *lines, *why; } cases[] = {
        { "target.phases=1 2 3 4 5\ntarget.phases=1 2 3 4 5\n", "phases twice for a target" },
        { "target.cert=5\ntarget.cert=5\n", "a certificate twice for a target" },
        { "target.failures=1 1\ntarget.failures=1 1\n", "failures twice for a target" },
        { "decisions=1 0\ndecisions=1 0\n", "decisions twice" },
        { "target.phases=10000 10000 10000 1 0\n", "phases longer than the probe's latency" },
        { "target.phases=18446744073709551615 1 - - -\n", "phases that overflow" },
        { "target.phases=- - - - -\n", "phases none of which happened" },
        { "target.phases=1 2 3 4\n", "four phases" },
        { "target.phases=1 2 3 4 5 6\n", "six phases" },
        { "target.phases=01 2 3 4 5\n", "a leading zero" },
        { "target.phases=1 x 3 4 5\n", "a phase not a number" },
        { "target.cert=0\n", "a certificate of time 0" },
        { "target.cert=-1\n", "a certificate before 1970" },
        { "target.failures=1\n", "one failure count" },
        { "target.failures=1 -1\n", "a negative failure count" },
        { "target.failures=1 2 3\n", "three failure counts" },
        { "decisions=+1 0\n", "a count with a sign" },
        { "decisions=1\n", "one decision count" },
        { "target.source=port_list\n", "port_list, which the writer never writes" },
        { "target.source=dependency\ntarget.source=dependency\n", "a source twice for a target" },
        { "target.source=Monitor_Uri\n", "an unknown source" },
        { "target.source=\n", "an empty source" },
        /* An unknown key is ignored (a later minor version's, see
         * test_state_compat.c); one no writer would name is not. */
        { "target.Color=blue\n", "a key no writer names" },
    };

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fm_run_state *st = calloc(1, sizeof(*st));
        char err[256] = "";

        assert_non_null(st);
        if (parse(cases[i].lines, st, err, sizeof(err)) != EINVAL) {
            fail_msg("accepted %s", cases[i].why);
        }
        assert_true(err[0] != '\0');
        assert_null(strchr(err, '\n'));
        assert_int_equal(st->n_targets, 0);         /* nothing to act on */
        free(st);
    }
}

/* A target's key before any target line names no target. */
static void
test_target_key_before_any_target(void **state)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[256] = "";
    char *text = with_lines("");
    char *moved = calloc(1, strlen(text) + 64);
    const char *at = strstr(text, "target=");

    (void) state;
    assert_non_null(st);
    assert_non_null(moved);
    memcpy(moved, text, (size_t) (at - text));
    strcat(moved, "target.cert=5\n");
    strcat(moved, at);
    assert_int_equal(fm_state_parse(moved, strlen(moved), "web", NOW_US, st, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "before any target"));
    free(moved);
    free(text);
    free(st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_previous_version_reads_as_zero),
        cmocka_unit_test(test_keys_read_for_their_target),
        cmocka_unit_test(test_write_read_round_trip),
        cmocka_unit_test(test_rejected),
        cmocka_unit_test(test_target_key_before_any_target),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
