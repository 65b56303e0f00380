/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the chain of configuration files being read, shared
 * by the Apache and the nginx configuration readers (ocf_conf_chain.h).
 */
#include <config.h>

#include "ocf_conf_chain.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/text.h>

static uint64_t budget_ms = FM_CONF_DEFAULT_BUDGET_MS;

void
fm_conf_set_time_budget_ms(uint64_t ms)
{
    budget_ms = ms;
}

/* The deadline starts with the read's first file or entry. */
static int
check_time(struct fm_conf_chain *c, const char *what, char *err, size_t err_len)
{
    uint64_t now = fm_now_us();

    if (c->deadline_us == 0) {
        c->deadline_us = now + budget_ms * 1000;
    }
    if (now >= c->deadline_us) {
        return fm_errf(err, err_len, ETIMEDOUT, "%s: reading the configuration took more than %llu ms,"
                       " the time the action has", what, (unsigned long long) budget_ms);
    }
    return 0;
}

int
fm_conf_chain_tick(struct fm_conf_chain *c, const char *pattern, char *err, size_t err_len)
{
    if (++c->n_entries > FM_CONF_MAX_ENTRIES) {
        return fm_errf(err, err_len, ELOOP, "include %s: more than %d directory entries read"
                       " (a symlink to its own directory?)", pattern, FM_CONF_MAX_ENTRIES);
    }
    return check_time(c, pattern, err, err_len);
}

int
fm_conf_chain_enter(struct fm_conf_chain *c, const char *path, const struct stat *st, int depth,
                    char *err, size_t err_len)
{
    int rc = check_time(c, path, err, err_len);

    if (rc != 0) {
        return rc;
    }
    if (depth > FM_CONF_MAX_DEPTH) {
        return fm_errf(err, err_len, ELOOP, "%s: includes nested more than %d deep", path, FM_CONF_MAX_DEPTH);
    }
    if (c->n_visited >= FM_CONF_MAX_FILES) {
        return fm_errf(err, err_len, ELOOP, "%s: more than %d configuration files and directories",
                       path, FM_CONF_MAX_FILES);
    }
    for (size_t i = 0; i < c->n_chain; i++) {
        if (c->chain[i].dev == st->st_dev && c->chain[i].ino == st->st_ino) {
            return fm_errf(err, err_len, ELOOP,
                           "%s: include loop (it is %s, which is already being read)", path, c->chain[i].path);
        }
    }
    if (c->n_chain == FM_CONF_MAX_CHAIN) {
        return fm_errf(err, err_len, ELOOP, "%s: includes nested more than %d deep", path, FM_CONF_MAX_DEPTH);
    }
    c->chain[c->n_chain].dev = st->st_dev;
    c->chain[c->n_chain].ino = st->st_ino;
    c->chain[c->n_chain].path = path;
    c->n_chain++;
    c->n_visited++;
    return 0;
}

void
fm_conf_chain_leave(struct fm_conf_chain *c)
{
    c->n_chain--;
}

int
fm_conf_open_regular(const char *path, struct stat *st, int *rc, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0) {
        *rc = fm_errf(err, err_len, ENOENT, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0) {
        *rc = fm_errf(err, err_len, EIO, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        *rc = fm_errf(err, err_len, EINVAL, "%s: not a regular file", path);
        return -1;
    }
    *rc = 0;
    return fd;
}

int
fm_conf_chain_open(struct fm_conf_chain *c, const char *path, int depth, struct stat *st, int *rc,
                   char *err, size_t err_len)
{
    int fd = fm_conf_open_regular(path, st, rc, err, err_len);

    if (fd < 0) {
        return -1;
    }
    *rc = fm_conf_chain_enter(c, path, st, depth, err, err_len);
    if (*rc != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether \p quoted (\p n bytes) names an existing file: a file name may
 * show, a file's words may not. */
static bool
existing_path(const char *quoted, size_t n)
{
    char path[FM_CONF_PATH_MAX];
    struct stat st;

    if (n == 0 || n >= sizeof(path) || quoted[0] != '/') {
        return false;
    }
    memcpy(path, quoted, n);
    path[n] = '\0';
    return stat(path, &st) == 0;
}

void
fm_conf_hide_quoted(char *text, size_t len)
{
    char *out = calloc(1, len);
    size_t o = 0;

    if (out == NULL) {
        snprintf(text, len, "(its output is not shown: out of memory)");
        return;
    }
    for (const char *p = text; *p != '\0' && o + 1 < len;) {
        const char *close = (*p == '\'' || *p == '"')? strchr(p + 1, *p) : NULL;

        if (close == NULL || existing_path(p + 1, (size_t) (close - p - 1))) {
            size_t n = (close != NULL)? (size_t) (close - p + 1) : 1;

            n = (n < len - 1 - o)? n : len - 1 - o;
            memcpy(out + o, p, n);
            o += n;
            p += n;
            continue;
        }
        o += (size_t) snprintf(out + o, len - o, "%c<%zu bytes>%c", *p, (size_t) (close - p - 1), *p);
        o = (o < len)? o : len - 1;
        p = close + 1;
    }
    out[o] = '\0';
    memcpy(text, out, o + 1);
    free(out);
}
