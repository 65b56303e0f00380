/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the cycle history's writer (see src/run/run_history.h).
 * Called whenever the loop writes its state (at most every 10 s, at each
 * change, before a recovery is asked, at stop), so that an ok cycle costs
 * no system call; a batch costs an open, an fstat, a pread, one write and
 * a close.  No fsync: the history informs a what-if, it decides nothing,
 * and on the tmpfs /run there is no disk to flush to.
 */
#include <config.h>

#include "run_history.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/kvfile.h>
#include <faultmon/log.h>

static void
write_params(FILE *out, const void *data)
{
    fputs(((const struct fm_history_buf *) data)->params, out);
}

/* A new DIR/history whose offsets count from the first record's clock. */
static int
create_file(const char *path, const struct fm_history_rec *first)
{
    uint8_t header[FM_HISTORY_HEADER_BYTES];
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);

    if (fd < 0) {
        return -errno;
    }
    fm_history_header_encode(header, first->mono_ms, (int64_t) first->wall_s);
    if (write(fd, header, sizeof(header)) != (ssize_t) sizeof(header)) {
        int rc = (errno != 0)? errno : EIO;

        close(fd);
        unlink(path);
        return -rc;
    }
    return fd;
}

/*
 * The open file to append to, with its base: the existing one when it is
 * ours and has room, else a new one (the full one becomes history.1; one
 * whose header is not ours is kept as history.bad).
 */
static int
open_for(const char *dir, const struct fm_history_buf *b, uint64_t *base_ms, bool *created)
{
    char path[4096];
    char other[4096];
    uint8_t header[FM_HISTORY_HEADER_BYTES];
    struct fm_history_header h;
    struct stat sb;
    int fd = -1;

    snprintf(path, sizeof(path), "%s/%s", dir, FM_HISTORY_NAME);
    *base_ms = b->recs[0].mono_ms;
    *created = true;
    fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        return (errno == ENOENT)? create_file(path, &b->recs[0]) : -errno;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    if (pread(fd, header, sizeof(header), 0) != (ssize_t) sizeof(header)
        || fm_history_header_decode(header, sizeof(header), &h, NULL, 0) != 0) {
        close(fd);
        snprintf(other, sizeof(other), "%s/%s.bad", dir, FM_HISTORY_NAME);
        return (rename(path, other) == 0)? create_file(path, &b->recs[0]) : -errno;
    }
    if (fm_history_must_rotate((uint64_t) sb.st_size, h.mono_base_ms, b->n, b->recs[0].mono_ms,
                               b->recs[b->n - 1].mono_ms)) {
        close(fd);
        snprintf(other, sizeof(other), "%s/%s", dir, FM_HISTORY_OLD_NAME);
        return (rename(path, other) == 0)? create_file(path, &b->recs[0]) : -errno;
    }
    /* A record cut short (a full disk) would shift every later one. */
    if ((sb.st_size - FM_HISTORY_HEADER_BYTES) % FM_HISTORY_REC_BYTES != 0
        && ftruncate(fd, sb.st_size - (sb.st_size - FM_HISTORY_HEADER_BYTES) % FM_HISTORY_REC_BYTES) != 0) {
        int rc = errno;

        close(fd);
        return -rc;
    }
    *base_ms = h.mono_base_ms;
    *created = false;
    return fd;
}

static int
append(const char *dir, const struct fm_history_buf *b, bool *created)
{
    uint8_t bytes[FM_HISTORY_BUF_RECORDS * FM_HISTORY_REC_BYTES];
    size_t len = 0;
    uint64_t base_ms = 0;
    int fd = open_for(dir, b, &base_ms, created);
    ssize_t put = 0;

    if (fd < 0) {
        return -fd;
    }
    for (size_t i = 0; i < b->n; i++) {
        if (fm_history_rec_encode(&b->recs[i], base_ms, bytes + len) == 0) {
            len += FM_HISTORY_REC_BYTES;
        }
    }
    put = write(fd, bytes, len);
    if (put != (ssize_t) len) {
        int rc = (put < 0)? errno : ENOSPC;

        close(fd);
        return rc;
    }
    return (close(fd) == 0)? 0 : errno;
}

void
fm_run_history_write(struct fm_history_buf *b, const char *dir, const char *resource)
{
    bool created = false;
    int rc = 0;

    if (b->n == 0) {
        return;
    }
    rc = append(dir, b, &created);
    /* Once per loop, and again with each new file: a directory replaced
     * under the loop must not hold a history without its parameters. */
    if (created) {
        b->params_written = false;
    }
    if (!b->params_written) {
        int prc = fm_kvfile_write(dir, FM_HISTORY_PARAMS_NAME, write_params, b);

        b->params_written = (prc == 0);
        rc = (rc != 0)? rc : prc;
    }
    if (rc != 0 && rc != b->last_error) {
        fm_log_warn("%s: cannot write the cycle history in %s: %s (%zu records lost; the loop goes on)",
                    resource, dir, strerror(rc), b->n);
    }
    if (b->dropped > 0) {
        fm_log_warn("%s: %llu history records were noted with the buffer full and are lost", resource,
                    (unsigned long long) b->dropped);
    }
    b->last_error = rc;
    b->n = 0;
    b->dropped = 0;
}
