/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: pressure stall information (see include/faultmon/psi.h).
 *
 * A PSI file reads
 *   some avg10=12.34 avg60=5.00 avg300=1.00 total=123456
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * ("full" is absent for cpu on older kernels).  "some" is the share of the
 * last 10 s in which at least one task of the group waited for the
 * resource: the loop's own wait for a CPU, for memory it swaps back, or
 * for the disk, which is what delays a probe's verdict.
 */
#include <config.h>

#include <faultmon/psi.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A PSI file is two short lines; /proc/self/cgroup and mountinfo are read
 * in this much at most (a mountinfo with thousands of mounts is cut: the
 * cgroup2 mount comes early, at boot). */
#define FM_PSI_FILE_MAX 512
#define FM_PSI_LIST_MAX 65536

static const char *const fm_psi_names[FM_PSI__COUNT] = {
    [FM_PSI_CPU] = "cpu",
    [FM_PSI_MEMORY] = "memory",
    [FM_PSI_IO] = "io",
};

const char *
fm_psi_resource_name(enum fm_psi_resource r)
{
    return ((unsigned) r < FM_PSI__COUNT)? fm_psi_names[r] : "invalid";
}

int
fm_psi_parse_some_avg10(const char *text, double *pct)
{
    const char *line = text;

    while (line != NULL && *line != '\0') {
        if (strncmp(line, "some avg10=", 11) == 0) {
            char *end = NULL;
            double v = 0;

            errno = 0;
            v = strtod(line + 11, &end);
            if (errno != 0 || end == line + 11 || (*end != ' ' && *end != '\n' && *end != '\0')
                || !(v >= 0.0 && v <= 100.0)) {
                return EINVAL;
            }
            *pct = v;
            return 0;
        }
        line = strchr(line, '\n');
        line = (line != NULL)? line + 1 : NULL;
    }
    return EINVAL;
}

/* Up to len - 1 bytes of a file, NUL-terminated; never blocks on a FIFO. */
static int
read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    size_t used = 0;

    if (fd < 0) {
        return errno;
    }
    while (used + 1 < len) {
        ssize_t n = read(fd, buf + used, len - 1 - used);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        used += (size_t) n;
    }
    close(fd);
    buf[used] = '\0';
    return 0;
}

/* The mount point of the first cgroup2 file system in mountinfo's text:
 * "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - cgroup2 SOURCE ...". */
static int
cgroup2_mount(const char *mountinfo, char *out, size_t out_len)
{
    for (const char *line = mountinfo; line != NULL && *line != '\0';) {
        const char *eol = strchr(line, '\n');
        size_t len = (eol != NULL)? (size_t) (eol - line) : strlen(line);
        const char *sep = memmem(line, len, " - cgroup2 ", 11);

        if (sep != NULL) {
            char mount[4096];

            if (sscanf(line, "%*s %*s %*s %*s %4095s", mount) == 1) {
                if (snprintf(out, out_len, "%s", mount) >= (int) out_len) {
                    return E2BIG;
                }
                return 0;
            }
        }
        line = (eol != NULL)? eol + 1 : NULL;
    }
    return ENOENT;
}

int
fm_psi_own_cgroup_dir(char *out, size_t out_len)
{
    char *buf = malloc(FM_PSI_LIST_MAX);
    char mount[4096];
    const char *path = NULL;
    int rc = 0;

    if (buf == NULL) {
        return ENOMEM;
    }
    rc = read_small("/proc/self/mountinfo", buf, FM_PSI_LIST_MAX);
    if (rc == 0) {
        rc = cgroup2_mount(buf, mount, sizeof(mount));
    }
    if (rc == 0) {
        rc = read_small("/proc/self/cgroup", buf, FM_PSI_LIST_MAX);
    }
    if (rc == 0) {
        /* "0::/system.slice/pacemaker.service": the unified hierarchy. */
        path = (strncmp(buf, "0::", 3) == 0)? buf + 3 : strstr(buf, "\n0::");
        if (path != NULL && path != buf + 3) {
            path += 4;
        }
        rc = (path != NULL)? 0 : ENOENT;
    }
    if (rc == 0) {
        size_t len = strcspn(path, "\n");

        /* Paths with " (deleted)" or outside the mount are not ours to read. */
        if (len == 0 || path[0] != '/' || memchr(path, ' ', len) != NULL) {
            rc = ENOENT;
        } else if (snprintf(out, out_len, "%s%.*s", mount, (len == 1)? 0 : (int) len, path)
                   >= (int) out_len) {
            rc = E2BIG;
        }
    }
    free(buf);
    return rc;
}

/* One resource's value: the cgroup's file, else the system's. */
static int
read_one(const struct fm_psi_source *src, enum fm_psi_resource r, double *pct)
{
    char path[4096];
    char text[FM_PSI_FILE_MAX];

    if (src->cgroup_dir != NULL
        && snprintf(path, sizeof(path), "%s/%s.pressure", src->cgroup_dir, fm_psi_names[r])
           < (int) sizeof(path)
        && read_small(path, text, sizeof(text)) == 0 && fm_psi_parse_some_avg10(text, pct) == 0) {
        return 0;
    }
    if (src->proc_dir != NULL
        && snprintf(path, sizeof(path), "%s/%s", src->proc_dir, fm_psi_names[r]) < (int) sizeof(path)
        && read_small(path, text, sizeof(text)) == 0 && fm_psi_parse_some_avg10(text, pct) == 0) {
        return 0;
    }
    return ENOENT;
}

int
fm_psi_read_max(const struct fm_psi_source *src, double *pct, enum fm_psi_resource *which)
{
    bool any = false;

    *pct = 0.0;
    *which = FM_PSI_CPU;
    for (int r = 0; r < FM_PSI__COUNT; r++) {
        double v = 0.0;

        if (read_one(src, (enum fm_psi_resource) r, &v) != 0) {
            continue;
        }
        if (!any || v > *pct) {
            *pct = v;
            *which = (enum fm_psi_resource) r;
        }
        any = true;
    }
    return any? 0 : ENOENT;
}
