/*
 * faultmon: the subcommands of the faultmon program.  Each takes the
 * arguments after "faultmon" (argv[0] is the subcommand's name) and returns
 * the process exit status.
 */
#ifndef FAULTMON_COMMANDS_H
#define FAULTMON_COMMANDS_H

/* sysexits.h's EX_USAGE: the status for every usage error. */
#define FM_EXIT_USAGE 64

/* sysexits.h's EX_TEMPFAIL: `faultmon run` found another loop holding the
 * resource's lock (or lost the lock to one), and did not run. */
#define FM_EXIT_LOCKED 75

/*!
 * \brief Print "faultmon COMMAND: message" on stderr, as one line.
 * \return FM_EXIT_USAGE
 */
int fm_cli_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

int fm_cmd_probe(int argc, char **argv);
int fm_cmd_run(int argc, char **argv);
int fm_cmd_status(int argc, char **argv);
int fm_cmd_resume(int argc, char **argv);
int fm_cmd_reset(int argc, char **argv);

/*!
 * \brief Forget the failure history and decision in the state file of
 *        \p dir while no loop runs for \p resource (a hold for manual resume
 *        stays); prints one line.
 * \return process exit status
 */
int fm_reset_state_file(const char *resource, const char *dir);

#endif
