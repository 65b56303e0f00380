/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop's children (see run/jobs.h).
 *
 * A job ends when its pipe has closed and it has exited.  Its exit is seen
 * on a pidfd (Linux 5.3); a kernel without one gets a waitpid(WNOHANG)
 * every few milliseconds once the pipe has closed, which is a moment at
 * most for a program that closes its output by exiting, never a wait.
 * One timer of the loop's (the epoll_wait's timeout, src/run/timer.h)
 * carries the nearest deadline of all of them.
 */
#include <config.h>

#include "jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/log.h>
#include <faultmon/pidfd.h>
#include <faultmon/spawn.h>

/* Without a pidfd, how soon waitpid(WNOHANG) is asked again. */
#define FM_RUN_JOB_REAP_RETRY_MS 5

static void jobs_rearm(struct fm_run_jobs *js);

static void
job_unwatch(struct fm_run_jobs *js, int *fd)
{
    if (*fd >= 0) {
        fm_ev_unwatch(js->loop, *fd);
        close(*fd);
        *fd = -1;
    }
}

static void
job_free(struct fm_run_jobs *js, struct fm_run_job *job)
{
    for (struct fm_run_job **p = &js->head; *p != NULL; p = &(*p)->next) {
        if (*p == job) {
            *p = job->next;
            break;
        }
    }
    job_unwatch(js, &job->out_fd);
    job_unwatch(js, &job->pid_fd);
    free(job->out);
    free(job);
}

/* Tell the caller, once; the set goes idle when nobody waits for a job. */
static void
job_report(struct fm_run_jobs *js, struct fm_run_job *job, int status)
{
    if (job->reported) {
        return;
    }
    job->reported = true;
    if (job->done != NULL) {
        job->done(job->data, status, job->out, job->size);
    }
    if (js->idle != NULL && !fm_run_jobs_busy(js)) {
        void (*idle)(void *data) = js->idle;

        js->idle = NULL;
        idle(js->idle_data);
    }
}

static int32_t on_job_exit(int32_t fd, int32_t revents, void *data);

/* Reap the child if it has exited; else watch for its exit.
 * \return true when the job was freed */
static bool
job_try_reap(struct fm_run_jobs *js, struct fm_run_job *job)
{
    int wstatus = 0;
    pid_t got = waitpid(job->pid, &wstatus, WNOHANG);

    if (got == job->pid || (got < 0 && errno == ECHILD)) {
        int status = FM_RUN_JOB_CANNOT_RUN;

        if (got == job->pid && WIFEXITED(wstatus)) {
            status = WEXITSTATUS(wstatus);
        } else if (got == job->pid && WIFSIGNALED(wstatus)) {
            status = 128 + WTERMSIG(wstatus);
        }
        fm_log_debug("child %ld ended: status %d", (long) job->pid, status);
        job->retry_us = 0;
        job_unwatch(js, &job->out_fd);
        job_unwatch(js, &job->pid_fd);
        job_report(js, job, status);
        job_free(js, job);
        return true;
    }
    if (job->pid_fd < 0) {
        job->pid_fd = fm_pidfd_open(job->pid);
        if (job->pid_fd >= 0
            && fm_ev_watch(js->loop, job->pid_fd, EPOLLIN, on_job_exit, job) != 0) {
            close(job->pid_fd);
            job->pid_fd = -1;
        }
    }
    job->retry_us = (job->pid_fd < 0)? fm_now_us() + FM_RUN_JOB_REAP_RETRY_MS * 1000u : 0;
    return false;
}

static int32_t
on_job_exit(int32_t fd, int32_t revents, void *data)
{
    struct fm_run_job *job = data;
    struct fm_run_jobs *js = job->set;

    job_unwatch(js, &job->pid_fd);
    if (!job_try_reap(js, job)) {
        jobs_rearm(js);
    }
    return 0;
}

/* What fits is kept; the rest is read and counted, so that a talkative
 * program never blocks on a full pipe. */
static int32_t
on_job_output(int32_t fd, int32_t revents, void *data)
{
    struct fm_run_job *job = data;
    struct fm_run_jobs *js = job->set;
    char chunk[4096];
    ssize_t got = 0;

    for (;;) {
        got = read(fd, chunk, sizeof(chunk));
        if (got <= 0) {
            break;
        }
        if (job->out_max > 1 && job->size < job->out_max - 1) {
            size_t take = job->out_max - 1 - job->size;

            take = ((size_t) got < take)? (size_t) got : take;
            memcpy(job->out + job->size, chunk, take);
            job->out[job->size + take] = '\0';
        }
        job->size += (size_t) got;
    }
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
        return 0;
    }
    job_unwatch(js, &job->out_fd);
    if (!job_try_reap(js, job)) {
        jobs_rearm(js);
    }
    return 0;
}

/* Kill the jobs past their deadline and reap what can be reaped; one at a
 * time from the head, since a caller's done may start or end jobs. */
static void
on_jobs_timer(void *data)
{
    struct fm_run_jobs *js = data;
    bool acted = true;

    while (acted) {
        uint64_t now_us = fm_now_us();

        acted = false;
        for (struct fm_run_job *job = js->head; job != NULL; job = job->next) {
            if (!job->reported && now_us >= job->end_us) {
                fm_spawn_kill(job->pid);
                job_unwatch(js, &job->out_fd);
                job_report(js, job, FM_RUN_JOB_TIMEOUT);
                job_try_reap(js, job);
                acted = true;
                break;
            }
            if (job->retry_us != 0 && now_us >= job->retry_us && job->out_fd < 0) {
                acted = job_try_reap(js, job);
                if (acted) {
                    break;
                }
            }
        }
    }
    jobs_rearm(js);
}

static void
jobs_rearm(struct fm_run_jobs *js)
{
    uint64_t at_us = 0;
    uint64_t now_us = fm_now_us();

    for (const struct fm_run_job *job = js->head; job != NULL; job = job->next) {
        uint64_t t = job->reported? job->retry_us : job->end_us;

        if (job->retry_us != 0 && job->retry_us < t) {
            t = job->retry_us;
        }
        if (t != 0 && (at_us == 0 || t < at_us)) {
            at_us = t;
        }
    }
    if (at_us != 0) {
        fm_run_timer_arm(&js->timer, now_us, (at_us > now_us)? (at_us - now_us + 999u) / 1000u : 0,
                         on_jobs_timer, js);
    }
}

int
fm_run_jobs_init(struct fm_run_jobs *js, struct fm_ev *loop)
{
    memset(js, 0, sizeof(*js));
    js->loop = loop;
    return fm_run_timer_init(&js->timer, loop);
}

/* Watch a started child. */
static struct fm_run_job *
job_watch(struct fm_run_jobs *js, struct fm_run_job *job, pid_t pid, int out_fd, uint64_t timeout_ms)
{
    job->set = js;
    job->pid = pid;
    job->out_fd = out_fd;
    job->pid_fd = -1;
    job->end_us = fm_now_us() + timeout_ms * 1000u;
    if (fm_ev_watch(js->loop, out_fd, EPOLLIN, on_job_output, job) != 0) {
        /* Its exit is still seen, by the deadline at the latest. */
        close(out_fd);
        job->out_fd = -1;
    }
    job->next = js->head;
    js->head = job;
    js->started++;
    if (job->out_fd < 0) {
        job_try_reap(js, job);
    }
    jobs_rearm(js);
    return job;
}

static struct fm_run_job *
job_new(size_t out_max, fm_run_job_done_fn done, void *data)
{
    struct fm_run_job *job = calloc(1, sizeof(*job));

    if (job != NULL) {
        job->out = calloc(1, (out_max > 0)? out_max : 1);
        job->out_max = (out_max > 0)? out_max : 1;
    }
    if (job != NULL && job->out == NULL) {
        free(job);
        job = NULL;
    }
    if (job == NULL && done != NULL) {
        done(data, FM_RUN_JOB_CANNOT_RUN, "out of memory", 0);
    }
    if (job != NULL) {
        job->done = done;
        job->data = data;
    }
    return job;
}

static void
job_cannot_start(struct fm_run_job *job, const char *what, int rc)
{
    snprintf(job->out, job->out_max, "cannot run %s: %s", what, strerror(rc));
    if (job->done != NULL) {
        job->done(job->data, FM_RUN_JOB_CANNOT_RUN, job->out, 0);
    }
    free(job->out);
    free(job);
}

struct fm_run_job *
fm_run_jobs_exec(struct fm_run_jobs *js, char *const argv[], char *const envp[], uint64_t timeout_ms,
                 size_t out_max, fm_run_job_done_fn done, void *data)
{
    struct fm_run_job *job = job_new(out_max, done, data);
    pid_t pid = 0;
    int out_fd = -1;
    int rc = 0;

    if (job == NULL) {
        return NULL;
    }
    rc = fm_spawn_start(argv, envp, &pid, &out_fd);
    if (rc != 0) {
        job_cannot_start(job, argv[0], rc);
        return NULL;
    }
    fm_log_debug("child %ld started: %s, %llu ms at most", (long) pid, argv[0],
                 (unsigned long long) timeout_ms);
    return job_watch(js, job, pid, out_fd, timeout_ms);
}

/* In the forked child: the loop's signals are the parent's business (the
 * loop blocks them for its signalfd; the child takes them as anyone). */
static void
job_child(fm_run_job_child_fn fn, void *arg, int out_fd)
{
    static const int sigs[] = { SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD };
    sigset_t none;

    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        signal(sigs[i], SIG_DFL);
    }
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    _exit(fn(arg, out_fd) & 0xff);
}

struct fm_run_job *
fm_run_jobs_fork(struct fm_run_jobs *js, fm_run_job_child_fn fn, void *arg, uint64_t timeout_ms,
                 size_t out_max, fm_run_job_done_fn done, void *data)
{
    struct fm_run_job *job = job_new(out_max, done, data);
    int pipefd[2] = { -1, -1 };
    pid_t pid = 0;

    if (job == NULL) {
        return NULL;
    }
    if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) != 0) {
        job_cannot_start(job, "a child", errno);
        return NULL;
    }
    pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        job_child(fn, arg, pipefd[1]);
    }
    close(pipefd[1]);
    if (pid < 0) {
        close(pipefd[0]);
        job_cannot_start(job, "a child", errno);
        return NULL;
    }
    return job_watch(js, job, pid, pipefd[0], timeout_ms);
}

void
fm_run_jobs_cancel(struct fm_run_jobs *js, struct fm_run_job *job)
{
    if (job == NULL || job->reported) {
        return;
    }
    fm_spawn_kill(job->pid);
    job_unwatch(js, &job->out_fd);
    job_report(js, job, FM_RUN_JOB_CANCELLED);
    if (!job_try_reap(js, job)) {
        jobs_rearm(js);
    }
}

void
fm_run_jobs_cancel_all(struct fm_run_jobs *js)
{
    bool again = true;

    while (again) {
        again = false;
        for (struct fm_run_job *job = js->head; job != NULL; job = job->next) {
            if (!job->reported) {
                fm_run_jobs_cancel(js, job);
                again = true;
                break;
            }
        }
    }
}

bool
fm_run_jobs_busy(const struct fm_run_jobs *js)
{
    for (const struct fm_run_job *job = js->head; job != NULL; job = job->next) {
        if (!job->reported) {
            return true;
        }
    }
    return false;
}

void
fm_run_jobs_fini(struct fm_run_jobs *js)
{
    if (js->loop == NULL) {
        return;
    }
    while (js->head != NULL) {
        struct fm_run_job *job = js->head;

        job->reported = true;
        fm_spawn_kill(job->pid);
        while (waitpid(job->pid, NULL, 0) < 0 && errno == EINTR) {
            continue;
        }
        job_free(js, job);
    }
    fm_run_timer_clear(&js->timer);
    js->loop = NULL;
}
