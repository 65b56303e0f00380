/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: which files the loop and its readers believe (see
 * include/faultmon/trust.h).
 */
#include <config.h>

#include <faultmon/trust.h>

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/kvfile.h>
#include <faultmon/text.h>

bool
fm_trust_owner(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

int
fm_trust_check(const struct stat *st, const char *path, char *err, size_t err_len)
{
    if (!fm_trust_owner(st->st_uid)) {
        return fm_errf(err, err_len, EPERM, "%s is not trusted: owned by uid %lu, not by root or uid %lu"
                       " (anyone could have written it)", path, (unsigned long) st->st_uid,
                       (unsigned long) geteuid());
    }
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return fm_errf(err, err_len, EPERM, "%s is not trusted: mode %04o lets %s write it", path,
                       (unsigned) (st->st_mode & 07777),
                       ((st->st_mode & S_IWOTH) != 0)? "anyone" : "its group");
    }
    return 0;
}

/* open() or openat() of a path that must not be a symbolic link. */
static int
open_checked(int dir_fd, const char *open_path, const char *shown, bool want_dir, int *rc, char *err,
             size_t err_len)
{
    int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | (want_dir? O_DIRECTORY : O_NONBLOCK);
    int fd = (dir_fd >= 0)? openat(dir_fd, open_path, flags) : open(open_path, flags);
    struct stat st;

    if (fd < 0) {
        int e = errno;

        if (e == ENOENT) {
            *rc = fm_errf(err, err_len, ENOENT, "cannot read %s: %s", shown, strerror(e));
        } else if (e == ELOOP || (want_dir && e == ENOTDIR)) {
            *rc = fm_errf(err, err_len, EPERM, "%s is not trusted: a symbolic link or not a %s", shown,
                          want_dir? "directory" : "file");
        } else {
            *rc = fm_errf(err, err_len, EINVAL, "cannot read %s: %s", shown, strerror(e));
        }
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        *rc = fm_errf(err, err_len, EINVAL, "cannot read %s: %s", shown, strerror(errno));
        close(fd);
        return -1;
    }
    *rc = fm_trust_check(&st, shown, err, err_len);
    if (*rc != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int
fm_trust_open(const char *dir, const char *name, int *rc, char *err, size_t err_len)
{
    char shown[4200];
    int dir_fd = open_checked(-1, dir, dir, true, rc, err, err_len);
    int fd = -1;

    if (dir_fd < 0 || name == NULL) {
        return dir_fd;
    }
    snprintf(shown, sizeof(shown), "%s/%s", dir, name);
    fd = open_checked(dir_fd, name, shown, false, rc, err, err_len);
    close(dir_fd);
    return fd;
}

int
fm_trust_load(const char *dir, const char *name, size_t max_bytes, char **text, size_t *len,
              char *err, size_t err_len)
{
    char shown[4200];
    int rc = 0;
    int fd = fm_trust_open(dir, name, &rc, err, err_len);

    *text = NULL;
    *len = 0;
    if (fd < 0) {
        return rc;
    }
    snprintf(shown, sizeof(shown), "%s/%s", dir, name);
    return fm_kvfile_load_fd(fd, shown, max_bytes, text, len, err, err_len);
}
