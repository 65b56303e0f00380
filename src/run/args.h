/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: its command line and configuration (src/run/args.c),
 * apart from the loop's wiring (src/run/loop.c).
 */
#ifndef FAULTMON_CMD_RUN_ARGS_H
#define FAULTMON_CMD_RUN_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/monitor.h>
#include <faultmon/runconf.h>
#include <faultmon/state.h>

/* What the command line and the environment ask for. */
/* The process the loop watches (the agents pass the service's pid file),
 * and what the reason calls it when it exits ("nginx (pid 812) exited"). */
struct fm_run_watch {
    const char *pid_file;           /* absolute, or NULL: none watched */
    const char *name;               /* never NULL */
};

struct fm_run_args {
    const char *resource;
    char **params;                  /* --param NAME=VALUE, in order */
    size_t n_params;
    bool use_env;                   /* read OCF_RESKEY_* */
    bool signal_pacemaker;          /* not --no-pacemaker nor httpmon */
    bool publish_deps;              /* Dependency_list views as node attributes */
    char kind[FM_STATE_KIND_MAX];   /* --kind; FM_KIND_APACHE once configured */
    uint64_t max_cycles;            /* --cycles; 0: forever */
    int verbose;
    char dir[4096];                 /* the resource's state directory */
    struct fm_run_watch watch;      /* FAULTMON_WATCH_PIDFILE and _NAME */
    struct fm_run_config cfg;       /* the parameters */
};

/*! \brief Defaults: the environment read, Pacemaker signalled. */
void fm_run_args_init(struct fm_run_args *args);

/*!
 * \brief Read the command line into \p args.
 * \return -1 to go on, else the exit status (0 after --help)
 */
int fm_run_args_parse(int argc, char **argv, struct fm_run_args *args);

/*!
 * \brief The resource's state directory and parameters: OCF_RESKEY_*, then
 *        --param, then the kind of loop.
 * \return -1 to go on, else the exit status (an error was printed)
 */
int fm_run_args_configure(struct fm_run_args *args);

/*! \brief Free what the two above allocated. */
void fm_run_args_clear(struct fm_run_args *args);

/*!
 * \brief The earlier loop's state is restored into \p mon: log it, and take
 *        FAULTMON_SERVICE_KEPT (the agent restarted only the loop, so a
 *        restart asked for has not happened: none to verify).
 */
void fm_run_args_restored(struct fm_monitor *mon, const char *resource, const struct fm_run_state *old);

#endif
