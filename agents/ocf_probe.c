/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon-ocf-probe: one fresh probe cycle for the agents (a monitor with
 * OCF_CHECK_LEVEL=10).  Separate from the agent program because it needs
 * OpenSSL, whose loading alone would cost a monitor more than its budget.
 *
 * It reads the resource's parameters from OCF_RESKEY_* (the agent has added
 * its derived ones), never from its command line, so that passwords in URIs
 * stay out of ps; and the agent's extra check (testurl, testconffile) from
 * FAULTMON_OCF_TEST_URL, FAULTMON_OCF_TEST_REGEX (already case-folded) and
 * FAULTMON_OCF_TEST_HEADER.  Both run at once under one deadline.
 *
 * Prints one line (the first failure, or "ok") and exits with the worst
 * class: 0 ok, 1 partial, 2 complete, 64 for bad parameters.
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <faultmon/commands.h>
#include <faultmon/deadline.h>
#include <faultmon/log.h>
#include <faultmon/parse.h>
#include <faultmon/probe.h>
#include <faultmon/probe_opts.h>
#include <faultmon/runconf.h>
#include <faultmon/summary.h>
#include <faultmon/text.h>

struct probe_set {
    struct fm_probe_opts *opts;
    struct fm_target *targets;
    size_t n;
    struct fm_probe_run *run;
    bool done;
};

static int
fail_usage(const char *what, const char *err)
{
    char msg[600];

    snprintf(msg, sizeof(msg), "%s: %s", what, err);
    fm_escape_controls(msg, sizeof(msg));
    printf("%s\n", msg);
    return FM_EXIT_USAGE;
}

/* The extra check: one GET with its own regex and header. */
static int
extra_test(struct fm_probe_opts *opts, struct fm_target *target, uint64_t timeout_ms,
           char *err, size_t err_len)
{
    const char *url = getenv("FAULTMON_OCF_TEST_URL");
    const char *regex = getenv("FAULTMON_OCF_TEST_REGEX");
    const char *header = getenv("FAULTMON_OCF_TEST_HEADER");

    fm_probe_opts_init(opts);
    opts->timeout_ms = timeout_ms;
    /* The whole page, as ocf:heartbeat:apache greps it. */
    opts->receive_window_bytes = opts->max_reply_bytes;
    if (fm_target_parse(url, true, target, err, err_len) != 0) {
        return EINVAL;
    }
    if (regex != NULL && regex[0] != '\0'
        && fm_probe_opts_set_receive(opts, regex, err, err_len) != 0) {
        return EINVAL;
    }
    if (header != NULL && header[0] != '\0'
        && fm_probe_opts_add_header(opts, header, err, err_len) != 0) {
        return EINVAL;
    }
    return 0;   /* the engine builds the request */
}

static void
report(const struct probe_set *set, enum fm_class *worst, char *line, size_t line_len)
{
    size_t n = 0;
    const struct fm_result *results = fm_probe_run_results(set->run, &n);
    struct fm_cycle_summary sum;

    fm_cycle_summarize(results, n, (int64_t) time(NULL), &sum);
    if (sum.worst > *worst) {
        const struct fm_result *r = &results[sum.worst_index];

        *worst = sum.worst;
        snprintf(line, line_len, "%s: %s%s%s", r->target->text, fm_reason_name(r->reason),
                 (r->detail[0] != '\0')? ": " : "", r->detail);
    }
}

/* Everything one run of the helper holds: the resource's probes and the
 * agent's extra check, each a probe run of its own under the same
 * deadline. */
struct probe_cycle {
    struct fm_run_config cfg;
    struct fm_probe_opts test_opts;
    struct fm_target test_target;
    struct probe_set sets[2];
    size_t n_sets;
};

/* "--timeout-ms N": the agent's cap on Probe_timeout, what its operation
 * has left.  \return 0, or FM_EXIT_USAGE after saying why on stderr */
static int
parse_command_line(int argc, char **argv, uint64_t *cap_ms)
{
    *cap_ms = 0;
    if (argc == 1) {
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--timeout-ms") == 0) {
        if (fm_parse_u64(argv[2], 1, UINT64_MAX, FM_PARSE_DEFAULT, cap_ms) == 0) {
            return 0;
        }
        fprintf(stderr, "faultmon-ocf-probe: invalid --timeout-ms '%s': expected a whole number"
                " of milliseconds from 1\n", argv[2]);
    }
    fprintf(stderr, "Usage: faultmon-ocf-probe [--timeout-ms N] (parameters from OCF_RESKEY_*)\n");
    return FM_EXIT_USAGE;
}

/* The parameters (receive_bytes among them: the agents set it so that a
 * page is matched whole, as ocf:heartbeat:apache greps it), the extra
 * check, and both runs started.  \return 0 or FM_EXIT_USAGE (said on stdout) */
static int
start_cycle(struct probe_cycle *c, uint64_t cap_ms)
{
    char err[512] = "";

    if (fm_run_config_from_env(&c->cfg, err, sizeof(err)) != 0
        || fm_run_config_finish(&c->cfg, err, sizeof(err)) != 0) {
        return fail_usage("parameters", err);
    }
    if (cap_ms != 0 && c->cfg.probe.timeout_ms > cap_ms) {
        c->cfg.probe.timeout_ms = cap_ms;
    }
    /* One check inside the monitor's own timeout: every target at once,
     * whatever spread says for the loop. */
    c->cfg.probe.spread = false;
    c->sets[0].opts = &c->cfg.probe;
    c->sets[0].targets = c->cfg.targets;
    c->sets[0].n = c->cfg.n_targets;
    c->n_sets = 1;
    if (getenv("FAULTMON_OCF_TEST_URL") != NULL) {
        c->sets[1].opts = &c->test_opts;
        c->sets[1].targets = &c->test_target;
        c->sets[1].n = 1;
        c->n_sets = 2;
        if (extra_test(&c->test_opts, &c->test_target, c->cfg.probe.timeout_ms, err,
                       sizeof(err)) != 0) {
            return fail_usage("test", err);
        }
    }
    for (size_t i = 0; i < c->n_sets; i++) {
        if (fm_probe_reserve_fds(c->sets[i].n, err, sizeof(err)) != 0
            || fm_probe_run_new(c->sets[i].targets, c->sets[i].n, c->sets[i].opts, &c->sets[i].run,
                                err, sizeof(err)) != 0) {
            return fail_usage("probe", err);
        }
        fm_probe_run_start(c->sets[i].run, fm_now_us());
    }
    return 0;
}

/* Dispatch both runs until each has its verdict (their deadline ends it). */
static void
run_cycle(struct probe_cycle *c)
{
    for (;;) {
        struct pollfd pfd[2];
        int wait_ms = -1;
        size_t n_poll = 0;

        for (size_t i = 0; i < c->n_sets; i++) {
            struct probe_set *set = &c->sets[i];

            if (!set->done) {
                set->done = fm_probe_run_dispatch(set->run, fm_now_us());
            }
            if (!set->done) {
                int w = fm_probe_run_wait_ms(set->run, fm_now_us());

                pfd[n_poll].fd = fm_probe_run_fd(set->run);
                pfd[n_poll].events = POLLIN;
                n_poll++;
                wait_ms = (wait_ms < 0 || w < wait_ms)? w : wait_ms;
            }
        }
        if (n_poll == 0) {
            return;
        }
        if (poll(pfd, n_poll, wait_ms) < 0 && errno != EINTR) {
            return;
        }
    }
}

static void
free_cycle(struct probe_cycle *c)
{
    for (size_t i = 0; i < c->n_sets; i++) {
        fm_probe_run_free(c->sets[i].run);
    }
    fm_target_clear(&c->test_target);
    fm_probe_opts_clear(&c->test_opts);
    fm_run_config_clear(&c->cfg);
}

int
main(int argc, char **argv)
{
    struct probe_cycle cycle;
    uint64_t cap_ms = 0;
    char line[512] = "ok";
    enum fm_class worst = FM_CLASS_OK;
    int rc = 0;

    signal(SIGPIPE, SIG_IGN);
    rc = parse_command_line(argc, argv, &cap_ms);
    if (rc != 0) {
        return rc;
    }
    fm_log_init("faultmon-ocf-probe", false, 0);
    memset(&cycle, 0, sizeof(cycle));
    fm_run_config_init(&cycle.cfg);
    fm_probe_opts_init(&cycle.test_opts);
    rc = start_cycle(&cycle, cap_ms);
    if (rc == 0) {
        run_cycle(&cycle);
        for (size_t i = 0; i < cycle.n_sets; i++) {
            report(&cycle.sets[i], &worst, line, sizeof(line));
        }
        fm_escape_controls(line, sizeof(line));
        printf("%s\n", line);
        rc = (int) worst;
    }
    free_cycle(&cycle);
    fm_log_fini();
    return rc;
}
