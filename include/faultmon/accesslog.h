/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the passive signal of a web server's access log (issue 35,
 * part 3): one line's parser (src/util/accesslog_parse.c, libc only) and
 * the sliding window of replies it feeds (src/monitor/accesslog_window.c).
 * The loop's follower of the file (inotify on its epoll) is
 * src/run/run_accesslog.c; the reference is doc/access-log.md.
 *
 * No .c of its name: the interface of two files in two libraries (the
 * parser in src/util, the window in src/monitor).
 */
#ifndef FAULTMON_ACCESSLOG_H
#define FAULTMON_ACCESSLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longer lines are skipped whole, counted as unparsed. */
#define FM_ACCESSLOG_LINE_MAX 8192

/* What one access log line says. */
struct fm_accesslog_line {
    int status;                 /* 100..599 */
    bool have_time;             /* a response time was logged */
    uint64_t time_us;
};

/*!
 * \brief Parse one line (without its newline) of Apache's common or
 *        combined format or nginx's default one (combined): the status is
 *        the field after the quoted request.  A last field after the
 *        combined format's two quoted ones is a response time: an integer
 *        is Apache's %D (microseconds), a number with a point nginx's
 *        $request_time (seconds).
 *
 * \param[in]  line  the line, not NUL-terminated; a NUL in it is refused
 * \param[in]  len   its length
 * \param[out] out   what it says
 * \return 0, or EINVAL for a line that is not of these formats
 */
int fm_accesslog_parse(const char *line, size_t len, struct fm_accesslog_line *out);

/* The parameters (access_log, access_log_* in the probe-parameter table). */
struct fm_accesslog_opts {
    char *path;                 /* NULL: off */
    uint64_t window_ms;         /* access_log_window */
    unsigned int pct_5xx;       /* access_log_5xx_pct: 1..100 */
    unsigned int min_requests;  /* access_log_min_requests */
    uint64_t slow_ms;           /* access_log_slow: 0 off */
    unsigned int slow_pct;      /* access_log_slow_pct: 1..100 */
};

#define FM_ACCESSLOG_DEFAULT_WINDOW_MS 60000u
#define FM_ACCESSLOG_DEFAULT_5XX_PCT 20u
#define FM_ACCESSLOG_DEFAULT_MIN_REQUESTS 20u
#define FM_ACCESSLOG_DEFAULT_SLOW_PCT 50u

/* The window is cut in this many slots, so that it slides in steps of
 * window/60 (1 s for the default 60 s). */
#define FM_ACCESSLOG_SLOTS 60

struct fm_accesslog_window {
    uint64_t slot_us;           /* one slot's span */
    uint64_t head;              /* the newest slot's number (now / slot_us) */
    bool started;
    uint32_t requests[FM_ACCESSLOG_SLOTS];
    uint32_t errors[FM_ACCESSLOG_SLOTS];    /* 5xx */
    uint32_t slow[FM_ACCESSLOG_SLOTS];
    uint64_t unparsed;          /* lines since the start that were not of the formats */
    uint64_t last_failure_us;   /* when the last partial failure was given; 0: never */
};

/* The window's sums, for the verdict, `faultmon status` and the metrics. */
struct fm_accesslog_rate {
    uint64_t requests;
    uint64_t errors;
    uint64_t slow;
    uint64_t window_ms;
};

/*! \brief An empty window of \p window_ms (at least FM_ACCESSLOG_SLOTS ms). */
void fm_accesslog_window_init(struct fm_accesslog_window *w, uint64_t window_ms);

/*! \brief Count one reply at \p now_us (CLOCK_MONOTONIC). */
void fm_accesslog_window_add(struct fm_accesslog_window *w, uint64_t now_us,
                             const struct fm_accesslog_line *line, uint64_t slow_ms);

/*! \brief The sums of the last window at \p now_us. */
void fm_accesslog_window_rate(struct fm_accesslog_window *w, uint64_t now_us,
                              struct fm_accesslog_rate *rate);

/*!
 * \brief The window's verdict at \p now_us: whether the share of 5xx (or of
 *        slow replies) passes its threshold over at least min_requests
 *        replies, at most once per window.
 *
 * \param[out] why   the cause for the monitor, when a failure
 * \return true: a partial failure
 */
bool fm_accesslog_window_verdict(struct fm_accesslog_window *w, const struct fm_accesslog_opts *opts,
                                 uint64_t now_us, char *why, size_t why_len);

/*!
 * \brief Read RESOURCE/accesslog, the rates the loop wrote beside the
 *        state (src/core/state_accesslog.c), for status and the metrics.
 * \return 0; ENOENT (none, or not trusted); EINVAL (not the writer's)
 */
int fm_state_accesslog_read(const char *dir, struct fm_accesslog_rate *rate, uint64_t *unparsed);

#endif
