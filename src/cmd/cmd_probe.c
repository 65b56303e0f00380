/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon probe: probe targets once (or --count times) and print a verdict.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <faultmon/commands.h>
#include <faultmon/deadline.h>
#include <faultmon/json.h>
#include <faultmon/log.h>
#include <faultmon/parse.h>
#include <faultmon/probe.h>
#include <faultmon/probe_opts.h>
#include <faultmon/probe_params.h>
#include <faultmon/runconf.h>
#include <faultmon/target_exec.h>
#include <faultmon/text.h>

#include "cmd_probe_out.h"

/* The options of the probe parameters come from their table
 * (probe_params.h); these are the command's own. */
enum {
    OPT_TLS_NO_VERIFY = 256,
    OPT_TARGETS_FILE,
    OPT_LIST_PARAMS,
    OPT_PARAM_FIRST,    /* a table row without a short option: this + its index */
};

#define PROBE_SHORT_OPTIONS ":t:u:e:r:m:H:c:i:jqvh"
#define PROBE_MAX_COUNT 100000000u
#define PROBE_MAX_LONG_OPTIONS 48

static const struct option command_options[] = {
    { "tls-no-verify",  no_argument,       NULL, OPT_TLS_NO_VERIFY },
    { "targets-file",   required_argument, NULL, OPT_TARGETS_FILE },
    { "count",          required_argument, NULL, 'c' },
    { "interval",       required_argument, NULL, 'i' },
    { "json",           no_argument,       NULL, 'j' },
    { "verbose",        no_argument,       NULL, 'v' },
    { "quiet",          no_argument,       NULL, 'q' },
    { "help",           no_argument,       NULL, 'h' },
    /* Not in --help: the table as metadata/check-metadata.sh reads it. */
    { "list-params",    no_argument,       NULL, OPT_LIST_PARAMS },
};

/* The targets part of the usage: one line or two per scheme. */
static void
probe_usage_targets(FILE *out)
{
    fputs(
"Targets:\n"
"  http://HOST[:PORT][/PATH]   HTTP/1.0 HEAD (the Sun Cluster Port_list probe)\n"
"  https://HOST[:PORT][/PATH]  TLS handshake only; with --tls-request also\n"
"                              the HEAD\n"
"  tcp://HOST:PORT             TCP connect; with --send/--expect, send and read\n"
"  tls://HOST:PORT             TLS handshake\n"
"  udp://HOST:PORT             a datagram (--send), one back (--expect)\n"
"  redis://[[USER]:PASSWORD@]HOST[:PORT]   (AUTH,) PING: +PONG\n"
"  smtp://, smtps://           banner, EHLO, QUIT: 2xx\n"
"  pop3://, pop3s://           greeting, CAPA, QUIT: +OK\n"
"  imap://, imaps://           greeting, CAPABILITY, LOGOUT: * OK\n"
"  ftp://HOST[:PORT]           greeting, QUIT: 220\n"
"  postgres://[USER@]HOST[:PORT][/DB][?sslmode=require]\n"
"                              startup message (as USER, default postgres): an\n"
"                              authentication request or ready-for-query\n"
"  mysql://HOST[:PORT]         MySQL/MariaDB server greeting (protocol 10)\n"
"  ldap://HOST[:PORT][?starttls], ldaps://HOST[:PORT]\n"
"                              anonymous bind (?rootdse: a root DSE search):\n"
"                              resultCode 0\n"
"  dns://SERVER[:PORT]/NAME[?type=A|AAAA|MX|...][&rcode=..][&answer=REGEX]\n"
"                              a query: NOERROR with an answer of the type\n"
"  icmp://HOST                 ICMP echo request: its echo reply\n"
"  h2://HOST[:PORT][/PATH], h2c://HOST[:PORT][/PATH]\n"
"                              HTTP/2 GET over TLS (ALPN h2) or in clear (prior\n"
"                              knowledge), judged as an http:// --uri GET\n"
"  grpc://HOST:PORT[/SERVICE], grpcs://HOST:PORT[/SERVICE]\n"
"                              grpc.health.v1.Health/Check: SERVING\n"
"  --exec 'PROGRAM ARG...'     run PROGRAM (never a shell): exit 0 ok, 1 partial,\n"
"                              2 (or another status, or a signal) complete\n"
"  HOST is a name, an IPv4 address or a bracketed IPv6 address ([::1]).\n"
"  Every target but http(s) and h2(c) takes ?family=inet|inet6 (that family\n"
"  only); smtp, pop3, imap, ftp and ldap take ?starttls (TLS begun in the\n"
"  conversation).\n"
"  A refusing reply (5xx banner, -ERR, * BYE, -LOADING, an error packet,\n"
"  an SQLSTATE, an rcode, a resultCode) is a complete failure.\n", out);
}

static void probe_usage_rules(FILE *out);

static void
probe_usage(FILE *out)
{
    fprintf(out,
"Usage: faultmon probe [OPTIONS] [TARGET...]\n"
"\n"
"Probe every TARGET, every --uri and every --exec concurrently, under one\n"
"deadline, and print one line per probe and an overall verdict.  With none,\n"
"probe " FM_DEFAULT_TARGET ".\n"
"\n");
    probe_usage_targets(out);
    fprintf(out,
"\n"
"Options:\n"
"  -t, --timeout DURATION    deadline for the whole run (Probe_timeout) [5s];\n"
"                            DURATION is 500ms, 5s, 2m, or plain seconds,\n"
"                            from 100ms to 1h (as the parameter)\n"
"  -u, --uri URL             also GET this http(s) URL with HTTP/1.1\n"
"                            (a Monitor_Uri_List entry); repeatable\n"
"      --exec 'PROGRAM ARG...'  also run this program as a probe (a\n"
"                            Probe_command line); repeatable.  Split into words\n"
"                            as a shell would, never expanded; PROGRAM is a path\n"
"                            or a name in one of the directories\n"
"    " FM_EXEC_SEARCH_PATH ";\n"
"                            stdin is /dev/null, the environment only PATH,\n"
"                            LC_ALL=C and FAULTMON_TIMEOUT_MS; the first line of\n"
"                            its output is the detail; killed (its process\n"
"                            group) at the deadline\n"
"  -e, --expect-status LIST  statuses that pass, e.g. 200-399,401 or 2xx\n"
"                            [" FM_DEFAULT_EXPECT_GET " for --uri GETs, which ask for a\n"
"                            page; " FM_DEFAULT_EXPECT_HEAD " for target HEADs, which ask only\n"
"                            whether the server answers]\n"
"  -r, --receive REGEX       the reply must match this POSIX extended regex: the\n"
"                            first --receive-bytes of the body, or the headers\n"
"                            of a HEAD reply\n"
"      --reverse             a --receive match means failure\n"
"      --maintenance-status LIST  statuses by which the service asks to be\n"
"                            drained (404): verdict maintenance, no failure\n"
"      --maintenance-header NAME  a reply header that asks the same\n"
"                            (x-envoy-degraded)\n"
"      --maintenance-regex REGEX  a reply that matches asks the same\n"
"      --send BYTES          what tcp:// and udp:// targets send (C escapes\n"
"                            such as \\r\\n, and \\xHH)\n"
"      --expect REGEX        the tcp:// or udp:// reply must match it; with\n"
"                            --send, the answer to the send (a banner in the\n"
"                            first 100 ms is read past, never matched)\n"
"  -m, --method METHOD       HTTP method for every request [HEAD; GET for --uri]\n"
"  -H, --header 'NAME: VALUE'  extra request header; repeatable\n"
"      --tls-request         send the HTTP request over TLS to https targets too\n"
"      --tls-verify          verify server certificates (default: off, as the\n"
"                            probe checks the service, and a probe by address\n"
"                            never matches the certificate's name)\n"
"      --tls-no-verify       do not verify server certificates\n"
"      --tls-ca-file FILE    trust these CAs (implies --tls-verify)\n"
"      --tls-sni NAME        server name to send and to verify [the host]\n"
"      --tls-cert FILE       client certificate (PEM) for mutual TLS\n"
"      --tls-key FILE        its private key (PEM, unencrypted) [in --tls-cert]\n"
"      --tls-min-version V   oldest TLS version to accept: 1.2 or 1.3 [1.2]\n"
"      --tls-alpn LIST       ALPN protocols to offer (h2,http/1.1); a server\n"
"                            may ignore the offer (RFC 7301)\n"
"      --tls-alpn-require LIST  ALPN protocols (offered too) of which the\n"
"                            server must select one, else a TLS failure\n"
"      --max-bytes SIZE      stop reading a reply after SIZE bytes [64k]\n"
"      --receive-bytes SIZE  body bytes --receive looks at [4k]\n"
"      --spread              start the targets spread over --interval (with\n"
"                            a little jitter per node), not all at once\n"
"      --targets-file FILE   read more targets from FILE, one per line\n"
"  -c, --count N             run N times [1]; exit with the worst verdict; then\n"
"                            a summary (also on Ctrl-C): cycles sent, ok,\n"
"                            partial, complete, min/avg/max time\n"
"  -i, --interval DURATION   time between the starts of runs [1s]\n"
"  -j, --json                print JSON: one object per run (its UTC time,\n"
"                            counts, each target's time; null for no status\n"
"                            or certificate), then the summary's object\n"
"  -q, --quiet               print only the verdict line of each run\n"
"      --list-params         list the parameters (name, default, help)\n"
"  -v, --verbose             log to stderr too (twice: debug)\n"
"  -h, --help                show this help and exit\n");
    probe_usage_rules(out);
}

/* The classes, the exit status and examples: the end of the usage. */
static void
probe_usage_rules(FILE *out)
{
    fputs(
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
"  faultmon probe 'smtp://127.0.0.1?starttls' 'redis://:PASSWORD@127.0.0.1'\n"
"  faultmon probe --send 'PING\\r\\n' --expect '^\\+PONG' tcp://127.0.0.1:6379\n"
"  faultmon probe --timeout 2s --uri http://www.example.com/health \\\n"
"      --receive 'status: *up' http://192.0.2.10:8080/\n"
"  faultmon probe --json tcp://[::1]:5432\n"
"  faultmon probe --exec '/usr/lib/nagios/plugins/check_pgsql -H 127.0.0.1'\n", out);
}

struct probe_cli {
    struct fm_run_config cfg;       /* the probe parameters and the targets */
    struct option longopts[PROBE_MAX_LONG_OPTIONS];
    uint64_t count;
    uint64_t interval_ms;
    bool json;
    bool quiet;
    int verbose;
};

static int
add_target(struct probe_cli *cli, const char *text, bool is_uri)
{
    char err[512];

    if (fm_run_config_add_target(&cli->cfg, text, is_uri, err, sizeof(err)) != 0) {
        return fm_cli_error("probe", "%s", err);
    }
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

/* getopt_long()'s table: the parameters' options, then the command's own.
 * \return 0, or ENOSPC when longopts is too short for the table */
static int
build_long_options(struct probe_cli *cli)
{
    size_t n_params = 0;
    const struct fm_probe_param *params = fm_probe_params(&n_params);
    const size_t n_command = sizeof(command_options) / sizeof(command_options[0]);
    size_t n = 0;

    if (n_params + n_command >= PROBE_MAX_LONG_OPTIONS) {
        return ENOSPC;
    }
    for (size_t i = 0; i < n_params; i++) {
        if (params[i].option != NULL) {
            cli->longopts[n].name = params[i].option;
            cli->longopts[n].has_arg = params[i].option_takes_value? required_argument : no_argument;
            cli->longopts[n].val = (params[i].short_option != 0)? params[i].short_option
                                                                : OPT_PARAM_FIRST + (int) i;
            n++;
        }
    }
    for (size_t i = 0; i < n_command; i++) {
        cli->longopts[n++] = command_options[i];
    }
    memset(&cli->longopts[n], 0, sizeof(cli->longopts[n]));
    return 0;
}

/* The parameter an option of getopt_long() stands for, or NULL. */
static const struct fm_probe_param *
option_param(int opt)
{
    size_t n_params = 0;
    const struct fm_probe_param *params = fm_probe_params(&n_params);

    for (size_t i = 0; i < n_params; i++) {
        if (params[i].option != NULL
            && (opt == params[i].short_option || opt == OPT_PARAM_FIRST + (int) i)) {
            return &params[i];
        }
    }
    return NULL;
}

/* One parameter's option, checked by its row.  A --uri is only checked
 * here: add_targets then adds it after the positional targets, so that
 * output follows the order of the Sun probe (targets, then
 * Monitor_Uri_List). */
static int
set_param_option(struct probe_cli *cli, const struct fm_probe_param *param,
                 const char *value, bool add_targets)
{
    char why[512] = "";
    int rc = 0;

    if (param->type == FM_PARAM_TARGETS && !add_targets) {
        struct fm_target scratch;
        bool is_exec = (strcmp(param->name, "Probe_command") == 0);

        if ((is_exec? fm_target_parse_exec(value, &scratch, why, sizeof(why))
                    : fm_target_parse(value, true, &scratch, why, sizeof(why))) != 0) {
            return fm_cli_error("probe", "%s", why);
        }
        fm_target_clear(&scratch);
        return 0;
    }
    rc = param->set(&cli->cfg, param, value, FM_PARAM_FROM_OPTION, why, sizeof(why));
    if (rc == 0) {
        return 0;
    }
    if (rc == ENOMEM) {
        return fm_cli_error("probe", "out of memory");
    }
    if (param->option_expected != NULL && !param->why_says_all) {
        return fm_cli_error("probe", "invalid value '%s' for --%s: expected %s", value,
                            param->option, param->option_expected);
    }
    return fm_cli_error("probe", "%s", why);
}

/* The table as "NAME<TAB>DEFAULT<TAB>HELP" lines. */
static void
list_params(void)
{
    size_t n_params = 0;
    const struct fm_probe_param *params = fm_probe_params(&n_params);

    for (size_t i = 0; i < n_params; i++) {
        printf("%s\t%s\t%s\n", params[i].name, params[i].default_text, params[i].help);
    }
}

/* One option of the command's own or of a parameter: 0, -1 to exit 0 now
 * (--help), or the usage error's exit code. */
static int
apply_option(struct probe_cli *cli, int opt, const char *name)
{
    const struct fm_probe_param *param = option_param(opt);

    if (param != NULL) {
        /* A flag (--reverse, --tls-verify) sets its parameter true. */
        return set_param_option(cli, param, param->option_takes_value? optarg : "true", false);
    }
    switch (opt) {
        case OPT_TLS_NO_VERIFY:
            return set_param_option(cli, fm_probe_param_find("tls_verify"), "false", false);
        case OPT_TARGETS_FILE:
            return read_targets_file(cli, optarg);
        case 'c':
            if (fm_parse_u64(optarg, 1, PROBE_MAX_COUNT, FM_PARSE_DEFAULT, &cli->count) != 0) {
                return bad_value("--count", optarg, "a whole number from 1");
            }
            return 0;
        case 'i':
            if (fm_parse_duration_ms(optarg, &cli->interval_ms) != 0 || cli->interval_ms == 0) {
                return bad_value("--interval", optarg, "a positive duration such as 1s");
            }
            return 0;
        case 'j':
            cli->json = true;
            return 0;
        case 'q':
            cli->quiet = true;
            return 0;
        case 'v':
            cli->verbose++;
            return 0;
        case 'h':
            probe_usage(stdout);
            return -1;
        case OPT_LIST_PARAMS:
            list_params();
            return -1;
        case ':':
            return fm_cli_error("probe", "option '%s' needs a value (see faultmon probe --help)", name);
        default:
            return fm_cli_error("probe", "unknown option '%s' (see faultmon probe --help)", name);
    }
}

/* The positional targets, then every --uri, then the default target when
 * there is none. */
static int
add_targets(struct probe_cli *cli, int argc, char **argv, int first_positional)
{
    int opt = 0;
    int rc = 0;

    for (int i = first_positional; i < argc && rc == 0; i++) {
        rc = add_target(cli, argv[i], false);
    }
    optind = 1;
    while (rc == 0 && (opt = getopt_long(argc, argv, PROBE_SHORT_OPTIONS, cli->longopts, NULL)) != -1) {
        const struct fm_probe_param *param = option_param(opt);

        if (param != NULL && param->type == FM_PARAM_TARGETS) {
            rc = set_param_option(cli, param, optarg, true);
        }
    }
    if (rc == 0 && cli->cfg.n_targets == 0) {
        rc = add_target(cli, FM_DEFAULT_TARGET, false);
    }
    return rc;
}

static int
parse_args(struct probe_cli *cli, int argc, char **argv)
{
    int opt = 0;
    int rc = 0;

    if (build_long_options(cli) != 0) {
        return fm_cli_error("probe", "more options than PROBE_MAX_LONG_OPTIONS");
    }
    fm_cli_fold_long_options(argc, argv, PROBE_SHORT_OPTIONS, cli->longopts);
    opterr = 0;
    optind = 1;
    while (rc == 0 && (opt = getopt_long(argc, argv, PROBE_SHORT_OPTIONS, cli->longopts, NULL)) != -1) {
        rc = (opt == ':' || opt == '?')? fm_cli_getopt_error("probe", opt, argv, cli->longopts)
                                       : apply_option(cli, opt, argv[optind - 1]);
    }
    if (rc == 0) {
        rc = add_targets(cli, argc, argv, optind);
    }
    if (rc != 0) {
        return rc;
    }
    switch (fm_probe_params_finish(&cli->cfg)) {
        case FM_PROBE_PARAMS_REVERSE_WITHOUT_REGEX:
            return fm_cli_error("probe", "--reverse needs --receive or --expect");
        case FM_PROBE_PARAMS_NO_VERIFY_WITH_CA:
            return fm_cli_error("probe", "--tls-no-verify and --tls-ca-file '%s' contradict each other",
                                cli->cfg.probe.ca_file);
        case FM_PROBE_PARAMS_KEY_WITHOUT_CERT:
            return fm_cli_error("probe", "--tls-key needs --tls-cert");
        case FM_PROBE_PARAMS_OK:
            break;
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

/* Ctrl-C ends a --count run after the cycle under way (bounded by
 * Probe_timeout), with the summary, as ping does. */
static volatile sig_atomic_t interrupted = 0;

static void
on_interrupt(int sig)
{
    (void) sig;
    interrupted = 1;
}

/* Between runs: TLS session tickets still arriving; the memory is given
 * back as soon as the last connection closes. */
static void
idle_until(struct fm_probe_run *run, uint64_t until_us)
{
    do {
        /* In slices, so that Ctrl-C ends the wait within 100 ms. */
        uint64_t slice_us = fm_now_us() + 100000u;

        if (fm_probe_run_idle_until(run, (slice_us < until_us)? slice_us : until_us) != 0) {
            break;
        }
        release_memory(run);
    } while (fm_now_us() < until_us && !interrupted);
}

static uint64_t
wall_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

int
fm_cmd_probe(int argc, char **argv)
{
    struct probe_cli cli;
    struct fm_probe_run *run = NULL;
    enum fm_class worst = FM_CLASS_OK;
    struct probe_tally tally;
    size_t width = 0;
    char err[512] = "";
    int rc = 0;

    memset(&cli, 0, sizeof(cli));
    memset(&tally, 0, sizeof(tally));
    fm_run_config_init(&cli.cfg);
    cli.count = 1;
    cli.interval_ms = 1000;
    rc = parse_args(&cli, argc, argv);
    if (rc != 0) {
        rc = (rc < 0)? 0 : rc;
        goto done;
    }
    fm_log_init("faultmon", cli.verbose > 0, cli.verbose);
    rc = fm_probe_reserve_fds(cli.cfg.n_targets, err, sizeof(err));
    if (rc == 0) {
        rc = fm_probe_run_new(cli.cfg.targets, cli.cfg.n_targets, &cli.cfg.probe, &run, err,
                              sizeof(err));
    }
    if (rc != 0) {
        rc = fm_cli_error("probe", "%s", (err[0] != '\0')? err : strerror(rc));
        goto done;
    }
    fm_probe_run_set_keep_sessions(run, cli.count > 1);
    fm_probe_run_set_interval(run, cli.interval_ms);
    width = fm_probe_out_width(cli.cfg.targets, cli.cfg.n_targets);
    if (!cli.json && !cli.quiet) {
        fm_probe_out_header(width);
    }
    {
        struct sigaction sa;

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_interrupt;
        sigaction(SIGINT, &sa, NULL);
    }
    for (uint64_t i = 0; i < cli.count && !interrupted; i++) {
        uint64_t start_us = fm_now_us();
        uint64_t start_wall_us = wall_us();
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
        fm_probe_out_count(&tally, verdict, fm_now_us() - start_us);
        if (cli.json) {
            fm_probe_out_json(run, &cli.cfg.probe, i + 1, start_wall_us, fm_now_us() - start_us);
        } else {
            fm_probe_out_text(run, width, fm_now_us() - start_us, cli.quiet);
        }
        fflush(stdout);
        if (i + 1 < cli.count) {
            idle_until(run, start_us + cli.interval_ms * 1000u);
        }
    }
    if (cli.count > 1 || interrupted) {
        fm_probe_out_summary(&tally, cli.json);
    }
    rc = (int) worst;

done:
    fm_probe_run_free(run);
    fm_run_config_clear(&cli.cfg);
    return rc;
}
