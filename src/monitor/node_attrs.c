/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: when the loop's node attributes are due (faultmon/node_attrs.h).
 */
#include <config.h>

#include <faultmon/node_attrs.h>

#include <stdio.h>

unsigned
fm_node_attrs_due(const struct fm_node_attrs *a, enum fm_state state, uint32_t weight, uint64_t now_us)
{
    unsigned due = 0;

    if ((a->published & FM_NODE_ATTR_STATE) == 0 || state != a->state) {
        due |= FM_NODE_ATTR_STATE;
    }
    if ((a->published & FM_NODE_ATTR_WEIGHT) == 0) {
        due |= FM_NODE_ATTR_WEIGHT;
    } else if (weight != a->weight
               && (due != 0 || now_us < a->weight_us
                   || now_us - a->weight_us >= FM_NODE_ATTRS_WEIGHT_MIN_MS * UINT64_C(1000))) {
        due |= FM_NODE_ATTR_WEIGHT;
    }
    return due;
}

void
fm_node_attrs_set(struct fm_node_attrs *a, unsigned which, enum fm_state state, uint32_t weight,
                  uint64_t now_us)
{
    if ((which & FM_NODE_ATTR_STATE) != 0) {
        a->state = state;
    }
    if ((which & FM_NODE_ATTR_WEIGHT) != 0) {
        a->weight = weight;
        a->weight_us = now_us;
    }
    a->published |= which;
}

void
fm_node_attr_name(char *buf, size_t buf_len, const char *resource, unsigned which)
{
    snprintf(buf, buf_len, "faultmon-%s-%s", resource, (which == FM_NODE_ATTR_STATE)? "state" : "weight");
}
