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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_words),
        cmocka_unit_test(test_shell_syntax),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
