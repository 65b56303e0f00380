/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the monotonic clock and deadline arithmetic on it (libfmutil,
 * libc only).
 *
 * Every function takes `now` as a parameter so that the unit tests can pass
 * pretend times; only fm_now_us() reads the clock.
 */
#ifndef FAULTMON_CLOCK_H
#define FAULTMON_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/*!
 * \brief The time now on CLOCK_MONOTONIC.
 *
 * \return microseconds since an unspecified start (boot); never goes back,
 *         and is not the wall clock (do not store it across reboots)
 */
uint64_t fm_now_us(void);

struct fm_deadline {
    uint64_t start_us;
    uint64_t end_us;
};

/*!
 * \brief Start a deadline \p timeout_ms after \p now_us.
 *
 * \param[out] dl          the deadline
 * \param[in]  now_us      the start, as fm_now_us() gives it
 * \param[in]  timeout_ms  time allowed; an end past UINT64_MAX saturates
 */
void fm_deadline_init(struct fm_deadline *dl, uint64_t now_us, uint64_t timeout_ms);

/*! \return microseconds left before the deadline, 0 once it has passed */
uint64_t fm_deadline_left_us(const struct fm_deadline *dl, uint64_t now_us);

/*!
 * \brief Milliseconds to give epoll_wait() so that it wakes at the deadline.
 *
 * Rounds up, so that a wait never ends just before the deadline and spins;
 * returns 0 when the deadline has passed, and never more than INT_MAX.
 */
int fm_deadline_wait_ms(const struct fm_deadline *dl, uint64_t now_us);

/*! \return true once \p now_us has reached the end (the end itself is expired) */
bool fm_deadline_expired(const struct fm_deadline *dl, uint64_t now_us);

/*! \return microseconds since the start, saturating at 0 if the clock went back */
uint64_t fm_deadline_elapsed_us(const struct fm_deadline *dl, uint64_t now_us);

#endif
