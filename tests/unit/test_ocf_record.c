/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the agent's record (agents/ocf/ocf_record.c): the bytes on disk
 * (agent-state.sh and the cluster tests read them, and a record written by
 * an older agent must still be read), and the records the kvfile reader
 * refuses, which the agent must never take for a verdict.
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

#include "ocf_common.h"
#include "ocf_tmpdir.h"

static int
make_dir(void **state)
{
    (void) state;
    return ocf_tmpdir_make("test_ocf_record");
}

static int
remove_dir(void **state)
{
    static const char *const files[] = { "agent", "elsewhere", NULL };

    (void) state;
    return ocf_tmpdir_remove(files);
}

static void
put_file(const char *name, const char *text, size_t len)
{
    char path[300];
    FILE *out = NULL;

    snprintf(path, sizeof(path), "%s/%s", ocf_tmpdir, name);
    unlink(path);
    out = fopen(path, "w");
    assert_non_null(out);
    assert_int_equal(fwrite(text, 1, len, out), len);
    assert_int_equal(fclose(out), 0);
}

static char *
slurp(const char *name, size_t *len)
{
    char path[300];
    FILE *in = NULL;
    char *buf = calloc(1, 65536);

    assert_non_null(buf);
    snprintf(path, sizeof(path), "%s/%s", ocf_tmpdir, name);
    in = fopen(path, "r");
    assert_non_null(in);
    *len = fread(buf, 1, 65535, in);
    fclose(in);
    return buf;
}

/* The format on disk is the one every reader of it knows, byte for byte. */
static void
test_bytes_on_disk(void **state)
{
    static struct fm_ocf_record rec;
    static const char want[] = "faultmon-agent 1\nagent=apache\nhttpd=/usr/sbin/apache2\n"
                               "pid_directive=0\nport_list=127.0.0.1:80 https://127.0.0.1:443/\nend\n";
    size_t len = 0;
    char *text = NULL;

    (void) state;
    memset(&rec, 0, sizeof(rec));
    fm_ocf_record_set(&rec, "agent", "apache");
    fm_ocf_record_set(&rec, "httpd", "/usr/sbin/apache2");
    fm_ocf_record_set(&rec, "pid_directive", "0");
    fm_ocf_record_set(&rec, "port_list", "127.0.0.1:80 https://127.0.0.1:443/");
    assert_int_equal(fm_ocf_record_write(ocf_tmpdir, &rec), 0);
    text = slurp("agent", &len);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(text, want, len);
    free(text);
}

/* A record as the agent wrote it before the kvfile reader reads back whole;
 * a second value of a key replaces the first, a value keeps one line. */
static void
test_read_back(void **state)
{
    static struct fm_ocf_record rec;
    static const char text[] = "faultmon-agent 1\nagent=apache\npid_file=/run/apache2/apache2.pid\n"
                               "status_url=\nagent=apache2\nend\n";

    (void) state;
    put_file("agent", text, strlen(text));
    assert_int_equal(fm_ocf_record_read(ocf_tmpdir, &rec), 0);
    assert_int_equal(rec.n, 3);
    assert_string_equal(fm_ocf_record_get(&rec, "agent"), "apache2");
    assert_string_equal(fm_ocf_record_get(&rec, "pid_file"), "/run/apache2/apache2.pid");
    assert_string_equal(fm_ocf_record_get(&rec, "status_url"), "");
    assert_null(fm_ocf_record_get(&rec, "httpd"));

    memset(&rec, 0, sizeof(rec));
    fm_ocf_record_set(&rec, "configfile", "/etc/a\nb\rc");
    assert_string_equal(fm_ocf_record_get(&rec, "configfile"), "/etc/a b c");
    /* A key longer than any of ours is dropped, not cut into another. */
    fm_ocf_record_set(&rec, "a_key_that_is_much_longer_than_any_key_of_the_agent", "x");
    assert_int_equal(rec.n, 1);
    for (int i = 0; i < FM_OCF_RECORD_MAX + 4; i++) {
        char key[16];

        snprintf(key, sizeof(key), "k%d", i);
        fm_ocf_record_set(&rec, key, "v");
    }
    assert_int_equal(rec.n, FM_OCF_RECORD_MAX);
}

/* What the reader refuses: never a record, so never a verdict. */
static void
test_refused(void **state)
{
    static struct fm_ocf_record rec;
    static const struct {
        const char *text;
        size_t len;
        const char *why;
    } cases[] = {
        { "faultmon-agent 1\nagent=apache\n", 0, "truncated: no 'end'" },
        { "faultmon-agent 1\nagent=apache\nend\nhttpd=/bin/sh\n", 0, "data after 'end'" },
        { "faultmon-agent 1\nagent=apache\nend", 0, "no newline at the end" },
        { "faultmon-agent 1\nagent=apa\0che\nend\n", 35, "binary" },
        { "faultmon-agent 2\nagent=apache\nend\n", 0, "not a faultmon agent record" },
        { "faultmon-agent 1\nagent apache\nend\n", 0, "not key=value" },
        { "", 0, "empty" },
    };
    char err[256];
    char path[300];
    char target[300];

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        /* len 0: the whole string (one case holds a NUL byte). */
        put_file("agent", cases[i].text, (cases[i].len != 0)? cases[i].len : strlen(cases[i].text));
        assert_int_equal(fm_ocf_record_read_why(ocf_tmpdir, &rec, err, sizeof(err)), EINVAL);
        if (strstr(err, cases[i].why) == NULL) {
            fail_msg("case %zu: '%s' does not say '%s'", i, err, cases[i].why);
        }
        assert_int_equal(fm_ocf_record_read(ocf_tmpdir, &rec), EINVAL);
    }

    /* A symbolic link in its place is not followed. */
    put_file("elsewhere", "faultmon-agent 1\nagent=apache\nend\n", 34);
    snprintf(path, sizeof(path), "%s/agent", ocf_tmpdir);
    snprintf(target, sizeof(target), "%s/elsewhere", ocf_tmpdir);
    unlink(path);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(fm_ocf_record_read_why(ocf_tmpdir, &rec, err, sizeof(err)), EINVAL);
    assert_int_equal(rec.n, 0);

    /* None at all, and after fm_ocf_record_remove(). */
    fm_ocf_record_remove(ocf_tmpdir);
    assert_int_equal(fm_ocf_record_read(ocf_tmpdir, &rec), ENOENT);
    assert_int_equal(access(target, F_OK), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_on_disk),
        cmocka_unit_test(test_read_back),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests_name("ocf_record", tests, make_dir, remove_dir);
}
