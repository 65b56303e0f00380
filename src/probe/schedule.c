/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the spread schedule of a probe cycle (see schedule.h).  Pure:
 * times come in, nothing is allocated, nothing is read from the system.
 */
#include <config.h>

#include "schedule.h"

#include <limits.h>

/* Windows longer than this are cut (a day; i * window stays far from
 * overflow for any number of targets a run can hold). */
#define FM_SPREAD_MAX_WINDOW_MS (24ull * 3600u * 1000u)

/* splitmix64's finaliser: every bit of the input moves every bit of the
 * output, so neighbouring targets and similar node names spread apart. */
static uint64_t
mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

uint64_t
fm_spread_seed(const char *node)
{
    uint64_t h = 0xcbf29ce484222325ull;     /* FNV-1a */

    for (const unsigned char *p = (const unsigned char *) node; p != NULL && *p != '\0'; p++) {
        h = (h ^ *p) * 0x100000001b3ull;
    }
    return mix64(h);
}

uint64_t
fm_spread_offset_ms(size_t i, size_t n, uint64_t window_ms, uint64_t seed)
{
    uint64_t slot_ms = 0;
    uint64_t jitter_max = 0;

    if (n == 0 || i >= n) {
        return 0;
    }
    if (window_ms > FM_SPREAD_MAX_WINDOW_MS) {
        window_ms = FM_SPREAD_MAX_WINDOW_MS;
    }
    slot_ms = window_ms / n;
    /* Below a tenth of the slot: start times still grow with i. */
    jitter_max = slot_ms / FM_SPREAD_JITTER_DIV;
    return (uint64_t) i * window_ms / n
           + ((jitter_max > 0)? mix64(seed ^ mix64((uint64_t) i + 1)) % jitter_max : 0);
}

void
fm_spread_begin(struct fm_spread *sp, size_t n, uint64_t window_ms, uint64_t seed,
                uint64_t now_us)
{
    sp->begin_us = now_us;
    sp->window_ms = window_ms;
    sp->seed = seed;
    sp->n = n;
    sp->next = 0;
}

uint64_t
fm_spread_start_us(const struct fm_spread *sp, size_t i)
{
    return sp->begin_us + fm_spread_offset_ms(i, sp->n, sp->window_ms, sp->seed) * 1000u;
}

size_t
fm_spread_take_due(struct fm_spread *sp, uint64_t now_us)
{
    uint64_t until_us = now_us + FM_SPREAD_BATCH_MS * 1000u;

    /* Only a wake-up for a start that has come takes the ones after it. */
    if (sp->next >= sp->n || fm_spread_start_us(sp, sp->next) > now_us) {
        return sp->next;
    }
    while (sp->next < sp->n && fm_spread_start_us(sp, sp->next) <= until_us) {
        sp->next++;
    }
    return sp->next;
}

int
fm_spread_wait_ms(const struct fm_spread *sp, uint64_t now_us)
{
    uint64_t due_us = 0;
    uint64_t wait_ms = 0;

    if (sp->next >= sp->n) {
        return -1;
    }
    due_us = fm_spread_start_us(sp, sp->next);
    if (due_us <= now_us) {
        return 0;
    }
    wait_ms = (due_us - now_us + 999u) / 1000u;
    return (wait_ms > INT_MAX)? INT_MAX : (int) wait_ms;
}
