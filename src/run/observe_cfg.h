/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: this node's corosync links through corosync's own
 * libraries (libcfg's corosync_cfg_node_status_get(), the call behind
 * `corosync-cfgtool -s`, and the node list from libcmap), for
 * observer_corosync, when faultmon is built with them (configure finds
 * libcfg and libcmap through pkg-config; without them the loop runs the
 * tool).
 */
#ifndef FAULTMON_RUN_OBSERVE_CFG_H
#define FAULTMON_RUN_OBSERVE_CFG_H

#include <stdbool.h>

/*!
 * \brief In a child of the loop (run/jobs.h: the libraries' IPC blocks):
 *        ask corosync and write its links to \p out_fd in the format
 *        `corosync-cfgtool -s` prints, which the loop reads with the same
 *        strict parser (faultmon/corosync_links.h): one verdict, one rule,
 *        whichever way the links were read.
 * \return the child's exit status: 0, or 1 with one line saying why
 */
int fm_run_corosync_cfg_child(void *arg, int out_fd);

/*! \return whether faultmon was built with libcfg and libcmap */
bool fm_run_corosync_cfg_built(void);

#endif
