/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: pressure stall information (PSI, Linux 4.20 and later) of the
 * cgroup v2 the process runs in, falling back to the whole system's
 * /proc/pressure (libfmutil, libc only).  The loop reads it before it acts,
 * to tell a sick service from a sick node doing the probing.
 */
#ifndef FAULTMON_PSI_H
#define FAULTMON_PSI_H

#include <stddef.h>

/* The resources read, in the order they are reported. */
enum fm_psi_resource {
    FM_PSI_CPU = 0,
    FM_PSI_MEMORY,
    FM_PSI_IO,
    FM_PSI__COUNT
};

/* Where to read: the cgroup v2 directory of the process (NULL: none) and
 * the system's pressure directory ("/proc/pressure"). */
struct fm_psi_source {
    const char *cgroup_dir;
    const char *proc_dir;
};

/*!
 * \brief The "some avg10" percentage of one PSI file's text.
 * \return 0, or EINVAL when there is no well-formed "some" line
 */
int fm_psi_parse_some_avg10(const char *text, double *pct);

/*!
 * \brief The cgroup v2 directory of this process: the cgroup2 mount of
 *        /proc/self/mountinfo joined with the "0::" line of
 *        /proc/self/cgroup.
 * \return 0, ENOENT (no cgroup v2), E2BIG (\p out too small)
 */
int fm_psi_own_cgroup_dir(char *out, size_t out_len);

/*!
 * \brief The highest "some avg10" of cpu, memory and io: each from the
 *        cgroup's own file when there is one, else the system's.
 * \param[out] pct    the percentage
 * \param[out] which  the resource it is of
 * \return 0, or ENOENT when no PSI file could be read at all
 */
int fm_psi_read_max(const struct fm_psi_source *src, double *pct, enum fm_psi_resource *which);

/*! \brief "cpu", "memory", "io". */
const char *fm_psi_resource_name(enum fm_psi_resource r);

#endif
