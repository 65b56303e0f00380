/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: a tree of configuration files made from the input, and
 * the sandbox that keeps a configuration reader inside it, shared by
 * fuzz_apache_conf and fuzz_nginx_conf.  Included by one harness each,
 * hence static.
 *
 * Input: the main configuration file, then more files, each after a line
 * "=== PATH" (PATH relative: letters, digits, '.', '_', '-', '/'); a line
 * "=== @PATH" makes PATH a symbolic link to its own directory (".").  In the
 * files, @ROOT@ stands for the tree's directory, so absolute paths can point
 * into it.
 *
 * Sandbox: the tree lives in the harness's private directory, and fopen(),
 * stat(), lstat(), scandir(), opendir() and glob() are wrapped
 * (-Wl,--wrap=...) so that the reader cannot open or list anything outside
 * it: a configuration naming /etc or "../.." finds nothing there (the
 * readers open only the main file and what stat, scandir and their include
 * walk, fm_conf_glob(), found).
 */
#ifndef FAULTMON_FUZZ_CONF_TREE_H
#define FAULTMON_FUZZ_CONF_TREE_H

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ocf_apache.h"
#include "fuzz_common.h"

#define FUZZ_CONF_MAX (64 * 1024)
#define FUZZ_CONF_FILES 16

static char tree[512];
static size_t tree_len;
/* The wrappers also serve libFuzzer's own file reading: they confine only
 * the reader. */
static bool sandboxed;

/* Whether \p path stays inside the tree: under it, and without a ".."
 * component or a wildcard that could match one. */
static bool
in_tree(const char *path)
{
    const char *p = path + tree_len;

    if (!sandboxed) {
        return true;
    }
    if (strncmp(path, tree, tree_len) != 0 || (*p != '/' && *p != '\0')) {
        return false;
    }
    while (*p == '/') {
        const char *comp = p + 1;
        size_t n = strcspn(comp, "/");

        if ((n == 2 && strncmp(comp, "..", 2) == 0)
            || (comp[0] == '.' && strcspn(comp, "*?[") < n)) {
            return false;
        }
        p = comp + n;
    }
    return true;
}

FILE *__real_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode);
int __real_stat(const char *path, struct stat *sb);
int __wrap_stat(const char *path, struct stat *sb);
int __real_scandir(const char *dir, struct dirent ***names,
                   int (*filter)(const struct dirent *),
                   int (*compar)(const struct dirent **, const struct dirent **));
int __wrap_scandir(const char *dir, struct dirent ***names,
                   int (*filter)(const struct dirent *),
                   int (*compar)(const struct dirent **, const struct dirent **));
int __real_lstat(const char *path, struct stat *sb);
int __wrap_lstat(const char *path, struct stat *sb);
DIR *__real_opendir(const char *dir);
DIR *__wrap_opendir(const char *dir);
int __real_glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g);
int __wrap_glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g);

FILE *
__wrap_fopen(const char *path, const char *mode)
{
    /* The reader only reads; libFuzzer writes its findings from a signal
     * handler that may interrupt the reader. */
    if (mode[0] == 'r' && !in_tree(path)) {
        errno = EACCES;
        return NULL;
    }
    return __real_fopen(path, mode);
}

int
__wrap_stat(const char *path, struct stat *sb)
{
    if (!in_tree(path)) {
        errno = EACCES;
        return -1;
    }
    return __real_stat(path, sb);
}

int
__wrap_lstat(const char *path, struct stat *sb)
{
    if (!in_tree(path)) {
        errno = EACCES;
        return -1;
    }
    return __real_lstat(path, sb);
}

DIR *
__wrap_opendir(const char *dir)
{
    if (!in_tree(dir)) {
        errno = EACCES;
        return NULL;
    }
    return __real_opendir(dir);
}

int
__wrap_scandir(const char *dir, struct dirent ***names,
               int (*filter)(const struct dirent *),
               int (*compar)(const struct dirent **, const struct dirent **))
{
    if (!in_tree(dir)) {
        errno = EACCES;
        return -1;
    }
    return __real_scandir(dir, names, filter, compar);
}

int
__wrap_glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
    if (!in_tree(pattern)) {
        return GLOB_NOMATCH;
    }
    return __real_glob(pattern, flags, errfunc, g);
}

/* The tree's directory, in the harness's private one. */
static void
fuzz_conf_tree_init(void)
{
    snprintf(tree, sizeof(tree), "%s/tree", fm_fuzz_dir());
    tree_len = strlen(tree);
}

/* Whether every Listen is on every address or on an IP address. */
static bool
listen_addresses_valid(const struct fm_web_conf *conf)
{
    for (size_t i = 0; i < conf->n_listen; i++) {
        const char *host = conf->listen[i].host;
        unsigned char addr[16];

        if (host[0] != '\0' && inet_pton(AF_INET, host, addr) != 1
            && inet_pton(AF_INET6, host, addr) != 1) {
            return false;
        }
    }
    return true;
}

static bool
valid_rel_path(const char *path)
{
    size_t depth = 0;

    if (path[0] == '\0' || path[0] == '/' || strlen(path) > 64) {
        return false;
    }
    if (strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/")
        != strlen(path)) {
        return false;
    }
    for (const char *p = path; *p != '\0'; p++) {
        if (*p == '/') {
            depth++;
            if (p[1] == '/' || p[1] == '\0') {
                return false;
            }
        }
        if ((p == path || p[-1] == '/') && p[0] == '.' && (p[1] == '/' || p[1] == '\0'
                                                            || (p[1] == '.' && (p[2] == '/' || p[2] == '\0')))) {
            return false;
        }
    }
    return depth <= 4;
}

/* mkdir -p of PATH's parent under the tree. */
static void
make_parents(const char *rel)
{
    char path[1024];

    snprintf(path, sizeof(path), "%s/%s", tree, rel);
    for (char *p = path + tree_len + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0700);
            *p = '/';
        }
    }
}

/* Write one file of the tree, with @ROOT@ made the tree's path. */
static void
write_tree_file(const char *rel, const char *text, size_t len)
{
    char path[1024];
    FILE *out = NULL;

    make_parents(rel);
    snprintf(path, sizeof(path), "%s/%s", tree, rel);
    out = __real_fopen(path, "we");
    if (out == NULL) {
        return;                 /* a directory of that name, say */
    }
    for (size_t i = 0; i < len; i++) {
        if (len - i >= 6 && memcmp(text + i, "@ROOT@", 6) == 0) {
            fputs(tree, out);
            i += 5;
        } else {
            fputc(text[i], out);
        }
    }
    fclose(out);
}

/* The tree of the input: \p main_name first, then each "=== PATH" file. */
static void
build_tree(const uint8_t *data, size_t size, const char *main_name)
{
    const char *text = (const char *) data;
    const char *end = text + size;
    const char *name = main_name;
    size_t name_len = strlen(name);
    size_t files = 0;

    fm_fuzz_rm_tree(tree, false);
    while (text <= end && files < FUZZ_CONF_FILES) {
        const char *next = text;
        const char *body_end = end;
        char rel[128];

        /* The file runs to the next "=== " line. */
        while (next < end) {
            const char *nl = memchr(next, '\n', (size_t) (end - next));

            if (nl == NULL) {
                next = end;
                break;
            }
            next = nl + 1;
            if (end - next >= 4 && memcmp(next, "=== ", 4) == 0) {
                body_end = next;
                break;
            }
        }
        if (body_end == end) {
            next = end;
        }
        snprintf(rel, sizeof(rel), "%.*s", (int) name_len, name);
        if (rel[0] == '@') {
            if (valid_rel_path(rel + 1)) {
                char path[1024];

                make_parents(rel + 1);
                snprintf(path, sizeof(path), "%s/%s", tree, rel + 1);
                (void) symlink(".", path);
            }
        } else if (valid_rel_path(rel)) {
            write_tree_file(rel, text, (size_t) (body_end - text));
        }
        files++;
        if (body_end == end) {
            break;
        }
        /* "=== NAME\n" */
        name = body_end + 4;
        {
            const char *nl = memchr(name, '\n', (size_t) (end - name));

            name_len = (size_t) (((nl != NULL)? nl : end) - name);
            text = (nl != NULL)? nl + 1 : end;
        }
    }
}

#endif
