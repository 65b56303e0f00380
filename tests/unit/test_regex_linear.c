/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/util/regex_linear.c: which patterns it takes, and that
 * its search answers as regexec() does, pattern by pattern and on random
 * patterns and subjects drawn from the subset.
 */
#include <config.h>

#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <faultmon/regex_linear.h>

/* regexec() as the probe calls it (REG_STARTEND: NULs allowed). */
static bool
reference(const char *pattern, const char *data, size_t len)
{
    regex_t re;
    regmatch_t m = { .rm_so = 0, .rm_eo = (regoff_t) len };
    bool found = false;

    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE), 0);
    found = (regexec(&re, data, 1, &m, REG_STARTEND) == 0);
    regfree(&re);
    return found;
}

static void
check_same(const char *pattern, const char *data, size_t len)
{
    struct fm_regex_linear prog;

    assert_true(fm_regex_linear_compile(pattern, &prog));
    if (fm_regex_linear_search(&prog, data, len) != reference(pattern, data, len)) {
        fail_msg("pattern '%s' on '%.*s' (%zu bytes): regexec says %s", pattern, (int) len, data, len,
                 reference(pattern, data, len)? "match" : "no match");
    }
}

static void
test_accepts_plain(void **state)
{
    static const char *const plain[] = {
        "</ *[Hh][Tt][Mm][Ll] *>", "</ *html *>", "OK", "Total Accesses", "ab*c+d?",
        "\\.\\*\\[\\]\\(\\)\\+\\?\\{\\}\\|\\^\\$\\\\", "[ab]*", "a b", "x/y:z=1,\"q\"", "",
    };
    struct fm_regex_linear prog;

    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        if (!fm_regex_linear_compile(plain[i], &prog)) {
            fail_msg("'%s' refused", plain[i]);
        }
    }
}

static void
test_refuses_the_rest(void **state)
{
    static const char *const other[] = {
        ".", "a.b", "^a", "a$", "a|b", "(a)", "a{2}", "a{", "}", "]", "[^a]", "[a-z]", "[-a]", "[a-]",
        "[]a]", "[[:alpha:]]", "[[.a.]]", "[\\]", "\\w", "\\<", "\\1", "\\b", "a**", "a+?", "*a", "+",
        "a\tb", "caf\xc3\xa9", "[\xc3\xa9]", "[ab", "\\",
    };
    struct fm_regex_linear prog;
    char long_pattern[FM_REGEX_LINEAR_MAX_ITEMS + 2];

    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
        if (fm_regex_linear_compile(other[i], &prog)) {
            fail_msg("'%s' taken", other[i]);
        }
    }
    memset(long_pattern, 'a', sizeof(long_pattern) - 1);
    long_pattern[sizeof(long_pattern) - 1] = '\0';
    assert_false(fm_regex_linear_compile(long_pattern, &prog));
    long_pattern[sizeof(long_pattern) - 2] = '\0';
    assert_true(fm_regex_linear_compile(long_pattern, &prog));
}

static void
test_same_as_regexec(void **state)
{
    static const struct {
        const char *pattern;
        const char *data;
    } cases[] = {
        { "</ *[Hh][Tt][Mm][Ll] *>", "<body></body></html>\n" },
        { "</ *[Hh][Tt][Mm][Ll] *>", "</  HTML  >" },
        { "</ *[Hh][Tt][Mm][Ll] *>", "</ht ml>" },
        { "</ *[Hh][Tt][Mm][Ll] *>", "</html\n>" },
        { "</ *[Hh][Tt][Mm][Ll] *>", "" },
        { "a+b", "aaab" }, { "a+b", "b" }, { "ab?c", "ac" }, { "ab?c", "abbc" },
        { "a*", "" }, { "x*y*", "zzz" }, { "[xy]+z", "xyxyxz" }, { "aab", "aaab" },
        { "a\\.b", "axb" }, { "a\\.b", "a.b" }, { "a b", "a\nb" },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_same(cases[i].pattern, cases[i].data, strlen(cases[i].data));
    }
    /* NULs and bytes past ASCII in the subject are never matched. */
    check_same("a[bc]*d", "xa\0d a\xc3\xa9" "d abcd", 13);
    check_same("a[bc]*d", "xa\0d a\xc3\xa9" "d abcd", 16);
}

/* Random patterns over a small alphabet, so that matches are frequent. */
static void
random_pattern(char *out, size_t max)
{
    static const char atoms[][6] = { "a", "b", "<", "/", " ", "[ab]", "[b/]", "\\.", "." };
    static const char ops[][2] = { "", "", "", "*", "+", "?" };
    size_t n = (size_t) (rand() % 6);
    size_t len = 0;

    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *atom = atoms[rand() % 8];           /* not ".": refused */
        const char *op = ops[rand() % 6];

        if (len + strlen(atom) + strlen(op) + 1 > max) {
            break;
        }
        len += (size_t) snprintf(out + len, max - len, "%s%s", atom, op);
    }
}

static void
test_random_same_as_regexec(void **state)
{
    static const char alphabet[] = "ab</ .\n";
    char pattern[64];
    char data[24 + 1];    /* + a NUL that REG_STARTEND does not need, but
                           * ASan's regexec interceptor reads up to */

    srand(11);
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t) (rand() % (int) (sizeof(data) - 1));

        random_pattern(pattern, sizeof(pattern));
        for (size_t i = 0; i < len; i++) {
            data[i] = alphabet[rand() % (int) (sizeof(alphabet) - 1)];
        }
        data[len] = '\0';
        check_same(pattern, data, len);
    }
}

/* Linear: a subject that makes glibc quadratic ("a*a*a*b" on a's) is
 * decided in one pass (a few ms for 1 MiB, under any test's timeout). */
static void
test_linear_time(void **state)
{
    size_t len = 1u << 20;
    char *data = malloc(len);
    struct fm_regex_linear prog;

    assert_non_null(data);
    memset(data, 'a', len);
    assert_true(fm_regex_linear_compile("a*a*a*a*a*a*a*a*b", &prog));
    assert_false(fm_regex_linear_search(&prog, data, len));
    data[len - 1] = 'b';
    assert_true(fm_regex_linear_search(&prog, data, len));
    free(data);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_plain),
        cmocka_unit_test(test_refuses_the_rest),
        cmocka_unit_test(test_same_as_regexec),
        cmocka_unit_test(test_random_same_as_regexec),
        cmocka_unit_test(test_linear_time),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
