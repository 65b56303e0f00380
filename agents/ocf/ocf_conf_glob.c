/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: expanding an include pattern as glob(3) does, but
 * bounded while it runs (ocf_conf_chain.h).  glob(3) lists every match
 * before it returns: eight symlinks to their own directory under a pattern
 * seven levels deep are 8^7 paths, seconds and a hundred megabytes before
 * the reader sees the first.  This walk counts every directory entry it
 * reads against the whole read's bound, and the clock against its time.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <faultmon/clock.h>
#include <faultmon/text.h>

#include "ocf_conf_chain.h"

struct walk {
    struct fm_conf_chain *chain;
    const char *pattern;        /* for messages */
    char path[FM_CONF_PATH_MAX];
    char **found;
    size_t n_found;
    char *err;
    size_t err_len;
};

static bool
is_wild(const char *comp, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (strchr("*?[\\", comp[i]) != NULL) {
            return true;
        }
    }
    return false;
}

static int
add_match(struct walk *w)
{
    char **grown = NULL;

    if (w->n_found >= FM_CONF_MAX_FILES) {
        return fm_errf(w->err, w->err_len, ELOOP, "include %s: more than %d matches", w->pattern,
                       FM_CONF_MAX_FILES);
    }
    grown = realloc(w->found, (w->n_found + 1) * sizeof(*grown));
    if (grown == NULL) {
        return ENOMEM;
    }
    w->found = grown;
    w->found[w->n_found] = strdup(w->path);
    if (w->found[w->n_found] == NULL) {
        return ENOMEM;
    }
    w->n_found++;
    return 0;
}

/* Append "/" (unless the path ends in one) and \p len bytes of \p name. */
static bool
append(struct walk *w, size_t at, const char *name, size_t len)
{
    bool slash = (at > 0 && w->path[at - 1] != '/');

    if (at + slash + len + 1 > sizeof(w->path)) {
        return false;           /* cut, it would name another file */
    }
    if (slash) {
        w->path[at++] = '/';
    }
    memcpy(w->path + at, name, len);
    w->path[at + len] = '\0';
    return true;
}

static int expand(struct walk *w, size_t at, const char *rest, int level);

/* One wildcard component \p comp (\p len bytes) in the directory w->path[0, at). */
static int
expand_dir(struct walk *w, size_t at, const char *comp, size_t len, const char *rest, int level)
{
    char pat[NAME_MAX + 1];
    DIR *dir = NULL;
    struct dirent *de = NULL;
    int rc = 0;

    if (level >= FM_CONF_MAX_DEPTH) {
        return fm_errf(w->err, w->err_len, ELOOP, "include %s: more than %d wildcard levels", w->pattern,
                       FM_CONF_MAX_DEPTH);
    }
    if (len > NAME_MAX) {
        return 0;
    }
    memcpy(pat, comp, len);
    pat[len] = '\0';
    w->path[at] = '\0';
    dir = opendir((at == 0)? "." : w->path);
    if (dir == NULL) {
        return 0;               /* glob(3) skips what it cannot read */
    }
    while (rc == 0 && (de = readdir(dir)) != NULL) {
        rc = fm_conf_chain_tick(w->chain, w->pattern, w->err, w->err_len);
        if (rc == 0 && fnmatch(pat, de->d_name, FNM_PERIOD) == 0
            && strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0
            && append(w, at, de->d_name, strlen(de->d_name))) {
            rc = expand(w, strlen(w->path), rest, level + 1);
        }
        w->path[at] = '\0';
    }
    closedir(dir);
    return rc;
}

/* The rest of the pattern, \p rest, after w->path[0, at). */
static int
expand(struct walk *w, size_t at, const char *rest, int level)
{
    struct stat st;

    while (*rest == '/') {
        rest++;
    }
    if (*rest == '\0') {
        return (lstat(w->path, &st) == 0)? add_match(w) : 0;
    }
    {
        size_t len = strcspn(rest, "/");

        if (is_wild(rest, len)) {
            return expand_dir(w, at, rest, len, rest + len, level);
        }
        if (!append(w, at, rest, len)) {
            return 0;
        }
        return expand(w, strlen(w->path), rest + len, level);
    }
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

int
fm_conf_glob(struct fm_conf_chain *c, const char *pattern, char ***paths, size_t *n_paths,
             char *err, size_t err_len)
{
    struct walk *w = calloc(1, sizeof(*w));
    int rc = 0;

    *paths = NULL;
    *n_paths = 0;
    if (w == NULL) {
        return ENOMEM;
    }
    w->chain = c;
    w->pattern = pattern;
    w->err = err;
    w->err_len = err_len;
    if (pattern[0] == '/') {
        w->path[0] = '/';
        w->path[1] = '\0';
    }
    rc = expand(w, strlen(w->path), pattern, 0);
    if (rc != 0) {
        fm_conf_glob_free(w->found, w->n_found);
    } else {
        /* glob(3)'s order (strcoll(), and the agent never sets a locale). */
        if (w->n_found > 1) {
            qsort(w->found, w->n_found, sizeof(*w->found), by_name);
        }
        *paths = w->found;
        *n_paths = w->n_found;
    }
    free(w);
    return rc;
}

void
fm_conf_glob_free(char **paths, size_t n_paths)
{
    for (size_t i = 0; i < n_paths; i++) {
        free(paths[i]);
    }
    free(paths);
}
