/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: libcfg and libcmap, loaded on demand (see corosync_load.h
 * for why).
 *
 * FM_LIBCFG_SONAME and FM_LIBCMAP_SONAME are the sonames configure read
 * from a program linked against the libraries faultmon is built with.
 */
#include <config.h>

/* Built only with libcfg and libcmap (configure's --without-libcfg: the
 * loop runs corosync-cfgtool instead, src/run/observe_cfg.c). */
#ifdef HAVE_LIBCFG
#include "corosync_load.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

static struct fm_corosync_calls calls;
static bool loaded;

/* One library: the one built against first, then whichever the loader finds. */
static void *
open_lib(const char *path, const char *soname, char *err, size_t err_len)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);

    if (lib == NULL) {
        lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    }
    if (lib == NULL) {
        snprintf(err, err_len, "cannot load %s: %s", soname, dlerror());
    }
    return lib;
}

/* One call looked up; false (and err filled) when it is missing. */
static bool
lookup(void *lib, const char *soname, const char *name, void **fn, char *err, size_t err_len)
{
    *fn = dlsym(lib, name);
    if (*fn == NULL) {
        snprintf(err, err_len, "%s has no %s: %s", soname, name, dlerror());
        return false;
    }
    return true;
}

#define FM_CMAP(field) lookup(cmap, FM_LIBCMAP_SONAME, #field, (void **) &calls.field, err, err_len)
#define FM_CFG(field, name) lookup(cfg, FM_LIBCFG_SONAME, name, (void **) &calls.field, err, err_len)

const struct fm_corosync_calls *
fm_corosync_load(char *err, size_t err_len)
{
    void *cfg = NULL;
    void *cmap = NULL;

    if (loaded) {
        return &calls;
    }
    cmap = open_lib(FM_LIBCMAP_SONAME_PATH, FM_LIBCMAP_SONAME, err, err_len);
    if (cmap == NULL) {
        return NULL;
    }
    cfg = open_lib(FM_LIBCFG_SONAME_PATH, FM_LIBCFG_SONAME, err, err_len);
    if (cfg == NULL) {
        dlclose(cmap);
        return NULL;
    }
    if (!FM_CMAP(cmap_initialize) || !FM_CMAP(cmap_finalize) || !FM_CMAP(cmap_iter_init)
        || !FM_CMAP(cmap_iter_next) || !FM_CMAP(cmap_iter_finalize) || !FM_CMAP(cmap_get_uint32)
        || !FM_CFG(cfg_initialize, "corosync_cfg_initialize")
        || !FM_CFG(cfg_finalize, "corosync_cfg_finalize")
        || !FM_CFG(cfg_local_get, "corosync_cfg_local_get")
        || !FM_CFG(cfg_node_status_get, "corosync_cfg_node_status_get")) {
        dlclose(cfg);
        dlclose(cmap);
        return NULL;
    }
    /* Kept open for the life of the process: the child that asks exits
     * after one question. */
    loaded = true;
    return &calls;
}

#endif
