/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: processes (agents/ocf/ocf_proc.c): pid files as httpd writes them
 * and as a hostile or broken node leaves them, and running a program with a
 * deadline.
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

#include <faultmon/clock.h>

#include "ocf_common.h"
#include "ocf_tmpdir.h"

static int
make_dir(void **state)
{
    (void) state;
    return ocf_tmpdir_make("test_ocf_proc");
}

static int
remove_dir(void **state)
{
    static const char *const files[] = { "httpd.pid", "link.pid", NULL };

    (void) state;
    return ocf_tmpdir_remove(files);
}

static pid_t
pid_of(const char *text)
{
    char path[300];
    FILE *out = NULL;

    snprintf(path, sizeof(path), "%s/httpd.pid", ocf_tmpdir);
    unlink(path);
    out = fopen(path, "w");
    assert_non_null(out);
    fputs(text, out);
    assert_int_equal(fclose(out), 0);
    return fm_ocf_read_pid_file(path);
}

static void
test_read_pid_file(void **state)
{
    char path[300];

    (void) state;
    assert_int_equal(pid_of("1234\n"), 1234);
    assert_int_equal(pid_of("1234"), 1234);
    assert_int_equal(pid_of("2147483647\n"), 2147483647);
    /* Never init, a process group or something that is not a PID. */
    assert_int_equal(pid_of("1\n"), 0);
    assert_int_equal(pid_of("0\n"), 0);
    assert_int_equal(pid_of("-1234\n"), 0);
    assert_int_equal(pid_of("2147483648\n"), 0);
    assert_int_equal(pid_of("12a\n"), 0);
    assert_int_equal(pid_of("\n"), 0);
    assert_int_equal(pid_of(""), 0);
    assert_int_equal(pid_of("1234\n5678\n"), 0);
    snprintf(path, sizeof(path), "%s/none.pid", ocf_tmpdir);
    assert_int_equal(fm_ocf_read_pid_file(path), 0);
}

/* Not a regular file: no PID, and no wait for a writer (the alarm ends a
 * test that would block). */
static void
test_read_pid_file_special(void **state)
{
    char path[300];
    char link_path[300];

    (void) state;
    assert_int_equal(pid_of("4321\n"), 4321);
    snprintf(path, sizeof(path), "%s/httpd.pid", ocf_tmpdir);
    snprintf(link_path, sizeof(link_path), "%s/link.pid", ocf_tmpdir);
    unlink(link_path);
    assert_int_equal(symlink(path, link_path), 0);
    assert_int_equal(fm_ocf_read_pid_file(link_path), 0);
    unlink(link_path);

    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(5);
    assert_int_equal(fm_ocf_read_pid_file(path), 0);
    alarm(0);
    unlink(path);
    assert_int_equal(fm_ocf_read_pid_file("/dev/null"), 0);
    assert_int_equal(fm_ocf_read_pid_file(ocf_tmpdir), 0);
}

static void
test_run(void **state)
{
    char out[64];
    size_t used = 0;
    char *echo[] = { (char *) "/bin/sh", (char *) "-c", (char *) "echo hello; echo oops >&2; exit 3", NULL };
    char *sleeper[] = { (char *) "/bin/sh", (char *) "-c", (char *) "exec sleep 10", NULL };
    char *missing[] = { (char *) "/nonexistent/program", NULL };
    char *killed[] = { (char *) "/bin/sh", (char *) "-c", (char *) "kill -9 $$", NULL };
    char *chatty[] = { (char *) "/bin/sh", (char *) "-c", (char *) "yes | head -c 100000", NULL };
    uint64_t start_us = 0;

    (void) state;
    assert_int_equal(fm_ocf_run(echo, out, sizeof(out), &used, 5000), 3);
    assert_string_equal(out, "hello\noops\n");
    assert_int_equal(used, strlen("hello\noops\n"));

    /* Killed at the deadline, not waited for. */
    start_us = fm_now_us();
    assert_int_equal(fm_ocf_run(sleeper, out, sizeof(out), NULL, 200), -1);
    assert_true(fm_now_us() - start_us < 3000000u);

    assert_int_equal(fm_ocf_run(missing, out, sizeof(out), NULL, 5000), 127);
    assert_non_null(strstr(out, "cannot execute /nonexistent/program"));
    assert_int_equal(fm_ocf_run(killed, NULL, 0, NULL, 5000), 128 + 9);

    /* More output than fits: what fits, NUL-terminated, and the program
     * is not blocked on a full pipe. */
    assert_int_equal(fm_ocf_run(chatty, out, sizeof(out), &used, 5000), 0);
    assert_int_equal(used, sizeof(out) - 1);
    assert_int_equal(strlen(out), sizeof(out) - 1);
}

static void
test_pid_alive(void **state)
{
    (void) state;
    assert_true(fm_ocf_pid_alive(getpid(), NULL));
    assert_false(fm_ocf_pid_alive(0, NULL));
    assert_false(fm_ocf_pid_alive(1, NULL));
    /* Another program's PID does not count as this one's. */
    assert_false(fm_ocf_pid_alive(getpid(), "/usr/sbin/apache2"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_pid_file),
        cmocka_unit_test(test_read_pid_file_special),
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_pid_alive),
    };

    return cmocka_run_group_tests_name("ocf_proc", tests, make_dir, remove_dir);
}
