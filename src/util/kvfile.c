/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the header / key=value / end file format of the state directory:
 * its one reader (framing only; the meaning is the caller's) and its one
 * atomic writer.  See include/faultmon/kvfile.h.
 */
#include <config.h>

#include <faultmon/kvfile.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/text.h>

#define FM_KVFILE_TRAILER "end"

/* Where the walk over the lines stopped, and why. */
struct kv_walk {
    int line_no;
    char *line;             /* the faulty line, or NULL */
    const char *why;        /* NULL: the whole file is good */
    char not_a[96];         /* "not a NAME" */
};

/* One line after the header: the trailer, or an entry for the callback. */
static const char *
walk_entry(char *line, bool *ended, fm_kvfile_entry_fn entry, void *data)
{
    char *eq = NULL;
    const char *why = NULL;

    if (*ended) {
        return "data after 'end'";
    }
    if (strcmp(line, FM_KVFILE_TRAILER) == 0) {
        *ended = true;
        return NULL;
    }
    eq = strchr(line, '=');
    if (eq == NULL) {
        return "not key=value";
    }
    *eq = '\0';
    why = entry(line, eq + 1, data);
    /* The line is shown whole in the message. */
    *eq = '=';
    return why;
}

static void
walk_lines(char *buf, const struct fm_kvfile_format *format, fm_kvfile_entry_fn entry,
           void *data, struct kv_walk *w)
{
    bool ended = false;
    char *next = NULL;

    for (char *line = buf; *line != '\0'; line = next) {
        next = strchr(line, '\n');
        *next++ = '\0';
        w->line_no++;
        if (w->line_no == 1) {
            w->why = (strcmp(line, format->header) == 0)? NULL : w->not_a;
        } else {
            w->why = walk_entry(line, &ended, entry, data);
        }
        if (w->why != NULL) {
            w->line = line;
            return;
        }
    }
    if (!ended) {
        w->why = "truncated: no 'end'";
    }
}

int
fm_kvfile_parse(const char *text, size_t len, const struct fm_kvfile_format *format,
                fm_kvfile_entry_fn entry, void *data, char *err, size_t err_len)
{
    struct kv_walk w;
    char shown[64] = "";
    char *buf = NULL;

    memset(&w, 0, sizeof(w));
    if (len == 0 || memchr(text, '\0', len) != NULL) {
        return fm_errf(err, err_len, EINVAL, "empty or binary data");
    }
    if (text[len - 1] != '\n') {
        return fm_errf(err, err_len, EINVAL, "truncated: no newline at the end");
    }
    buf = calloc(1, len + 1);
    if (buf == NULL) {
        return fm_errf(err, err_len, EINVAL, "out of memory");
    }
    memcpy(buf, text, len);
    snprintf(w.not_a, sizeof(w.not_a), "not a %s", format->name);
    walk_lines(buf, format, entry, data, &w);
    if (w.why == NULL) {
        free(buf);
        return 0;
    }
    if (w.line != NULL) {
        /* Cleaned on its own first: cut to 63 bytes, a URI in it may have
         * lost its '@', and fm_text_clean() hides such a tail. */
        snprintf(shown, sizeof(shown), "%s", w.line);
        fm_text_clean(shown, sizeof(shown));
    }
    fm_errf(err, err_len, EINVAL, "line %d: %s%s%s%s", w.line_no, w.why,
            (w.line != NULL)? " ('" : "", shown, (w.line != NULL)? "')" : "");
    free(buf);
    return EINVAL;
}

int
fm_kvfile_load(const char *path, size_t max_bytes, char **text, size_t *len,
               char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

    *text = NULL;
    *len = 0;
    if (fd < 0) {
        int rc = errno;

        return fm_errf(err, err_len, (rc == ENOENT)? ENOENT : EINVAL, "cannot read %s: %s",
                       path, strerror(rc));
    }
    return fm_kvfile_load_fd(fd, path, max_bytes, text, len, err, err_len);
}

int
fm_kvfile_load_fd(int fd, const char *path, size_t max_bytes, char **text, size_t *len,
                  char *err, size_t err_len)
{
    char *buf = NULL;
    ssize_t got = 0;
    struct stat sb;

    *text = NULL;
    *len = 0;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t) sb.st_size > max_bytes) {
        close(fd);
        return fm_errf(err, err_len, EINVAL, "%s is not a regular file of at most %zu bytes",
                       path, max_bytes);
    }
    buf = calloc(1, (size_t) sb.st_size + 1);
    if (buf == NULL) {
        close(fd);
        return ENOMEM;
    }
    got = read(fd, buf, (size_t) sb.st_size);
    close(fd);
    if (got != sb.st_size) {
        free(buf);
        return fm_errf(err, err_len, EINVAL, "%s: short read", path);
    }
    *text = buf;
    *len = (size_t) got;
    return 0;
}

int
fm_kvfile_read(const char *path, const struct fm_kvfile_format *format,
               fm_kvfile_entry_fn entry, void *data, char *err, size_t err_len)
{
    char why[512] = "";
    char *text = NULL;
    size_t len = 0;
    int rc = fm_kvfile_load(path, format->max_bytes, &text, &len, err, err_len);

    if (rc != 0) {
        return rc;
    }
    rc = fm_kvfile_parse(text, len, format, entry, data, why, sizeof(why));
    free(text);
    if (rc != 0) {
        return fm_errf(err, err_len, EINVAL, "%s: %s", path, why);
    }
    return 0;
}

void
fm_kvfile_put_text(FILE *out, const char *key, const char *text)
{
    fprintf(out, "%s=", key);
    for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++) {
        fputc((*p < 0x20 || *p == 0x7f)? '?' : *p, out);
    }
    fputc('\n', out);
}

int
fm_kvfile_write(const char *dir, const char *name,
                void (*write_fn)(FILE *out, const void *data), const void *data)
{
    char tmp[4096];
    char path[4096];
    FILE *out = NULL;
    int fd = -1;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s/.%s.%ld.tmp", dir, name, (long) getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        return errno;
    }
    out = fdopen(fd, "w");
    if (out == NULL) {
        rc = errno;
        close(fd);
        unlink(tmp);
        return rc;
    }
    write_fn(out, data);
    if (fflush(out) != 0 || fsync(fd) != 0) {
        rc = errno;
    }
    if (fclose(out) != 0 && rc == 0) {
        rc = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        return rc;
    }
    /* Make the rename itself durable. */
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    return 0;
}
