/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: this node's corosync links as `corosync-cfgtool -s` prints them
 * (src/monitor/corosync_links.c, libc only), for observer_corosync: is this
 * node cut off from its cluster, so that its probes may fail for its own
 * sake?
 *
 * The parser is strict: anything it does not recognise line by line (the
 * corosync 3 knet format, below) is no verdict at all, never "impaired",
 * since the observer must not hold a recovery on a misread.
 *
 *   Local node ID 1, transport knet
 *   LINK ID 0 udp
 *           addr    = 192.168.234.11
 *           status:
 *                   nodeid:          1:      localhost
 *                   nodeid:          2:      connected
 *                   nodeid:          3:      disconnected
 */
#ifndef FAULTMON_COROSYNC_LINKS_H
#define FAULTMON_COROSYNC_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* knet's limit of links (KNET_MAX_LINK), and a bound on the nodes listed
 * (corosync's own is lower) past which the output is not trusted. */
#define FM_COROSYNC_LINKS_MAX 8
#define FM_COROSYNC_NODES_MAX 64

struct fm_corosync_links {
    uint32_t local_nodeid;
    unsigned n_links;
    unsigned link_id[FM_COROSYNC_LINKS_MAX];
    unsigned n_nodes;                               /* listed on each link,
                                                       this node included */
    uint32_t nodeid[FM_COROSYNC_NODES_MAX];         /* in the first link's order */
    /* connected[l][i]: nodeid[i] is connected on the l-th link listed (this
     * node's own entry, "localhost", is never a peer) */
    bool connected[FM_COROSYNC_LINKS_MAX][FM_COROSYNC_NODES_MAX];
};

/*!
 * \brief Parse the output of `corosync-cfgtool -s`.
 *
 * \param[in]  text     the output, NUL-terminated
 * \param[out] links    what it says, when it is understood
 * \param[out] why      when not, the first thing not understood
 * \return 0 when understood, else -1 (no verdict)
 */
int fm_corosync_links_parse(const char *text, struct fm_corosync_links *links, char *why,
                            size_t why_len);

/*!
 * \brief Whether the links show this node cut off, and the evidence.
 *
 * With at least two peers: no peer connected on any link, or one link on
 * which every peer is disconnected while a peer is connected on another.
 * A fault that every peer shows at once points at this node; one peer's
 * (a crashed node, its own link) does not, and with a single peer the two
 * cannot be told apart, so one peer is never evidence.
 *
 * \return true when impaired (\p why says why, "corosync: ...")
 */
bool fm_corosync_links_impaired(const struct fm_corosync_links *links, char *why,
                                size_t why_len);

#endif
