/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: value parsing (src/util/parse.c): booleans, integers,
 * durations, sizes.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/parse.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct bool_case {
    const char *text;
    int rc;
    bool value;
};

static const struct bool_case bool_cases[] = {
    { "1", 0, true }, { "true", 0, true }, { "yes", 0, true }, { "on", 0, true },
    { "y", 0, true }, { "TRUE", 0, true }, { "Yes", 0, true }, { "ON", 0, true },
    { "Y", 0, true },
    { "0", 0, false }, { "false", 0, false }, { "no", 0, false }, { "off", 0, false },
    { "n", 0, false }, { "FALSE", 0, false }, { "No", 0, false }, { "OFF", 0, false },
    { "N", 0, false },
    { "", EINVAL, false }, { " yes", EINVAL, false }, { "yes ", EINVAL, false },
    { "2", EINVAL, false }, { "01", EINVAL, false }, { "t", EINVAL, false },
    { "f", EINVAL, false }, { "enable", EINVAL, false }, { "yess", EINVAL, false },
    { NULL, EINVAL, false },
};

static void
test_bool(void **state)
{
    (void) state;
    for (size_t i = 0; i < N_OF(bool_cases); i++) {
        bool out = !bool_cases[i].value;
        bool before = out;

        assert_int_equal(fm_parse_bool(bool_cases[i].text, &out), bool_cases[i].rc);
        if (bool_cases[i].rc == 0) {
            assert_int_equal(out, bool_cases[i].value);
        } else {
            assert_int_equal(out, before);  /* untouched on failure */
        }
    }
}

struct u64_case {
    const char *text;
    uint64_t min;
    uint64_t max;
    unsigned int flags;
    int rc;
    uint64_t value;
};

static const struct u64_case u64_cases[] = {
    { "0", 0, UINT64_MAX, FM_PARSE_DEFAULT, 0, 0 },
    { "42", 0, UINT64_MAX, FM_PARSE_DEFAULT, 0, 42 },
    { "007", 0, UINT64_MAX, FM_PARSE_DEFAULT, 0, 7 },
    { "007", 0, UINT64_MAX, FM_PARSE_CANONICAL, EINVAL, 0 },
    { "00", 0, UINT64_MAX, FM_PARSE_CANONICAL, EINVAL, 0 },
    { "0", 0, UINT64_MAX, FM_PARSE_CANONICAL, 0, 0 },
    { "18446744073709551615", 0, UINT64_MAX, FM_PARSE_DEFAULT, 0, UINT64_MAX },
    { "18446744073709551616", 0, UINT64_MAX, FM_PARSE_DEFAULT, ERANGE, 0 },
    { "99999999999999999999999", 0, UINT64_MAX, FM_PARSE_DEFAULT, ERANGE, 0 },
    { "99999999999999999999999x", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "5", 1, 4, FM_PARSE_DEFAULT, ERANGE, 0 },
    { "0", 1, 4, FM_PARSE_DEFAULT, ERANGE, 0 },
    { "4", 1, 4, FM_PARSE_DEFAULT, 0, 4 },
    { "1", 1, 4, FM_PARSE_DEFAULT, 0, 1 },
    { "", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "-1", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "+1", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "-0", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { " 1", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "1 ", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "1\n", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "0x10", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "1e3", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "1.0", 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { NULL, 0, UINT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
};

static void
test_u64(void **state)
{
    (void) state;
    for (size_t i = 0; i < N_OF(u64_cases); i++) {
        const struct u64_case *c = &u64_cases[i];
        uint64_t out = 12345;

        assert_int_equal(fm_parse_u64(c->text, c->min, c->max, c->flags, &out), c->rc);
        assert_true(out == ((c->rc == 0)? c->value : 12345));
    }
}

struct i64_case {
    const char *text;
    int64_t min;
    int64_t max;
    unsigned int flags;
    int rc;
    int64_t value;
};

static const struct i64_case i64_cases[] = {
    { "0", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, 0, 0 },
    { "-0", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, 0, 0 },
    { "-0", INT64_MIN, INT64_MAX, FM_PARSE_CANONICAL, EINVAL, 0 },
    { "-07", INT64_MIN, INT64_MAX, FM_PARSE_CANONICAL, EINVAL, 0 },
    { "-07", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, 0, -7 },
    { "-42", INT64_MIN, INT64_MAX, FM_PARSE_CANONICAL, 0, -42 },
    { "9223372036854775807", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, 0, INT64_MAX },
    { "9223372036854775808", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, ERANGE, 0 },
    { "-9223372036854775808", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, 0, INT64_MIN },
    { "-9223372036854775809", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, ERANGE, 0 },
    { "-5", -4, 4, FM_PARSE_DEFAULT, ERANGE, 0 },
    { "5", -4, 4, FM_PARSE_DEFAULT, ERANGE, 0 },
    { "-4", -4, 4, FM_PARSE_DEFAULT, 0, -4 },
    { "+1", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "-", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "--1", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "- 1", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { "12a", INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
    { NULL, INT64_MIN, INT64_MAX, FM_PARSE_DEFAULT, EINVAL, 0 },
};

static void
test_i64(void **state)
{
    (void) state;
    for (size_t i = 0; i < N_OF(i64_cases); i++) {
        const struct i64_case *c = &i64_cases[i];
        int64_t out = 12345;

        assert_int_equal(fm_parse_i64(c->text, c->min, c->max, c->flags, &out), c->rc);
        assert_true(out == ((c->rc == 0)? c->value : 12345));
    }
}

struct duration_case {
    const char *text;
    int rc;
    uint64_t ms;
};

static const struct duration_case duration_cases[] = {
    { "5", 0, 5000 }, { "5s", 0, 5000 }, { "500ms", 0, 500 }, { "2m", 0, 120000 },
    { "2min", 0, 120000 }, { "1h", 0, 3600000 }, { "0", 0, 0 }, { "0ms", 0, 0 },
    { "8760h", 0, UINT64_C(31536000000) },
    { "8761h", ERANGE, 0 }, { "9000h", ERANGE, 0 },
    { "31536000000ms", 0, UINT64_C(31536000000) }, { "31536000001ms", ERANGE, 0 },
    { "99999999999999999999999", ERANGE, 0 },
    { "5S", EINVAL, 0 }, { "5MS", EINVAL, 0 }, { "5H", EINVAL, 0 }, { "5sec", EINVAL, 0 },
    { "-1", EINVAL, 0 }, { "+1", EINVAL, 0 }, { "", EINVAL, 0 }, { "5x", EINVAL, 0 },
    { " 5", EINVAL, 0 }, { "5 s", EINVAL, 0 }, { "1.5s", EINVAL, 0 }, { "s", EINVAL, 0 },
    { NULL, EINVAL, 0 },
};

static void
test_duration(void **state)
{
    (void) state;
    for (size_t i = 0; i < N_OF(duration_cases); i++) {
        uint64_t ms = 777;

        assert_int_equal(fm_parse_duration_ms(duration_cases[i].text, &ms), duration_cases[i].rc);
        assert_true(ms == ((duration_cases[i].rc == 0)? duration_cases[i].ms : 777));
    }
}

struct size_case {
    const char *text;
    int rc;
    size_t bytes;
};

static const struct size_case size_cases[] = {
    { "0", 0, 0 }, { "65536", 0, 65536 }, { "64k", 0, 65536 }, { "64K", 0, 65536 },
    { "64KiB", 0, 65536 }, { "64kib", 0, 65536 }, { "1M", 0, 1048576 }, { "1m", 0, 1048576 },
    { "1MiB", 0, 1048576 }, { "1024M", 0, 1073741824 }, { "1025M", ERANGE, 0 },
    { "1073741825", ERANGE, 0 }, { "99999999999999999999999", ERANGE, 0 },
    { "2G", EINVAL, 0 }, { "k", EINVAL, 0 }, { "", EINVAL, 0 }, { "-1", EINVAL, 0 },
    { "1 k", EINVAL, 0 }, { "1kb", EINVAL, 0 }, { NULL, EINVAL, 0 },
};

static void
test_size(void **state)
{
    (void) state;
    for (size_t i = 0; i < N_OF(size_cases); i++) {
        size_t bytes = 777;

        assert_int_equal(fm_parse_size_bytes(size_cases[i].text, &bytes), size_cases[i].rc);
        assert_true(bytes == ((size_cases[i].rc == 0)? size_cases[i].bytes : 777));
    }
}

/* Send strings (issue 12): C escapes and \xHH decoded, errors named. */
static void
test_escapes(void **state)
{
    char out[64];
    char why[160];
    size_t len = 0;

    (void) state;
    assert_int_equal(fm_parse_escapes("PING\\r\\n", out, &len, why, sizeof(why)), 0);
    assert_int_equal(len, 6);
    assert_memory_equal(out, "PING\r\n", 6);
    assert_int_equal(fm_parse_escapes("\\x00\\xfF\\0\\t\\\\\\\"", out, &len, why, sizeof(why)), 0);
    assert_int_equal(len, 6);
    assert_memory_equal(out, "\0\xff\0\t\\\"", 6);
    assert_int_equal(fm_parse_escapes("", out, &len, why, sizeof(why)), 0);
    assert_int_equal(len, 0);
    assert_int_equal(fm_parse_escapes("a\\q", out, &len, why, sizeof(why)), EINVAL);
    assert_non_null(strstr(why, "'\\q'"));
    assert_int_equal(fm_parse_escapes("\\x4", out, &len, why, sizeof(why)), EINVAL);
    assert_non_null(strstr(why, "two hex digits"));
    assert_int_equal(fm_parse_escapes("\\xg0", out, &len, why, sizeof(why)), EINVAL);
    assert_int_equal(fm_parse_escapes("end\\", out, &len, why, sizeof(why)), EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bool),
        cmocka_unit_test(test_u64),
        cmocka_unit_test(test_i64),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_size),
        cmocka_unit_test(test_escapes),
    };

    return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
