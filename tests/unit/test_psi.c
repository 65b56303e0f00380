/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: pressure stall information (src/util/psi.c) and the observer
 * check that reads it (src/monitor/observer.c), on PSI files written here
 * in the kernel's format, and this machine's own cgroup.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/decide_params.h>
#include <faultmon/observer.h>
#include <faultmon/psi.h>

#include "ocf_tmpdir.h"

static char cg_dir[300];
static char proc_dir[300];

static void
write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    FILE *f = NULL;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *const fixture_files[] = {
    "cg/cpu.pressure", "cg/memory.pressure", "cg/io.pressure",
    "proc/cpu", "proc/memory", "proc/io", NULL
};

static int
setup(void **state)
{
    (void) state;
    if (ocf_tmpdir_make("faultmon-psi") != 0) {
        return -1;
    }
    snprintf(cg_dir, sizeof(cg_dir), "%s/cg", ocf_tmpdir);
    snprintf(proc_dir, sizeof(proc_dir), "%s/proc", ocf_tmpdir);
    return (mkdir(cg_dir, 0700) == 0 && mkdir(proc_dir, 0700) == 0)? 0 : -1;
}

static int
teardown(void **state)
{
    char path[512];

    (void) state;
    for (size_t i = 0; fixture_files[i] != NULL; i++) {
        snprintf(path, sizeof(path), "%s/%s", ocf_tmpdir, fixture_files[i]);
        unlink(path);
    }
    rmdir(cg_dir);
    rmdir(proc_dir);
    return ocf_tmpdir_remove((const char *const[]) { NULL });
}

static void
test_parse(void **state)
{
    double pct = -1;

    (void) state;
    assert_int_equal(fm_psi_parse_some_avg10("some avg10=12.34 avg60=5.00 avg300=1.00 total=123\n"
                                             "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", &pct), 0);
    assert_true(pct > 12.33 && pct < 12.35);
    /* "full" alone, a cpu file of an older kernel without "full", garbage. */
    assert_int_equal(fm_psi_parse_some_avg10("full avg10=50.00 avg60=0 avg300=0 total=0\n", &pct), EINVAL);
    assert_int_equal(fm_psi_parse_some_avg10("some avg10=3.00 avg60=0.00 avg300=0.00 total=9", &pct), 0);
    assert_true(pct > 2.99 && pct < 3.01);
    assert_int_equal(fm_psi_parse_some_avg10("some avg10=abc avg60=0\n", &pct), EINVAL);
    assert_int_equal(fm_psi_parse_some_avg10("some avg10=101.00 avg60=0\n", &pct), EINVAL);
    assert_int_equal(fm_psi_parse_some_avg10("some avg10=-1 avg60=0\n", &pct), EINVAL);
    assert_int_equal(fm_psi_parse_some_avg10("", &pct), EINVAL);
}

/* The cgroup's own file first; the system's where the cgroup has none; the
 * highest of the three wins and is named. */
static void
test_read_max(void **state)
{
    struct fm_psi_source src = { .cgroup_dir = cg_dir, .proc_dir = proc_dir };
    struct fm_psi_source none = { .cgroup_dir = NULL, .proc_dir = NULL };
    enum fm_psi_resource which = FM_PSI_CPU;
    double pct = 0;

    (void) state;
    assert_int_equal(fm_psi_read_max(&none, &pct, &which), ENOENT);
    write_file(proc_dir, "cpu", "some avg10=90.00 avg60=0.00 avg300=0.00 total=1\n");
    write_file(proc_dir, "memory", "some avg10=1.00 avg60=0.00 avg300=0.00 total=1\n"
                                   "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
    write_file(proc_dir, "io", "some avg10=2.00 avg60=0.00 avg300=0.00 total=1\n"
                               "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
    assert_int_equal(fm_psi_read_max(&src, &pct, &which), 0);
    assert_int_equal(which, FM_PSI_CPU);
    assert_true(pct > 89.9 && pct < 90.1);
    /* The cgroup's cpu file says the system's busy CPU is not its own. */
    write_file(cg_dir, "cpu.pressure", "some avg10=5.00 avg60=0.00 avg300=0.00 total=1\n");
    write_file(cg_dir, "io.pressure", "some avg10=40.00 avg60=0.00 avg300=0.00 total=1\n"
                                      "full avg10=30.00 avg60=0.00 avg300=0.00 total=0\n");
    assert_int_equal(fm_psi_read_max(&src, &pct, &which), 0);
    assert_int_equal(which, FM_PSI_IO);
    assert_true(pct > 39.9 && pct < 40.1);
    assert_string_equal(fm_psi_resource_name(which), "io");
}

static void
test_observer(void **state)
{
    struct fm_observer_ctx ctx = {
        .psi = { .cgroup_dir = cg_dir, .proc_dir = proc_dir },
        .resource = "web",
    };
    struct fm_decide_opts o;
    char why[128] = "";
    bool budget = true;

    (void) state;
    fm_decide_opts_init(&o);
    write_file(cg_dir, "cpu.pressure", "some avg10=75.50 avg60=0.00 avg300=0.00 total=1\n");
    /* Off by default: nothing read, never impaired, however late. */
    ctx.late_ms = 60000;
    assert_false(fm_observer_impaired(&o, &ctx, why, sizeof(why), &budget));
    assert_false(budget);
    ctx.late_ms = 0;
    o.observer_pressure_pct = 80;
    assert_false(fm_observer_impaired(&o, &ctx, why, sizeof(why), NULL));
    o.observer_pressure_pct = 75;
    assert_true(fm_observer_impaired(&o, &ctx, why, sizeof(why), NULL));
    assert_string_equal(why, "cpu pressure 75.5% over 10 s, observer_pressure 75%");
    o.observer_pressure_pct = 0;
    o.observer_late_ms = 1000;
    ctx.late_ms = 999;
    assert_false(fm_observer_impaired(&o, &ctx, why, sizeof(why), NULL));
    ctx.late_ms = 2500;
    assert_true(fm_observer_impaired(&o, &ctx, why, sizeof(why), NULL));
    assert_string_equal(why, "its probe cycle started 2500 ms late, observer_late 1000 ms");
    /* The loopback check: its failure counts only when asked for. */
    o.observer_late_ms = 0;
    ctx.loopback_failure = "Network is unreachable";
    assert_false(fm_observer_impaired(&o, &ctx, why, sizeof(why), NULL));
    o.observer_loopback = true;
    assert_true(fm_observer_impaired(&o, &ctx, why, sizeof(why), NULL));
    assert_string_equal(why, "a connection to its own listener on 127.0.0.1 failed (Network is unreachable), "
                        "observer_loopback");
    ctx.loopback_failure = NULL;
    assert_false(fm_observer_impaired(&o, &ctx, why, sizeof(why), NULL));
    /* The corosync links: their evidence counts only when asked for. */
    ctx.corosync_evidence = "corosync: no peer reachable on any link (2 peers, link 0)";
    assert_false(fm_observer_impaired(&o, &ctx, why, sizeof(why), NULL));
    o.observer_corosync = true;
    assert_true(fm_observer_impaired(&o, &ctx, why, sizeof(why), &budget));
    assert_false(budget);
    assert_string_equal(why, "corosync: no peer reachable on any link (2 peers, link 0), "
                        "observer_corosync");
    ctx.corosync_evidence = NULL;
    assert_false(fm_observer_impaired(&o, &ctx, why, sizeof(why), NULL));
}

/* The node budget: the marks of the other resources' directories, within
 * the window; its own, an old one, one from the future, a bad one and a
 * directory that is no resource's do not count. */
static void
test_node_budget(void **state)
{
    struct fm_observer_ctx ctx = { .state_root = ocf_tmpdir, .resource = "web", .now_wall_s = 10000 };
    struct fm_decide_opts o;
    char why[128] = "";
    char dir[512];
    bool budget = false;
    static const struct {
        const char *resource;
        const char *mark;           /* NULL: none written by mark() */
        int64_t wall_s;
    } marks[] = {
        { "web", NULL, 9990 },      /* its own */
        { "db", NULL, 9980 },
        { "mail", NULL, 9950 },
        { "old", NULL, 9000 },      /* before the window */
        { "future", NULL, 10100 },  /* a clock step */
        { "bad", "12ab\n", 0 },
    };

    (void) state;
    fm_decide_opts_init(&o);
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
        snprintf(dir, sizeof(dir), "%s/%s", ocf_tmpdir, marks[i].resource);
        assert_int_equal(mkdir(dir, 0700), 0);
        if (marks[i].mark == NULL) {
            assert_int_equal(fm_node_budget_mark(dir, marks[i].wall_s), 0);
        } else {
            write_file(dir, FM_NODE_BUDGET_MARK, marks[i].mark);
        }
    }
    assert_int_equal(fm_node_budget_count(ocf_tmpdir, "web", 9940, 10000), 2);
    assert_int_equal(fm_node_budget_count(ocf_tmpdir, "db", 9940, 10000), 2);   /* web and mail */
    assert_int_equal(fm_node_budget_count(ocf_tmpdir, "web", 9960, 10000), 1);
    /* Off, then 3 with 2 others: this one makes 3. */
    assert_false(fm_observer_impaired(&o, &ctx, why, sizeof(why), &budget));
    o.node_budget = 4;
    o.node_budget_window_ms = 60000;
    assert_false(fm_observer_impaired(&o, &ctx, why, sizeof(why), &budget));
    o.node_budget = 3;
    assert_true(fm_observer_impaired(&o, &ctx, why, sizeof(why), &budget));
    assert_true(budget);
    assert_string_equal(why, "2 other resources of this node asked for recovery within 60 s, node_budget 3");
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
        snprintf(dir, sizeof(dir), "%s/%s/%s", ocf_tmpdir, marks[i].resource, FM_NODE_BUDGET_MARK);
        unlink(dir);
        snprintf(dir, sizeof(dir), "%s/%s", ocf_tmpdir, marks[i].resource);
        assert_int_equal(rmdir(dir), 0);
    }
}

/* This machine's own cgroup: a directory that exists, or none at all. */
static void
test_own_cgroup(void **state)
{
    char dir[4096];
    struct stat st;
    int rc = fm_psi_own_cgroup_dir(dir, sizeof(dir));

    (void) state;
    assert_true(rc == 0 || rc == ENOENT);
    if (rc == 0) {
        print_message("# own cgroup v2: %s\n", dir);
        assert_int_equal(stat(dir, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
    }
    assert_int_equal(fm_psi_own_cgroup_dir(dir, 2), (rc == 0)? E2BIG : ENOENT);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_read_max),
        cmocka_unit_test(test_observer),
        cmocka_unit_test(test_node_budget),
        cmocka_unit_test(test_own_cgroup),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
