/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon metrics: the Prometheus text format of every resource on this
 * node, on stdout or atomically into a file (for node_exporter's textfile
 * collector, which must never read half a file).
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/commands.h>
#include <faultmon/kvfile.h>
#include <faultmon/metrics.h>

static void
write_metrics(FILE *out, const void *data)
{
    int *rc = (int *) data;

    *rc = fm_metrics_render_dir(out);
}

/* Write into \p path through fm_kvfile_write() (temporary file in the same
 * directory, fsync, rename): node_exporter reads only *.prom, so the
 * temporary ".NAME.PID.tmp" is never collected. */
static int
write_file(const char *path)
{
    char *d = strdup(path);
    char *b = strdup(path);
    int render_rc = 0;
    int rc = ENOMEM;

    if (d != NULL && b != NULL) {
        rc = fm_kvfile_write(dirname(d), basename(b), write_metrics, &render_rc);
    }
    free(d);
    free(b);
    if (rc != 0) {
        fm_cli_error("metrics", "cannot write %s: %s", path, strerror(rc));
        return 1;
    }
    return 0;
}

int
fm_cmd_metrics(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *output = NULL;
    int opt = 0;
    int rc = 0;

    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        if (opt == 'o') {
            output = optarg;
        } else if (opt == 'h') {
            printf("Usage: faultmon metrics [--output FILE]\n\n"
                   "Print the state of every resource on this node in Prometheus' text\n"
                   "format; with --output, write FILE atomically instead (for node_exporter's\n"
                   "textfile collector: FILE ending in .prom in its directory).\n"
                   "Exit status: 0, 1 when FILE cannot be written, 64 on a usage error.\n");
            return 0;
        } else {
            return fm_cli_getopt_error("metrics", opt, argv, longopts);
        }
    }
    if (optind < argc) {
        return fm_cli_error("metrics", "unexpected argument '%s'", argv[optind]);
    }
    if (output != NULL) {
        return write_file(output);
    }
    fm_metrics_render_dir(stdout);
    if (fflush(stdout) != 0) {
        rc = 1;
    }
    return rc;
}
