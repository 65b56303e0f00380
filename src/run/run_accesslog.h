/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the access log follower (access_log; doc/access-log.md).
 */
#ifndef FAULTMON_CMD_RUN_ACCESSLOG_H
#define FAULTMON_CMD_RUN_ACCESSLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <faultmon/ev.h>

#include <faultmon/accesslog.h>

/* One open log file: the current one, or the one rotated away that the
 * server may still write until it reopens its logs. */
struct fm_run_accesslog_file {
    int fd;                         /* -1: none */
    int wd;                         /* its inotify watch, -1: none */
    off_t offset;                   /* what was read of it */
    dev_t dev;
    ino_t ino;
    size_t line_len;                /* the partial last line, kept */
    bool skipping;                  /* inside a line over the bound */
    char line[FM_ACCESSLOG_LINE_MAX];
};

/* The rates for `faultmon status` and the metrics, in the state directory. */
#define FM_RUN_ACCESSLOG_FILE "accesslog"

struct fm_run_accesslog {
    bool started;
    const struct fm_accesslog_opts *opts;
    const char *resource;
    const char *dir;                /* the state directory, for DIR/accesslog */
    struct fm_ev *loop;
    int ino_fd;                     /* inotify, on the loop's epoll */
    int dir_wd;
    char base[256];                 /* the log's name in its directory */
    struct fm_run_accesslog_file cur;
    struct fm_run_accesslog_file prev;
    struct fm_accesslog_window win;
    int open_rc;                    /* the last open error, said once */
    struct fm_accesslog_rate written; /* what DIR/accesslog says */
    bool have_written;
    int more_fd;                    /* eventfd: a backlog to read; -1: none */
    char why[256];
};

/*!
 * \brief Follow \p opts->path, if set: an inotify fd registered on \p loop.
 *        A log that cannot be opened yet is logged once and looked for
 *        again (its directory's IN_CREATE, and every cycle).
 */
void fm_run_accesslog_start(struct fm_run_accesslog *al, struct fm_ev *loop, const struct fm_accesslog_opts *opts,
                            const char *resource, const char *dir);

/*!
 * \brief Once per cycle: read what is left (bounded), write DIR/accesslog
 *        if the rates changed, and give the window's verdict.
 * \return NULL, or the cause of a partial failure (valid until the next call)
 */
const char *fm_run_accesslog_cycle(struct fm_run_accesslog *al, uint64_t now_us);

/*! \brief Close everything (a no-op when not started). */
void fm_run_accesslog_stop(struct fm_run_accesslog *al);

#endif
