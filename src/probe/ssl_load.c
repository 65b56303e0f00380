/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: OpenSSL, loaded on demand (see ssl_load.h for why).
 *
 * FM_LIBSSL_SONAME is the soname configure read from a program linked
 * against the libssl faultmon is built with; libcrypto comes with it as its
 * dependency, and dlsym() on libssl's handle finds libcrypto's calls too.
 */
#include <config.h>

/* The table's own names, not the header's macros. */
#define FM_SSL_LOAD_NO_MACROS
#include "ssl_load.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static struct fm_ssl_calls calls;
static bool loaded;

int
fm_ssl_load(char *err, size_t err_len)
{
    void *lib = NULL;

    if (loaded) {
        return 0;
    }
    /* The library built against first, then whichever the loader finds. */
    lib = dlopen(FM_LIBSSL_SONAME_PATH, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        lib = dlopen(FM_LIBSSL_SONAME, RTLD_NOW | RTLD_LOCAL);
    }
    if (lib == NULL) {
        snprintf(err, err_len, "cannot load %s: %s", FM_LIBSSL_SONAME, dlerror());
        return -1;
    }
#define FM_SSL_CALL(name)                                                               \
    *(void **) &calls.name = dlsym(lib, #name);                                         \
    if (calls.name == NULL) {                                                           \
        snprintf(err, err_len, "%s has no %s: %s", FM_LIBSSL_SONAME, #name, dlerror()); \
        dlclose(lib);                                                                   \
        return -1;                                                                      \
    }
    FM_SSL_CALLS
#undef FM_SSL_CALL
    /* Kept for the life of the process: OpenSSL frees itself at exit. */
    loaded = true;
    return 0;
}

const struct fm_ssl_calls *
fm_ssl(void)
{
    char err[300];

    if (!loaded && fm_ssl_load(err, sizeof(err)) != 0) {
        fprintf(stderr, "faultmon: %s\n", err);
        exit(EXIT_FAILURE);
    }
    return &calls;
}
