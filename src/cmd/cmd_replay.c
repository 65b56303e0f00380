/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon simulate --replay RESOURCE: run the cycle history the loop kept
 * (faultmon/history.h) through the monitor and decision engine again, with
 * the recorded run's parameters changed by --param, and print the outcomes
 * whose action differs from the one recorded: "with Retry_count=5 and
 * fall=2, what would last week have done?".  The monitor and the engine are
 * the loop's own (fm_monitor_input_done(), fm_monitor_event(), ...), so the
 * replay follows every rule the loop does.
 */
#include <config.h>

#include "cmd_replay.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <faultmon/commands.h>
#include <faultmon/history.h>
#include <faultmon/kvfile.h>
#include <faultmon/monitor.h>
#include <faultmon/parse.h>
#include <faultmon/state.h>
#include <faultmon/trust.h>

enum {
    OPT_REPLAY = 600,
    OPT_PARAM_NV,
    OPT_SINCE,
    OPT_JSON = 'j',
    OPT_HELP = 'h',
};

bool
fm_replay_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            return false;
        }
        if (strncasecmp(argv[i], "--replay", 8) == 0 && (argv[i][8] == '\0' || argv[i][8] == '=')) {
            return true;
        }
    }
    return false;
}

/* A duration, or whole days ("7d"): the history holds 7 to 14 of them. */
static bool
parse_since(const char *text, uint64_t *ms)
{
    size_t len = strlen(text);
    char digits[16];
    uint64_t days = 0;

    if (len > 1 && len < sizeof(digits) && text[len - 1] == 'd') {
        snprintf(digits, sizeof(digits), "%.*s", (int) (len - 1), text);
        if (fm_parse_u64(digits, 1, 366, FM_PARSE_DEFAULT, &days) != 0) {
            return false;
        }
        *ms = days * 86400 * 1000;
        return true;
    }
    return fm_parse_duration_ms(text, ms) == 0 && *ms > 0;
}

static int
replay_parse_args(struct replay_cli *cli, int argc, char **argv)
{
    static struct sim_options so;   /* getopt_long() keeps pointers into it */
    struct option *longopts = so.longopts;
    size_t k = fm_sim_param_options(&so);
    int opt = 0;
    int longindex = 0;

    /* simulate's own spellings (--retry-count 5) and --param NAME=VALUE */
    longopts[k++] = (struct option) { "replay", required_argument, NULL, OPT_REPLAY };
    longopts[k++] = (struct option) { "param", required_argument, NULL, OPT_PARAM_NV };
    longopts[k++] = (struct option) { "since", required_argument, NULL, OPT_SINCE };
    longopts[k++] = (struct option) { "json", no_argument, NULL, OPT_JSON };
    longopts[k++] = (struct option) { "help", no_argument, NULL, OPT_HELP };
    longopts[k] = (struct option) { NULL, 0, NULL, 0 };
    fm_cli_fold_long_options(argc, argv, ":jh", longopts);
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":jh", longopts, &longindex)) != -1) {
        if (opt >= OPT_PARAM && opt < OPT_PARAM + MAX_PARAM_OPTIONS) {
            if (cli->n_params == FM_REPLAY_MAX_PARAMS) {
                return fm_cli_error("simulate", "at most %d parameters", FM_REPLAY_MAX_PARAMS);
            }
            snprintf(cli->spelled[cli->n_params], sizeof(cli->spelled[0]), "%s=%s",
                     longopts[longindex].name, (optarg != NULL)? optarg : "true");
            cli->params[cli->n_params] = cli->spelled[cli->n_params];
            cli->n_params++;
            continue;
        }
        switch (opt) {
            case OPT_REPLAY:
                cli->resource = optarg;
                break;
            case OPT_PARAM_NV:
                if (cli->n_params == FM_REPLAY_MAX_PARAMS || strchr(optarg, '=') == NULL) {
                    return fm_cli_error("simulate", "--param '%s': expected NAME=VALUE (at most %d)", optarg,
                                        FM_REPLAY_MAX_PARAMS);
                }
                cli->params[cli->n_params++] = optarg;
                break;
            case OPT_SINCE:
                if (!parse_since(optarg, &cli->since_ms)) {
                    return fm_cli_error("simulate", "--since '%s': expected a duration such as 7d, 24h "
                                        "or 30m", optarg);
                }
                cli->have_since = true;
                break;
            case OPT_JSON:
                cli->json = true;
                break;
            case OPT_HELP:
                return -1;
            default:
                return fm_cli_getopt_error("simulate", opt, argv, longopts);
        }
    }
    if (optind < argc) {
        return fm_cli_error("simulate", "unexpected argument '%s'", argv[optind]);
    }
    if (!fm_resource_name_valid(cli->resource)) {
        return fm_cli_error("simulate", "--replay: '%s' is not a resource name", cli->resource);
    }
    return 0;
}

/* The recorded run's parameters (history.params), then --param. */
static int
replay_opts(struct replay *rp, const char *dir)
{
    char path[4096 + 64];
    char err[512];
    char *text = NULL;
    size_t len = 0;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, FM_HISTORY_PARAMS_NAME);
    rc = fm_trust_load(dir, FM_HISTORY_PARAMS_NAME, FM_HISTORY_PARAMS_MAX, &text, &len, err, sizeof(err));
    if (rc == ENOENT) {
        fprintf(stderr, "faultmon simulate: %s: no cycle history (%s): the loop records one from "
                "this version on\n", rp->cli->resource, path);
        return FM_REPLAY_EXIT_NOINPUT;
    }
    if (rc == 0 && fm_history_params_parse(text, len, &rp->opts, &rp->cluster, err, sizeof(err)) != 0) {
        rc = EINVAL;
    }
    if (rc == 0) {
        rp->params_hash = fm_history_params_hash(text);
    }
    free(text);
    if (rc != 0) {
        fprintf(stderr, "faultmon simulate: %s: %s: %s\n", rp->cli->resource, path, err);
        return FM_REPLAY_EXIT_DATAERR;
    }
    rp->kind = rp->opts.publish_only? FM_KIND_HTTPMON : FM_KIND_APACHE;
    rp->recorded = rp->opts;
    for (size_t i = 0; i < rp->cli->n_params; i++) {
        char name[64];
        const char *p = rp->cli->params[i];
        size_t n = (size_t) (strchr(p, '=') - p);

        snprintf(name, sizeof(name), "%.*s", (int) ((n < sizeof(name))? n : sizeof(name) - 1), p);
        rc = fm_decide_opts_set(&rp->opts, name, p + n + 1, err, sizeof(err));
        if (rc != 0) {
            return fm_cli_error("simulate", "--param %s: %s%s", p, err,
                                (rc == ENOENT)? " (a replay changes the decision engine's parameters only)" : "");
        }
    }
    if (fm_decide_opts_validate(&rp->opts, err, sizeof(err), NULL, 0) != 0) {
        return fm_cli_error("simulate", "%s", err);
    }
    return -1;
}

static void
collect(const struct fm_history_rec *r, void *data)
{
    struct replay_recs *all = data;

    if (all->n == all->cap) {
        size_t cap = (all->cap == 0)? 4096 : all->cap * 2;
        struct fm_history_rec *more = realloc(all->recs, cap * sizeof(*more));

        if (more == NULL) {
            all->oom = true;
            return;
        }
        all->recs = more;
        all->cap = cap;
    }
    all->recs[all->n++] = *r;
}

/* One file's good records onto \p all; what was skipped, in one line each.
 * \return 0, ENOENT, or the exit status for a file that is refused */
static int
load_file(const char *resource, const char *dir, const char *name, struct replay_recs *all)
{
    char path[4096 + 64];
    char err[512];
    char *bytes = NULL;
    size_t len = 0;
    struct fm_history_parse_stats stats;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    /* A history anyone else could have written is no evidence. */
    rc = fm_trust_load(dir, name, FM_HISTORY_FILE_MAX_BYTES + FM_HISTORY_BUF_RECORDS * FM_HISTORY_REC_BYTES,
                       &bytes, &len, err, sizeof(err));
    if (rc == ENOENT) {
        return ENOENT;
    }
    if (rc == 0 && fm_history_parse((const uint8_t *) bytes, len, collect, all, &stats, err,
                                    sizeof(err)) != 0) {
        rc = EINVAL;
    }
    free(bytes);
    if (rc != 0 || all->oom) {
        fprintf(stderr, "faultmon simulate: %s: %s: %s; nothing replayed\n", resource, path,
                all->oom? "out of memory" : err);
        return FM_REPLAY_EXIT_DATAERR;
    }
    if (stats.bad > 0) {
        fprintf(stderr, "faultmon simulate: %s: %s: skipped %" PRIu64 " bad record(s), the first: %s\n",
                resource, path, stats.bad, stats.first_bad);
    }
    if (stats.trailing_bytes > 0) {
        fprintf(stderr, "faultmon simulate: %s: %s: ignored a truncated last record (%zu bytes)\n",
                resource, path, stats.trailing_bytes);
    }
    return 0;
}

/* history.1, then history: oldest first. */
static int
load_history(const char *resource, const char *dir, struct replay_recs *all)
{
    int rc_old = load_file(resource, dir, FM_HISTORY_OLD_NAME, all);
    int rc = 0;

    if (rc_old != 0 && rc_old != ENOENT) {
        return rc_old;
    }
    rc = load_file(resource, dir, FM_HISTORY_NAME, all);
    if (rc != 0 && rc != ENOENT) {
        return rc;
    }
    if (all->n == 0) {
        fprintf(stderr, "faultmon simulate: %s: no cycle recorded in %s/%s\n", resource, dir, FM_HISTORY_NAME);
        return FM_REPLAY_EXIT_NOINPUT;
    }
    return 0;
}

int
fm_cmd_replay(int argc, char **argv)
{
    struct replay_cli cli;
    struct replay rp;
    struct replay_recs all;
    char dir[4096];
    int rc = 0;

    memset(&cli, 0, sizeof(cli));
    memset(&rp, 0, sizeof(rp));
    memset(&all, 0, sizeof(all));
    rc = replay_parse_args(&cli, argc, argv);
    if (rc != 0) {
        return (rc < 0)? fm_simulate_usage_ok() : rc;
    }
    rp.cli = &cli;
    if (fm_state_dir(cli.resource, dir, sizeof(dir)) != 0) {
        return fm_cli_error("simulate", "--replay: no state directory for '%s'", cli.resource);
    }
    rc = replay_opts(&rp, dir);
    if (rc == -1) {
        rc = load_history(cli.resource, dir, &all);
    }
    if (rc == 0) {
        rc = fm_replay_run(&rp, all.recs, all.n);
    }
    free(all.recs);
    return (rc == -1)? 0 : rc;
}
