/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: attrd_updater's one caller (src/pcmk/attrd.c), against a
 * stand-in program that records its arguments: the argument vector, the
 * exit status, the output, and the deadline.
 */
#include <config.h>

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

#include <faultmon/attrd.h>
#include <faultmon/clock.h>

static char top[64];
static char tool[128];
static char args_file[128];

/* The stand-in: writes its arguments one a line, then behaves as the
 * attribute's name says (fail, slow, or fine). */
static int
setup(void **state)
{
    FILE *out = NULL;

    (void) state;
    snprintf(top, sizeof(top), "/tmp/test_attrd.XXXXXX");
    if (mkdtemp(top) == NULL) {
        return -1;
    }
    snprintf(tool, sizeof(tool), "%s/attrd_updater", top);
    snprintf(args_file, sizeof(args_file), "%s/args", top);
    out = fopen(tool, "w");
    if (out == NULL) {
        return -1;
    }
    fprintf(out, "#!/bin/sh\n"
            "printf '%%s\\n' \"$@\" > '%s'\n"
            "case \"$2\" in\n"
            "  fail) echo 'could not connect to attrd'; exit 3 ;;\n"
            "  slow) exec sleep 10 ;;\n"
            "esac\n"
            "exit 0\n", args_file);
    fclose(out);
    return chmod(tool, 0700);
}

static int
teardown(void **state)
{
    (void) state;
    unlink(args_file);
    unlink(tool);
    return rmdir(top);
}

static void
assert_args(const char *expected)
{
    char text[512];
    FILE *in = fopen(args_file, "r");
    size_t n = 0;

    assert_non_null(in);
    n = fread(text, 1, sizeof(text) - 1, in);
    text[n] = '\0';
    fclose(in);
    assert_string_equal(text, expected);
}

static void
test_set_and_delete(void **state)
{
    char out[256];

    (void) state;
    /* A value with blanks and shell characters is one argument. */
    assert_int_equal(fm_attrd_update(tool, "faultmon-web-reason", "a b; $(x) 'c'", NULL, 5000,
                                     out, sizeof(out)), 0);
    assert_args("-n\nfaultmon-web-reason\n-U\na b; $(x) 'c'\n");
    assert_int_equal(fm_attrd_update(tool, "faultmon-web-reason", NULL, NULL, 5000, NULL, 0), 0);
    assert_args("-n\nfaultmon-web-reason\n-D\n");
    assert_int_equal(fm_attrd_update(tool, "pingd", "1", "5s", 5000, out, sizeof(out)), 0);
    assert_args("-n\npingd\n-U\n1\n-d\n5s\n");
}

static void
test_failure_status_and_output(void **state)
{
    char out[256];

    (void) state;
    assert_int_equal(fm_attrd_update(tool, "fail", "1", NULL, 5000, out, sizeof(out)), 3);
    assert_string_equal(out, "could not connect to attrd");
}

static void
test_missing_program(void **state)
{
    char out[256];
    char missing[160];

    (void) state;
    snprintf(missing, sizeof(missing), "%s/nothing-here", top);
    assert_int_equal(fm_attrd_update(missing, "x", "1", NULL, 5000, out, sizeof(out)), 127);
    assert_non_null(strstr(out, "cannot execute"));
}

/* A cluster that does not answer costs the deadline, not more. */
static void
test_deadline(void **state)
{
    char out[256];
    uint64_t start_us = fm_now_us();
    uint64_t took_ms = 0;

    (void) state;
    assert_int_equal(fm_attrd_update(tool, "slow", "1", NULL, 200, out, sizeof(out)), -1);
    took_ms = (fm_now_us() - start_us) / 1000;
    assert_true(took_ms >= 200);
    assert_true(took_ms < 2000);
    assert_string_equal(out, "no answer within 200 ms");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_and_delete),
        cmocka_unit_test(test_failure_status_and_output),
        cmocka_unit_test(test_missing_program),
        cmocka_unit_test(test_deadline),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
