/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the monotonic clock and deadline arithmetic.  Pure functions of
 * `now`, except fm_now_us(), so that the tests can pass pretend times.
 */
#include <config.h>

#include <faultmon/clock.h>

#include <limits.h>
#include <time.h>

uint64_t
fm_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

void
fm_deadline_init(struct fm_deadline *dl, uint64_t now_us, uint64_t timeout_ms)
{
    uint64_t timeout_us = timeout_ms * 1000u;

    if (timeout_ms > UINT64_MAX / 1000u || now_us > UINT64_MAX - timeout_us) {
        timeout_us = UINT64_MAX - now_us;
    }
    dl->start_us = now_us;
    dl->end_us = now_us + timeout_us;
}

uint64_t
fm_deadline_left_us(const struct fm_deadline *dl, uint64_t now_us)
{
    return (now_us >= dl->end_us)? 0 : dl->end_us - now_us;
}

bool
fm_deadline_expired(const struct fm_deadline *dl, uint64_t now_us)
{
    return now_us >= dl->end_us;
}

int
fm_deadline_wait_ms(const struct fm_deadline *dl, uint64_t now_us)
{
    uint64_t left_us = fm_deadline_left_us(dl, now_us);
    uint64_t left_ms = left_us / 1000u + ((left_us % 1000u != 0)? 1 : 0);

    return (left_ms > INT_MAX)? INT_MAX : (int) left_ms;
}

uint64_t
fm_deadline_elapsed_us(const struct fm_deadline *dl, uint64_t now_us)
{
    return (now_us <= dl->start_us)? 0 : now_us - dl->start_us;
}
