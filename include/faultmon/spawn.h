/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: run a program and read what it prints, within a deadline
 * (src/util/spawn.c, libc only), for attrd_updater (src/pcmk/attrd.c),
 * corosync-cfgtool (the observer), the loop's children (src/run/jobs.c),
 * the commands, and the agents' programs (fm_ocf_run(), apachectl, httpd -t
 * ...): the one process runner.  A fork and an execve with an argument
 * vector, never a shell, since a value must never meet one, and a deadline
 * on the monotonic clock, since a cluster that does not answer must not
 * hold a monitor or the loop past its time.
 */
#ifndef FAULTMON_SPAWN_H
#define FAULTMON_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*!
 * \brief Run \p argv[0] (an absolute path) with \p argv and the current
 *        environment: stdin from /dev/null, stdout and stderr together into
 *        \p out, no descriptor of the caller's and no signal mask left.
 *
 * \param[in]  argv        the argument vector, NULL-terminated
 * \param[in]  timeout_ms  deadline; the program is killed (SIGKILL) then,
 *                         with what it forked (its own process group)
 * \param[out] out         when not NULL, its output, NUL-terminated (or why
 *                         it could not be run, or ran out of time)
 * \param[in]  out_len     size of \p out
 * \param[out] out_size    when not NULL, how many bytes it printed in all:
 *                         at least \p out_len when they did not fit, and
 *                         other than strlen(out) when it printed a NUL
 * \return its exit status (0-255), 128 + a signal that ended it, or -1 when
 *         it could not be started or ran out of time (\p out says which)
 */
int fm_spawn_run(char *const argv[], uint64_t timeout_ms, char *out, size_t out_len,
                 size_t *out_size);

/* Flags of fm_spawn_run_capture(). */
#define FM_SPAWN_KEEP_OUTPUT 0x1u   /* on a failure to start or the deadline,
                                       leave \p out as the program wrote it
                                       (the agents log it) instead of saying why */

/*!
 * \brief fm_spawn_run() in full: the environment \p envp, \p flags, and how
 *        much of the output \p out holds.
 *
 * The program's exit, not the end of its output, ends the run: a program
 * that daemonizes (apachectl start) may leave the pipe open in its daemon.
 *
 * \param[out] out_kept  when not NULL, how many bytes \p out holds
 * \return as fm_spawn_run()
 */
int fm_spawn_run_capture(char *const argv[], char *const envp[], uint64_t timeout_ms,
                         unsigned int flags, char *out, size_t out_len, size_t *out_kept,
                         size_t *out_size);

/*!
 * \brief In a child between fork and exec: every signal to its default and
 *        unblocked, no descriptor but 0-2 left open (for a caller that forks
 *        its own child, such as the agents' daemon start).
 */
void fm_spawn_child_reset(void);

/*! \brief fm_spawn_run() with the environment \p envp instead of the current one. */
int fm_spawn_run_env(char *const argv[], char *const envp[], uint64_t timeout_ms, char *out,
                     size_t out_len, size_t *out_size);

/*!
 * \brief Kill (SIGKILL) a child the caller started and has not reaped: the
 *        process group fm_spawn_start() made for it, with what it forked,
 *        or only the child when it leads no group (a plain fork()).
 *        Nothing when \p pid is 0, 1 or negative.
 */
void fm_spawn_kill(pid_t pid);

/*!
 * \brief Start \p argv[0] as fm_spawn_run() does, without waiting: for an
 *        event loop, which watches \p out_fd (the read end of the pipe of
 *        its stdout and stderr, non-blocking, close-on-exec) and reaps \p pid.
 * \param[in] envp  the environment, NULL for the current one
 * \return 0, or an errno value (nothing started)
 */
int fm_spawn_start(char *const argv[], char *const envp[], pid_t *pid, int *out_fd);

/*!
 * \brief Start \p path for an event loop as posix_spawn() would, tied to the
 *        caller: killed (SIGKILL) when the calling thread exits (the
 *        process dies), which posix_spawn() cannot ask, unless the program
 *        gains privileges at its exec (set-user-ID, set-group-ID, file
 *        capabilities: the kernel then drops the request), in a process group of its own (killpg() at the
 *        deadline), every signal default and unblocked, stdin /dev/null,
 *        stdout and stderr \p out_fd, no other descriptor of the caller's.
 *
 * The caller is suspended until the program's execve() (vfork()
 * semantics, as posix_spawn()'s): unlike fm_spawn_start()'s fork(), no
 * child ever holds a copy of a descriptor the caller has closed since.
 *
 * \param[in]  path    the program, an absolute path
 * \param[in]  argv    its argument vector, NULL-terminated
 * \param[in]  envp    its whole environment, NULL-terminated
 * \param[in]  out_fd  the write end of the caller's pipe (the caller closes it)
 * \param[out] pid     the program, which the caller reaps
 * \return 0, or the errno value of what failed, execve()'s included
 *         (nothing left to reap then); errno itself is unspecified after
 */
int fm_spawn_tied(const char *path, char *const argv[], char *const envp[], int out_fd,
                  pid_t *pid);

#endif
