/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the header / key=value / end file format (src/util/kvfile.c):
 * the framing the reader demands, the messages it gives, the size and file
 * type it refuses, and the atomic writer.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/kvfile.h>

static const struct fm_kvfile_format test_format = {
    .header = "test-format 1",
    .name = "test file",
    .max_bytes = 64,
};

/* What the callback saw, and a key it refuses. */
struct seen {
    char text[256];
    int n;
};

static const char *
collect(char *key, char *value, void *data)
{
    struct seen *seen = data;
    size_t used = strlen(seen->text);

    if (strcmp(key, "bad") == 0) {
        return "unknown key or bad value";
    }
    snprintf(seen->text + used, sizeof(seen->text) - used, "[%s|%s]", key, value);
    seen->n++;
    return NULL;
}

struct parse_case {
    const char *text;
    size_t len;             /* 0: strlen */
    int rc;
    const char *out;        /* what the callback saw, or the message */
};

static const struct parse_case parse_cases[] = {
    { "test-format 1\nend\n", 0, 0, "" },
    { "test-format 1\na=1\nb=x=y\nc=\n=v\nend\n", 0, 0, "[a|1][b|x=y][c|][|v]" },
    { "", 0, EINVAL, "empty or binary data" },
    { "test-format 1\na=\0\nend\n", 21, EINVAL, "empty or binary data" },
    { "test-format 1\nend", 0, EINVAL, "truncated: no newline at the end" },
    { "test-format 1\na=1\n", 0, EINVAL, "line 2: truncated: no 'end'" },
    { "test-format 2\nend\n", 0, EINVAL, "line 1: not a test file ('test-format 2')" },
    { "\nend\n", 0, EINVAL, "line 1: not a test file ('')" },
    { "test-format 1\nnoequals\nend\n", 0, EINVAL, "line 2: not key=value ('noequals')" },
    { "test-format 1\nend\na=1\n", 0, EINVAL, "line 3: data after 'end' ('a=1')" },
    { "test-format 1\nend\nend\n", 0, EINVAL, "line 3: data after 'end' ('end')" },
    { "test-format 1\nbad=7\nend\n", 0, EINVAL, "line 2: unknown key or bad value ('bad=7')" },
    { "test-format 1\r\nend\n", 0, EINVAL, "line 1: not a test file ('test-format 1\\x0d')" },
    /* The shown line is cut, and a secret in it stays hidden. */
    { "test-format 1\nbad=http://user:secretsecretsecretsecretsecretsecretsecretsecretsecret@h/\nend\n", 0,
      EINVAL, "line 2: unknown key or bad value ('bad=http://***')" },
};

static void
test_parse_framing(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        const struct parse_case *c = &parse_cases[i];
        size_t len = (c->len != 0)? c->len : strlen(c->text);
        struct seen seen;
        char err[256] = "";
        int rc = 0;

        memset(&seen, 0, sizeof(seen));
        rc = fm_kvfile_parse(c->text, len, &test_format, collect, &seen, err, sizeof(err));
        assert_int_equal(rc, c->rc);
        assert_string_equal((rc == 0)? seen.text : err, c->out);
    }
    /* No message buffer: only the code. */
    assert_int_equal(fm_kvfile_parse("x\n", 2, &test_format, collect, NULL, NULL, 0), EINVAL);
}

static void
write_three(FILE *out, const void *data)
{
    (void) data;
    fputs("test-format 1\n", out);
    fm_kvfile_put_text(out, "text", "a\nb\x7f" "c\td");
    fputs("n=3\nend\n", out);
}

static void
test_write_then_read(void **state)
{
    char dir[] = "/tmp/fm-kvfile-XXXXXX";
    char path[128];
    char err[256] = "";
    struct seen seen;
    struct stat sb;

    (void) state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/f", dir);
    memset(&seen, 0, sizeof(seen));
    assert_int_equal(fm_kvfile_read(path, &test_format, collect, &seen, err, sizeof(err)), ENOENT);
    assert_non_null(strstr(err, "cannot read"));

    assert_int_equal(fm_kvfile_write(dir, "f", write_three, NULL), 0);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(fm_kvfile_read(path, &test_format, collect, &seen, err, sizeof(err)), 0);
    assert_string_equal(seen.text, "[text|a?b?c?d][n|3]");

    /* Over max_bytes: refused unread. */
    {
        struct fm_kvfile_format small = test_format;

        small.max_bytes = 10;
        assert_int_equal(fm_kvfile_read(path, &small, collect, &seen, err, sizeof(err)), EINVAL);
        assert_non_null(strstr(err, "is not a regular file of at most 10 bytes"));
    }
    /* A parse error names the file. */
    {
        FILE *out = fopen(path, "w");

        assert_non_null(out);
        fputs("test-format 1\n", out);
        fclose(out);
        assert_int_equal(fm_kvfile_read(path, &test_format, collect, &seen, err, sizeof(err)),
                         EINVAL);
        assert_non_null(strstr(err, "/f: line 1: truncated: no 'end'"));
    }
    assert_int_equal(unlink(path), 0);

    /* Neither a symbolic link nor a directory is read. */
    assert_int_equal(symlink("/etc/hostname", path), 0);
    assert_int_equal(fm_kvfile_read(path, &test_format, collect, &seen, err, sizeof(err)), EINVAL);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(fm_kvfile_read(path, &test_format, collect, &seen, err, sizeof(err)), EINVAL);
    assert_int_equal(rmdir(path), 0);

    /* A directory that is gone: an error, and no temporary file. */
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(fm_kvfile_write(dir, "f", write_three, NULL), ENOENT);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_framing),
        cmocka_unit_test(test_write_then_read),
    };

    return cmocka_run_group_tests_name("kvfile", tests, NULL, NULL);
}
