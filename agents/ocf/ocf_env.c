/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the invocation (what the executor's environment says
 * about this action: resource, timeout, interval, check level) and the
 * resource's parameters (OCF_RESKEY_*).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/clock.h>
#include <faultmon/parse.h>

#include "ocf_common.h"

#define RESKEY_PREFIX "OCF_RESKEY_"

/* A whole number of the environment (digits only), or dflt. */
static uint64_t
env_u64(const char *name, uint64_t dflt, bool *given)
{
    uint64_t v = 0;
    bool ok = (fm_parse_u64(getenv(name), 0, UINT64_MAX, FM_PARSE_DEFAULT, &v) == 0);

    if (given != NULL) {
        *given = ok;
    }
    return ok? v : dflt;
}

void
fm_ocf_init(struct fm_ocf *ocf, const char *agent, const char *action,
            uint64_t default_timeout_ms)
{
    memset(ocf, 0, sizeof(*ocf));
    ocf->start_us = fm_now_us();
    ocf->agent = agent;
    ocf->action = action;
    ocf->resource = getenv("OCF_RESOURCE_INSTANCE");
    ocf->timeout_ms = env_u64("OCF_RESKEY_CRM_meta_timeout", default_timeout_ms, &ocf->timeout_given);
    if (ocf->timeout_ms == 0) {
        ocf->timeout_ms = default_timeout_ms;
        ocf->timeout_given = false;
    }
    ocf->interval_ms = env_u64("OCF_RESKEY_CRM_meta_interval", 0, NULL);
    ocf->check_level = (int) env_u64("OCF_CHECK_LEVEL", 0, NULL);
    if (ocf->resource != NULL
        && fm_state_dir(ocf->resource, ocf->state_dir, sizeof(ocf->state_dir)) == 0) {
        ocf->have_state_dir = true;
    }
}

bool
fm_ocf_is_probe(const struct fm_ocf *ocf)
{
    return ocf->interval_ms == 0;
}

uint64_t
fm_ocf_left_ms(const struct fm_ocf *ocf)
{
    uint64_t spent_ms = (fm_now_us() - ocf->start_us) / 1000u;

    if (spent_ms + FM_OCF_MARGIN_MS >= ocf->timeout_ms) {
        return 0;
    }
    return ocf->timeout_ms - FM_OCF_MARGIN_MS - spent_ms;
}

const char *
fm_ocf_param(const char *name)
{
    char key[128];

    snprintf(key, sizeof(key), RESKEY_PREFIX "%s", name);
    return getenv(key);
}

const char *
fm_ocf_param_or(const char *name, const char *dflt)
{
    const char *value = fm_ocf_param(name);

    return (value != NULL && value[0] != '\0')? value : dflt;
}

int
fm_ocf_param_set(const char *name, const char *value)
{
    char key[128];

    snprintf(key, sizeof(key), RESKEY_PREFIX "%s", name);
    if (value == NULL) {
        return (unsetenv(key) == 0)? 0 : errno;
    }
    return (setenv(key, value, 1) == 0)? 0 : errno;
}

int
fm_ocf_param_bool(const char *name, bool dflt)
{
    const char *value = fm_ocf_param(name);
    bool v = false;

    if (value == NULL || value[0] == '\0') {
        return dflt;
    }
    return (fm_parse_bool(value, &v) == 0)? (int) v : -1;
}
