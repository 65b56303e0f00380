/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: node attributes through Pacemaker's attrd_updater.
 */
#ifndef FAULTMON_ATTRD_H
#define FAULTMON_ATTRD_H

#include <stddef.h>
#include <stdint.h>

/*!
 * \brief Set or delete a node attribute with attrd_updater: fork and execve
 *        (never a shell) with the current environment, within a deadline.
 *
 * \param[in]  tool        the attrd_updater program (an absolute path)
 * \param[in]  name        the attribute
 * \param[in]  value       its value, or NULL to delete it
 * \param[in]  dampen      attrd_updater's -d (a duration), or NULL
 * \param[in]  timeout_ms  deadline; the program is killed (SIGKILL) then
 * \param[out] out         when not NULL, its output (stdout and stderr, the
 *                         first line), NUL-terminated
 * \param[in]  out_len     size of \p out
 * \return its exit status (0-255), 128 + a signal that ended it, or -1 when
 *         it could not be started or ran out of time (\p out says which)
 */
int fm_attrd_update(const char *tool, const char *name, const char *value, const char *dampen,
                    uint64_t timeout_ms, char *out, size_t out_len);

/*!
 * \brief Every node's value of attribute \p name (`attrd_updater -Q -A -n
 *        NAME`), its whole output into \p out (lines such as
 *        `name="N" host="node1" value="up"`; fm_attrd_parse_views() reads
 *        them), within the deadline.
 * \return as fm_attrd_update()
 */
int fm_attrd_query_all(const char *tool, const char *name, uint64_t timeout_ms, char *out, size_t out_len);

/* The most words of an attrd_updater update, with the NULL. */
#define FM_ATTRD_ARGS_MAX 10

/*!
 * \brief The argument vector of fm_attrd_update(), for a caller that runs
 *        it itself (the loop, asynchronously).  \return the words in it
 */
size_t fm_attrd_update_argv(char *argv[FM_ATTRD_ARGS_MAX], const char *tool, const char *name,
                            const char *value, const char *dampen);

/*!
 * \brief The environment of fm_attrd_query_all(): the current one without
 *        the variables that aim Pacemaker's tools at one node.
 * \return a vector to free() (its strings are environ's), or NULL
 */
char **fm_attrd_query_envp(void);

#endif
