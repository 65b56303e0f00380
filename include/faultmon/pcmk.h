/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: asking Pacemaker to recover a resource now.
 *
 * No .c of its name: the interface of src/pcmk/signal.c, the controller
 * request.
 */
#ifndef FAULTMON_PCMK_H
#define FAULTMON_PCMK_H

#include <stdbool.h>
#include <stddef.h>

/* Who the resource is, as the executor told the agent (OCF_* environment),
 * or, for ocf:faultmon:guard, the resource it guards (FAULTMON_GUARD_*, which
 * the guard's start read from the CIB). */
struct fm_pcmk_resource {
    const char *rsc_id;         /* OCF_RESOURCE_INSTANCE */
    const char *node;           /* OCF_RESKEY_CRM_meta_on_node, or NULL: local */
    const char *standard;       /* "ocf", "systemd", "lsb", ... */
    const char *provider;       /* OCF_RESOURCE_PROVIDER ("faultmon"); NULL but for ocf */
    const char *type;           /* OCF_RESOURCE_TYPE ("apache") */
    bool guarded;               /* another resource's: a failover bans it here */
};

/*!
 * \brief Fill \p rsc from the environment the executor gives agents, or
 *        from FAULTMON_GUARD_RESOURCE, _CLASS, _PROVIDER and _TYPE when the
 *        loop is a guard's.
 * \return true when there is enough to address the cluster
 */
bool fm_pcmk_resource_from_env(struct fm_pcmk_resource *rsc);

/*!
 * \brief Report the resource failed to the controller, as
 *        `crm_resource --fail` does, so that the scheduler recovers it now
 *        instead of at the next monitor.  Waits at most \p timeout_ms.
 *
 * \return 0, or a Pacemaker/errno code; err says why in one line
 */
int fm_pcmk_request_recovery(const struct fm_pcmk_resource *rsc, int timeout_ms,
                             char *err, size_t err_len);

/*
 * The fail-count attribute that a failover of a guarded resource sets to
 * INFINITY, so that the scheduler moves it off this node: the one the
 * controller keeps for the failures a fail request records, which
 * `crm_resource --cleanup` and `failure-timeout` clear as any other.  A
 * format of the resource id, for the loop and the agent (which links no
 * Pacemaker library).
 */
#define FM_PCMK_GUARD_FAILCOUNT_FMT "fail-count-%s#asyncmon_0"

#endif
