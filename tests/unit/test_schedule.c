/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the spread schedule (src/probe/schedule.c), with a pretend
 * clock: offsets even over the interval, the jitter below a tenth of a slot,
 * stable on one node and different on another, the probes due within
 * FM_SPREAD_BATCH_MS taken on one wake-up (never more than that early), and
 * a late (slow) wake-up that shifts no later start.
 */
#include <config.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "schedule.h"

#define MS_US 1000ull
#define T0_US (5000000ull * MS_US)     /* a pretend monotonic "now" */

/* Target i starts in its slot, [i * window / n, + slot / 10), in order. */
static void
test_offsets_even(void **state)
{
    static const size_t ns[] = { 1, 2, 3, 7, 10, 200, 1000, 5000 };
    static const uint64_t windows[] = { 1000, 10000, 60000 };
    uint64_t seed = fm_spread_seed("node1");

    (void) state;
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
        for (size_t b = 0; b < sizeof(windows) / sizeof(windows[0]); b++) {
            size_t n = ns[a];
            uint64_t w = windows[b];
            uint64_t slot = w / n;
            uint64_t last = 0;

            for (size_t i = 0; i < n; i++) {
                uint64_t off = fm_spread_offset_ms(i, n, w, seed);
                uint64_t base = (uint64_t) i * w / n;

                assert_true(off >= base);
                assert_true(off - base < slot / FM_SPREAD_JITTER_DIV || off == base);
                assert_true(off < w);
                assert_true(i == 0 || off >= last);    /* never before an earlier one */
                last = off;
            }
        }
    }
    /* Ten targets in 10 s: one a second, give or take 100 ms. */
    for (size_t i = 0; i < 10; i++) {
        uint64_t off = fm_spread_offset_ms(i, 10, 10000, seed);

        assert_true(off >= i * 1000 && off < i * 1000 + 100);
    }
}

/* The same node always gets the same offsets; another node other ones. */
static void
test_jitter_per_node(void **state)
{
    uint64_t a = fm_spread_seed("node1");
    uint64_t b = fm_spread_seed("node2");
    size_t differ = 0;
    size_t nonzero = 0;

    (void) state;
    assert_true(a == fm_spread_seed("node1"));
    assert_true(a != b);
    for (size_t i = 0; i < 50; i++) {
        uint64_t oa = fm_spread_offset_ms(i, 50, 60000, a);

        assert_true(oa == fm_spread_offset_ms(i, 50, 60000, a));
        differ += (oa != fm_spread_offset_ms(i, 50, 60000, b));
        nonzero += (oa != (uint64_t) i * 60000 / 50);
    }
    assert_true(differ >= 40);      /* 120 ms of jitter: a few may collide */
    assert_true(nonzero >= 40);
    /* One target on two nodes (the usual clone): a jitter of up to 6 s. */
    assert_true(fm_spread_offset_ms(0, 1, 60000, a) < 6000);
    assert_true(fm_spread_offset_ms(0, 1, 60000, a) != fm_spread_offset_ms(0, 1, 60000, b));
}

/* 5000 targets in a second: one wake-up per FM_SPREAD_BATCH_MS, starting
 * the targets due within it, none earlier than that, none left behind. */
static void
test_same_ms_batched(void **state)
{
    struct fm_spread sp;
    uint64_t now = T0_US;
    size_t wakes = 0;
    size_t prev = 0;

    (void) state;
    fm_spread_begin(&sp, 5000, 1000, fm_spread_seed("node1"), T0_US);
    while (sp.next < sp.n) {
        size_t to = fm_spread_take_due(&sp, now);
        int wait_ms = fm_spread_wait_ms(&sp, now);

        wakes++;
        for (size_t i = prev; i < to; i++) {
            assert_true(fm_spread_start_us(&sp, i) <= now + FM_SPREAD_BATCH_MS * MS_US);
        }
        if (to < sp.n) {
            assert_true(fm_spread_start_us(&sp, to) > now);    /* nothing due left behind */
            assert_true(wait_ms >= 1);
        } else {
            assert_int_equal(wait_ms, -1);
        }
        prev = to;
        now += (uint64_t) ((wait_ms > 0)? wait_ms : 1) * MS_US;
    }
    assert_true(wakes <= 1000 / FM_SPREAD_BATCH_MS + 1);
    assert_true(wakes >= 1000 / (FM_SPREAD_BATCH_MS + 1) - 1);     /* still spread */
    assert_true(now <= T0_US + 1000 * MS_US);
}

/* A wake-up that comes late (a slow probe held the loop) starts what is
 * overdue at once, and every later start stays where it was. */
static void
test_slow_probe_shifts_nothing(void **state)
{
    struct fm_spread sp;
    uint64_t planned[10];

    (void) state;
    fm_spread_begin(&sp, 10, 10000, fm_spread_seed("node1"), T0_US);
    for (size_t i = 0; i < 10; i++) {
        planned[i] = fm_spread_start_us(&sp, i);
    }
    assert_int_equal(fm_spread_take_due(&sp, T0_US + planned[0] - T0_US), 1);
    /* Target 0's probe takes 3.5 s (to its timeout, say): the loop wakes late. */
    assert_int_equal(fm_spread_take_due(&sp, T0_US + 3500 * MS_US), 4);
    for (size_t i = 0; i < 10; i++) {
        assert_true(fm_spread_start_us(&sp, i) == planned[i]);
    }
    assert_int_equal(fm_spread_wait_ms(&sp, T0_US + 3500 * MS_US),
                     (int) ((planned[4] - (T0_US + 3500 * MS_US) + 999) / 1000));
    assert_int_equal(fm_spread_take_due(&sp, planned[4]), 5);
    /* Slots of a second: a wake-up starts its own target only. */
    assert_int_equal(fm_spread_take_due(&sp, planned[9] - 21 * MS_US), 9);
    assert_int_equal(fm_spread_take_due(&sp, planned[9] - 1), 9);     /* not due: none */
    assert_int_equal(fm_spread_take_due(&sp, planned[9]), 10);
    assert_int_equal(fm_spread_wait_ms(&sp, planned[9]), -1);
}

/* Degenerate sizes: nothing to start, and a window too short to spread. */
static void
test_edges(void **state)
{
    struct fm_spread sp;

    (void) state;
    fm_spread_begin(&sp, 0, 1000, 1, T0_US);
    assert_int_equal(fm_spread_take_due(&sp, T0_US), 0);
    assert_int_equal(fm_spread_wait_ms(&sp, T0_US), -1);
    fm_spread_begin(&sp, 3, 0, 1, T0_US);
    assert_int_equal(fm_spread_take_due(&sp, T0_US), 3);    /* no window: a burst */
    assert_true(fm_spread_offset_ms(5, 3, 1000, 1) == 0);   /* out of range */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets_even),
        cmocka_unit_test(test_jitter_per_node),
        cmocka_unit_test(test_same_ms_batched),
        cmocka_unit_test(test_slow_probe_shifts_nothing),
        cmocka_unit_test(test_edges),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
