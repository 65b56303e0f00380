/*
 * faultmon probe: probe targets once (or --count times) and print a verdict.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <faultmon/commands.h>
#include <faultmon/deadline.h>
#include <faultmon/json.h>
#include <faultmon/log.h>
#include <faultmon/probe.h>
#include <faultmon/text.h>

enum {
    OPT_REVERSE = 256,
    OPT_TLS_REQUEST,
    OPT_TLS_VERIFY,
    OPT_TLS_NO_VERIFY,
    OPT_TLS_CA_FILE,
    OPT_TLS_SNI,
    OPT_MAX_BYTES,
    OPT_RECEIVE_BYTES,
    OPT_TARGETS_FILE,
};

static const struct option probe_options[] = {
    { "timeout",        required_argument, NULL, 't' },
    { "uri",            required_argument, NULL, 'u' },
    { "expect-status",  required_argument, NULL, 'e' },
    { "receive",        required_argument, NULL, 'r' },
    { "reverse",        no_argument,       NULL, OPT_REVERSE },
    { "method",         required_argument, NULL, 'm' },
    { "header",         required_argument, NULL, 'H' },
    { "tls-request",    no_argument,       NULL, OPT_TLS_REQUEST },
    { "tls-verify",     no_argument,       NULL, OPT_TLS_VERIFY },
    { "tls-no-verify",  no_argument,       NULL, OPT_TLS_NO_VERIFY },
    { "tls-ca-file",    required_argument, NULL, OPT_TLS_CA_FILE },
    { "tls-sni",        required_argument, NULL, OPT_TLS_SNI },
    { "max-bytes",      required_argument, NULL, OPT_MAX_BYTES },
    { "receive-bytes",  required_argument, NULL, OPT_RECEIVE_BYTES },
    { "targets-file",   required_argument, NULL, OPT_TARGETS_FILE },
    { "count",          required_argument, NULL, 'c' },
    { "interval",       required_argument, NULL, 'i' },
    { "json",           no_argument,       NULL, 'j' },
    { "verbose",        no_argument,       NULL, 'v' },
    { "quiet",          no_argument,       NULL, 'q' },
    { "help",           no_argument,       NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void
probe_usage(FILE *out)
{
    fprintf(out,
"Usage: faultmon probe [OPTIONS] [TARGET...]\n"
"\n"
"Probe every TARGET and every --uri concurrently, under one deadline, and print\n"
"one line per probe and an overall verdict.  With neither, probe " FM_DEFAULT_TARGET ".\n"
"\n"
"Targets:\n"
"  http://HOST[:PORT][/PATH]   HTTP/1.0 HEAD (the Sun Cluster Port_list probe)\n"
"  https://HOST[:PORT][/PATH]  TLS handshake only; with --tls-request also the HEAD\n"
"  tcp://HOST:PORT             TCP connect\n"
"  tls://HOST:PORT             TLS handshake\n"
"  HOST is a name, an IPv4 address or a bracketed IPv6 address ([::1]).\n"
"\n"
"Options:\n"
"  -t, --timeout DURATION    deadline for the whole run (Probe_timeout) [5s];\n"
"                            DURATION is 500ms, 5s, 2m, or plain seconds\n"
"  -u, --uri URL             also GET this http(s) URL with HTTP/1.1\n"
"                            (a Monitor_Uri_List entry); repeatable\n"
"  -e, --expect-status LIST  statuses that pass, e.g. 200-399,401 or 2xx\n"
"                            [" FM_DEFAULT_EXPECT_GET " for --uri GETs, which ask for a\n"
"                            page; " FM_DEFAULT_EXPECT_HEAD " for target HEADs, which ask only\n"
"                            whether the server answers]\n"
"  -r, --receive REGEX       the reply must match this POSIX extended regex: the\n"
"                            first --receive-bytes of the body, or the headers\n"
"                            of a HEAD reply\n"
"      --reverse             a --receive match means failure\n"
"  -m, --method METHOD       HTTP method for every request [HEAD; GET for --uri]\n"
"  -H, --header 'NAME: VALUE'  extra request header; repeatable\n"
"      --tls-request         send the HTTP request over TLS to https targets too\n"
"      --tls-verify          verify server certificates (default: off, as the\n"
"                            probe checks the service, and a probe by address\n"
"                            never matches the certificate's name)\n"
"      --tls-no-verify       do not verify server certificates\n"
"      --tls-ca-file FILE    trust these CAs (implies --tls-verify)\n"
"      --tls-sni NAME        server name to send and to verify [the host]\n"
"      --max-bytes SIZE      stop reading a reply after SIZE bytes [64k]\n"
"      --receive-bytes SIZE  body bytes --receive looks at [4k]\n"
"      --targets-file FILE   read more targets from FILE, one per line\n"
"  -c, --count N             run N times [1]; exit with the worst verdict\n"
"  -i, --interval DURATION   time between the starts of runs [1s]\n"
"  -j, --json                print JSON (one object per run)\n"
"  -q, --quiet               print only the verdict line of each run\n"
"  -v, --verbose             log to stderr too (twice: debug)\n"
"  -h, --help                show this help and exit\n"
"\n"
"Classes (the Sun Cluster rules): a failure to resolve, connect, complete the\n"
"TLS handshake or send the request is a complete failure; a timeout or error\n"
"while reading the reply is a partial failure; an unexpected status or content\n"
"is a complete failure.  Interim 1xx replies are skipped to the final one; a\n"
"reply that cannot be read in only one way (a NUL or control character, obs-fold,\n"
"conflicting Content-Length...) is malformed, a partial failure.\n"
"\n"
"Exit status: 0 ok, 1 partial failure, 2 complete failure, 64 usage error.\n"
"\n"
"Examples:\n"
"  faultmon probe http://127.0.0.1/ https://127.0.0.1/\n"
"  faultmon probe --timeout 2s --uri http://www.example.com/health \\\n"
"      --receive 'status: *up' http://192.0.2.10:8080/\n"
"  faultmon probe --json tcp://[::1]:5432\n");
}

struct probe_cli {
    struct fm_probe_opts opts;
    struct fm_target *targets;
    size_t n_targets;
    size_t cap_targets;
    unsigned long count;
    uint64_t interval_ms;
    bool json;
    bool quiet;
    int verbose;
    bool verify_set;
    bool no_verify;
};

static int
add_target(struct probe_cli *cli, const char *text, bool is_uri)
{
    char err[512];

    if (cli->n_targets == cli->cap_targets) {
        size_t cap = (cli->cap_targets == 0)? 8 : cli->cap_targets * 2;
        struct fm_target *grown = realloc(cli->targets, cap * sizeof(*grown));

        if (grown == NULL) {
            return fm_cli_error("probe", "out of memory");
        }
        cli->targets = grown;
        cli->cap_targets = cap;
    }
    if (fm_target_parse(text, is_uri, &cli->targets[cli->n_targets], err, sizeof(err)) != 0) {
        return fm_cli_error("probe", "%s", err);
    }
    cli->n_targets++;
    return 0;
}

static int
read_targets_file(struct probe_cli *cli, const char *path)
{
    FILE *in = fopen(path, "r");
    char *line = NULL;
    size_t len = 0;
    int rc = 0;

    if (in == NULL) {
        return fm_cli_error("probe", "cannot read targets file '%s': %s", path, strerror(errno));
    }
    while (rc == 0 && getline(&line, &len, in) >= 0) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != '\0' && line[0] != '#') {
            rc = add_target(cli, line, false);
        }
    }
    free(line);
    fclose(in);
    return rc;
}

static int
bad_value(const char *option, const char *value, const char *expected)
{
    return fm_cli_error("probe", "invalid value '%s' for %s: expected %s", value, option, expected);
}

static int
parse_args(struct probe_cli *cli, int argc, char **argv)
{
    char err[512];
    struct fm_target scratch;
    int opt = 0;
    int rc = 0;

    fm_cli_fold_long_options(argc, argv, ":t:u:e:r:m:H:c:i:jqvh", probe_options);
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":t:u:e:r:m:H:c:i:jqvh", probe_options, NULL)) != -1) {
        const char *name = argv[optind - 1];

        switch (opt) {
            case 't':
                if (fm_parse_duration_ms(optarg, &cli->opts.timeout_ms) != 0 || cli->opts.timeout_ms == 0) {
                    return bad_value("--timeout", optarg, "a positive duration such as 5s or 500ms");
                }
                break;
            case 'u':
                /* Checked now, added after the positional targets so that
                 * output follows the order of the Sun probe: targets, then
                 * Monitor_Uri_List. */
                if (fm_target_parse(optarg, true, &scratch, err, sizeof(err)) != 0) {
                    return fm_cli_error("probe", "%s", err);
                }
                fm_target_clear(&scratch);
                break;
            case 'e':
                if (fm_probe_opts_set_expect(&cli->opts, optarg, err, sizeof(err)) != 0) {
                    return fm_cli_error("probe", "%s", err);
                }
                break;
            case 'r':
                if (fm_probe_opts_set_receive(&cli->opts, optarg, err, sizeof(err)) != 0) {
                    return fm_cli_error("probe", "%s", err);
                }
                break;
            case OPT_REVERSE:
                cli->opts.reverse = true;
                break;
            case 'm':
                if (fm_probe_opts_set_method(&cli->opts, optarg, err, sizeof(err)) != 0) {
                    return fm_cli_error("probe", "%s", err);
                }
                break;
            case 'H':
                if (fm_probe_opts_add_header(&cli->opts, optarg, err, sizeof(err)) != 0) {
                    return fm_cli_error("probe", "%s", err);
                }
                break;
            case OPT_TLS_REQUEST:
                cli->opts.tls_request = true;
                break;
            case OPT_TLS_VERIFY:
                cli->verify_set = true;
                break;
            case OPT_TLS_NO_VERIFY:
                cli->no_verify = true;
                break;
            case OPT_TLS_CA_FILE:
                free(cli->opts.ca_file);
                cli->opts.ca_file = strdup(optarg);
                cli->verify_set = true;
                break;
            case OPT_TLS_SNI:
                free(cli->opts.sni);
                cli->opts.sni = strdup(optarg);
                break;
            case OPT_MAX_BYTES:
                if (fm_parse_size_bytes(optarg, &cli->opts.max_reply_bytes) != 0
                    || cli->opts.max_reply_bytes < 64) {
                    return bad_value("--max-bytes", optarg, "a size of at least 64 bytes, such as 64k");
                }
                break;
            case OPT_RECEIVE_BYTES:
                if (fm_parse_size_bytes(optarg, &cli->opts.receive_window_bytes) != 0
                    || cli->opts.receive_window_bytes == 0) {
                    return bad_value("--receive-bytes", optarg, "a size such as 4k");
                }
                break;
            case OPT_TARGETS_FILE:
                rc = read_targets_file(cli, optarg);
                break;
            case 'c': {
                char *end = NULL;

                errno = 0;
                cli->count = strtoul(optarg, &end, 10);
                if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || errno != 0
                    || cli->count == 0 || cli->count > 100000000UL) {
                    return bad_value("--count", optarg, "a whole number from 1");
                }
                break;
            }
            case 'i':
                if (fm_parse_duration_ms(optarg, &cli->interval_ms) != 0 || cli->interval_ms == 0) {
                    return bad_value("--interval", optarg, "a positive duration such as 1s");
                }
                break;
            case 'j':
                cli->json = true;
                break;
            case 'q':
                cli->quiet = true;
                break;
            case 'v':
                cli->verbose++;
                break;
            case 'h':
                probe_usage(stdout);
                return -1;
            case ':':
                return fm_cli_error("probe", "option '%s' needs a value (see faultmon probe --help)", name);
            default:
                return fm_cli_error("probe", "unknown option '%s' (see faultmon probe --help)", name);
        }
        if (rc != 0) {
            return rc;
        }
    }
    for (int i = optind; i < argc; i++) {
        rc = add_target(cli, argv[i], false);
        if (rc != 0) {
            return rc;
        }
    }
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":t:u:e:r:m:H:c:i:jqvh", probe_options, NULL)) != -1) {
        if (opt == 'u') {
            rc = add_target(cli, optarg, true);
            if (rc != 0) {
                return rc;
            }
        }
    }
    if (cli->n_targets == 0) {
        rc = add_target(cli, FM_DEFAULT_TARGET, false);
        if (rc != 0) {
            return rc;
        }
    }
    if (cli->opts.reverse && !cli->opts.have_receive) {
        return fm_cli_error("probe", "--reverse needs --receive");
    }
    if (cli->no_verify && cli->opts.ca_file != NULL) {
        return fm_cli_error("probe", "--tls-no-verify and --tls-ca-file '%s' contradict each other",
                           cli->opts.ca_file);
    }
    cli->opts.tls_verify = cli->verify_set && !cli->no_verify;
    if (cli->opts.receive_window_bytes > cli->opts.max_reply_bytes) {
        cli->opts.receive_window_bytes = cli->opts.max_reply_bytes;
    }
    return 0;
}

/* Give the buffers of a TLS cycle's connections back to the system, so
 * that a repeated probe's memory does not keep the peak of the handshakes. */
static void
release_memory(struct fm_probe_run *run)
{
    if (fm_probe_run_take_released(run)) {
        malloc_trim(0);
    }
}

/* Between runs: TLS session tickets still arriving; the memory is given
 * back as soon as the last connection closes. */
static void
idle_until(struct fm_probe_run *run, uint64_t until_us)
{
    do {
        if (fm_probe_run_idle_until(run, until_us) != 0) {
            break;
        }
        release_memory(run);
    } while (fm_now_us() < until_us);
}

static void
print_text(const struct fm_probe_run *run, uint64_t elapsed_us, bool quiet)
{
    size_t n = 0;
    const struct fm_result *results = fm_probe_run_results(run, &n);
    size_t counts[3] = { 0, 0, 0 };
    size_t width = 6;

    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(results[i].target->text);

        if (len > width) {
            width = len;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const struct fm_result *r = &results[i];
        enum fm_class cls = fm_result_class(r);
        char reason[40];
        char detail[sizeof(r->detail) * 4];

        counts[cls]++;
        if (quiet) {
            continue;
        }
        snprintf(reason, sizeof(reason), "%s/%s", fm_layer_name(fm_reason_layer(r->reason)),
                 fm_reason_name(r->reason));
        /* A detail may quote a --receive regex: one line, like every message. */
        fm_text_format(detail, sizeof(detail), "%s", r->detail);
        printf("%-*s  %-11s  %-8s  %-24s  %9.3f ms  %s\n", (int) width, r->target->text,
               fm_probe_kind_name(r->target->kind), fm_class_name(cls), reason,
               (double) r->latency_us / 1000.0, detail);
    }
    printf("verdict: %s (%zu ok, %zu partial, %zu complete) in %.3f ms\n",
           fm_class_name(fm_probe_run_verdict(run)), counts[FM_CLASS_OK],
           counts[FM_CLASS_PARTIAL], counts[FM_CLASS_COMPLETE], (double) elapsed_us / 1000.0);
}

static void
print_json(const struct fm_probe_run *run, const struct fm_probe_opts *opts, uint64_t elapsed_us)
{
    size_t n = 0;
    const struct fm_result *results = fm_probe_run_results(run, &n);

    printf("{\"verdict\":\"%s\",\"timeout_ms\":%llu,\"elapsed_us\":%llu,\"targets\":[",
           fm_class_name(fm_probe_run_verdict(run)), (unsigned long long) opts->timeout_ms,
           (unsigned long long) elapsed_us);
    for (size_t i = 0; i < n; i++) {
        const struct fm_result *r = &results[i];

        printf("%s{\"target\":", (i > 0)? "," : "");
        fm_json_string(stdout, r->target->text);
        printf(",\"kind\":\"%s\",\"verdict\":\"%s\",\"layer\":\"%s\",\"reason\":\"%s\","
               "\"status\":%d,\"latency_us\":%llu,",
               fm_probe_kind_name(r->target->kind), fm_class_name(fm_result_class(r)),
               fm_layer_name(fm_reason_layer(r->reason)), fm_reason_name(r->reason),
               r->http_status, (unsigned long long) r->latency_us);
        if (r->cert_not_after != 0) {
            printf("\"cert_not_after\":%lld,", (long long) r->cert_not_after);
        }
        fputs("\"detail\":", stdout);
        {
            char detail[sizeof(r->detail) * 4];

            fm_text_format(detail, sizeof(detail), "%s", r->detail);
            fm_json_string(stdout, detail);
        }
        fputc('}', stdout);
    }
    fputs("]}\n", stdout);
}

int
fm_cmd_probe(int argc, char **argv)
{
    struct probe_cli cli;
    struct fm_probe_run *run = NULL;
    enum fm_class worst = FM_CLASS_OK;
    char err[512] = "";
    int rc = 0;

    memset(&cli, 0, sizeof(cli));
    fm_probe_opts_init(&cli.opts);
    cli.count = 1;
    cli.interval_ms = 1000;
    rc = parse_args(&cli, argc, argv);
    if (rc != 0) {
        rc = (rc < 0)? 0 : rc;
        goto done;
    }
    fm_log_init("faultmon", cli.verbose > 0, cli.verbose);
    rc = fm_probe_reserve_fds(cli.n_targets, err, sizeof(err));
    if (rc == 0) {
        rc = fm_probe_run_new(cli.targets, cli.n_targets, &cli.opts, &run, err, sizeof(err));
    }
    if (rc != 0) {
        rc = fm_cli_error("probe", "%s", (err[0] != '\0')? err : strerror(rc));
        goto done;
    }
    fm_probe_run_set_keep_sessions(run, cli.count > 1);
    for (unsigned long i = 0; i < cli.count; i++) {
        uint64_t start_us = fm_now_us();
        enum fm_class verdict = FM_CLASS_OK;

        rc = fm_probe_run_blocking(run);
        release_memory(run);
        if (rc != 0) {
            fprintf(stderr, "faultmon probe: event loop failed: %s\n", strerror(rc));
            rc = FM_CLASS_COMPLETE;
            goto done;
        }
        verdict = fm_probe_run_verdict(run);
        if (verdict > worst) {
            worst = verdict;
        }
        if (cli.json) {
            print_json(run, &cli.opts, fm_now_us() - start_us);
        } else {
            print_text(run, fm_now_us() - start_us, cli.quiet);
        }
        fflush(stdout);
        if (i + 1 < cli.count) {
            idle_until(run, start_us + cli.interval_ms * 1000u);
        }
    }
    rc = (int) worst;

done:
    fm_probe_run_free(run);
    for (size_t i = 0; i < cli.n_targets; i++) {
        fm_target_clear(&cli.targets[i]);
    }
    free(cli.targets);
    fm_probe_opts_clear(&cli.opts);
    return rc;
}
