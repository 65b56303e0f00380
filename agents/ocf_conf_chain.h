/*
 * faultmon OCF agents: the files a configuration reader is inside of
 * (ocf_apache_conf.c, ocf_nginx_conf.c), so that an include loop, however
 * its paths disguise it, nesting too deep and too many files in all are
 * refused with one line rather than followed until the stack or the disk
 * gives out.
 */
#ifndef FAULTMON_OCF_CONF_CHAIN_H
#define FAULTMON_OCF_CONF_CHAIN_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define FM_CONF_MAX_DEPTH 16
/* Files and directories read in all: a tree of symlinks that branches
 * without looping (each entry of a directory pointing to one next
 * directory) is bounded by this, not only by FM_CONF_MAX_DEPTH. */
#define FM_CONF_MAX_FILES 2048
/* The files and directories being read, outermost first. */
#define FM_CONF_MAX_CHAIN (2 * FM_CONF_MAX_DEPTH + 4)

/* A file or directory by identity, so that a symlink cannot disguise a loop. */
struct fm_conf_file_id {
    dev_t dev;
    ino_t ino;
    const char *path;
};

struct fm_conf_chain {
    struct fm_conf_file_id chain[FM_CONF_MAX_CHAIN];
    size_t n_chain;
    size_t n_visited;
};

/*!
 * \brief Enter \p path (\p st its fstat): refuse one that is already being
 *        read, one nested deeper than FM_CONF_MAX_DEPTH, and more than
 *        FM_CONF_MAX_FILES in all.  A 0 return must be paired with
 *        fm_conf_chain_leave().  \p path must outlive the entry.
 * \return 0, or ELOOP with \p err set
 */
int fm_conf_chain_enter(struct fm_conf_chain *c, const char *path, const struct stat *st, int depth,
                        char *err, size_t err_len);

void fm_conf_chain_leave(struct fm_conf_chain *c);

/*!
 * \brief Open a configuration file for reading: O_NONBLOCK (a FIFO must not
 *        wait for a writer), and only a regular file (a FIFO would block the
 *        reader, /dev/zero never ends).
 * \return an open descriptor with \p st filled, or -1 with \p err set and
 *         *rc ENOENT (cannot open), EIO or EINVAL (not a regular file)
 */
int fm_conf_open_regular(const char *path, struct stat *st, int *rc, char *err, size_t err_len);

#endif
