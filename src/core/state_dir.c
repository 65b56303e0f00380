/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the state directory of a resource (see state.h): its path, its
 * creation with the right rights, setting a bad state file aside, and the
 * loop lock, DIR/lock: who runs the loop of a resource, whether one runs,
 * and whether the last one died.  An OFD lock, so that it belongs to the
 * open file and not to a process, and a PID in the file for people and for
 * the agents.  The state file itself is state.c's.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/parse.h>
#include <faultmon/state.h>
#include <faultmon/trust.h>

bool
fm_resource_name_valid(const char *name)
{
    size_t len = (name != NULL)? strlen(name) : 0;

    if (len == 0 || len >= FM_RESOURCE_NAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char) name[i]) && strchr("._-:", name[i]) == NULL) {
            return false;
        }
    }
    return true;
}

int
fm_state_dir(const char *resource, char *buf, size_t buf_len)
{
    const char *base = getenv("FAULTMON_STATE_DIR");
    int n = 0;

    if (!fm_resource_name_valid(resource)) {
        return EINVAL;
    }
    if (base == NULL || base[0] != '/') {
        base = FM_STATE_DIR;
    }
    n = snprintf(buf, buf_len, "%s/%s", base, resource);
    return (n < 0 || (size_t) n >= buf_len)? ENAMETOOLONG : 0;
}

int
fm_state_dir_create(const char *dir)
{
    char parent[4096];
    char *slash = NULL;
    struct stat st;
    int fd = -1;
    int rc = 0;

    snprintf(parent, sizeof(parent), "%s", dir);
    slash = strrchr(parent, '/');
    if (slash != NULL && slash != parent) {
        *slash = '\0';
        if (mkdir(parent, 0755) != 0 && errno != EEXIST) {
            return errno;
        }
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        return errno;
    }
    /* Checked on the open directory, not followed if a symbolic link. */
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return (errno == ELOOP)? ENOTDIR : errno;
    }
    if (fstat(fd, &st) != 0) {
        rc = errno;
    } else if (!S_ISDIR(st.st_mode)) {
        rc = ENOTDIR;
    } else if (!fm_trust_owner(st.st_uid)) {
        /* Pre-created by someone else, who can put files in it and take
         * them away: never the loop's, whatever its mode. */
        rc = EPERM;
    } else if ((st.st_mode & 0777) != 0700 && fchmod(fd, 0700) != 0) {
        /* Ours, left with wider rights (by hand, or an old version): others
         * could read probe records or plant files there; fix it. */
        rc = errno;
    }
    close(fd);
    return rc;
}

int
fm_state_set_aside(const char *dir)
{
    char from[4096];
    char to[4096];

    snprintf(from, sizeof(from), "%s/state", dir);
    snprintf(to, sizeof(to), "%s/state.%lld.bad", dir, (long long) time(NULL));
    return (rename(from, to) == 0)? 0 : errno;
}

/* Read a PID written as one decimal line; 0 if there is none. */
static int64_t
read_pid_text(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    int64_t pid = 0;

    if (n <= 0) {
        return 0;
    }
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    if (fm_parse_i64(buf, 2, FM_STATE_MAX_PID, FM_PARSE_CANONICAL, &pid) != 0) {
        return 0;
    }
    return pid;
}

/* Whether PID is a running faultmon (a PID can be reused by anything). */
static bool
pid_is_faultmon(int64_t pid)
{
    char path[64];
    char comm[64] = "";
    FILE *in = NULL;

    snprintf(path, sizeof(path), "/proc/%lld/comm", (long long) pid);
    in = fopen(path, "re");
    if (in == NULL) {
        return false;
    }
    if (fgets(comm, sizeof(comm), in) == NULL) {
        comm[0] = '\0';
    }
    fclose(in);
    /* Exactly the loop's program: not faultmon-ocf, the agents. */
    return strcmp(comm, "faultmon\n") == 0;
}

static void
lock_path(const char *dir, char *buf, size_t buf_len)
{
    snprintf(buf, buf_len, "%s/lock", dir);
}

/* Who holds the lock on the open file \p fd: true when someone does. */
static bool
holder_of(int fd, int64_t *pid, bool *is_loop)
{
    struct flock fl;

    *pid = 0;
    if (is_loop != NULL) {
        *is_loop = false;
    }
    memset(&fl, 0, sizeof(fl));
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0 || fl.l_type == F_UNLCK) {
        return false;
    }
    if (fl.l_pid > 0) {
        /* A process-associated POSIX lock: not ours (the loop takes an OFD
         * lock), but its owner is known. */
        *pid = fl.l_pid;
        return true;
    }
    /* An OFD lock names no process: the loop writes its PID right after
     * taking it, so give it a moment to have done so. */
    for (int i = 0; i < 50 && *pid == 0; i++) {
        int64_t candidate = read_pid_text(fd);

        if (candidate != 0 && pid_is_faultmon(candidate)) {
            *pid = candidate;
            if (is_loop != NULL) {
                *is_loop = true;
            }
            break;
        }
        {
            struct timespec pause = { 0, 2 * 1000 * 1000 };

            nanosleep(&pause, NULL);
        }
    }
    return true;
}

static int
open_lock_file(const char *dir, int flags)
{
    char path[4096];
    struct stat sb;
    int fd = -1;

    lock_path(dir, path, sizeof(path));
    fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (fd < 0) {
        return -errno;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return fd;
}

int
fm_state_lock(const char *dir, int *fd_out, int64_t *holder_pid, bool *holder_is_loop)
{
    *fd_out = -1;
    *holder_pid = 0;
    *holder_is_loop = false;
    /* Retried when the directory is replaced between open and lock. */
    for (int attempt = 0; attempt < 5; attempt++) {
        struct flock fl;
        char text[32];
        int fd = open_lock_file(dir, O_RDWR | O_CREAT);
        int len = 0;

        if (fd < 0) {
            return -fd;
        }
        memset(&fl, 0, sizeof(fl));
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
            int rc = errno;

            if (rc == EAGAIN || rc == EACCES) {
                holder_of(fd, holder_pid, holder_is_loop);
                rc = EBUSY;
            }
            close(fd);
            return rc;
        }
        if (fm_state_lock_check(dir, fd) != 0) {
            close(fd);
            continue;
        }
        len = snprintf(text, sizeof(text), "%ld\n", (long) getpid());
        if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t) len, 0) != len) {
            int rc = errno;

            close(fd);
            return rc;
        }
        *fd_out = fd;
        return 0;
    }
    return ESTALE;
}

int
fm_state_lock_check(const char *dir, int fd)
{
    char path[4096];
    struct stat by_path;
    struct stat by_fd;

    lock_path(dir, path, sizeof(path));
    if (fstat(fd, &by_fd) != 0 || lstat(path, &by_path) != 0
        || by_fd.st_dev != by_path.st_dev || by_fd.st_ino != by_path.st_ino) {
        return ESTALE;
    }
    return 0;
}

int
fm_state_lock_recheck(const char *dir, int fd, bool by_path, uint64_t now_us,
                      uint64_t *path_checked_us)
{
    struct stat by_fd;

    if (by_path || *path_checked_us == 0 || now_us - *path_checked_us >= FM_STATE_LOCK_PATH_CHECK_US
        || now_us < *path_checked_us) {
        *path_checked_us = now_us;
        return fm_state_lock_check(dir, fd);
    }
    if (fstat(fd, &by_fd) != 0 || by_fd.st_nlink == 0) {
        return ESTALE;
    }
    return 0;
}

void
fm_state_unlock(int fd)
{
    if (fd < 0) {
        return;
    }
    /* An empty file: this loop stopped cleanly. */
    if (ftruncate(fd, 0) != 0) {
        /* Nothing to do: a PID left behind only reads as a crash. */
    }
    close(fd);
}

bool
fm_state_lock_holder(const char *dir, int64_t *pid, bool *is_loop)
{
    int fd = open_lock_file(dir, O_RDONLY);
    bool held = false;

    *pid = 0;
    if (is_loop != NULL) {
        *is_loop = false;
    }
    if (fd < 0) {
        return false;
    }
    held = holder_of(fd, pid, is_loop);
    close(fd);
    return held;
}

int64_t
fm_state_loop_pid(const char *dir)
{
    int64_t pid = 0;
    bool is_loop = false;

    if (!fm_state_lock_holder(dir, &pid, &is_loop) || !is_loop) {
        return 0;
    }
    return pid;
}

int64_t
fm_state_loop_died(const char *dir)
{
    int fd = open_lock_file(dir, O_RDONLY);
    int64_t pid = 0;
    int64_t holder = 0;

    if (fd < 0) {
        return 0;
    }
    if (!holder_of(fd, &holder, NULL)) {
        pid = read_pid_text(fd);
    }
    close(fd);
    return pid;
}
