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

#include <faultmon/commands.h>
#include <faultmon/deadline.h>
#include <faultmon/log.h>
#include <faultmon/probe.h>
#include <faultmon/runconf.h>

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

    for (size_t i = 0; i < n; i++) {
        enum fm_class cls = fm_result_class(&results[i]);

        if (cls > *worst) {
            *worst = cls;
            snprintf(line, line_len, "%s: %s%s%s", results[i].target->text,
                     fm_reason_name(results[i].reason), (results[i].detail[0] != '\0')? ": " : "",
                     results[i].detail);
        }
    }
}

int
main(int argc, char **argv)
{
    struct fm_run_config cfg;
    struct fm_probe_opts test_opts;
    struct fm_target test_target;
    struct probe_set sets[2];
    size_t n_sets = 1;
    uint64_t cap_ms = 0;
    char err[512] = "";
    char line[512] = "ok";
    enum fm_class worst = FM_CLASS_OK;
    int rc = 0;

    signal(SIGPIPE, SIG_IGN);
    if (argc == 3 && strcmp(argv[1], "--timeout-ms") == 0) {
        cap_ms = strtoull(argv[2], NULL, 10);
    } else if (argc != 1) {
        fprintf(stderr, "Usage: faultmon-ocf-probe [--timeout-ms N] (parameters from OCF_RESKEY_*)\n");
        return FM_EXIT_USAGE;
    }
    fm_log_init("faultmon-ocf-probe", false, 0);
    memset(sets, 0, sizeof(sets));
    memset(&test_target, 0, sizeof(test_target));
    fm_run_config_init(&cfg);
    if (fm_run_config_from_env(&cfg, err, sizeof(err)) != 0
        || fm_run_config_finish(&cfg, err, sizeof(err)) != 0) {
        return fail_usage("parameters", err);
    }
    /* receive_bytes: how much of a body receive_regex sees (the agents set
     * it so that a page is matched whole, as ocf:heartbeat:apache greps it). */
    {
        const char *text = getenv("OCF_RESKEY_receive_bytes");
        size_t bytes = 0;

        if (text != NULL && text[0] != '\0') {
            if (fm_parse_size_bytes(text, &bytes) != 0 || bytes == 0) {
                return fail_usage("parameters", "invalid receive_bytes: expected a size such as 64k");
            }
            cfg.probe.receive_window_bytes = (bytes < cfg.probe.max_reply_bytes)? bytes
                                                                               : cfg.probe.max_reply_bytes;
        }
    }
    if (cap_ms != 0 && cfg.probe.timeout_ms > cap_ms) {
        cfg.probe.timeout_ms = cap_ms;
    }
    sets[0].opts = &cfg.probe;
    sets[0].targets = cfg.targets;
    sets[0].n = cfg.n_targets;
    if (getenv("FAULTMON_OCF_TEST_URL") != NULL) {
        if (extra_test(&test_opts, &test_target, cfg.probe.timeout_ms, err, sizeof(err)) != 0) {
            return fail_usage("test", err);
        }
        sets[1].opts = &test_opts;
        sets[1].targets = &test_target;
        sets[1].n = 1;
        n_sets = 2;
    }
    for (size_t i = 0; i < n_sets; i++) {
        if (fm_probe_reserve_fds(sets[i].n, err, sizeof(err)) != 0
            || fm_probe_run_new(sets[i].targets, sets[i].n, sets[i].opts, &sets[i].run, err,
                                sizeof(err)) != 0) {
            return fail_usage("probe", err);
        }
        fm_probe_run_start(sets[i].run, fm_now_us());
    }
    for (;;) {
        struct pollfd pfd[2];
        int wait_ms = -1;
        size_t n_poll = 0;
        bool all_done = true;

        for (size_t i = 0; i < n_sets; i++) {
            if (!sets[i].done) {
                sets[i].done = fm_probe_run_dispatch(sets[i].run, fm_now_us());
            }
            if (!sets[i].done) {
                int w = fm_probe_run_wait_ms(sets[i].run, fm_now_us());

                all_done = false;
                pfd[n_poll].fd = fm_probe_run_fd(sets[i].run);
                pfd[n_poll].events = POLLIN;
                n_poll++;
                wait_ms = (wait_ms < 0 || w < wait_ms)? w : wait_ms;
            }
        }
        if (all_done) {
            break;
        }
        if (poll(pfd, n_poll, wait_ms) < 0 && errno != EINTR) {
            break;
        }
    }
    for (size_t i = 0; i < n_sets; i++) {
        report(&sets[i], &worst, line, sizeof(line));
        fm_probe_run_free(sets[i].run);
    }
    fm_escape_controls(line, sizeof(line));
    printf("%s\n", line);
    rc = (int) worst;
    if (n_sets == 2) {
        fm_target_clear(&test_target);
        fm_probe_opts_clear(&test_opts);
    }
    fm_run_config_clear(&cfg);
    fm_log_fini();
    return rc;
}
