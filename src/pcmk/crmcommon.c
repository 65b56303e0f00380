/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: libcrmcommon, loaded on demand (see crmcommon.h for why).
 *
 * FM_CRMCOMMON_SONAME is the soname configure read from a program linked
 * against the libcrmcommon faultmon is built with, so the library loaded is
 * the one the headers describe (a Pacemaker whose soname changed is a
 * rebuild, as for any program linked against it).
 */
#include <config.h>

#include "crmcommon.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

static struct fm_crmcommon crm;
static bool loaded;

/* One call looked up; false (and err filled) when it is missing. */
static bool
lookup(void *lib, const char *name, void **fn, char *err, size_t err_len)
{
    *fn = dlsym(lib, name);
    if (*fn == NULL) {
        snprintf(err, err_len, "%s has no %s: %s", FM_CRMCOMMON_SONAME, name, dlerror());
        return false;
    }
    return true;
}

#define FM_LOOKUP(field, name) lookup(lib, name, (void **) &crm.field, err, err_len)

const struct fm_crmcommon *
fm_crmcommon_load(char *err, size_t err_len)
{
    void *lib = NULL;

    if (loaded) {
        return &crm;
    }
    /* The library built against first, then whichever the loader finds. */
    lib = dlopen(FM_CRMCOMMON_SONAME_PATH, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        lib = dlopen(FM_CRMCOMMON_SONAME, RTLD_NOW | RTLD_LOCAL);
    }
    if (lib == NULL) {
        snprintf(err, err_len, "cannot load %s: %s", FM_CRMCOMMON_SONAME, dlerror());
        return NULL;
    }
    if (!FM_LOOKUP(new_ipc_api, "pcmk_new_ipc_api")
        || !FM_LOOKUP(free_ipc_api, "pcmk_free_ipc_api")
        || !FM_LOOKUP(register_ipc_callback, "pcmk_register_ipc_callback")
        || !FM_LOOKUP(connect_ipc, "pcmk_connect_ipc")
        || !FM_LOOKUP(disconnect_ipc, "pcmk_disconnect_ipc")
        || !FM_LOOKUP(poll_ipc, "pcmk_poll_ipc")
        || !FM_LOOKUP(dispatch_ipc, "pcmk_dispatch_ipc")
        || !FM_LOOKUP(controld_api_node_info, "pcmk_controld_api_node_info")
        || !FM_LOOKUP(controld_api_fail, "pcmk_controld_api_fail")
        || !FM_LOOKUP(rc_str, "pcmk_rc_str")) {
        dlclose(lib);
        return NULL;
    }
    /* Kept open for the life of the process: the child that asks exits
     * after one request. */
    loaded = true;
    return &crm;
}
