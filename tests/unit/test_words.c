/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: splitting a parameter into words without a shell
 * (src/util/words.c).
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/words.h>

static void
test_split_words(void **state)
{
    struct {
        const char *text;
        size_t n;
        const char *words[4];
    } cases[] = {
        { "", 0, { NULL } },
        { "  -DSSL \t -k start ", 3, { "-DSSL", "-k", "start" } },
        { "-C 'ServerName web' -c \"Listen 8080\"", 4, { "-C", "ServerName web", "-c", "Listen 8080" } },
        { "a\\ b \"x\\\"y\"", 2, { "a b", "x\"y" } },
        /* Nothing is expanded or split by a shell. */
        { "$(touch /tmp/x) `id`;ls", 3, { "$(touch", "/tmp/x)", "`id`;ls" } },
    };

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char **words = NULL;
        size_t n = 0;

        assert_int_equal(fm_words_split(cases[i].text, &words, &n, NULL), 0);
        assert_int_equal(n, cases[i].n);
        for (size_t w = 0; w < n; w++) {
            assert_string_equal(words[w], cases[i].words[w]);
        }
        fm_words_free(words, n);
    }
    {
        char **words = NULL;
        size_t n = 0;

        assert_int_equal(fm_words_split("-C 'unbalanced", &words, &n, NULL), EINVAL);
        assert_null(words);
        assert_int_equal(n, 0);
    }
}

/* Shell syntax outside quotes is reported (the exec probe refuses it), and
 * the same characters quoted or escaped are not. */
static void
test_shell_syntax(void **state)
{
    struct {
        const char *text;
        char syntax;
    } cases[] = {
        { "/bin/check --port 80", '\0' },
        { "/bin/check | grep ok", '|' },
        { "/bin/check && echo", '&' },
        { "/bin/check ;ls", ';' },
        { "/bin/check > /tmp/out", '>' },
        { "/bin/check $HOME", '$' },
        { "/bin/check `id`", '`' },
        { "/bin/check (x)", '(' },
        { "/bin/check '|' \"&&\" \\; '$HOME'", '\0' },
        { "/bin/check --regex 'a|b' x", '\0' },
    };

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char **words = NULL;
        size_t n = 0;
        char syntax = 'x';

        print_message("# %s\n", cases[i].text);
        assert_int_equal(fm_words_split(cases[i].text, &words, &n, &syntax), 0);
        assert_int_equal(syntax, cases[i].syntax);
        assert_true(n >= 1);
        assert_string_equal(words[0], "/bin/check");
        fm_words_free(words, n);
    }
}

/*
 * Quotes and backslashes as POSIX sh splits them (XCU 2.2): the expected
 * words are what dash gave for `printf '%s\036' TEXT`, generated once and
 * written here.  Inside double quotes a backslash escapes only '$', '`',
 * '"', '\\' and a newline; before anything else it stays (issue 30, item 13).
 */
static void
test_split_as_sh(void **state)
{
    static const struct {
        const char *text;
        size_t n;
        const char *words[2];
    } cases[] = {
        { "\"a\\$b\"", 1, { "a$b" } },
        { "\"a\\`b\"", 1, { "a`b" } },
        { "\"a\\\"b\"", 1, { "a\"b" } },
        { "\"a\\\\b\"", 1, { "a\\b" } },
        { "\"a\\nb\"", 1, { "a\\nb" } },
        { "\"a\\xb\"", 1, { "a\\xb" } },
        { "'a\\$b'", 1, { "a\\$b" } },
        { "a\\$b", 1, { "a$b" } },
        { "a\\\\b", 1, { "a\\b" } },
        { "\"a\\'b\"", 1, { "a\\'b" } },
        { "a\\ b c", 2, { "a b", "c" } },
        { "\"x y\" z", 2, { "x y", "z" } },
        { "'x y'z", 1, { "x yz" } },
        { "\"\" x", 2, { "", "x" } },
        { "'' x", 2, { "", "x" } },
        { "a\"b\"c", 1, { "abc" } },
        { "a'b'c", 1, { "abc" } },
        { "\"a\\\\\\\\b\"", 1, { "a\\\\b" } },
        { "\"a\\\nb\"", 1, { "ab" } },
        { "a\\\nb", 1, { "ab" } },
        { "a \\\n b", 2, { "a", "b" } },
        { "a\\#b", 1, { "a#b" } },
        { "\"#x\" y", 2, { "#x", "y" } },
        { "a#b", 1, { "a#b" } },
        { "\"~\" x", 2, { "~", "x" } },
        { "x~y", 1, { "x~y" } },
        { "a\\~", 1, { "a~" } },
        { "a\\\\", 1, { "a\\" } },
        { "a\\", 1, { "a\\" } },
        { "\"\\$HOME\"", 1, { "$HOME" } },
        { "'\\$HOME'", 1, { "\\$HOME" } },
        { "\\$HOME", 1, { "$HOME" } },
        { "\"a\\\\\\$b\"", 1, { "a\\$b" } },
        { "\"\\\\\"", 1, { "\\" } },
        { "\\\"", 1, { "\"" } },
        { "\\'", 1, { "'" } },
        { "\"\\'\"", 1, { "\\'" } },
        { "-C \"ServerName \\\"web\\\"\"", 2, { "-C", "ServerName \"web\"" } },
        { "\"tab\\tx\"", 1, { "tab\\tx" } },
        { "\"multi\nline\"", 1, { "multi\nline" } },

    };

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char **words = NULL;
        size_t n = 0;
        char syntax = 'x';

        print_message("# %s\n", cases[i].text);
        assert_int_equal(fm_words_split(cases[i].text, &words, &n, &syntax), 0);
        assert_int_equal(syntax, '\0');
        assert_int_equal(n, cases[i].n);
        for (size_t w = 0; w < n; w++) {
            assert_string_equal(words[w], cases[i].words[w]);
        }
        fm_words_free(words, n);
    }
}

/* What a shell would expand or drop is reported, not split otherwise: '$'
 * and '`' inside double quotes too, '#' and '~' at a word's start. */
static void
test_expansions_reported(void **state)
{
    static const struct {
        const char *text;
        char syntax;
    } cases[] = {
        { "x \"$HOME\"", '$' },
        { "x \"a`id`\"", '`' },
        { "x #comment", '#' },
        { "x ~/file", '~' },
        { "x ~", '~' },
        { "x '$HOME' \"\\$HOME\" a#b x~y \\#c \"#\" '~'", '\0' },
    };

    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char **words = NULL;
        size_t n = 0;
        char syntax = 'x';

        print_message("# %s\n", cases[i].text);
        assert_int_equal(fm_words_split(cases[i].text, &words, &n, &syntax), 0);
        assert_int_equal(syntax, cases[i].syntax);
        fm_words_free(words, n);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_words),
        cmocka_unit_test(test_shell_syntax),
        cmocka_unit_test(test_split_as_sh),
        cmocka_unit_test(test_expansions_reported),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
