/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/util/regex_linear.c and regex_linear_parse.c: each
 * construct answers as regexec() does, pattern by pattern and on random
 * patterns and subjects; what is left to regexec() is declined.
 */
#include <config.h>

#include <locale.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

    if (!fm_regex_linear_compile(pattern, &prog)) {
        fail_msg("'%s' refused", pattern);
    }
    if (fm_regex_linear_search(&prog, data, len) != reference(pattern, data, len)) {
        char shown[4 * 64 + 1] = "";

        /* the subject's bytes escaped: it may hold NULs, newlines, 0x80 */
        for (size_t i = 0; i < len && i < 64; i++) {
            snprintf(shown + 4 * i, 5, "\\x%02x", (unsigned char) data[i]);
        }
        fail_msg("pattern '%s' on '%s' (%zu bytes): regexec says %s", pattern, shown, len,
                 reference(pattern, data, len)? "match" : "no match");
    }
    fm_regex_linear_free(&prog);
}

/* Every pattern in \p patterns against every subject in \p subjects. */
static void
check_all(const char *const *patterns, size_t n_patterns, const char *const *subjects,
          size_t n_subjects)
{
    for (size_t i = 0; i < n_patterns; i++) {
        for (size_t j = 0; j < n_subjects; j++) {
            check_same(patterns[i], subjects[j], strlen(subjects[j]));
        }
    }
}

#define CHECK_ALL(p, s) check_all((p), sizeof(p) / sizeof((p)[0]), (s), sizeof(s) / sizeof((s)[0]))

/* The agents' default testregex, folded and not, and plain sequences. */
static void
test_plain(void **state)
{
    static const char *const patterns[] = {
        "</ *[Hh][Tt][Mm][Ll] *>", "</ *html *>", "OK", "Total Accesses", "ab*c+d?", "[ab]*", "a b",
        "x/y:z=1,\"q\"", "", "a*a*a*b", "}", "]", "a\tb",
        "\\.\\*\\[\\]\\(\\)\\+\\?\\{\\}\\|\\^\\$\\\\",
    };
    static const char *const subjects[] = {
        "<body></body></html>\n", "</  HTML  >", "</ht ml>", "</html\n>", "", "OK\n", "aaab", "b",
        "ac", "abbc", "x/y:z=1,\"q\"", "a}b]", "a\tb", ".*[]()+?{}|^$\\",
    };

    CHECK_ALL(patterns, subjects);
}

/* Alternation and groups, nested and empty. */
static void
test_alternation_groups(void **state)
{
    static const char *const patterns[] = {
        "(ok|OK)", "status: (up|ready)", "a|b|c", "(a|)b", "()", "(|x)y", "((a|b)c|d)+e", "a|",
        "(a(b(c)))", "x(ab|cd)*y", "(a|ab)(c|bcd)(d*)", "^(a|b)$", "(a*|b)*c",
    };
    static const char *const subjects[] = {
        "ok", "OK", "Ok", "status: up", "status: ready", "status: down", "b", "xb", "y", "acde",
        "dde", "abc", "xy", "xabcdy", "xabdy", "abcd", "a\nb", "aaaac", "c", "",
    };

    CHECK_ALL(patterns, subjects);
}

/* Repetition operators and intervals, stacked too. */
static void
test_repetition(void **state)
{
    static const char *const patterns[] = {
        "a{2}", "a{2,}", "a{1,3}b", "a{,2}b", "a{0}b", "(ab){2}", "a{0,0}", "x{3,3}", "a**", "a+?",
        "(a?){3}b", "(a*)+b", "[0-9]{3}", "a{2}{2}", "a{,}b",
    };
    static const char *const subjects[] = {
        "a", "aa", "aaa", "aaaab", "b", "ab", "abab", "aab", "xxx", "xx", "12", "123", "1a23", "",
    };

    CHECK_ALL(patterns, subjects);
}

/* Anchors at each line (REG_NEWLINE), and glibc's buffer and word anchors. */
static void
test_anchors(void **state)
{
    static const char *const patterns[] = {
        "^HTTP/1\\.[01] 200", "^a", "a$", "^$", "^", "$", "a^b", "a$b", "(^|x)a", "b($|y)",
        "\\`a", "a\\'", "\\<ok\\>", "\\bok", "ok\\B", "\\Bk", "(^a|b$)",
    };
    static const char *const subjects[] = {
        "HTTP/1.1 200 OK\r\n", "HTTP/1.0 200", "xHTTP/1.1 200", "HTTP/1.2 200", "x\nHTTP/1.1 200",
        "a", "ba", "b\na", "ab", "a\nb", "", "\n", "xa", "by", "b\n", "ok", "book", "ok!", "okay",
        "ba\nb",
    };

    CHECK_ALL(patterns, subjects);
}

/* ".", bracket lists, ranges, classes and backslash classes. */
static void
test_sets(void **state)
{
    static const char *const patterns[] = {
        "a.c", "[^a]", "[a-c]+", "[]a]", "[^]a]", "[a-]", "[-a]", "[--/]", "[[:digit:]]+",
        "[[:alpha:][:space:]]", "[^[:alnum:]]", "[[:upper:]][[:lower:]]", "[[:punct:]]", "[\\]",
        "[[:xdigit:]]{2}", "[[:blank:]]", "[[:cntrl:]]", "[[:print:]]", "[[:graph:]]", "\\w+",
        "\\W", "\\s", "\\S", "[a-z-]", "a[^x]b", ".", "\\n", "[.]", "[*+?{]",
    };
    static const char *const subjects[] = {
        "abc", "a\nc", "aXc", "b", "a", "]", "-", ".", "/", "123", " ", "Ab", "!", "\\", "ff",
        "\t", "\x01", "~", "_", "a\nb", "\n", "n", "*", "{",
    };

    CHECK_ALL(patterns, subjects);
}

/* NULs and bytes beyond ASCII in the subject (REG_STARTEND). */
static void
test_binary_subjects(void **state)
{
    static const char *const patterns[] = {
        "a[bc]*d", "a.d", "a[^x]d", "a\\Wd", "a\\Sd", "a[[:print:]]d", "^d", "d$", "\\<d",
        "\\bd\\b", "\\Bd", "d\\>", "a\\wd", "a\\sd", "a[^[:alpha:]]d", "a[[:cntrl:]]d", "a[]x]*d",
        "[^]a]d", "a(|.)d", "\\Ba", "a\\B",
    };
    static const char subject[] = "xa\0d a\xc3\xa9" "d a\x80" "d abcd";

    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
        for (size_t len = 0; len < sizeof(subject); len++) {
            check_same(patterns[i], subject, len);
        }
    }
}

/* Bytes past ASCII: UTF-8 text as administrators write it ("Willkommen bei
 * Müller"), each byte a character of its own, as regexec() reads them in
 * the C locale, in brackets and ranges too (by value); taken, no longer a
 * child per reply. */
static void
test_non_ascii_and_named_bytes(void **state)
{
    static const char *const patterns[] = {
        "M\xc3\xbcller", "caf\xc3\xa9+", "(\xc3\xa9|x)+$", "\xff", "a.\xa9", ".\xc3.",
        "^\xd0\x94\xd0\xbe\xd0\xb1\xd1\x80\xd0\xbe", "\xe2\x80\x93 [0-9]+ \xe2\x82\xac",
        "\x80*", "\x80{2}", "\\<\xc3", "\xc3\\b", "[\xc3\xa9]x", "[^\xc3]x", "[a\xff-]x",
        "[\x80-\xff]x", "[a-\x80]x", "[]\xa9]x", "[\xc3\xa9]+", "\\w\xa9", "\\W\xa9", "\xc3\\w",
        "\xc3\\B", "[[:alpha:]\xc3]x", "[^[:print:]]x", "\\S\xa9", "\\s",
        /* one byte named, in the C locale: that byte */
        "[[=a=]]x", "[[.a.]]x", "[[.-.]]x", "[^[=a=]]x", "[[=\xc3=]]x", "[[.].]]x", "[[=]=]]x",
        "[[.a.][=b=]-]x",
    };
    static const char *const subjects[] = {
        "Willkommen bei M\xc3\xbcller\n", "Mueller", "un caf\xc3\xa9!", "caf\xc3\xa9\xa9\xa9",
        "\xc3\xa9\xc3\xa9x", "\xff", "a\xc3\xa9", "x\xc3y", "\xd0\x94\xd0\xbe\xd0\xb1\xd1\x80\xd0\xbe \xd0\xbf",
        "Preis \xe2\x80\x93 42 \xe2\x82\xac", "\x80\x80", "", "a\xc3", "\xa9x", "\xc3x", "ax",
        "\xffx", "-x", "bx", "\x90x", "]x",
    };

    (void) state;
    CHECK_ALL(patterns, subjects);
}

/* What is left to regexec() (in its child): the decision to fall back. */
static void
test_declines(void **state)
{
    static const char *const other[] = {
        /* refused by regcomp() too (a longer name; a range backwards):
         * declined here, and the option setters give regcomp()'s error */
        "[[.space.]]", "[[=ab=]]", "[\xff-a]",
        "[[.a.]-c]", "[a-[.c.]]", "\\1", "(a)\\1", "a)", "*a", "+", "a{",
        "a{x}", "a{2,1}", "a{99999}", "[ab", "\\", "(a", "^*", "a|*b", "[[:nope:]]", "[a-[:digit:]]",
        "[z-a]", "[a-c-e]", "a\nb",
        /* an anchor under repetition: regexec() says "(a|a$b)+$" matches
         * "aab", which it cannot; left to it, so that both paths agree */
        "(a|a$b)+$", "(^a|b$)+", "(\\<a)*", "(x^)?",
    };
    struct fm_regex_linear prog;
    char *big = malloc(FM_REGEX_LINEAR_MAX_STATES + 2);

    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
        if (fm_regex_linear_compile(other[i], &prog)) {
            fail_msg("'%s' taken", other[i]);
        }
    }
    /* One state per byte and one to accept: the largest automaton taken. */
    assert_non_null(big);
    memset(big, 'a', FM_REGEX_LINEAR_MAX_STATES);
    big[FM_REGEX_LINEAR_MAX_STATES] = '\0';
    assert_false(fm_regex_linear_compile(big, &prog));
    big[FM_REGEX_LINEAR_MAX_STATES - 1] = '\0';
    assert_true(fm_regex_linear_compile(big, &prog));
    fm_regex_linear_free(&prog);
    assert_false(fm_regex_linear_compile("(abc){1000}", &prog));
    free(big);
}

/* Repetitions of what has no state ("()", "a{0}") cost the build no state
 * but still a step per copy: nested, 32767 times 32767 steps (11 to 22 s
 * before the build counted its steps).  The guard refuses these first in
 * the probe, but the bound is this file's own: declined, at once. */
static void
test_declines_empty_repeats_at_once(void **state)
{
    static const char *const nested[] = {
        "((){32767}){32767}", "((a{0}){32767}){32767}", "(((){1000}){1000}){1000}",
        "(()|a{0}){30000}b{0}{30000}(x{0,0}){32767}",
    };
    struct fm_regex_linear prog;

    for (size_t i = 0; i < sizeof(nested) / sizeof(nested[0]); i++) {
        struct timespec start;
        struct timespec end;

        clock_gettime(CLOCK_MONOTONIC, &start);
        if (fm_regex_linear_compile(nested[i], &prog)) {
            fm_regex_linear_free(&prog);
            fail_msg("'%s' taken", nested[i]);
        }
        clock_gettime(CLOCK_MONOTONIC, &end);
        /* 2 s: far above the microseconds it takes, far below the seconds
         * it took (ASan and a loaded machine included) */
        assert_true(end.tv_sec - start.tv_sec < 2);
    }
    /* A few such copies are still taken. */
    assert_true(fm_regex_linear_compile("(()a{0}){300}ok", &prog));
    assert_true(fm_regex_linear_search(&prog, "ok", 2));
    fm_regex_linear_free(&prog);
}

/* In another locale ranges, classes and "." mean other things: every
 * pattern goes to regexec() there. */
static void
test_declines_outside_c_locale(void **state)
{
    struct fm_regex_linear prog;

    if (setlocale(LC_ALL, "C.UTF-8") == NULL) {
        skip();
    }
    assert_false(fm_regex_linear_compile("ok", &prog));
    assert_non_null(setlocale(LC_ALL, "C"));
    assert_true(fm_regex_linear_compile("ok", &prog));
    fm_regex_linear_free(&prog);
}

/* Random patterns over a small alphabet, so that matches are frequent. */
static void
random_pattern(char *out, size_t max)
{
    static const char *const atoms[] = {
        "a", "b", "<", "/", " ", "[ab]", "[b/]", "\\.", ".", "^", "$", "[^a]", "[a-c]", "\\<", "\\b",
        "\\w", "[[:space:]]", "(a|b)", "(a|)", "()", "(ab|a)", "(a*|b)", "\\B", "\\>", "\\`",
        "\\'", "\\W", "[^[:alpha:]]", "(a|b$)", "(^a|b)", "((a|b)c|)", "[]a]", "[^]a]", "[a-]",
        "[\\n]", "\\n", "\\s", "\\S", "[^\\]", "[[:cntrl:]]", "[^[:print:]]", "(.|\\W)",
        /* bytes beyond ASCII and one-byte names, taken since 70ba4c4 */
        "\x80", "\xff", "\xc3", "[\x80-\xff]", "[^\xc3]", "[a\xff]", "[.a.]", "[[.a.]]",
        "[[=\xe9=]]", "[[.-.]]", "[[.].]]", "[^[=a=]b]", "[[.a.]-]",
    };
    static const char *const ops[] = {
        "", "", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "|", "{0}", "{,1}", "**", "+?",
    };
    size_t n = (size_t) (rand() % 7);
    size_t len = 0;

    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *atom = atoms[rand() % (int) (sizeof(atoms) / sizeof(atoms[0]))];
        /* an anchor cannot repeat */
        bool anchor = (strchr("^$", atom[0]) != NULL
                       || (atom[0] == '\\' && strchr("bB<>`'", atom[1]) != NULL));
        const char *op = anchor? "" : ops[rand() % (int) (sizeof(ops) / sizeof(ops[0]))];

        if (len + strlen(atom) + strlen(op) + 3 > max) {
            break;
        }
        len += (size_t) snprintf(out + len, max - len, "%s%s", atom, op);
    }
    if (rand() % 5 == 0 && len + 3 < max) {
        memmove(out + 1, out, len + 1);
        out[0] = '(';
        strcat(out, ")+");
    }
}

static void
test_random_same_as_regexec(void **state)
{
    /* NUL, newline and bytes beyond ASCII too: regexec() sees them all
     * (REG_STARTEND), so must the automaton */
    static const char alphabet[] = "ab</ .\nc_\0\x80\xff\\n\x01";
    char pattern[96];
    char data[24 + 1];    /* + a NUL that REG_STARTEND does not need, but
                           * ASan's regexec interceptor reads up to */
    regex_t re;

    struct fm_regex_linear prog;
    int compiled = 0;
    int taken = 0;
    /* FM_REGEX_ROUNDS=1000000 for a longer run by hand; FM_REGEX_SEED too */
    int rounds = (getenv("FM_REGEX_ROUNDS") != NULL)? atoi(getenv("FM_REGEX_ROUNDS")) : 30000;

    srand((getenv("FM_REGEX_SEED") != NULL)? (unsigned) atoi(getenv("FM_REGEX_SEED")) : 11);
    for (int round = 0; round < rounds; round++) {
        size_t len = (size_t) (rand() % (int) (sizeof(data) - 1));

        random_pattern(pattern, sizeof(pattern));
        if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0) {
            continue;
        }
        regfree(&re);
        compiled++;
        /* declined: an anchor under repetition (test_declines) */
        if (!fm_regex_linear_compile(pattern, &prog)) {
            continue;
        }
        fm_regex_linear_free(&prog);
        taken++;
        for (size_t i = 0; i < len; i++) {
            data[i] = alphabet[rand() % (int) (sizeof(alphabet) - 1)];
        }
        data[len] = '\0';
        check_same(pattern, data, len);
    }
    /* Most random patterns are searched here, not left to regexec(). */
    if (taken < compiled / 2) {
        fail_msg("%d of %d random patterns taken", taken, compiled);
    }
}

/* Random patterns glued from metacharacters and pieces of syntax, byte by
 * byte rather than atom by atom: brackets with "]" "-" "^" "[" "\\" in any
 * place, bounds with and without numbers, escapes of anything.  A pattern
 * regcomp() refuses is declined; one both take answers as regexec() does. */
static void
test_random_syntax_same_as_regexec(void **state)
{
    static const char *const pieces[] = {
        "a", "b", "-", "]", "[", "^", "$", "\\", "(", ")", "|", "*", "+", "?", "{", "}", ",", "0", "1",
        "2", ".", ":", "[:alpha:]", "[:space:]", "[:punct:]", "w", "W", "b", "B", "<", ">", "`", "'",
        "n", "_", " ", "\t", "=", "!", "~", "/", "\x80", "\xff", "\xc3", "[.", ".]", "[=", "=]",
    };
    static const char alphabet[] = "ab\n\0\x80\xff_ -\\]n\x01\t[{,}.:^$|*+?()=!~/";
    int rounds = (getenv("FM_REGEX_ROUNDS") != NULL)? atoi(getenv("FM_REGEX_ROUNDS")) : 30000;
    char pattern[64];
    char data[24 + 1];

    srand((getenv("FM_REGEX_SEED") != NULL)? (unsigned) atoi(getenv("FM_REGEX_SEED")) : 11);
    for (int round = 0; round < rounds; round++) {
        int n = 1 + rand() % 10;
        size_t len = 0;
        regex_t re;
        struct fm_regex_linear prog;
        bool refused = false;

        pattern[0] = '\0';
        for (int i = 0; i < n; i++) {
            const char *piece = pieces[rand() % (int) (sizeof(pieces) / sizeof(pieces[0]))];

            if (len + strlen(piece) + 1 > sizeof(pattern)) {
                break;
            }
            len += (size_t) snprintf(pattern + len, sizeof(pattern) - len, "%s", piece);
        }
        refused = (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0);
        if (!refused) {
            regfree(&re);
        }
        if (!fm_regex_linear_compile(pattern, &prog)) {
            continue;
        }
        fm_regex_linear_free(&prog);
        if (refused) {
            fail_msg("'%s' taken, though regcomp() refuses it", pattern);
        }
        for (int k = 0; k < 4; k++) {
            len = (size_t) (rand() % (int) (sizeof(data) - 1));
            for (size_t i = 0; i < len; i++) {
                data[i] = alphabet[rand() % (int) (sizeof(alphabet) - 1)];
            }
            data[len] = '\0';
            check_same(pattern, data, len);
        }
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
    fm_regex_linear_free(&prog);
    assert_true(fm_regex_linear_compile("(a|aa)*(x|y)$", &prog));
    assert_false(fm_regex_linear_search(&prog, data, len - 1));
    fm_regex_linear_free(&prog);
    free(data);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_alternation_groups),
        cmocka_unit_test(test_repetition),
        cmocka_unit_test(test_anchors),
        cmocka_unit_test(test_sets),
        cmocka_unit_test(test_binary_subjects),
        cmocka_unit_test(test_non_ascii_and_named_bytes),
        cmocka_unit_test(test_declines),
        cmocka_unit_test(test_declines_empty_repeats_at_once),
        cmocka_unit_test(test_declines_outside_c_locale),
        cmocka_unit_test(test_random_same_as_regexec),
        cmocka_unit_test(test_random_syntax_same_as_regexec),
        cmocka_unit_test(test_linear_time),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
