/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: follow the web server's access log and count its replies
 * (issue 35, part 3; doc/access-log.md).
 *
 * inotify on the loop's epoll, never a poll of the file: IN_MODIFY on the
 * file, IN_MOVE_SELF and IN_DELETE_SELF on it and IN_CREATE / IN_MOVED_TO on
 * its directory for rotation.  logrotate's rename+create: the renamed file
 * stays open as `prev` and is read to its end while the server still writes
 * it (until its reload), the new one is read from its start.  copytruncate:
 * a size below the read offset is a truncation, read again from 0.  Each
 * wake-up reads at most FM_RUN_ACCESSLOG_READ_MAX bytes of each file (the
 * rest at the next wake-up or cycle), with pread at our own offset, so that
 * the read never blocks on a file and a flood of lines never holds the loop.
 *
 * The path is opened as given, a symlink followed: the log is the web
 * server's (root or www-data own it, not faultmon's state directory, whose
 * trust rule does not apply), and it is only ever read.
 */
#include <config.h>

#include "run_accesslog.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/log.h>
#include <faultmon/state.h>


#define FM_RUN_ACCESSLOG_READ_MAX (64 * 1024)

static void
file_reset(struct fm_run_accesslog_file *f)
{
    f->fd = -1;
    f->wd = -1;
    f->offset = 0;
    f->line_len = 0;
    f->skipping = false;
}

static void
file_close(struct fm_run_accesslog *al, struct fm_run_accesslog_file *f)
{
    if (f->wd >= 0) {
        inotify_rm_watch(al->ino_fd, f->wd);
    }
    if (f->fd >= 0) {
        close(f->fd);
    }
    file_reset(f);
}

/* One complete line into the window. */
static void
take_line(struct fm_run_accesslog *al, const char *line, size_t len, uint64_t now_us)
{
    struct fm_accesslog_line parsed;

    if (fm_accesslog_parse(line, len, &parsed) != 0) {
        al->win.unparsed++;
        return;
    }
    fm_accesslog_window_add(&al->win, now_us, &parsed, al->opts->slow_ms);
}

/* Bytes read into lines; the partial last one kept, an overlong one skipped. */
static void
take_bytes(struct fm_run_accesslog *al, struct fm_run_accesslog_file *f, const char *buf, size_t n,
           uint64_t now_us)
{
    while (n > 0) {
        const char *nl = memchr(buf, '\n', n);
        size_t piece = (nl != NULL)? (size_t) (nl - buf) : n;

        if (!f->skipping && f->line_len + piece > sizeof(f->line)) {
            f->skipping = true;
            al->win.unparsed++;
        }
        if (!f->skipping) {
            memcpy(f->line + f->line_len, buf, piece);
            f->line_len += piece;
        }
        if (nl == NULL) {
            return;
        }
        if (!f->skipping) {
            take_line(al, f->line, f->line_len, now_us);
        }
        f->line_len = 0;
        f->skipping = false;
        buf += piece + 1;
        n -= piece + 1;
    }
}

/* Read what is new in \p f, at most the bound. \return true: more is left */
static bool
file_drain(struct fm_run_accesslog *al, struct fm_run_accesslog_file *f, uint64_t now_us)
{
    char buf[8192];
    size_t budget = FM_RUN_ACCESSLOG_READ_MAX;
    struct stat st;

    if (f->fd < 0) {
        return false;
    }
    if (fstat(f->fd, &st) == 0 && st.st_size < f->offset) {
        /* copytruncate (or a truncation by hand): the partial line went too */
        f->offset = 0;
        f->line_len = 0;
        f->skipping = false;
    }
    while (budget > 0) {
        size_t want = (budget < sizeof(buf))? budget : sizeof(buf);
        ssize_t n = pread(f->fd, buf, want, f->offset);

        if (n <= 0) {
            return false;
        }
        f->offset += n;
        budget -= (size_t) n;
        take_bytes(al, f, buf, (size_t) n, now_us);
    }
    return true;
}

/* Open the log's path into cur: at its end at start-up (the past is not
 * judged), from its start after a rotation.  \return 0 or errno */
static int
file_open(struct fm_run_accesslog *al, bool at_end)
{
    struct fm_run_accesslog_file *f = &al->cur;
    struct stat st;
    int fd = open(al->opts->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

    if (fd < 0) {
        return errno;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return EINVAL;
    }
    f->fd = fd;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->offset = at_end? st.st_size : 0;
    f->wd = inotify_add_watch(al->ino_fd, al->opts->path, IN_MODIFY | IN_MOVE_SELF | IN_DELETE_SELF);
    return 0;
}

/* The path names another file than cur (rotated), or cur is not open:
 * keep cur as prev, read to its end, and open the new one. */
static void
follow_path(struct fm_run_accesslog *al, bool at_end, uint64_t now_us)
{
    struct stat st;
    int rc = 0;

    if (al->cur.fd >= 0 && (stat(al->opts->path, &st) != 0
                            || (st.st_dev == al->cur.dev && st.st_ino == al->cur.ino))) {
        return;
    }
    if (al->cur.fd >= 0) {
        /* a second rotation before the server wrote the first's new file:
         * the oldest is read to its end (the bound aside) and closed */
        while (file_drain(al, &al->prev, now_us)) {
        }
        file_drain(al, &al->cur, now_us);
        file_close(al, &al->prev);
        al->prev = al->cur;
        file_reset(&al->cur);
    }
    rc = file_open(al, at_end);
    if (rc != 0 && rc != al->open_rc) {
        fm_log_warn("%s: access_log %s: %s; followed once it appears", al->resource, al->opts->path,
                    (rc == EINVAL)? "not a regular file" : strerror(rc));
    } else if (rc == 0 && al->open_rc != 0) {
        fm_log_info("%s: access_log %s: following it", al->resource, al->opts->path);
    }
    al->open_rc = rc;
}

static void drain_all(struct fm_run_accesslog *al, uint64_t now_us);

/* A backlog left by the bound: read on at the loop's next turn (the
 * eventfd stays readable), after what is due then, not in one long read
 * now. */
static int32_t
on_more(int32_t fd, int32_t revents, void *data)
{
    struct fm_run_accesslog *al = data;
    uint64_t count = 0;

    if (read(fd, &count, sizeof(count)) < 0) {
        count = 0;              /* EAGAIN: already read */
    }
    drain_all(al, fm_now_us());
    return 0;
}

/* Read both files; prev is closed once the server writes only cur. */
static void
drain_all(struct fm_run_accesslog *al, uint64_t now_us)
{
    bool more = file_drain(al, &al->prev, now_us);

    more = file_drain(al, &al->cur, now_us) || more;
    if (!more && al->prev.fd >= 0 && al->cur.offset > 0) {
        file_close(al, &al->prev);
    }
    if (more && al->more_fd >= 0) {
        uint64_t one = 1;

        if (write(al->more_fd, &one, sizeof(one)) < 0) {
            one = 0;            /* EAGAIN: a wake-up is due already */
        }
    }
}

static int32_t
on_inotify(int32_t fd, int32_t revents, void *data)
{
    struct fm_run_accesslog *al = data;
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool rotated = false;
    ssize_t n = 0;

    while ((n = read(fd, buf, sizeof(buf))) > 0) {
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *) p;

            if ((ev->mask & (IN_MOVE_SELF | IN_DELETE_SELF)) != 0
                || (ev->wd == al->dir_wd && ev->len > 0 && strcmp(ev->name, al->base) == 0)) {
                rotated = true;
            }
            p += sizeof(*ev) + ev->len;
        }
    }
    drain_all(al, fm_now_us());
    if (rotated) {
        follow_path(al, false, fm_now_us());
        drain_all(al, fm_now_us());
    }
    return 0;
}

void
fm_run_accesslog_start(struct fm_run_accesslog *al, struct fm_ev *loop, const struct fm_accesslog_opts *opts,
                       const char *resource, const char *dir)
{
    char parent[PATH_MAX];
    const char *slash = NULL;

    memset(al, 0, sizeof(*al));
    if (opts->path == NULL || opts->path[0] == '\0') {
        /* an earlier loop's rates, when access_log was set then: stale now */
        snprintf(parent, sizeof(parent), "%s/%s", dir, FM_RUN_ACCESSLOG_FILE);
        unlink(parent);
        return;
    }
    al->opts = opts;
    al->resource = resource;
    al->dir = dir;
    al->loop = loop;
    file_reset(&al->cur);
    file_reset(&al->prev);
    fm_accesslog_window_init(&al->win, opts->window_ms);
    al->more_fd = -1;
    al->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (al->ino_fd < 0) {
        fm_log_err("%s: access_log: no inotify (%s): not followed", resource, strerror(errno));
        return;
    }
    al->started = true;
    slash = strrchr(opts->path, '/');
    snprintf(al->base, sizeof(al->base), "%s", (slash != NULL)? slash + 1 : opts->path);
    snprintf(parent, sizeof(parent), "%.*s", (slash == NULL)? 1 : (slash == opts->path)? 1
             : (int) (slash - opts->path), (slash == NULL)? "." : opts->path);
    al->dir_wd = inotify_add_watch(al->ino_fd, parent, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
    al->more_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (al->more_fd >= 0 && fm_ev_watch(loop, al->more_fd, EPOLLIN, on_more, al) != 0) {
        close(al->more_fd);
        al->more_fd = -1;       /* the backlog is read at the next event or cycle */
    }
    if (fm_ev_watch(loop, al->ino_fd, EPOLLIN, on_inotify, al) != 0) {
        fm_log_err("%s: access_log: cannot watch inotify on the loop: not followed", resource);
    }
    follow_path(al, true, fm_now_us());
}

static void
write_rates(FILE *out, const void *data)
{
    const struct fm_run_accesslog *al = data;

    fputs("faultmon-accesslog 1\n", out);
    fprintf(out, "window_ms=%llu\nrequests=%llu\nerrors_5xx=%llu\nslow=%llu\nunparsed=%llu\nend\n",
            (unsigned long long) al->written.window_ms, (unsigned long long) al->written.requests,
            (unsigned long long) al->written.errors, (unsigned long long) al->written.slow,
            (unsigned long long) al->win.unparsed);
}

/* DIR/accesslog, beside the state and not in it (the previous version's
 * reader refuses unknown keys): written only when the rates change. */
static void
note_rates(struct fm_run_accesslog *al, uint64_t now_us)
{
    struct fm_accesslog_rate rate;

    fm_accesslog_window_rate(&al->win, now_us, &rate);
    if (al->have_written && memcmp(&rate, &al->written, sizeof(rate)) == 0) {
        return;
    }
    al->written = rate;
    al->have_written = (fm_state_file_write(al->dir, FM_RUN_ACCESSLOG_FILE, write_rates, al) == 0);
}

const char *
fm_run_accesslog_cycle(struct fm_run_accesslog *al, uint64_t now_us)
{
    if (!al->started) {
        return NULL;
    }
    follow_path(al, false, now_us);     /* a rotation whose events were missed */
    drain_all(al, now_us);
    note_rates(al, now_us);
    if (!fm_accesslog_window_verdict(&al->win, al->opts, now_us, al->why, sizeof(al->why))) {
        return NULL;
    }
    return al->why;
}

void
fm_run_accesslog_stop(struct fm_run_accesslog *al)
{
    if (!al->started) {
        return;
    }
    file_close(al, &al->prev);
    file_close(al, &al->cur);
    if (al->more_fd >= 0) {
        fm_ev_unwatch(al->loop, al->more_fd);
        close(al->more_fd);
    }
    fm_ev_unwatch(al->loop, al->ino_fd);
    close(al->ino_fd);
    al->started = false;
}
