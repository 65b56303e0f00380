/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the guard in front of regcomp() (src/util/regex_guard.c).
 *
 * Pathological patterns must be refused from their text, at once; ordinary
 * ones accepted; and whatever the guard accepts must compile quickly.
 */
#include <config.h>

#include <errno.h>
#include <malloc.h>
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

#include <faultmon/probe_opts.h>
#include <faultmon/regex_guard.h>
#include <faultmon/target.h>

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* "a" followed by n copies of op. */
static char *
repeat(const char *head, const char *op, size_t n, const char *tail)
{
    size_t len = strlen(head) + strlen(op) * n + strlen(tail) + 1;
    char *s = calloc(1, len);

    assert_non_null(s);
    strcpy(s, head);
    for (size_t i = 0; i < n; i++) {
        strcat(s, op);
    }
    strcat(s, tail);
    return s;
}

/* n opening parentheses, the middle, then n times close. */
static char *
nested(size_t n, const char *middle, const char *close)
{
    char *open = repeat("", "(", n, middle);
    char *s = repeat(open, close, n, "");

    free(open);
    return s;
}

static void
refused(const char *regex, const char *why_part)
{
    char err[256] = "";
    double start = now_s();

    assert_int_equal(fm_regex_check(regex, err, sizeof(err)), EINVAL);
    assert_true(now_s() - start < 0.1);
    if (strstr(err, why_part) == NULL) {
        fail_msg("'%.80s': error '%s' does not say '%s'", regex, err, why_part);
    }
    assert_null(strchr(err, '\n'));
}

static void
accepted_and_fast(const char *regex)
{
    char err[256] = "";
    regex_t re;
    double start = 0;
    size_t heap_before = mallinfo2().uordblks;
    size_t heap_used = 0;

    if (fm_regex_check(regex, err, sizeof(err)) != 0) {
        fail_msg("'%.80s' refused: %s", regex, err);
    }
    start = now_s();
    if (regcomp(&re, regex, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) == 0) {
        /* Measured while compiled (a sanitizer's allocator reports 0). */
        heap_used = mallinfo2().uordblks - heap_before;
        regfree(&re);
    }
    /* The budget of a whole validate-all is 1 s; one compile gets far less,
     * and a pattern that passes must not cost more than a few MB either. */
    assert_true(now_s() - start < 0.25);
    if (heap_used > 16u * 1024 * 1024) {
        fail_msg("'%.80s' took %zu KB to compile", regex, heap_used / 1024);
    }
}

static void
test_ordinary_patterns(void **state)
{
    static const char *const ok[] = {
        "</ *html *>", "</ *[hH][tT][mM][lL] *>", "status: *up", "ok|up", "^HTTP/1\\.[01] 200",
        "[[:alpha:][:digit:]]{1,100}", "a*?", "(a|b)+", "[]a]+", "[^]a]*x", "a{2,}", "a{,3}",
        "x{", "\\(literal\\)", "Total Accesses: [0-9]+", "((a|b)*c)+", "", "a{1000}",
        "[[:space:]]*(Scoreboard|BusyWorkers)", "(", "a)",
    };

    (void) state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        accepted_and_fast(ok[i]);
    }
}

static void
test_stacked_plus(void **state)
{
    char *p = repeat("a", "+", 60, "");

    (void) state;
    refused(p, "repetition operators in a row");
    free(p);
    refused("a+++", "in a row");
    refused("a**{2}", "in a row");
}

static void
test_nested_repeats(void **state)
{
    char *star = nested(40, "a*", ")*");
    char *plus = nested(20, "a+", ")+");
    char *deep = nested(FM_REGEX_MAX_GROUP_DEPTH + 1, "a", ")");
    char *ok = nested(FM_REGEX_MAX_REPEAT_DEPTH - 1, "a*", ")*");

    (void) state;
    refused(star, "nested");
    refused(plus, "nested");
    refused(deep, "parentheses");
    accepted_and_fast(ok);
    free(star);
    free(plus);
    free(deep);
    free(ok);
}

/* Each limit at its edge, the last pattern accepted and the first refused:
 * mutants that moved a limit by one (or a + after a bound that stopped
 * counting) survived the cases far from the edges. */
static void
test_limits_exact(void **state)
{
    (void) state;
    accepted_and_fast("a{32768}");
    refused("a{32769}", "expand");
    accepted_and_fast("a{16383}+");
    refused("a{16384}+", "expand");
    refused("a{17000}+", "expand");
    accepted_and_fast("(a{0,2})*{8}");
    refused("(a{0,2})*{9}", "loops over nothing");
    accepted_and_fast("(a{0,3}){0,24}");
    refused("(a{0,3}){0,25}", "ways to match nothing");
    refused("(a{0,3}){0,30}", "ways to match nothing");
    /* glibc takes an escaped comma in a bound too, and "{0}" still makes
     * one copy of what a later bound repeats. */
    refused("a{0\\,16000}", "optional");
    refused("(a{0\\,3}){0\\,25}", "ways to match nothing");
    refused("a{0}{32769}", "expand");
}

/* A bracket expression is one member, whatever it holds: "*++" inside one
 * is no repetition ("[:alpha:]", "[=a=]", "[.a.]", a leading "]" or "^]"
 * do not end it), and it ends where regcomp() ends it: what follows is
 * judged.  So is an escape.  Mutants of the bracket, escape and
 * alternation readers survived every other case. */
static void
test_brackets(void **state)
{
    char *deepest = nested(FM_REGEX_MAX_GROUP_DEPTH, "a", ")");

    (void) state;
    /* The deepest nesting allowed (one more is refused in test_nested_repeats). */
    accepted_and_fast(deepest);
    free(deepest);
    /* An escape is one member: an escaped operator is no repetition, the
     * word boundaries match the empty string, a back-reference says which. */
    accepted_and_fast("a\\+\\+\\+");
    accepted_and_fast("a\\*\\*\\*");
    refused("(\\b)*{9}", "loops over nothing");
    refused("(\\<){0,25}", "ways to match nothing");
    refused("(a)\\1", "\\1 is a back-reference");
    /* Alternatives: an empty branch, first or last, makes the group match
     * nothing; every empty branch beyond the first is one more way to; "|"
     * is a node of its own. */
    accepted_and_fast("(|a)*{8}");
    refused("(|a)*{9}", "loops over nothing");
    refused("(a|)*{9}", "loops over nothing");
    accepted_and_fast("(||a){0,12}");
    refused("(||a){0,13}", "ways to match nothing");
    accepted_and_fast("(a|b){8192}");
    refused("(a|b){8193}", "expand");
    accepted_and_fast("[[:alpha:]*++]");
    accepted_and_fast("[[=a=]*++]");
    accepted_and_fast("[[.a.]*++]");
    accepted_and_fast("[[.].]*++]");
    accepted_and_fast("[[=]=]*++]");
    accepted_and_fast("[]*++]");
    accepted_and_fast("[^]*++]");
    accepted_and_fast("a\\");                       /* a trailing backslash: regcomp() says */
    accepted_and_fast("a{0,120}b{0,120}");          /* optional nodes add up along a sequence */
    refused("a{0,200}b{0,200}", "optional");
    accepted_and_fast("[a:*++]");                   /* ":" "=" "." alone open no class */
    accepted_and_fast("[a=*++]");
    accepted_and_fast("[a.*++]");
    accepted_and_fast("[[::]*++]");                 /* the class closes at once */
    /* Not a bound (regcomp() decides): no "{m,n}" read into it. */
    accepted_and_fast("a{1x,40000}");
    accepted_and_fast("a{40000x");
    refused("[[:alpha:]]*++", "in a row");
    refused("[a]*++", "in a row");
    refused("[^a]*++", "in a row");
    accepted_and_fast("[a]{32768}");
    refused("[a]{32769}", "expand");
}

static void
test_expansion(void **state)
{
    (void) state;
    refused("a{1000}{1000}", "expand");
    refused("(a{100}){1000}", "expand");
    refused("((a{40}){40}){40}", "expand");
    accepted_and_fast("((a{30}){30}){30}");
    accepted_and_fast("(((((((a+)+)+)+)+)+)+");
    refused("[[:alpha:]]{30000}[[:alpha:]]{30000}", "expand");
    refused("(a|b|c|d|e|f|g|h){8000}", "expand");
    accepted_and_fast("a{100}{100}");
    accepted_and_fast("(a{100}){300}");
    /* Optional copies cost regcomp() the square of their number (found by
     * tests/fuzz/fuzz_regex: "a{0,16000}" took 2 GB and 2.6 s). */
    refused("a{0,16000}", "optional");
    refused("a?{3000}", "optional");
    refused("a*{16000}", "optional");
    refused("(a{0,30}){0,1000}", "optional");
    refused("((a*)*{500})", "optional");
    refused("(a*()*{500})", "optional");
    refused("){0,16665}", "optional");
    refused("a{1000}{1\\000}", "expand");
    accepted_and_fast("a{0,250}");
    accepted_and_fast("((a*)*{8})");
    /* Loops over what matches nothing, next to an anchor (fuzz_regex too). */
    refused("^$()*{20}", "loops");
    refused("$(()*()*){10}", "loops");
    refused("$(a*)+{16}", "loops");
    accepted_and_fast("^$()*{8}");
    /* "{,}" is "{0,}" (fuzz_regex: this pattern ran for minutes). */
    refused("$,*{,}{1000}$$^$,*{,}2()){,}$", "pattern refused");
    refused("a{,}{,}{,}", "in a row");
    accepted_and_fast("a{,}");
}

/* Choices between two ways of matching nothing, after an anchor: glibc's
 * memory grows with about the cube of their number.  The first is what
 * tests/fuzz/fuzz_regex found (147 MB in regcomp, 47 bytes). */
static void
test_empty_choices(void **state)
{
    (void) state;
    refused("xxxxx^$,*()?{80}(]*()]*:{80}).]", "pattern refused");
    refused("^()?{80}", "pattern refused");
    refused("^(()?){80}", "pattern refused");
    refused("\\b()?{80}", "pattern refused");
    refused("^(()|()){80}", "pattern refused");
    refused("^(|()){80}", "pattern refused");
    refused("^(a*|){80}", "pattern refused");
    refused("^(a*)?{80}", "pattern refused");
    refused("^(^|$){80}", "pattern refused");
    refused("^(){0,80}", "pattern refused");
    refused("(^()?){80}", "pattern refused");
    /* An empty group is passed without input even with no operator (fuzz_regex:
     * "(){3331}" took 178 MB). */
    refused("(){3331}", "optional");
    refused("(^$){300}", "optional");
    /* "x{0}" matches nothing, as "x?" may (fuzz_regex: this took regcomp()
     * over a second). */
    refused("(a{0}|aa|Aaaa)+{400}aa|a}aaOaab", "pattern refused");
    accepted_and_fast("(a{0}|b)c");
    accepted_and_fast("(){256}");
    accepted_and_fast("^(a*){80}$");
    accepted_and_fast("^()?{24}");
    accepted_and_fast("^(^|$){24}");
    accepted_and_fast("^(a|()){40}");
    accepted_and_fast("^(\\s|^){40}");
    accepted_and_fast("(^|[^a-z])ok([^a-z]|$)");
    accepted_and_fast("(foo|bar)?baz");
}

static void
test_long_patterns(void **state)
{
    /* A huge bracket expression, and a pattern of plain characters. */
    char *bracket = repeat("[", "a-z", 5000, "]");
    char *plain = repeat("", "ab", FM_REGEX_MAX_BYTES, "");
    char *max = repeat("", "a", FM_REGEX_MAX_BYTES, "");

    (void) state;
    refused(bracket, "longer than");
    refused(plain, "longer than");
    accepted_and_fast(max);
    max[FM_REGEX_MAX_BYTES - 1] = '\0';
    bracket[FM_REGEX_MAX_BYTES - 2] = ']';
    bracket[FM_REGEX_MAX_BYTES - 1] = '\0';
    accepted_and_fast(bracket);
    free(bracket);
    free(plain);
    free(max);
}

static void
test_backreference(void **state)
{
    (void) state;
    refused("(a*)*\\1", "back-reference");
    refused("(x)\\9", "back-reference");
    accepted_and_fast("\\.\\*\\\\");
}

/* The one compile path of user patterns refuses through the guard, and
 * says so in one line that names the start of the pattern. */
static void
test_set_receive_uses_guard(void **state)
{
    struct fm_probe_opts opts;
    char err[512] = "";
    char *p = repeat("a", "+", 60, "");
    double start = now_s();

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_probe_opts_set_receive(&opts, p, err, sizeof(err)), EINVAL);
    assert_true(now_s() - start < 1.0);
    assert_non_null(strstr(err, "invalid regex 'a+++"));
    assert_non_null(strstr(err, "in a row"));
    assert_false(opts.have_receive);
    assert_int_equal(fm_probe_opts_set_receive(&opts, "a{1000}{1000}", err, sizeof(err)), EINVAL);
    assert_int_equal(fm_probe_opts_set_receive(&opts, "ok|up", err, sizeof(err)), 0);
    assert_true(opts.have_receive);
    fm_probe_opts_clear(&opts);
    free(p);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ordinary_patterns),
        cmocka_unit_test(test_stacked_plus),
        cmocka_unit_test(test_nested_repeats),
        cmocka_unit_test(test_expansion),
        cmocka_unit_test(test_limits_exact),
        cmocka_unit_test(test_brackets),
        cmocka_unit_test(test_empty_choices),
        cmocka_unit_test(test_long_patterns),
        cmocka_unit_test(test_backreference),
        cmocka_unit_test(test_set_receive_uses_guard),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
