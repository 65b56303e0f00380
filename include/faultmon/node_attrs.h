/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the node attributes the loop keeps for `crm_mon -A`: each
 * resource's state (faultmon-RESOURCE-state) and failure weight within
 * Retry_interval (faultmon-RESOURCE-weight), beside the reason of a
 * recovery (faultmon-RESOURCE-reason).  This file decides only when each
 * is due, with the clock passed in; the loop runs attrd_updater
 * (faultmon/attrd.h).  libc only.
 */
#ifndef FAULTMON_NODE_ATTRS_H
#define FAULTMON_NODE_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide.h>

/* The weight moves with every failure and as failures age out of the
 * window: at most one update per this long, each one a fork and an execve
 * and a write to the CIB. */
#define FM_NODE_ATTRS_WEIGHT_MIN_MS 10000u

/* attrd_updater's -d: attrd coalesces what changes faster into one CIB
 * write. */
#define FM_NODE_ATTRS_DAMPEN "5s"

#define FM_NODE_ATTR_STATE  0x1u
#define FM_NODE_ATTR_WEIGHT 0x2u

/* What the cluster was last told. */
struct fm_node_attrs {
    unsigned published;             /* FM_NODE_ATTR_* set at least once */
    enum fm_state state;
    uint32_t weight;
    uint64_t weight_us;             /* when the weight was last set */
};

/*!
 * \brief Which attributes to set now.
 *
 * The state when it differs from the last one set (or none was); the weight
 * when it differs and FM_NODE_ATTRS_WEIGHT_MIN_MS passed since it was last
 * set, or with the state, so that the two agree at every transition.  A
 * weight held back goes out with a later call.
 *
 * \return FM_NODE_ATTR_* flags, 0 when nothing is due
 */
unsigned fm_node_attrs_due(const struct fm_node_attrs *a, enum fm_state state, uint32_t weight,
                           uint64_t now_us);

/*!
 * \brief The attributes of \p which were set to \p state and \p weight.
 */
void fm_node_attrs_set(struct fm_node_attrs *a, unsigned which, enum fm_state state, uint32_t weight,
                       uint64_t now_us);

/*!
 * \brief The name of one attribute: "faultmon-RESOURCE-state" or
 *        "faultmon-RESOURCE-weight".
 *
 * \param[in] which  one FM_NODE_ATTR_* flag
 */
void fm_node_attr_name(char *buf, size_t buf_len, const char *resource, unsigned which);

#endif
