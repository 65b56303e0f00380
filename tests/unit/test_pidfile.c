/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for fm_pidfile_read(): the PID of a regular file, and nothing
 * (at once) from anything else at the path.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <faultmon/pidfile.h>

static char dir[64];
static char path[128];

static int
setup(void **state)
{
    (void) state;
    snprintf(dir, sizeof(dir), "/tmp/fm-pidfile-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/pid", dir);
    return 0;
}

static int
teardown(void **state)
{
    char other[160];

    (void) state;
    unlink(path);
    rmdir(path);
    snprintf(other, sizeof(other), "%s/real", dir);
    unlink(other);
    rmdir(dir);
    return 0;
}

static void
put(const char *text)
{
    FILE *out = fopen(path, "w");

    assert_non_null(out);
    fputs(text, out);
    assert_int_equal(fclose(out), 0);
}

static void
test_pid(void **state)
{
    pid_t pid = 0;

    (void) state;
    put("4242\n");
    assert_int_equal(fm_pidfile_read(path, &pid, NULL, 0), 0);
    assert_int_equal(pid, 4242);
    put("77");
    assert_int_equal(fm_pidfile_read(path, &pid, NULL, 0), 0);
    assert_int_equal(pid, 77);
}

static void
test_bad_content(void **state)
{
    static const char *const bad[] = {
        "", "\n", "1\n", "0", "-5", "abc", "12 13", "12\n\n", "99999999999999",
        "123456789012345678901234567890123\n",
    };
    char err[256] = "";
    pid_t pid = 9;

    (void) state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        put(bad[i]);
        assert_int_equal(fm_pidfile_read(path, &pid, err, sizeof(err)), EINVAL);
        assert_int_equal(pid, 9);
        assert_non_null(strstr(err, path));
    }
}

/* A FIFO with no writer: refused at once, never a blocked reader. */
static void
test_fifo(void **state)
{
    char err[256] = "";
    pid_t pid = 0;

    (void) state;
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(fm_pidfile_read(path, &pid, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "not a regular file"));
}

static void
test_not_regular_or_link(void **state)
{
    char real[160];
    char err[256] = "";
    pid_t pid = 0;

    (void) state;
    assert_int_equal(fm_pidfile_read(path, &pid, err, sizeof(err)), ENOENT);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(fm_pidfile_read(path, &pid, err, sizeof(err)), EINVAL);
    assert_int_equal(rmdir(path), 0);
    snprintf(real, sizeof(real), "%s/real", dir);
    put("4242\n");
    assert_int_equal(rename(path, real), 0);
    assert_int_equal(symlink(real, path), 0);
    assert_int_equal(fm_pidfile_read(path, &pid, err, sizeof(err)), EINVAL);
    assert_int_equal(pid, 0);
    assert_int_equal(fm_pidfile_read("/dev/null", &pid, err, sizeof(err)), EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_content, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_regular_or_link, setup, teardown),
    };

    return cmocka_run_group_tests_name("pidfile", tests, NULL, NULL);
}
