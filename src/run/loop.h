/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop of one resource (src/run/loop.c), its state shared
 * with the files that carry parts of it out (src/run/watch.c).
 */
#ifndef FAULTMON_CMD_RUN_LOOP_H
#define FAULTMON_CMD_RUN_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include <faultmon/ev.h>
#include <faultmon/monitor.h>
#include <faultmon/pcmk.h>
#include <faultmon/probe.h>
#include <faultmon/runconf.h>

#include "run_accesslog.h"
#include "args.h"
#include "attrs.h"
#include "run_deps.h"
#include "jobs.h"
#include "observe.h"
#include "run_overload.h"
#include "request.h"
#include "timer.h"

struct fm_loop {
    const char *resource;
    const char *dir;
    struct fm_run_config *cfg;
    struct fm_probe_run *probe;
    struct fm_monitor mon;
    bool have_monitor;
    struct fm_ev ev;                /* the loop: one epoll set for all */
    struct fm_ev *loop;             /* &ev once it is made, else NULL */
    struct fm_run_timer timer;      /* the next cycle, or the deadline */
    bool in_cycle;
    uint64_t cycle_start_us;
    uint64_t cycle_due_us;          /* when the cycle timer was due, 0: none */
    struct fm_run_observer obs;     /* is this node itself impaired? */
    uint64_t max_cycles;            /* 0: forever */
    bool signal_pacemaker;
    bool reported_file;             /* the `reported` file exists */
    bool refused_noted;             /* this loop wrote the `refused` file */
    struct fm_run_watch watch;      /* FAULTMON_WATCH_PIDFILE: the service's */
    int watch_fd;                   /* pidfd of the watched process (without
                                       one, the timer fd that polls it), or -1 */
    bool watch_polling;             /* watch_fd is that timer fd */
    unsigned long long watch_start; /* its start time, when polled (ticks) */
    long watch_pid;
    int watch_rc;                   /* the last reading's error, said once */
    struct fm_pcmk_resource rsc;
    struct fm_run_attrs attrs;      /* faultmon-RESOURCE-reason, -state, -weight */
    struct fm_run_deps deps;        /* Dependency_list's views across the cluster */
    struct fm_run_accesslog alog;   /* access_log: what the clients got */
    struct fm_run_overload ovl;     /* overload_status_url: busy or hung? */
    int lock_fd;                    /* DIR/lock, held for the loop's life */
    uint64_t lock_path_checked_us;  /* fm_state_lock_recheck()'s; 0: at once */
    int exit_rc;                    /* set when the loop stops on an error */
    struct fm_run_jobs jobs;        /* the children it runs, never waits for */
    struct fm_run_request request;  /* the controller's, in a child */
    bool stopping;                  /* only the stop's deletes left to run */
    struct fm_monitor_cycle cycle;  /* the last, judged when the observer's
                                       checks have answered */
    bool cycle_failed;
};

/*! \brief The first half of the monitor's answer: the state, then the logs.
 *  \return false when the loop lost its state directory and stops */
bool fm_run_loop_apply(struct fm_loop *lp, const struct fm_monitor_out *out);

/*! \brief The second half: the recovery request, then the explanations. */
void fm_run_loop_act(struct fm_loop *lp, const struct fm_monitor_out *out);

/*! \brief Watch the process of FAULTMON_WATCH_PIDFILE, once it names a live one. */
void fm_run_loop_watch(struct fm_loop *lp);

#endif
