/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: libxml2, loaded on demand (see xml_load.h for why).
 *
 * FM_LIBXML2_SONAME is the soname configure read from a program linked
 * against the libxml2 faultmon is built with.
 */
#include <config.h>

#include "xml_load.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

static struct fm_xml xml;
static bool loaded;

static bool
lookup(void *lib, const char *name, void **sym, char *err, size_t err_len)
{
    *sym = dlsym(lib, name);
    if (*sym == NULL) {
        snprintf(err, err_len, "%s has no %s: %s", FM_LIBXML2_SONAME, name, dlerror());
        return false;
    }
    return true;
}

#define FM_LOOKUP(field, name) lookup(lib, name, (void **) &xml.field, err, err_len)

static const struct fm_xml *
load(char *err, size_t err_len)
{
    void *lib = NULL;
    xmlFreeFunc *free_var = NULL;

    if (loaded) {
        return &xml;
    }
    /* The library built against first, then whichever the loader finds. */
    lib = dlopen(FM_LIBXML2_SONAME_PATH, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        lib = dlopen(FM_LIBXML2_SONAME, RTLD_NOW | RTLD_LOCAL);
    }
    if (lib == NULL) {
        snprintf(err, err_len, "cannot load %s: %s", FM_LIBXML2_SONAME, dlerror());
        return NULL;
    }
    if (!FM_LOOKUP(read_memory, "xmlReadMemory")
        || !FM_LOOKUP(doc_get_root_element, "xmlDocGetRootElement")
        || !FM_LOOKUP(free_doc, "xmlFreeDoc")
        || !FM_LOOKUP(get_prop, "xmlGetProp")
        || !FM_LOOKUP(str_equal, "xmlStrEqual")
        || !lookup(lib, "xmlFree", (void **) &free_var, err, err_len)) {
        dlclose(lib);
        return NULL;
    }
    /* xmlFree is a variable holding the function that frees what
     * xmlGetProp returns. */
    xml.free = *free_var;
    loaded = true;
    return &xml;
}

const struct fm_xml *
fm_xml_require(char *err, size_t err_len)
{
    char why[300] = "";
    const struct fm_xml *x = load(why, sizeof(why));

    if (x == NULL && err != NULL) {
        snprintf(err, err_len, "%s", why);
    } else if (x == NULL) {
        fprintf(stderr, "faultmon: %s\n", why);
    }
    return x;
}

const struct fm_xml *
fm_xml(void)
{
    return &xml;
}
