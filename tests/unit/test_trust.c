/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: which files the loop and its readers believe
 * (src/core/trust.c): owned by root or the effective uid, writable by no
 * group or other, no symbolic link, checked on the opened descriptor; and
 * the loop's state directory, which it never takes over from another owner.
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
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/state.h>
#include <faultmon/trust.h>

#include "ocf_tmpdir.h"

#define NOBODY 65534

static char path_buf[512];

static const char *
at(const char *name)
{
    snprintf(path_buf, sizeof(path_buf), "%s/%s", ocf_tmpdir, name);
    return path_buf;
}

static void
write_file(const char *name, mode_t mode)
{
    int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC, 0600);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, "a=1\n", 4), 4);
    close(fd);
    assert_int_equal(chmod(at(name), mode), 0);
}

/* Load \p name of directory \p dir: the return code, and "not trusted"
 * said when refused. */
static int
load(const char *dir, const char *name)
{
    char err[512] = "";
    char *text = NULL;
    size_t len = 0;
    char dir_path[512];
    int rc = 0;

    snprintf(dir_path, sizeof(dir_path), "%s", at(dir));
    rc = fm_trust_load(dir_path, name, 1024, &text, &len, err, sizeof(err));
    if (rc == 0) {
        assert_string_equal(text, "a=1\n");
    } else if (rc == EPERM) {
        assert_non_null(strstr(err, "not trusted"));
        assert_null(text);
    }
    free(text);
    return rc;
}

static void
test_modes_and_links(void **state)
{
    (void) state;
    assert_int_equal(mkdir(at("d"), 0700), 0);
    write_file("d/ok", 0600);
    write_file("d/readable", 0644);
    write_file("d/group", 0620);
    write_file("d/world", 0666);
    assert_int_equal(symlink("ok", at("d/link")), 0);
    assert_int_equal(load("d", "ok"), 0);
    assert_int_equal(load("d", "readable"), 0);
    assert_int_equal(load("d", "group"), EPERM);
    assert_int_equal(load("d", "world"), EPERM);
    assert_int_equal(load("d", "link"), EPERM);
    assert_int_equal(load("d", "missing"), ENOENT);
    assert_int_equal(load("missing-dir", "ok"), ENOENT);
    /* The directory: a symbolic link to it, and group- or world-writable. */
    assert_int_equal(symlink("d", at("dlink")), 0);
    assert_int_equal(load("dlink", "ok"), EPERM);
    assert_int_equal(chmod(at("d"), 0770), 0);
    assert_int_equal(load("d", "ok"), EPERM);
    assert_int_equal(chmod(at("d"), 0777), 0);
    assert_int_equal(load("d", "ok"), EPERM);
    assert_int_equal(chmod(at("d"), 0755), 0);
    assert_int_equal(load("d", "ok"), 0);
}

/* Owned by another user: only root can make one. */
static void
test_owner(void **state)
{
    (void) state;
    if (geteuid() != 0) {
        skip();
    }
    assert_int_equal(mkdir(at("o"), 0700), 0);
    write_file("o/mine", 0600);
    write_file("o/theirs", 0600);
    assert_int_equal(chown(at("o/theirs"), NOBODY, NOBODY), 0);
    assert_int_equal(load("o", "mine"), 0);
    assert_int_equal(load("o", "theirs"), EPERM);
    assert_int_equal(chown(at("o"), NOBODY, NOBODY), 0);
    assert_int_equal(load("o", "mine"), EPERM);
    assert_true(fm_trust_owner(0));
    assert_true(fm_trust_owner(geteuid()));
}

/* The loop's directory: made 0700, ours left wider is narrowed, a symbolic
 * link or another owner's is refused and left as it was. */
static void
test_state_dir_create(void **state)
{
    struct stat st;

    (void) state;
    assert_int_equal(fm_state_dir_create(at("new")), 0);
    assert_int_equal(lstat(at("new"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(mkdir(at("wide"), 0700), 0);
    assert_int_equal(chmod(at("wide"), 0777), 0);
    assert_int_equal(fm_state_dir_create(at("wide")), 0);
    assert_int_equal(lstat(at("wide"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(symlink("new", at("linked")), 0);
    assert_int_equal(fm_state_dir_create(at("linked")), ENOTDIR);
    if (geteuid() != 0) {
        return;
    }
    assert_int_equal(mkdir(at("precreated"), 0700), 0);
    assert_int_equal(chmod(at("precreated"), 0777), 0);
    assert_int_equal(chown(at("precreated"), NOBODY, NOBODY), 0);
    assert_int_equal(fm_state_dir_create(at("precreated")), EPERM);
    assert_int_equal(lstat(at("precreated"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0777);
    assert_int_equal(st.st_uid, NOBODY);
}

static int
group_setup(void **state)
{
    (void) state;
    return ocf_tmpdir_make("faultmon-test-trust");
}

static int
group_teardown(void **state)
{
    static const char *const names[] = {
        "d/ok", "d/readable", "d/group", "d/world", "d/link", "d", "dlink",
        "o/mine", "o/theirs", "o", "new", "wide", "linked", "precreated", NULL,
    };
    static const char *const none[] = { NULL };

    (void) state;
    for (size_t i = 0; names[i] != NULL; i++) {
        if (unlink(at(names[i])) != 0) {
            rmdir(at(names[i]));
        }
    }
    return ocf_tmpdir_remove(none);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes_and_links),
        cmocka_unit_test(test_owner),
        cmocka_unit_test(test_state_dir_create),
    };

    return cmocka_run_group_tests_name("trust", tests, group_setup, group_teardown);
}
