/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon reset: forget a resource's failure history and decision on this
 * node, as `pcs resource cleanup` makes Pacemaker forget its fail-count.
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <faultmon/commands.h>
#include <faultmon/deadline.h>
#include <faultmon/recovery.h>
#include <faultmon/state.h>

static void
reset_usage(FILE *out)
{
    fprintf(out,
"Usage: faultmon reset RESOURCE\n"
"\n"
"Forget RESOURCE's failure history, restarts counted and pending decision\n"
"(restart or failover) on this node, as a cleanup does.  Pacemaker's probe\n"
"after `pcs resource cleanup RESOURCE` does the same.  A service held for\n"
"manual resume stays held: use faultmon resume.\n");
}

/*!
 * \brief Forget the history and decision in the state file of \p dir, which
 *        no loop is running for (the agent's start reads it), keeping a
 *        hold for manual resume.
 * \return process exit status
 */
int
fm_reset_state_file(const char *resource, const char *dir)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    char err[512];
    int rc = 0;

    if (st == NULL) {
        return 1;
    }
    rc = fm_state_read(dir, st, err, sizeof(err));
    if (rc == ENOENT) {
        printf("%s: no history on this node\n", resource);
        free(st);
        return 0;
    }
    if (rc != 0) {
        /* A bad file is never believed anyway; keep it for inspection. */
        fm_state_set_aside(dir);
        printf("%s: bad state set aside (%s)\n", resource, err);
        free(st);
        return 0;
    }
    /* Consistent as the reader checks it: no failures, no restarts, no
     * action of a last cycle; a hold keeps its pending failover. */
    fm_state_forget(st, FM_STATE_FORGET_HISTORY);
    if (fm_state_validate(st, resource, fm_now_us(), err, sizeof(err)) != 0) {
        /* Never leave a state the agents would refuse: it would hide a hold. */
        fprintf(stderr, "faultmon reset: %s: cannot make a consistent state (%s); kept as it was\n",
                resource, err);
        free(st);
        return 1;
    }
    rc = fm_state_write(dir, st, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "faultmon reset: %s\n", err);
        free(st);
        return 1;
    }
    fm_recovery_forget(dir);
    printf("%s: history and decision forgotten%s\n", resource,
           (st->decide.held != 0)? "; still held for manual resume (faultmon resume)" : "");
    free(st);
    return 0;
}

int
fm_cmd_reset(int argc, char **argv)
{
    char dir[4096];
    char path[4200];
    int64_t pid = 0;
    int rc = 0;

    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        reset_usage(stdout);
        return 0;
    }
    if (argc >= 2 && argv[1][0] == '-') {
        return fm_cli_error("reset", "unknown option '%s' (see faultmon reset --help)", argv[1]);
    }
    if (argc != 2) {
        return fm_cli_error("reset", "expected one RESOURCE name (see faultmon reset --help)");
    }
    if (fm_state_dir(argv[1], dir, sizeof(dir)) != 0) {
        return fm_cli_error("reset", "invalid resource name '%s': use letters, digits, '.', '_', '-' and ':'",
                            argv[1]);
    }
    if (access(dir, F_OK) != 0) {
        printf("%s: no history on this node\n", argv[1]);
        return 0;
    }
    snprintf(path, sizeof(path), "%s/%s", dir, FM_RECOVERY_RESET);
    rc = fm_recovery_file_mark(dir, FM_RECOVERY_RESET, true);
    if (rc != 0) {
        fprintf(stderr, "faultmon reset: cannot write %s: %s\n", path, strerror(rc));
        return 1;
    }
    pid = fm_state_loop_pid(dir);
    if (pid != 0) {
        /* The loop owns the state: it resets itself and writes it. */
        kill((pid_t) pid, SIGUSR1);
        printf("%s: reset requested from the running loop (pid %lld)\n", argv[1], (long long) pid);
        return 0;
    }
    fm_recovery_file_mark(dir, FM_RECOVERY_RESET, false);
    return fm_reset_state_file(argv[1], dir);
}
