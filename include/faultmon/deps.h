/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: judging a service's dependencies across the cluster
 * (src/monitor/deps.c, libc only).  A Dependency_list target (the database,
 * the NFS server, the upstream API) is probed with the service in every
 * cycle, and each node's view of it is a node attribute,
 * faultmon-dep-KEY = up | down (KEY made of its URI, so that every node
 * names it alike).  Before a failed cycle may ask for recovery, this node's
 * view is compared with the others':
 *   - down from every node that reports it: no restart and no failover can
 *     help (FM_DEP_EVERYWHERE: held, degraded, while it lasts);
 *   - down from this node only, up from another: a restart here cannot help
 *     (FM_DEP_HERE_ONLY: fail over at once, once the views can have caught
 *     up with the failure);
 *   - down from here and no other node's view (a single node, no httpmon
 *     clone, or views that cannot be read: FM_DEP_UNKNOWN): held as down
 *     everywhere, since a restart in place cannot bring the dependency back
 *     and no node is known where it is up;
 *   - up here: the rules as ever.
 */
#ifndef FAULTMON_DEPS_H
#define FAULTMON_DEPS_H

#include <stdbool.h>
#include <stddef.h>

/* Dependencies a resource may name (they count against its targets too). */
#define FM_DEPS_MAX 16
#define FM_DEPS_ATTR_PREFIX "faultmon-dep-"
/* The longest attribute name made, with its NUL. */
#define FM_DEPS_ATTR_MAX 96
/* The longest key read from a URI before it is cut (to FM_DEPS_ATTR_MAX). */
#define FM_DEPS_KEY_MAX 4096

/* What the other nodes say of one dependency. */
struct fm_deps_views {
    unsigned up;                    /* other nodes that see it up */
    unsigned down;                  /* ... and down */
    char up_nodes[96];              /* the first of the former, for the reason */
};

enum fm_dep_verdict {
    FM_DEP_FINE = 0,                /* up from here: nothing to say */
    FM_DEP_UNKNOWN,                 /* down from here, no other view to compare */
    FM_DEP_EVERYWHERE,              /* down from every node that reports it */
    FM_DEP_HERE_ONLY,               /* down from here, up from another node */
};

/*!
 * \brief The attribute of a dependency's views: FM_DEPS_ATTR_PREFIX and its
 *        URI in lower case with every run of other characters than letters
 *        and digits made one '-' (tcp://DB:5432 -> faultmon-dep-tcp-db-5432),
 *        a password in the URI left out.  A longer key is cut to fit
 *        FM_DEPS_ATTR_MAX (or \p buf_len) and ends in '-' and 8 hex digits
 *        of a hash of the whole key, so that two long URIs alike in their
 *        first characters still have two attributes.
 */
void fm_deps_attr_name(const char *uri, char *buf, size_t buf_len);

/*!
 * \brief Read `attrd_updater -Q -A -n NAME`'s lines (name="..." host="..."
 *        value="..."), counting the views of nodes other than \p self.
 *        Values other than up and down (an empty one: deleted) are no view.
 * \return 0; EINVAL when a line is not of that form (the whole reply is then
 *         no evidence, and \p v says nothing)
 */
int fm_deps_parse_views(const char *out, const char *name, const char *self, struct fm_deps_views *v);

/*! \brief The verdict on one dependency (see above). */
enum fm_dep_verdict fm_deps_judge(bool down_here, const struct fm_deps_views *v);

/* What a failed cycle of the service does about a dependency's verdict. */
enum fm_dep_action {
    FM_DEP_ACT_RULES = 0,           /* the service's own failure: the rules */
    FM_DEP_ACT_HOLD,                /* no node can help: held, degraded */
    FM_DEP_ACT_PENDING,             /* another node's "up" may predate the
                                       failure: held until it can be trusted */
    FM_DEP_ACT_FAILOVER,            /* another node sees it up: fail over */
};

/*!
 * \brief The action a verdict calls for.  Only a view that says "up" can be
 *        stale in a way that costs an outage (a failover to a node that has
 *        not probed since the dependency failed), so only it waits for the
 *        views to settle; "down" everywhere, or no other view, holds at once.
 * \param[in] verdict  fm_deps_judge()'s, or FM_DEP_UNKNOWN when the views
 *                     cannot be read
 * \param[in] settled  this node's "down" is old enough for the others' views
 *                     to have caught up
 */
enum fm_dep_action fm_deps_action(enum fm_dep_verdict verdict, bool settled);

#endif
