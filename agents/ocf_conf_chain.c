/*
 * faultmon OCF agents: the chain of configuration files being read, shared
 * by the Apache and the nginx configuration readers (ocf_conf_chain.h).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <faultmon/text.h>

#include "ocf_conf_chain.h"

int
fm_conf_chain_enter(struct fm_conf_chain *c, const char *path, const struct stat *st, int depth,
                    char *err, size_t err_len)
{
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
