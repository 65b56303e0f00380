/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: which files the loop and every reader of its files believe
 * (libfmcore, libc only).  One rule, written once: a state directory and
 * every file read from it (the state, the history) must be owned by the
 * loop's user (root, or the effective uid of the reader), writable by no
 * group or other, and not a symbolic link.  Anyone else could have written
 * it: a refused file is no verdict, with the reason, never a verdict.
 *
 * The checks are made on the opened descriptor (O_NOFOLLOW, then fstat()),
 * so that nothing can be swapped between the check and the read.
 */
#ifndef FAULTMON_TRUST_H
#define FAULTMON_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*! \brief Whether \p uid is the loop's user: root or the effective uid. */
bool fm_trust_owner(uid_t uid);

/*!
 * \brief Whether \p st (an fstat() of an open descriptor) is trusted: owned
 *        by root or the effective uid, not group- or other-writable.
 * \return 0, or EPERM with \p err saying why (naming \p path)
 */
int fm_trust_check(const struct stat *st, const char *path, char *err, size_t err_len);

/*!
 * \brief Open \p name (NULL: \p dir itself) in the directory \p dir, both
 *        checked (fm_trust_check()), neither followed if a symbolic link.
 * \return an open descriptor (O_RDONLY, O_CLOEXEC), or -1 with *rc ENOENT
 *         (no such file), EPERM (not trusted) or EINVAL, and \p err set
 */
int fm_trust_open(const char *dir, const char *name, int *rc, char *err, size_t err_len);

/*!
 * \brief fm_trust_open() then fm_kvfile_load_fd(): a file of the state
 *        directory, read only if trusted.
 * \return as fm_kvfile_load(), or EPERM for a file not trusted
 */
int fm_trust_load(const char *dir, const char *name, size_t max_bytes, char **text, size_t *len,
                  char *err, size_t err_len);

#endif
