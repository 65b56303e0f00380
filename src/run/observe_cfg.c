/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: this node's corosync links through libcfg (run/observe_cfg.h).
 *
 * The node list is corosync's configured one (nodelist.node.N.nodeid in
 * cmap), as corosync-cfgtool takes it; each node's status gives, for each
 * link enabled on it, whether it is connected.  This node's own entry is
 * "localhost" on every enabled link.  A link is listed once it is enabled
 * on this node.
 */
#include <config.h>

#include "observe_cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBCFG
#include <faultmon/corosync_links.h>

#include "corosync_load.h"

/* The configured node IDs, at most FM_COROSYNC_NODES_MAX. \return how many, or -1 */
static int
node_ids(const struct fm_corosync_calls *cs, uint32_t ids[FM_COROSYNC_NODES_MAX], int out_fd)
{
    cmap_handle_t cmap = 0;
    cmap_iter_handle_t iter = 0;
    char key[CMAP_KEYNAME_MAXLEN + 1];
    size_t len = 0;
    cmap_value_types_t type;
    int n = 0;

    if (cs->cmap_initialize(&cmap) != CS_OK) {
        dprintf(out_fd, "cannot connect to corosync's cmap\n");
        return -1;
    }
    if (cs->cmap_iter_init(cmap, "nodelist.node.", &iter) != CS_OK) {
        dprintf(out_fd, "cannot read corosync's nodelist\n");
        cs->cmap_finalize(cmap);
        return -1;
    }
    while (cs->cmap_iter_next(cmap, iter, key, &len, &type) == CS_OK) {
        const char *dot = strrchr(key, '.');
        uint32_t id = 0;

        if (dot == NULL || strcmp(dot, ".nodeid") != 0 || cs->cmap_get_uint32(cmap, key, &id) != CS_OK
            || id == 0) {
            continue;
        }
        if (n == FM_COROSYNC_NODES_MAX) {
            n = -1;
            dprintf(out_fd, "more than %d nodes in corosync's nodelist\n", FM_COROSYNC_NODES_MAX);
            break;
        }
        ids[n++] = id;
    }
    cs->cmap_iter_finalize(cmap, iter);
    cs->cmap_finalize(cmap);
    if (n == 0) {
        dprintf(out_fd, "no node in corosync's nodelist\n");
        return -1;
    }
    return n;
}

/* Each node's status, into st[] (this node's too). \return 0 or -1 */
static int
node_status(const struct fm_corosync_calls *cs, corosync_cfg_handle_t cfg, const uint32_t ids[], int n,
            struct corosync_cfg_node_status_v1 st[], int out_fd)
{
    for (int i = 0; i < n; i++) {
        memset(&st[i], 0, sizeof(st[i]));
        if (cs->cfg_node_status_get(cfg, ids[i], CFG_NODE_STATUS_V1, &st[i]) != CS_OK) {
            dprintf(out_fd, "corosync did not give the status of node %u\n", ids[i]);
            return -1;
        }
    }
    return 0;
}

/* The links in `corosync-cfgtool -s`'s format (knet). */
static void
write_links(uint32_t local, const uint32_t ids[], int n, const struct corosync_cfg_node_status_v1 st[],
            int out_fd)
{
    int self = -1;

    for (int i = 0; i < n; i++) {
        if (ids[i] == local) {
            self = i;
        }
    }
    dprintf(out_fd, "Local node ID %u, transport knet\n", local);
    for (int l = 0; self >= 0 && l < CFG_MAX_LINKS; l++) {
        if (!st[self].link_status[l].enabled) {
            continue;
        }
        dprintf(out_fd, "LINK ID %d udp\n\taddr\t= %s\n\tstatus:\n", l,
                (st[self].link_status[l].src_ipaddr[0] != '\0')? st[self].link_status[l].src_ipaddr : "-");
        for (int i = 0; i < n; i++) {
            dprintf(out_fd, "\t\tnodeid: %u:\t%s\n", ids[i], (i == self)? "localhost"
                    : (st[i].link_status[l].enabled && st[i].link_status[l].connected)? "connected"
                    : "disconnected");
        }
    }
}

int
fm_run_corosync_cfg_child(void *arg, int out_fd)
{
    corosync_cfg_handle_t cfg = 0;
    uint32_t ids[FM_COROSYNC_NODES_MAX];
    struct corosync_cfg_node_status_v1 *st = NULL;
    unsigned int local = 0;
    int n = 0;
    int rc = 1;
    char err[300];
    const struct fm_corosync_calls *cs = fm_corosync_load(err, sizeof(err));

    (void) arg;
    if (cs == NULL) {
        /* No verdict (the loop logs this line once): corosync's own
         * libraries are part of corosync, so a node without them has no
         * corosync to ask. */
        dprintf(out_fd, "%s\n", err);
        return 1;
    }
    n = node_ids(cs, ids, out_fd);
    if (n < 0) {
        return 1;
    }
    st = calloc((size_t) n, sizeof(*st));
    if (st == NULL) {
        dprintf(out_fd, "out of memory\n");
        return 1;
    }
    if (cs->cfg_initialize(&cfg, NULL) != CS_OK) {
        dprintf(out_fd, "cannot connect to corosync's cfg\n");
    } else {
        if (cs->cfg_local_get(cfg, &local) != CS_OK) {
            dprintf(out_fd, "corosync did not say which node this is\n");
        } else if (node_status(cs, cfg, ids, n, st, out_fd) == 0) {
            write_links(local, ids, n, st, out_fd);
            rc = 0;
        }
        cs->cfg_finalize(cfg);
    }
    free(st);
    return rc;
}

bool
fm_run_corosync_cfg_built(void)
{
    return true;
}

#else

int
fm_run_corosync_cfg_child(void *arg, int out_fd)
{
    (void) arg;
    dprintf(out_fd, "faultmon was built without libcfg\n");
    return 1;
}

bool
fm_run_corosync_cfg_built(void)
{
    return false;
}

#endif
