/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests (the agents', the state store's): a private directory for a
 * test program's files (pid files, records, states), made before its tests
 * and removed after them.
 * Included by one test file each, hence static.
 */
#ifndef FAULTMON_TEST_OCF_TMPDIR_H
#define FAULTMON_TEST_OCF_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The directory, once ocf_tmpdir_make() has made it. */
static char ocf_tmpdir[256];

/* Make $TMPDIR/NAME.XXXXXX (or under /tmp). \return 0 or -1, as cmocka's
 * group set-up wants it. */
static int
ocf_tmpdir_make(const char *name)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(ocf_tmpdir, sizeof(ocf_tmpdir), "%s/%s.XXXXXX", (tmp != NULL)? tmp : "/tmp", name);
    return (mkdtemp(ocf_tmpdir) != NULL)? 0 : -1;
}

/* Remove the files named in \p names (NULL-terminated), then the directory. */
static int
ocf_tmpdir_remove(const char *const *names)
{
    char path[512];

    for (size_t i = 0; names[i] != NULL; i++) {
        snprintf(path, sizeof(path), "%s/%s", ocf_tmpdir, names[i]);
        unlink(path);
    }
    return rmdir(ocf_tmpdir);
}

#endif
