/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the command dispatcher.
 */
#include <config.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/commands.h>
#include <faultmon/text.h>

struct fm_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct fm_command fm_commands[] = {
    { "probe", fm_cmd_probe, "probe targets (19 protocols, or a program) once or --count times" },
    { "run", fm_cmd_run, "run the fault-monitor loop of a resource" },
    { "status", fm_cmd_status, "show the state of monitored resources" },
    { "resume", fm_cmd_resume, "put a service held for manual resume back in service" },
    { "reset", fm_cmd_reset, "forget a resource's failure history and decision on this node" },
    { "migrate", fm_cmd_migrate, "switch an ocf:heartbeat:apache/nginx resource to faultmon's agent" },
    { "simulate", fm_cmd_simulate, "show what a timeline of probe results would cause" },
    { "metrics", fm_cmd_metrics, "print every resource's state in Prometheus' text format" },
    { "exporter", fm_cmd_exporter, "serve those metrics over HTTP for Prometheus" },
};

static void
usage(FILE *out)
{
    fprintf(out,
            "Usage: faultmon COMMAND [OPTIONS] [ARGS]\n"
            "\n"
            "A fault monitor for services run by Pacemaker: it probes services (HTTP, TLS,\n"
            "TCP, UDP and 19 protocols in all, or a program of yours) under one deadline\n"
            "and classifies each failure as complete or partial.\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < sizeof(fm_commands) / sizeof(fm_commands[0]); i++) {
        fprintf(out, "  %-10s %s\n", fm_commands[i].name, fm_commands[i].summary);
    }
    fprintf(out,
            "\n"
            "Options:\n"
            "  -h, --help     show this help and exit\n"
            "  -V, --version  show the version and exit\n"
            "\n"
            "Run 'faultmon COMMAND --help' for the options of a command.\n");
}

int
main(int argc, char **argv)
{
    /* A peer that resets mid-write must be an error code, not a signal. */
    signal(SIGPIPE, SIG_IGN);

    if (argc < 2) {
        usage(stderr);
        return FM_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("faultmon %s\n", PACKAGE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof(fm_commands) / sizeof(fm_commands[0]); i++) {
        if (strcmp(argv[1], fm_commands[i].name) == 0) {
            return fm_commands[i].run(argc - 1, argv + 1);
        }
    }
    {
        char shown[256];

        fm_text_format(shown, sizeof(shown), "%s", argv[1]);
        fprintf(stderr, "faultmon: unknown command '%s' (see faultmon --help)\n", shown);
    }
    return FM_EXIT_USAGE;
}
