/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon simulate: run a timeline of probe results through the decision
 * engine and show what it decides, so that an administrator can see what
 * Retry_count and Retry_interval will do before using them.
 *
 * Size: one concern, the simulate command: its options, the timeline's
 * parser and the table of decisions it prints.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <faultmon/commands.h>
#include <faultmon/decide.h>
#include <faultmon/json.h>
#include <faultmon/ocf_rc.h>
#include <faultmon/target.h>        /* fm_escape_controls */

#include "cmd_replay.h"

#define US_PER_S UINT64_C(1000000)
#define US_PER_MS UINT64_C(1000)
#define MAX_TIME_S UINT64_C(1000000000000)     /* 31 000 years: no overflow in µs */
#define MAX_LATENCY_MS UINT64_C(3600000)
#define MAX_CERT_DAYS INT64_C(100000)

enum {
    OPT_JSON = 'j',
    OPT_HELP = 'h',
    OPT_CLOCK_STEPS = 300,
};

enum sim_event {
    EV_OK = 0,
    EV_PARTIAL,
    EV_COMPLETE,
    EV_RESUME,
    EV_RESTART_FAILED,
};

static const char *const event_names[] = {
    [EV_OK] = "ok",
    [EV_PARTIAL] = "partial",
    [EV_COMPLETE] = "complete",
    [EV_RESUME] = "resume",
    [EV_RESTART_FAILED] = "restart-failed",
};

struct sim_line {
    uint64_t t_us;
    enum sim_event event;
    bool have_latency;
    uint64_t latency_us;
    bool have_cert;
    int64_t cert_days;
};

struct sim_cli {
    struct fm_decide_opts opts;
    bool json;
    bool clock_steps;
};

/* "Retry_count" -> "retry-count" */
static void
option_name(char *buf, size_t len, const char *param)
{
    size_t i = 0;

    for (; (param[i] != '\0') && (i + 1 < len); i++) {
        buf[i] = (param[i] == '_')? '-' : (char) tolower((unsigned char) param[i]);
    }
    buf[i] = '\0';
}

size_t
fm_sim_param_options(struct sim_options *so)
{
    size_t n = 0;
    const struct fm_decide_param *params = fm_decide_params(&n);
    size_t k = 0;

    for (size_t i = 0; (i < n) && (i < MAX_PARAM_OPTIONS); i++) {
        option_name(so->names[i], sizeof(so->names[i]), params[i].name);
        so->longopts[k].name = so->names[i];
        /* A boolean alone means true: --manual-resume. */
        so->longopts[k].has_arg = (strcmp(params[i].ocf_type, "boolean") == 0)?
                                  optional_argument : required_argument;
        so->longopts[k].flag = NULL;
        /* A value of its own, or getopt_long() would take an ambiguous
         * abbreviation such as --retry for the first parameter it matches. */
        so->longopts[k].val = OPT_PARAM + (int) i;
        k++;
    }
    so->longopts[k] = (struct option) { NULL, 0, NULL, 0 };
    return k;
}

static void
build_options(struct sim_options *so)
{
    size_t k = fm_sim_param_options(so);

    so->longopts[k++] = (struct option) { "json", no_argument, NULL, OPT_JSON };
    so->longopts[k++] = (struct option) { "clock-steps", no_argument, NULL, OPT_CLOCK_STEPS };
    so->longopts[k++] = (struct option) { "help", no_argument, NULL, OPT_HELP };
    so->longopts[k] = (struct option) { NULL, 0, NULL, 0 };
}

/* A parameter's help, indented by 8 and wrapped at 80 columns. */
static void
print_wrapped(FILE *out, const char *text)
{
    const size_t width = 80 - 8;

    while (*text != '\0') {
        size_t len = strlen(text);

        if (len > width) {
            len = width;
            while (len > 0 && text[len] != ' ') {
                len--;
            }
            if (len == 0) {
                len = strcspn(text, " ");
            }
        }
        fprintf(out, "        %.*s\n", (int) len, text);
        text += len;
        text += strspn(text, " ");
    }
}

static void
sim_usage(FILE *out)
{
    size_t n = 0;
    const struct fm_decide_param *params = fm_decide_params(&n);

    fprintf(out,
"Usage: faultmon simulate [OPTIONS] < TIMELINE\n"
"\n"
"Run a timeline of probe results through the decision engine and print, for\n"
"each line, the state and the action the engine takes (none, restart, failover,\n"
"degraded), the failure weight within Retry_interval and the restarts counted.\n"
"\n"
"TIMELINE lines:\n"
"  SECONDS RESULT [LATENCY_MS] [cert=DAYS]\n"
"    SECONDS     time of the probe cycle (e.g. 0, 60, 120.5); never earlier\n"
"                than the line before unless --clock-steps\n"
"    RESULT      ok, partial or complete (the class of the probe cycle), or\n"
"                resume (an administrator's 'faultmon resume') or\n"
"                restart-failed (the service did not come back)\n"
"    LATENCY_MS  the cycle's latency, for adaptive response time ('-': none)\n"
"    cert=DAYS   days until the peer certificate expires (negative: expired)\n"
"  Blank lines and text after '#' are ignored.\n"
"\n"
"Options (the parameters of the agents and of 'faultmon run'):\n");
    for (size_t i = 0; i < n; i++) {
        char name[48];
        char left[64];
        bool is_bool = (strcmp(params[i].ocf_type, "boolean") == 0);

        option_name(name, sizeof(name), params[i].name);
        snprintf(left, sizeof(left), "--%s%s", name, is_bool? "[=BOOL]" : " VALUE");
        fprintf(out, "  %s  [%s]\n", left, params[i].default_text);
        print_wrapped(out, params[i].help);
    }
    fprintf(out,
"  Durations: 300, 300s, 5m, 500ms, 1h (plain numbers are seconds, except for\n"
"  --adaptive-limit-ms).\n"
"\n"
"  -j, --json             one JSON object per line\n"
"      --clock-steps      allow SECONDS to go backwards (a clock step)\n"
"  -h, --help             show this help and exit\n"
"\n"
"Exit status: 0 when every line was read, 64 on a usage error or a malformed\n"
"line (reported with its number).\n"
"\n"
"Replay: faultmon simulate --replay RESOURCE [--OPTION VALUE]...\n"
"                          [--param NAME=VALUE]... [--since D] [--json]\n"
"  Run the cycle history the loop of RESOURCE kept (7 to 14 days, in\n"
"  FAULTMON_STATE_DIR/RESOURCE/history and history.1) through the same monitor\n"
"  and decision engine again, with the loop's parameters (history.params)\n"
"  changed by each option above or --param, and print every outcome whose\n"
"  action differs from the one recorded (time, input, recorded action,\n"
"  replayed action, replayed state and reason), then one summary line.\n"
"  --since 7d, 24h, 30m: report only that last stretch (the earlier records\n"
"  still shape the engine's history).  Exit status 0; 64 usage; 65 a history\n"
"  file that is not trusted (one line says why); 66 no history.\n"
"\n"
"Example: Retry_count 2 and Retry_interval 300 s; three complete failures within\n"
"300 s restart twice and then fail over:\n"
"  printf '0 complete\\n60 complete\\n120 complete\\n' |\n"
"      faultmon simulate --retry-count 2 --retry-interval 300\n"
"What would last week have done with Retry_count 5 and fall 2?\n"
"  faultmon simulate --replay web --retry-count 5 --fall 2 --since 7d\n");
}

int
fm_simulate_usage_ok(void)
{
    sim_usage(stdout);
    return 0;
}

static int
parse_args(struct sim_cli *cli, int argc, char **argv)
{
    struct sim_options so;
    char err[512];
    int opt = 0;
    int longindex = 0;

    memset(&so, 0, sizeof(so));
    build_options(&so);
    fm_cli_fold_long_options(argc, argv, ":jh", so.longopts);
    opterr = 0;
    optind = 1;
    while (true) {
        longindex = -1;
        opt = getopt_long(argc, argv, ":jh", so.longopts, &longindex);
        if (opt == -1) {
            break;
        }
        if ((opt >= OPT_PARAM) && (opt < OPT_PARAM + MAX_PARAM_OPTIONS)) {
            const char *name = so.longopts[longindex].name;
            const char *value = (optarg != NULL)? optarg : "true";

            if (fm_decide_opts_set(&cli->opts, name, value, err, sizeof(err)) != 0) {
                return fm_cli_error("simulate", "%s", err);
            }
            continue;
        }
        switch (opt) {
            case OPT_JSON:
                cli->json = true;
                break;
            case OPT_CLOCK_STEPS:
                cli->clock_steps = true;
                break;
            case OPT_HELP:
                sim_usage(stdout);
                return -1;
            default:
                return fm_cli_getopt_error("simulate", opt, argv, so.longopts);
        }
    }
    if (optind < argc) {
        return fm_cli_error("simulate", "unexpected argument '%s': the timeline is read from stdin "
                         "(see faultmon simulate --help)", argv[optind]);
    }
    if (fm_decide_opts_validate(&cli->opts, err, sizeof(err), NULL, 0) != 0) {
        return fm_cli_error("simulate", "%s", err);
    }
    return 0;
}

/*
 * A non-negative decimal with at most \p digits decimals, scaled by
 * 10^digits ("1.5" with 6 digits is 1500000).
 */
static bool
parse_fixed(const char *text, unsigned digits, uint64_t max_whole, uint64_t *out)
{
    uint64_t whole = 0;
    uint64_t frac = 0;
    unsigned n_frac = 0;
    const char *p = text;

    if (!isdigit((unsigned char) *p)) {
        return false;
    }
    for (; isdigit((unsigned char) *p); p++) {
        whole = whole * 10 + (uint64_t) (*p - '0');
        if (whole > max_whole) {
            return false;
        }
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char) *p)) {
            return false;
        }
        for (; isdigit((unsigned char) *p); p++) {
            if (n_frac == digits) {
                return false;
            }
            frac = frac * 10 + (uint64_t) (*p - '0');
            n_frac++;
        }
    }
    if (*p != '\0') {
        return false;
    }
    for (; n_frac < digits; n_frac++) {
        frac *= 10;
    }
    for (unsigned i = 0; i < digits; i++) {
        whole *= 10;
    }
    *out = whole + frac;
    return true;
}

static bool
parse_days(const char *text, int64_t *out)
{
    bool negative = (*text == '-');
    uint64_t v = 0;

    if (negative) {
        text++;
    }
    if (!parse_fixed(text, 0, (uint64_t) MAX_CERT_DAYS, &v)) {
        return false;
    }
    *out = negative? -(int64_t) v : (int64_t) v;
    return true;
}

/* "120", "120.5", "0.000001": a fixed-point value without trailing zeros. */
static const char *
fmt_fixed(char *buf, size_t len, uint64_t v, uint64_t scale, unsigned digits)
{
    uint64_t frac = v % scale;

    if (frac == 0) {
        snprintf(buf, len, "%" PRIu64, v / scale);
    } else {
        size_t end = 0;

        snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, v / scale, (int) digits, frac);
        end = strlen(buf);
        while ((end > 0) && (buf[end - 1] == '0')) {
            buf[--end] = '\0';
        }
    }
    return buf;
}

/*
 * Parse one line (comment already cut, not blank).
 * \return NULL, or what is wrong with it
 */
static const char *
parse_line(char *text, struct sim_line *line, char *why, size_t why_len)
{
    char *save = NULL;
    char *tok[6];
    size_t n = 0;
    bool have_event = false;

    memset(line, 0, sizeof(*line));
    for (char *t = strtok_r(text, " \t", &save); t != NULL; t = strtok_r(NULL, " \t", &save)) {
        if (n == sizeof(tok) / sizeof(tok[0])) {
            return "too many fields";
        }
        tok[n++] = t;
    }
    if (n < 2) {
        return "expected SECONDS RESULT [LATENCY_MS] [cert=DAYS]";
    }
    if (!parse_fixed(tok[0], 6, MAX_TIME_S, &line->t_us)) {
        snprintf(why, why_len, "time '%s' is not a number of seconds (up to 6 decimals)",
                 tok[0]);
        return why;
    }
    for (size_t i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++) {
        if (strcmp(tok[1], event_names[i]) == 0) {
            line->event = (enum sim_event) i;
            have_event = true;
            break;
        }
    }
    if (!have_event) {
        snprintf(why, why_len,
                 "result '%s' is not ok, partial, complete, resume or restart-failed",
                 tok[1]);
        return why;
    }
    for (size_t i = 2; i < n; i++) {
        bool is_probe = (line->event <= EV_COMPLETE);

        if (!is_probe) {
            snprintf(why, why_len, "'%s' takes no more fields", tok[1]);
            return why;
        }
        if (strncmp(tok[i], "cert=", 5) == 0) {
            if (line->have_cert || !parse_days(tok[i] + 5, &line->cert_days)) {
                snprintf(why, why_len, "'%s' is not cert=DAYS (a whole number of days, once)",
                         tok[i]);
                return why;
            }
            line->have_cert = true;
        } else if ((i == 2) && (strcmp(tok[i], "-") == 0)) {
            line->have_latency = false;
        } else if ((i == 2) && parse_fixed(tok[i], 3, MAX_LATENCY_MS, &line->latency_us)) {
            line->have_latency = true;
        } else {
            snprintf(why, why_len,
                     "'%s' is not a latency in milliseconds (third field) nor cert=DAYS",
                     tok[i]);
            return why;
        }
    }
    return NULL;
}

static void
print_header(const struct fm_decide_opts *o)
{
    char a[32];
    char b[32];
    char c[32];

    printf("# Retry_count %" PRIu32 ", Retry_interval %s s, Thorough_probe_interval %s s, "
           "fall %" PRIu32 ", rise %" PRIu32,
           o->retry_count, fmt_fixed(a, sizeof(a), o->retry_interval_ms, 1000, 3),
           fmt_fixed(b, sizeof(b), o->interval_up_ms, 1000, 3), o->fall, o->rise);
    if (o->interval_down_ms != 0) {
        printf(", down_interval %s s", fmt_fixed(a, sizeof(a), o->interval_down_ms, 1000, 3));
    }
    if (o->interval_flapping_ms != 0) {
        printf(", flapping_interval %s s",
               fmt_fixed(a, sizeof(a), o->interval_flapping_ms, 1000, 3));
    }
    if (o->manual_resume) {
        printf(", manual_resume");
    }
    if (fm_decide_opts_adaptive(o)) {
        printf(", adaptive (limit %" PRIu64 " ms, %" PRIu32 " %%, window %s s, %" PRIu32
               " misses)", o->adaptive_limit_ms, o->adaptive_limit_pct,
               fmt_fixed(c, sizeof(c), o->adaptive_window_ms, 1000, 3), o->adaptive_misses);
    }
    if (o->cert_warn_days > 0) {
        printf(", cert_warn_days %" PRIu32, o->cert_warn_days);
    }
    if (!o->report_degraded) {
        printf(", report_degraded off");
    }
    printf("\n#%7s  %-14s  %8s  %-8s  %-8s  %6s  %8s  %6s  %s\n", "t", "result", "lat_ms",
           "state", "action", "weight", "restarts", "next_s", "reason");
}

static void
print_decision(const struct sim_cli *cli, const struct sim_line *line,
               const struct fm_decision *dec)
{
    char t[32];
    char lat[32];
    char next[32];

    fmt_fixed(t, sizeof(t), line->t_us, US_PER_S, 6);
    fmt_fixed(next, sizeof(next), dec->interval_ms, 1000, 3);
    if (line->have_latency) {
        fmt_fixed(lat, sizeof(lat), line->latency_us, US_PER_MS, 3);
    } else {
        snprintf(lat, sizeof(lat), "-");
    }
    if (cli->json) {
        printf("{\"t\":%s,\"result\":\"%s\",\"latency_ms\":%s,\"state\":\"%s\","
               "\"action\":\"%s\",\"ocf_rc\":%d,\"weight\":%" PRIu32
               ",\"restarts_in_window\":%" PRIu32 ",\"next_probe_s\":%s,\"reason\":",
               t, event_names[line->event], line->have_latency? lat : "null",
               fm_state_name(dec->state), fm_action_name(dec->action),
               (int) fm_ocf_rc_for_action(dec->action), dec->weight, dec->restarts_in_window, next);
        fm_json_string(stdout, dec->reason);
        fputs("}\n", stdout);
    } else {
        printf("%8s  %-14s  %8s  %-8s  %-8s  %6" PRIu32 "  %8" PRIu32 "  %6s  %s\n", t,
               event_names[line->event], lat, fm_state_name(dec->state),
               fm_action_name(dec->action), dec->weight, dec->restarts_in_window, next,
               dec->reason);
    }
}

static void
apply_line(struct fm_decide *engine, const struct sim_line *line, struct fm_decision *dec)
{
    struct fm_decide_input in = { .cls = FM_CLASS_OK };

    switch (line->event) {
        case EV_RESUME:
            (void) fm_decide_resume(engine, line->t_us, dec);
            return;
        case EV_RESTART_FAILED:
            fm_decide_restart_failed(engine, line->t_us, dec);
            return;
        case EV_OK:
            in.cls = FM_CLASS_OK;
            break;
        case EV_PARTIAL:
            in.cls = FM_CLASS_PARTIAL;
            break;
        case EV_COMPLETE:
            in.cls = FM_CLASS_COMPLETE;
            break;
    }
    in.have_latency = line->have_latency;
    in.latency_us = line->latency_us;
    in.have_cert = line->have_cert;
    in.cert_left_s = line->cert_days * 86400;
    fm_decide_cycle(engine, line->t_us, &in, dec);
}

static int
run_timeline(const struct sim_cli *cli, struct fm_decide *engine)
{
    char *buf = NULL;
    size_t cap = 0;
    ssize_t got = 0;
    unsigned long lineno = 0;
    bool have_prev = false;
    uint64_t prev_us = 0;
    unsigned long prev_lineno = 0;
    int rc = 0;

    while (rc == 0) {
        char original[256];
        char why[256];
        const char *problem = NULL;
        struct sim_line line;
        struct fm_decision dec;
        char *hash = NULL;
        char *p = NULL;

        got = getline(&buf, &cap, stdin);
        if (got < 0) {
            break;
        }
        p = buf;
        lineno++;
        buf[strcspn(buf, "\r\n")] = '\0';
        hash = strchr(buf, '#');
        if (hash != NULL) {
            *hash = '\0';
        }
        while (isspace((unsigned char) *p)) {
            p++;
        }
        if (*p == '\0') {
            continue;
        }
        snprintf(original, sizeof(original), "%s", p);
        problem = parse_line(p, &line, why, sizeof(why));
        if (problem != NULL) {
            rc = fm_cli_error("simulate", "line %lu: '%s': %s", lineno, original, problem);
            break;
        }
        if (have_prev && (line.t_us < prev_us) && !cli->clock_steps) {
            char a[32];
            char b[32];

            rc = fm_cli_error("simulate", "line %lu: '%s': time %s is earlier than %s on line %lu "
                           "(use --clock-steps to simulate a clock stepping back)",
                           lineno, original, fmt_fixed(a, sizeof(a), line.t_us, US_PER_S, 6),
                           fmt_fixed(b, sizeof(b), prev_us, US_PER_S, 6), prev_lineno);
            break;
        }
        have_prev = true;
        prev_us = line.t_us;
        prev_lineno = lineno;
        apply_line(engine, &line, &dec);
        print_decision(cli, &line, &dec);
    }
    if ((rc == 0) && ferror(stdin)) {
        rc = fm_cli_error("simulate", "cannot read the timeline: %s", strerror(errno));
    }
    free(buf);
    return rc;
}

int
fm_cmd_simulate(int argc, char **argv)
{
    struct sim_cli cli;
    struct fm_decide *engine = NULL;
    char warn[512];
    char err[512];
    int rc = 0;

    if (fm_replay_wanted(argc, argv)) {
        return fm_cmd_replay(argc, argv);
    }
    memset(&cli, 0, sizeof(cli));
    fm_decide_opts_init(&cli.opts);
    rc = parse_args(&cli, argc, argv);
    if (rc != 0) {
        return (rc < 0)? 0 : rc;
    }
    if (fm_decide_opts_validate(&cli.opts, err, sizeof(err), warn, sizeof(warn)) == 0
        && (warn[0] != '\0')) {
        fprintf(stderr, "faultmon simulate: warning: %s\n", warn);
    }
    rc = fm_decide_new(&cli.opts, &engine);
    if (rc != 0) {
        return fm_cli_error("simulate", "cannot create the decision engine: %s", strerror(rc));
    }
    if (!cli.json) {
        print_header(&cli.opts);
    }
    rc = run_timeline(&cli, engine);
    fm_decide_free(engine);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "faultmon simulate: cannot write the output: %s\n", strerror(errno));
        return EXIT_FAILURE;
    }
    return rc;
}
