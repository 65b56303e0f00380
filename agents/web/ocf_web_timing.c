/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the web agents' loop interval derived from the
 * monitor operation's (a pure function: tests/unit/test_ocf_web_timing.c).
 */
#include <config.h>

#include <stdint.h>

#include "ocf_web.h"

/*
 * The loop's interval when Thorough_probe_interval is unset: half the
 * monitor interval, at most 10 s, at least 1 s.  With heartbeat's
 * parameters only, faultmon detects every fault at least as fast as
 * ocf:heartbeat:apache's monitor would: a broken server within half an
 * interval (a crash at once: the loop watches httpd), and a hang (two
 * partial failures, a Probe_timeout each) within interval + Probe_timeout,
 * inside heartbeat's own bound: interval + its monitor's timeout.  At most
 * 10 s because the loop, not the monitor, asks for recovery on a cluster
 * node: the monitor is a backstop (a dead loop restarted, the loop's
 * decision reported), so its default interval is 60 s (the meta-data), and
 * detection stays at heartbeat's default frequency, a check every 10 s.
 * \return the interval in ms
 */
uint64_t
fm_web_derived_probe_interval_ms(uint64_t monitor_interval_ms)
{
    uint64_t tpi_ms = monitor_interval_ms / 2;

    if (tpi_ms > FM_WEB_DERIVED_INTERVAL_MAX_MS) {
        tpi_ms = FM_WEB_DERIVED_INTERVAL_MAX_MS;
    }
    if (tpi_ms < 1000) {
        tpi_ms = 1000;
    }
    return tpi_ms;
}
