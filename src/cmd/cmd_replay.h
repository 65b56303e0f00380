/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon simulate --replay (src/cmd/cmd_replay.c: the command line and the
 * files; src/cmd/cmd_replay_run.c: the replay and what it prints).
 */
#ifndef FAULTMON_CMD_REPLAY_H
#define FAULTMON_CMD_REPLAY_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/history.h>
#include <faultmon/monitor.h>
#include <faultmon/state.h>

#define FM_REPLAY_EXIT_DATAERR 65     /* sysexits.h: a history that cannot be trusted */
#define FM_REPLAY_EXIT_NOINPUT 66     /* sysexits.h: no history */
#define FM_REPLAY_MAX_PARAMS 32

#define MAX_PARAM_OPTIONS 32
#define OPT_PARAM 512                  /* + the parameter's index */

/* Long options built from the engine's parameter table, so that every
 * parameter the agents take is an option of simulate (and of its --replay)
 * too, under the same name. */
struct sim_options {
    char names[MAX_PARAM_OPTIONS][48];
    struct option longopts[MAX_PARAM_OPTIONS + 8];
};

/*! \brief Fill so->longopts with the parameters' options (val OPT_PARAM +
 *         index), NULL-terminated; \return how many, for the caller's own. */
size_t fm_sim_param_options(struct sim_options *so);

struct replay_cli {
    const char *resource;
    const char *params[FM_REPLAY_MAX_PARAMS];
    char spelled[FM_REPLAY_MAX_PARAMS][160];  /* "--retry-count 5" as "retry-count=5" */
    size_t n_params;
    bool have_since;
    uint64_t since_ms;
    bool json;
};

/* The records of both files, oldest first. */
struct replay_recs {
    struct fm_history_rec *recs;
    size_t n;
    size_t cap;
    bool oom;
};

/* What the replay found, over the outcomes reported (from --since). */
struct replay_sum {
    uint64_t outcomes;
    uint64_t differ;
    uint64_t foreign;               /* recorded under other parameters */
    uint32_t first_wall_s;
    uint32_t last_wall_s;
    uint64_t recorded[4];           /* by action */
    uint64_t replayed[4];
};

struct replay {
    const struct replay_cli *cli;
    struct fm_decide_opts recorded; /* history.params' */
    struct fm_decide_opts opts;     /* the replay's: those and --param */
    bool cluster;
    const char *kind;
    uint32_t params_hash;           /* of history.params */
    struct fm_monitor *mon;
    struct fm_run_state *old;       /* the state a new loop restores */
    bool have_cert;
    int64_t cert_left_s;
    bool foreign;
    uint32_t cut_wall_s;
    struct replay_sum sum;
};

/*! \return whether the arguments of `faultmon simulate` ask for --replay */
bool fm_replay_wanted(int argc, char **argv);

/*! \brief `faultmon simulate --replay RESOURCE ...` \return the exit status */
int fm_cmd_replay(int argc, char **argv);

/*!
 * \brief Replay \p n records with rp's options and print what differs.
 * \return 0, or an exit status
 */
int fm_replay_run(struct replay *rp, const struct fm_history_rec *recs, size_t n);

/*! \brief Print simulate's help on stdout. \return 0 */
int fm_simulate_usage_ok(void);

#endif
