/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: corosync's libcfg and libcmap, loaded by the observer's
 * child when it asks corosync for the links (src/run/corosync_load.c).
 *
 * The faultmon command does not link them: with libcorosync_common and
 * what they need (libsystemd, libgcrypt, liblzma, libzstd, liblz4,
 * libcap, libgpg-error) they cost every loop its relocated pages, 3.5 MiB
 * of PSS over 100 loops (tests/bench/README.md, "100 loops again"), for a
 * question asked only on a failed cycle with observer_corosync set, and
 * only in a forked child (src/run/observe_cfg.c).
 */
#ifndef FAULTMON_RUN_COROSYNC_LOAD_H
#define FAULTMON_RUN_COROSYNC_LOAD_H

#include <stddef.h>

#include <corosync/cfg.h>
#include <corosync/cmap.h>

/* The calls the observer's child makes, typed by corosync's declarations. */
struct fm_corosync_calls {
    __typeof__(cmap_initialize) *cmap_initialize;
    __typeof__(cmap_finalize) *cmap_finalize;
    __typeof__(cmap_iter_init) *cmap_iter_init;
    __typeof__(cmap_iter_next) *cmap_iter_next;
    __typeof__(cmap_iter_finalize) *cmap_iter_finalize;
    __typeof__(cmap_get_uint32) *cmap_get_uint32;
    __typeof__(corosync_cfg_initialize) *cfg_initialize;
    __typeof__(corosync_cfg_finalize) *cfg_finalize;
    __typeof__(corosync_cfg_local_get) *cfg_local_get;
    __typeof__(corosync_cfg_node_status_get) *cfg_node_status_get;
};

/*!
 * \brief Load libcfg and libcmap (the sonames faultmon was built against)
 *        and look their calls up, once per process.
 * \return the calls, or NULL with \p err saying why in one line
 */
const struct fm_corosync_calls *fm_corosync_load(char *err, size_t err_len);

#endif
