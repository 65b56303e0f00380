/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: exec targets (src/core/target_exec.c): a command run as a
 * probe, split into words as a shell would split it but never given to one.
 */
#ifndef FAULTMON_TARGET_EXEC_H
#define FAULTMON_TARGET_EXEC_H

#include <stddef.h>

#include <faultmon/target.h>

/* Where a bare program name of an exec target is looked up, at load time:
 * the loop's own PATH is not the administrator's shell's. */
#define FM_EXEC_SEARCH_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*!
 * \brief Parse an exec target: a command split into words as a shell would
 *        split it, but never given to a shell (target_exec.c).
 *
 * The program is an absolute path, or a bare name looked up in
 * FM_EXEC_SEARCH_PATH now (kept bare when it is not there); shell syntax outside quotes (a pipe, a
 * redirection, $, backquotes, ';', '&', parentheses) is refused, since
 * whoever wrote it expected a shell.  Whether the program can be run is
 * fm_exec_program_check()'s question, asked by validate-all.
 *
 * \param[in]  command  the command
 * \param[out] target   filled on success; free with fm_target_clear()
 * \return 0, EINVAL (err says why) or ENOMEM
 */
int fm_target_parse_exec(const char *command, struct fm_target *target, char *err,
                         size_t err_len);

/*!
 * \brief Find a bare program name in FM_EXEC_SEARCH_PATH.
 * \param[out] path_out  the absolute path (free() it), NULL when not found
 * \return 0, ENOENT or ENOMEM
 */
int fm_exec_program_find(const char *name, char **path_out);

/*!
 * \brief Whether an exec target's program can be run by this process now.
 * \return 0, or the errno of the check (err says what and why)
 */
int fm_exec_program_check(const struct fm_target *target, char *err, size_t err_len);

#endif
