/*
 * faultmon: asking Pacemaker to recover a resource now.
 */
#ifndef FAULTMON_PCMK_H
#define FAULTMON_PCMK_H

#include <stddef.h>

/* Who the resource is, as the executor told the agent (OCF_* environment). */
struct fm_pcmk_resource {
    const char *rsc_id;         /* OCF_RESOURCE_INSTANCE */
    const char *node;           /* OCF_RESKEY_CRM_meta_on_node, or NULL: local */
    const char *provider;       /* OCF_RESOURCE_PROVIDER ("faultmon") */
    const char *type;           /* OCF_RESOURCE_TYPE ("apache") */
};

/*!
 * \brief Fill \p rsc from the environment the executor gives agents.
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

#endif
