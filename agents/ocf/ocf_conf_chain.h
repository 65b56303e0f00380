/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define FM_CONF_MAX_DEPTH 16
/* Files and directories read in all: a tree of symlinks that branches
 * without looping (each entry of a directory pointing to one next
 * directory) is bounded by this, not only by FM_CONF_MAX_DEPTH. */
#define FM_CONF_MAX_FILES 2048
/* The files and directories being read, outermost first. */
#define FM_CONF_MAX_CHAIN (2 * FM_CONF_MAX_DEPTH + 4)
/* Directory entries an include pattern's walk may read, over the whole
 * read: eight symlinks to their own directory under a pattern seven levels
 * deep are 8^7 entries, which glob(3) lists whole before it returns. */
#define FM_CONF_MAX_ENTRIES 100000
/* The time a whole read may take when the agent sets none
 * (fm_conf_set_time_budget_ms()). */
#define FM_CONF_DEFAULT_BUDGET_MS 10000
#define FM_CONF_PATH_MAX 4096

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
    size_t n_entries;           /* directory entries the include walks read */
    uint64_t deadline_us;       /* fm_now_us() the read must end by; 0: not started */
};

/*!
 * \brief The time every configuration read of this process may take: the
 *        agent gives what its action has left (fm_ocf_left_ms()).
 */
void fm_conf_set_time_budget_ms(uint64_t budget_ms);

/*!
 * \brief Count one step of the read (a directory entry of an include walk)
 *        and check the read's bounds: entries and time.
 * \return 0, or ELOOP (too many entries) or ETIMEDOUT with \p err set
 */
int fm_conf_chain_tick(struct fm_conf_chain *c, const char *pattern, char *err, size_t err_len);

/*!
 * \brief Expand \p pattern as glob(\p pattern, 0, ...) does (sorted, no
 *        hidden names unless asked for), bounded while it runs: the read's
 *        entries and time (fm_conf_chain_tick()), at most FM_CONF_MAX_DEPTH
 *        wildcard levels, at most FM_CONF_MAX_FILES matches.
 * \param[out] paths    the matches, fm_conf_glob_free() them (NULL for none)
 * \return 0 (no match is 0 with none), ENOMEM, or ELOOP or ETIMEDOUT with
 *         \p err set
 */
int fm_conf_glob(struct fm_conf_chain *c, const char *pattern, char ***paths, size_t *n_paths,
                 char *err, size_t err_len);

void fm_conf_glob_free(char **paths, size_t n_paths);

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

/*!
 * \brief Open a configuration file (fm_conf_open_regular()) and enter it
 *        (fm_conf_chain_enter()), as every file of a read is taken.  A
 *        descriptor returned must be closed after fm_conf_chain_leave().
 * \return an open descriptor with \p st filled, or -1 with \p err set and
 *         *rc ENOENT (cannot open), EIO, EINVAL or ELOOP
 */
int fm_conf_chain_open(struct fm_conf_chain *c, const char *path, int depth, struct stat *st, int *rc,
                       char *err, size_t err_len);

/*!
 * \brief Hide what a server's own configuration test (httpd -t, nginx -t)
 *        quotes from a file: it names the file and the line, then quotes
 *        the word it refused ("Invalid command 'root:$6$...'", "unknown
 *        directive \"root:$6$...\""), which would be the first word of
 *        /etc/shadow if an include named it.  Every quoted text becomes its
 *        length ('<38 bytes>'), except the path of an existing file.
 *
 * \param[in,out] text  NUL-terminated, rewritten in place within \p len
 */
void fm_conf_hide_quoted(char *text, size_t len);

#endif
