/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the access log's line parser (Apache's common and combined,
 * nginx's default, hostile lines) and the sliding window's arithmetic with
 * pretend times (faultmon/accesslog.h).
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

#include <faultmon/accesslog.h>

struct parse_case {
    const char *line;
    int rc;
    int status;
    bool have_time;
    uint64_t time_us;
};

static const struct parse_case parse_cases[] = {
    /* Apache's common (LogFormat "%h %l %u %t \"%r\" %>s %b") */
    { "127.0.0.1 - - [05/Dec/2026:22:40:01 +0000] \"GET / HTTP/1.1\" 200 10701", 0, 200, false, 0 },
    { "::1 - frank [05/Dec/2026:22:40:01 +0000] \"GET /fail HTTP/1.1\" 500 -", 0, 500, false, 0 },
    /* Apache's combined, and nginx's default (the same fields) */
    { "10.0.0.1 - - [05/Dec/2026:22:40:01 +0000] \"POST /a?b=c HTTP/1.1\" 503 190 \"-\" \"curl/8.5.0\"",
      0, 503, false, 0 },
    { "10.0.0.1 - - [05/Dec/2026:22:40:01 +0000] \"GET / HTTP/1.1\" 304 0 \"http://x/\" \"Mozilla/5.0 (X11)\"",
      0, 304, false, 0 },
    /* a quote in the request, escaped the Apache way; nginx's \x22 has none */
    { "h - - [t] \"GET /\\\" 404 1 HTTP/1.1\" 502 1", 0, 502, false, 0 },
    /* response times after the combined fields: %D, $request_time */
    { "h - - [t] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\" 2500000", 0, 200, true, 2500000 },
    { "h - - [t] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\" 0.123", 0, 200, true, 123000 },
    { "h - - [t] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\" 1.5\r", 0, 200, true, 1500000 },
    { "h - - [t] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\" 12abc", 0, 200, false, 0 },
    /* a user agent that looks like a status changes nothing */
    { "h - - [t] \"GET / HTTP/1.1\" 200 5 \"-\" \"\\\" 500 1\"", 0, 200, false, 0 },
    /* not of the formats */
    { "", EINVAL, 0, false, 0 },
    { "garbage", EINVAL, 0, false, 0 },
    { "h - - [t] \"GET / HTTP/1.1\" abc 5", EINVAL, 0, false, 0 },
    { "h - - [t] \"GET / HTTP/1.1\" 99 5", EINVAL, 0, false, 0 },
    { "h - - [t] \"GET / HTTP/1.1\" 600 5", EINVAL, 0, false, 0 },
    { "h - - [t] \"GET / HTTP/1.1\" 5000 5", EINVAL, 0, false, 0 },
    { "h - - [t] \"GET / HTTP/1.1\" 50", EINVAL, 0, false, 0 },
    { "h - - [t] \"GET / HTTP/1.1 500 5", EINVAL, 0, false, 0 },         /* unterminated request */
    { "h - - [t \"GET / HTTP/1.1\" 500 5", EINVAL, 0, false, 0 },         /* no ']' */
};

static void
test_parse_table(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        const struct parse_case *c = &parse_cases[i];
        struct fm_accesslog_line out;
        int rc = fm_accesslog_parse(c->line, strlen(c->line), &out);

        print_message("case %zu: %s\n", i, c->line);
        assert_int_equal(rc, c->rc);
        if (rc == 0) {
            assert_int_equal(out.status, c->status);
            assert_int_equal(out.have_time, c->have_time);
            assert_int_equal(out.time_us, c->time_us);
        }
    }
}

/* A NUL inside the line (a binary write, a corrupt block) is refused,
 * and the parser reads only the bytes it is given (a partial line). */
static void
test_parse_hostile(void **state)
{
    static const char with_nul[] = "h - - [t] \"GET / HTTP/1.1\" 500\0 5";
    const char *whole = "h - - [t] \"GET / HTTP/1.1\" 500 5";
    struct fm_accesslog_line out;
    size_t huge_len = 1024 * 1024;
    char *huge = malloc(huge_len);

    (void) state;
    assert_int_equal(fm_accesslog_parse(with_nul, sizeof(with_nul) - 1, &out), EINVAL);
    /* cut inside the status: never a status read past the end */
    assert_int_equal(fm_accesslog_parse(whole, strlen("h - - [t] \"GET / HTTP/1.1\" 50"), &out), EINVAL);
    assert_int_equal(fm_accesslog_parse(whole, strlen("h - - [t] \"GET / HTTP/1.1\" 500"), &out), 0);
    assert_int_equal(out.status, 500);
    assert_non_null(huge);
    memset(huge, '[', huge_len);
    assert_int_equal(fm_accesslog_parse(huge, huge_len, &out), EINVAL);
    memset(huge, '"', huge_len);
    assert_int_equal(fm_accesslog_parse(huge, huge_len, &out), EINVAL);
    free(huge);
}

static const struct fm_accesslog_opts opts = {
    .window_ms = 60000, .pct_5xx = 20, .min_requests = 20, .slow_ms = 0, .slow_pct = 50,
};

static void
add_n(struct fm_accesslog_window *w, uint64_t now_us, int status, unsigned int n)
{
    struct fm_accesslog_line line = { .status = status };

    for (unsigned int i = 0; i < n; i++) {
        fm_accesslog_window_add(w, now_us, &line, 0);
    }
}

/* Below min_requests nothing is judged, whatever the share. */
static void
test_window_min_requests(void **state)
{
    struct fm_accesslog_window w;
    char why[256];

    (void) state;
    fm_accesslog_window_init(&w, opts.window_ms);
    add_n(&w, 1000000, 500, 19);
    assert_false(fm_accesslog_window_verdict(&w, &opts, 1000000, why, sizeof(why)));
    add_n(&w, 2000000, 500, 1);
    assert_true(fm_accesslog_window_verdict(&w, &opts, 2000000, why, sizeof(why)));
    assert_non_null(strstr(why, "20 of 20 replies 5xx in 60 s"));
}

/* The threshold is a share, reached at exactly 20%; below it no failure. */
static void
test_window_threshold(void **state)
{
    struct fm_accesslog_window w;
    char why[256];

    (void) state;
    fm_accesslog_window_init(&w, opts.window_ms);
    add_n(&w, 5000000, 200, 80);
    add_n(&w, 5000000, 500, 19);
    assert_false(fm_accesslog_window_verdict(&w, &opts, 5000000, why, sizeof(why)));   /* 19/99 */
    add_n(&w, 6000000, 503, 1);
    assert_true(fm_accesslog_window_verdict(&w, &opts, 6000000, why, sizeof(why)));    /* 20/100 */
}

/* At most one failure per window; the window slides the old replies out. */
static void
test_window_slides(void **state)
{
    struct fm_accesslog_window w;
    struct fm_accesslog_rate rate;
    char why[256];

    (void) state;
    fm_accesslog_window_init(&w, opts.window_ms);
    add_n(&w, 10000000, 500, 50);
    assert_true(fm_accesslog_window_verdict(&w, &opts, 10000000, why, sizeof(why)));
    add_n(&w, 30000000, 500, 50);
    assert_false(fm_accesslog_window_verdict(&w, &opts, 30000000, why, sizeof(why)));  /* same window */
    fm_accesslog_window_rate(&w, 30000000, &rate);
    assert_int_equal(rate.requests, 100);
    /* 61 s after the first 50: they left; the second 50 are still in */
    fm_accesslog_window_rate(&w, 71000000, &rate);
    assert_int_equal(rate.requests, 50);
    assert_int_equal(rate.errors, 50);
    assert_true(fm_accesslog_window_verdict(&w, &opts, 71000000, why, sizeof(why)));
    /* long after: empty, nothing judged */
    fm_accesslog_window_rate(&w, 500000000, &rate);
    assert_int_equal(rate.requests, 0);
    assert_int_equal(rate.window_ms, 60000);
    assert_false(fm_accesslog_window_verdict(&w, &opts, 500000000, why, sizeof(why)));
}

/* Slow replies, when asked: their own share and threshold. */
static void
test_window_slow(void **state)
{
    struct fm_accesslog_opts slow_opts = opts;
    struct fm_accesslog_window w;
    struct fm_accesslog_line fast = { .status = 200, .have_time = true, .time_us = 100000 };
    struct fm_accesslog_line slow = { .status = 200, .have_time = true, .time_us = 2000000 };
    char why[256];

    (void) state;
    slow_opts.slow_ms = 1000;
    fm_accesslog_window_init(&w, slow_opts.window_ms);
    for (int i = 0; i < 20; i++) {
        fm_accesslog_window_add(&w, 1000000, (i < 9)? &slow : &fast, slow_opts.slow_ms);
    }
    assert_false(fm_accesslog_window_verdict(&w, &slow_opts, 1000000, why, sizeof(why)));
    fm_accesslog_window_add(&w, 1000000, &slow, slow_opts.slow_ms);
    fm_accesslog_window_add(&w, 1000000, &slow, slow_opts.slow_ms);
    assert_true(fm_accesslog_window_verdict(&w, &slow_opts, 1000000, why, sizeof(why)));
    assert_non_null(strstr(why, "11 of 22 replies slower than 1000 ms"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_parse_hostile),
        cmocka_unit_test(test_window_min_requests),
        cmocka_unit_test(test_window_threshold),
        cmocka_unit_test(test_window_slides),
        cmocka_unit_test(test_window_slow),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
