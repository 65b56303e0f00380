/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop's children (src/run/jobs.c).  Everything the
 * loop asks of the cluster goes through a program or a connection that
 * can hang (attrd_updater on a frozen attrd, corosync-cfgtool, the
 * controller's IPC): each runs as a child whose output pipe and pidfd sit
 * on the loop's epoll, under its own deadline (SIGKILL then), and the loop
 * is told when it ended.  It never waits for one, so a frozen daemon costs
 * the loop nothing but the answer.
 */
#ifndef FAULTMON_CMD_RUN_JOBS_H
#define FAULTMON_CMD_RUN_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <faultmon/ev.h>

#include "timer.h"

/* A status other than the child's own (0-255, 128 + a signal). */
#define FM_RUN_JOB_CANNOT_RUN   (-1)    /* fork or exec failed: out says why */
#define FM_RUN_JOB_TIMEOUT      (-2)    /* killed at its deadline */
#define FM_RUN_JOB_CANCELLED    (-3)    /* killed by fm_run_jobs_cancel(): the
                                           caller forgets it, nothing more */

/*!
 * \brief A job ended: \p status as above, \p out what it printed (stdout
 *        and stderr, NUL-terminated, cut at the job's out_max - 1), \p size
 *        how many bytes it printed in all.
 */
typedef void (*fm_run_job_done_fn)(void *data, int status, const char *out, size_t size);

/*! \brief What a forked job's child does; what it writes to \p out_fd is its output. */
typedef int (*fm_run_job_child_fn)(void *arg, int out_fd);

struct fm_run_jobs;

struct fm_run_job {
    struct fm_run_job *next;
    struct fm_run_jobs *set;
    pid_t pid;
    int out_fd;                     /* -1 after its end of file */
    int pid_fd;                     /* watched once the pipe closed; -1: none */
    uint64_t end_us;                /* its deadline, CLOCK_MONOTONIC */
    uint64_t retry_us;              /* no pidfd: the next waitpid(WNOHANG) */
    char *out;
    size_t out_max;
    size_t size;
    bool reported;                  /* done called (or cancelled): reap only */
    fm_run_job_done_fn done;
    void *data;
};

struct fm_run_jobs {
    struct fm_ev *loop;
    struct fm_run_job *head;
    struct fm_run_timer timer;      /* the nearest deadline or retry */
    void (*idle)(void *data);       /* when set: called once no job runs */
    void *idle_data;
    unsigned long started;          /* in all, for the debug log */
};

/*! \brief An empty set on \p loop. \return 0 or an errno value */
int fm_run_jobs_init(struct fm_run_jobs *js, struct fm_ev *loop);

/*!
 * \brief Start \p argv (argv[0] an absolute path, no shell) with \p envp
 *        (NULL: the current environment), killed after \p timeout_ms.
 * \return the job (owned by the set until done is called and the child is
 *         reaped), or NULL when it could not start: then \p done has been
 *         called already with FM_RUN_JOB_CANNOT_RUN
 */
struct fm_run_job *fm_run_jobs_exec(struct fm_run_jobs *js, char *const argv[], char *const envp[],
                                    uint64_t timeout_ms, size_t out_max, fm_run_job_done_fn done,
                                    void *data);

/*!
 * \brief Fork a child of this process that runs \p fn (a library call that
 *        can block, as the controller's IPC), killed after \p timeout_ms;
 *        its exit status is \p fn's return value.  As fm_run_jobs_exec().
 */
struct fm_run_job *fm_run_jobs_fork(struct fm_run_jobs *js, fm_run_job_child_fn fn, void *arg,
                                    uint64_t timeout_ms, size_t out_max, fm_run_job_done_fn done,
                                    void *data);

/*! \brief Kill \p job: its done is called at once with FM_RUN_JOB_CANCELLED. */
void fm_run_jobs_cancel(struct fm_run_jobs *js, struct fm_run_job *job);

/*! \brief Cancel every job (the loop stops). */
void fm_run_jobs_cancel_all(struct fm_run_jobs *js);

/*! \brief Whether a job is running (reported or not). */
bool fm_run_jobs_busy(const struct fm_run_jobs *js);

/*! \brief Kill and reap every child (at exit: SIGKILLed, they go at once). */
void fm_run_jobs_fini(struct fm_run_jobs *js);

#endif
