/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the subcommands of the faultmon program.  Each takes the
 * arguments after "faultmon" (argv[0] is the subcommand's name) and returns
 * the process exit status.
 *
 * No .c of its name: each command is its own file, src/cmd/cmd_NAME.c
 * (faultmon run: src/run/loop.c), and src/faultmon.c's table calls them.
 */
#ifndef FAULTMON_COMMANDS_H
#define FAULTMON_COMMANDS_H

#include <stdbool.h>

/* sysexits.h's EX_USAGE: the status for every usage error. */
#define FM_EXIT_USAGE 64

/* sysexits.h's EX_TEMPFAIL: `faultmon run` found another loop holding the
 * resource's lock (or lost the lock to one), and did not run. */
#define FM_EXIT_LOCKED 75

/*!
 * \brief Pacemaker's command-line tool \p name (cibadmin, crm_resource),
 *        beside attrd_updater; the variable \p env (FAULTMON_CIBADMIN ...)
 *        overrides it with an absolute path, for the tests.
 * \return \p buf, or the variable's value
 */
const char *fm_cli_pcmk_tool(const char *name, const char *env, char *buf, size_t len);

/*!
 * \brief Print "faultmon COMMAND: message" on stderr, as one line.
 * \return FM_EXIT_USAGE
 */
int fm_cli_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct option;

/*!
 * \brief Let long options be spelt like the parameters they set: in any case,
 *        with '_' for '-' (--retry_count, --Retry_count, --RETRY-COUNT are
 *        --retry-count), before getopt_long() reads \p argv.
 *
 * Rewrites the name part of each "--name[=value]" argument in place when its
 * folded form is one of \p longopts; values (after '=', or the argument after
 * an option that takes one) and anything after "--" are left alone.
 *
 * \param[in]     argc       argument count
 * \param[in,out] argv       arguments; argv[0] is the subcommand
 * \param[in]     optstring  getopt's short options (to skip their values)
 * \param[in]     longopts   getopt_long()'s table, ending with a NULL name
 */
void fm_cli_fold_long_options(int argc, char **argv, const char *optstring,
                              const struct option *longopts);

/*!
 * \brief The one-line usage error for what getopt_long() returned as ':' or
 *        '?' (run it with opterr = 0): an option that needs a value, one
 *        that takes none ("--json=yes"), or an unknown one, named as typed.
 *
 * \param[in] command   the subcommand, for "faultmon COMMAND: "
 * \param[in] opt       getopt_long()'s return value
 * \param[in] argv      the arguments getopt_long() read
 * \param[in] longopts  its table, ending with a NULL name
 * \return FM_EXIT_USAGE
 */
int fm_cli_getopt_error(const char *command, int opt, char **argv,
                        const struct option *longopts);

int fm_cmd_probe(int argc, char **argv);
int fm_cmd_run(int argc, char **argv);
int fm_cmd_status(int argc, char **argv);

/*! \brief faultmon status --cluster: every node's view, from the CIB (src/cmd/cmd_status_cluster.c). */
int fm_cmd_status_cluster(bool json);
int fm_cmd_resume(int argc, char **argv);
int fm_cmd_reset(int argc, char **argv);
int fm_cmd_migrate(int argc, char **argv);

/*! \brief `faultmon metrics`: the Prometheus text format, on stdout or in a file. */
int fm_cmd_metrics(int argc, char **argv);

/*! \brief `faultmon exporter`: serve `faultmon metrics` over HTTP until SIGTERM. */
int fm_cmd_exporter(int argc, char **argv);

/*!
 * \brief `faultmon simulate`: run a timeline from stdin through the engine.
 *
 * \param[in] argc  argument count, argv[0] being "simulate"
 * \param[in] argv  arguments
 * \return 0, or 64 (FM_EXIT_USAGE) on bad usage or a malformed line
 */
int fm_cmd_simulate(int argc, char **argv);

/*!
 * \brief Forget the failure history and decision in the state file of
 *        \p dir while no loop runs for \p resource (a hold for manual resume
 *        stays); prints one line.
 * \return process exit status
 */
int fm_reset_state_file(const char *resource, const char *dir);

#endif
