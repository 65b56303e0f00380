/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: its command line and configuration (see run/args.h).
 */
#include <config.h>

#include "args.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/commands.h>
#include <faultmon/log.h>
#include <faultmon/parse.h>

/* The watched process's name goes into reasons and logs: a short word
 * ("httpd", "nginx"), else a neutral one. */
static const char *
watch_name(const char *given)
{
    size_t len = (given != NULL)? strlen(given) : 0;

    if (len == 0 || len > 32 || strspn(given, "abcdefghijklmnopqrstuvwxyz"
                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != len) {
        return "the watched process";
    }
    return given;
}

void
fm_run_args_init(struct fm_run_args *args)
{
    memset(args, 0, sizeof(*args));
    args->use_env = true;
    args->signal_pacemaker = true;
    args->watch.name = watch_name(NULL);
    fm_run_config_init(&args->cfg);
}

void
fm_run_args_clear(struct fm_run_args *args)
{
    fm_run_config_clear(&args->cfg);
    free(args->params);
    args->params = NULL;
}

static const struct option run_options[] = {
    { "param",        required_argument, NULL, 'p' },
    { "no-env",       no_argument,       NULL, 'E' },
    { "no-pacemaker", no_argument,       NULL, 'P' },
    { "kind",         required_argument, NULL, 'k' },
    { "cycles",       required_argument, NULL, 'n' },
    { "verbose",      no_argument,       NULL, 'v' },
    { "help",         no_argument,       NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void
run_usage(FILE *out)
{
    fprintf(out,
"Usage: faultmon run RESOURCE [OPTIONS]\n"
"\n"
"Run the fault-monitor loop of RESOURCE in the foreground: probe, decide,\n"
"record the state in " FM_STATE_DIR "/RESOURCE/, and ask Pacemaker for a\n"
"restart or a failover when the failure history calls for one.  The agents\n"
"start it with the service; it stops on SIGTERM.\n"
"\n"
"Parameters come from OCF_RESKEY_<name> variables (as the agents pass them,\n"
"which keeps secrets out of ps) and from --param; see faultmon simulate --help\n"
"for the decision parameters.\n"
"\n"
"Options:\n"
"  -p, --param NAME=VALUE  set a parameter (Port_list, Monitor_Uri_List,\n"
"                          Probe_timeout, Retry_count, Retry_interval, ...)\n"
"      --no-env            ignore OCF_RESKEY_* variables\n"
"      --no-pacemaker      never call the cluster; only record decisions\n"
"      --kind KIND         the agent that runs the loop: apache (the default:\n"
"                          recovery is a restart or a failover) or httpmon\n"
"                          (recovery only marks the service unhealthy; implies\n"
"                          --no-pacemaker)\n"
"  -n, --cycles N          stop after N probe cycles (for tests)\n"
"  -v, --verbose           log to stderr too (twice: debug)\n"
"  -h, --help              show this help and exit\n"
"\n"
"One loop runs per resource: it holds a lock on " FM_STATE_DIR "/RESOURCE/lock\n"
"for its whole life.  Exit status: 0 after SIGTERM or --cycles, 64 on a usage\n"
"error or a state directory it cannot set up, 75 when another process holds\n"
"the lock (the error names its pid), 1 when the state directory vanished and\n"
"cannot be locked again.\n");
}


int
fm_run_args_parse(int argc, char **argv, struct fm_run_args *args)
{
    int opt = 0;

    args->params = calloc((size_t) argc + 1, sizeof(char *));
    if (args->params == NULL) {
        return fm_cli_error("run", "out of memory");
    }
    fm_cli_fold_long_options(argc, argv, ":p:n:vh", run_options);
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":p:n:vh", run_options, NULL)) != -1) {
        switch (opt) {
            case 'p':
                args->params[args->n_params++] = optarg;
                break;
            case 'E':
                args->use_env = false;
                break;
            case 'P':
                args->signal_pacemaker = false;
                break;
            case 'k':
                if (strcmp(optarg, FM_KIND_APACHE) != 0 && strcmp(optarg, FM_KIND_HTTPMON) != 0) {
                    return fm_cli_error("run", "invalid value '%s' for --kind: expected apache or httpmon", optarg);
                }
                snprintf(args->kind, sizeof(args->kind), "%s", optarg);
                break;
            case 'n':
                if (fm_parse_u64(optarg, 1, UINT64_MAX, FM_PARSE_DEFAULT, &args->max_cycles) != 0) {
                    return fm_cli_error("run", "invalid value '%s' for --cycles: expected a whole number from 1", optarg);
                }
                break;
            case 'v':
                args->verbose++;
                break;
            case 'h':
                run_usage(stdout);
                return 0;
            default:
                return fm_cli_getopt_error("run", opt, argv, run_options);
        }
    }
    if (optind + 1 != argc) {
        return fm_cli_error("run", "expected one RESOURCE name (see faultmon run --help)");
    }
    args->resource = argv[optind];
    return -1;
}

/* One --param NAME=VALUE. \return -1 to go on, else the exit status */
static int
run_set_param(struct fm_run_config *cfg, char *param)
{
    char err[512] = "";
    char *eq = strchr(param, '=');
    int rc = 0;

    if (eq == NULL) {
        return fm_cli_error("run", "invalid --param '%s': expected NAME=VALUE", param);
    }
    *eq = '\0';
    rc = fm_run_config_set(cfg, param, eq + 1, err, sizeof(err));
    *eq = '=';
    if (rc == ENOENT) {
        return fm_cli_error("run", "unknown parameter '%.*s'", (int) (eq - param), param);
    }
    if (rc != 0) {
        return fm_cli_error("run", "%s", err);
    }
    return -1;
}

int
fm_run_args_configure(struct fm_run_args *args)
{
    char err[512] = "";
    int rc = -1;

    args->watch.pid_file = getenv("FAULTMON_WATCH_PIDFILE");
    if (args->watch.pid_file != NULL && args->watch.pid_file[0] != '/') {
        args->watch.pid_file = NULL;
    }
    args->watch.name = watch_name(getenv("FAULTMON_WATCH_NAME"));
    if (fm_state_dir(args->resource, args->dir, sizeof(args->dir)) != 0) {
        return fm_cli_error("run", "invalid resource name '%s': use letters, digits, '.', '_', '-' and ':'",
                            args->resource);
    }
    if (args->use_env && fm_run_config_from_env(&args->cfg, err, sizeof(err)) != 0) {
        return fm_cli_error("run", "%s", err);
    }
    for (size_t i = 0; i < args->n_params && rc == -1; i++) {
        rc = run_set_param(&args->cfg, args->params[i]);
    }
    if (rc != -1) {
        return rc;
    }
    if (fm_run_config_finish(&args->cfg, err, sizeof(err)) != 0) {
        return fm_cli_error("run", "%s", err);
    }
    if (args->cfg.warn[0] != '\0') {
        fprintf(stderr, "faultmon run: warning: %s\n", args->cfg.warn);  /* as simulate says it */
    }
    /* Every loop of a cluster's resource shows its node's view of the
     * dependencies, httpmon's (the per-node observer of a clone) too. */
    args->publish_deps = args->signal_pacemaker && getenv("OCF_RESOURCE_INSTANCE") != NULL;
    if (strcmp(args->kind, FM_KIND_HTTPMON) == 0) {
        args->cfg.decide.publish_only = true;
        args->signal_pacemaker = false;
    } else {
        snprintf(args->kind, sizeof(args->kind), "%s", FM_KIND_APACHE);
    }
    return -1;
}

void
fm_run_args_restored(struct fm_monitor *mon, const char *resource, const struct fm_run_state *old)
{
    bool kept = getenv("FAULTMON_SERVICE_KEPT") != NULL;

    /* The agent restarted only the loop (a reload, a dead loop, a start
     * beside a running service): a restart asked for has not happened, and
     * a failure now is no failed restart to fail over for. */
    if (kept) {
        mon->verify_restart = false;
    }
    fm_log_info("%s: history restored (%lld failures, %lld restarts on record)%s", resource,
                (long long) old->decide.n_failures, (long long) old->decide.n_restarts,
                (kept && old->pending == FM_ACTION_RESTART)? "; the restart asked is still to come" : "");
}
