/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon migrate RESOURCE: switch an ocf:heartbeat:apache or
 * ocf:heartbeat:nginx primitive to faultmon's agent of the same name, the
 * README's steps in one command: check first (the CIB, the parameters,
 * faultmon's validate-all with the resource's own parameters and its policy
 * check), switch the provider, verify (a healthy start and first monitor
 * under faultmon, from crm_mon), and switch back by itself when that does
 * not happen within the bound.  Every program is run with an argument
 * vector and a deadline (faultmon/spawn.h), never a shell.
 */
#include <config.h>

#include "cmd_migrate.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/commands.h>
#include <faultmon/parse.h>
#include <faultmon/spawn.h>

#define MIGRATE_OUT_MAX (16 * 1024 * 1024)
#define MIGRATE_CMD_TIMEOUT_MS 10000
#define MIGRATE_AGENT_TIMEOUT_MS 30000
#define MIGRATE_DEFAULT_TIMEOUT_S 120
#define MIGRATE_POLL_MS 1000
#define MIGRATE_EXIT_REFUSED 1
#define MIGRATE_EXIT_ROLLED_BACK 2

struct migrate {
    const char *id;
    bool dry_run;
    uint64_t timeout_ms;
    char *buf;                      /* MIGRATE_OUT_MAX: the programs' output */
    struct fm_migrate_rsc rsc;
    struct fm_migrate_mon before;   /* crm_mon before the switch */
    bool set_sticky;                /* resource-stickiness=1 set by us */
    char why[1024];                 /* a refusal */
};

static void
migrate_usage(FILE *out)
{
    fprintf(out,
"Usage: faultmon migrate RESOURCE [--dry-run] [--timeout S]\n"
"\n"
"Switch RESOURCE, an ocf:heartbeat:apache or ocf:heartbeat:nginx primitive,\n"
"to ocf:faultmon:apache or ocf:faultmon:nginx.  It reads the CIB (cibadmin),\n"
"checks every parameter is one faultmon's agent takes and runs that agent's\n"
"validate-all with them (which refuses a migration-threshold, on the resource\n"
"or in rsc_defaults, that would move it before Retry_count restarts), says\n"
"what will change and what it costs (one restart in place), switches the\n"
"provider (cibadmin --modify), then waits for a start and a first monitor\n"
"under faultmon without a failure (crm_mon).  When that does not happen\n"
"within the timeout it switches back to heartbeat's agent by itself, cleans\n"
"up the failure, and says so.  It sets resource-stickiness=1 on RESOURCE when\n"
"neither it, its group nor rsc_defaults has a positive one (Pacemaker would\n"
"otherwise move it whenever a node rejoins).  Run it on a cluster node.\n"
"\n"
"Options:\n"
"  -n, --dry-run    check and say what would change; change nothing\n"
"  -t, --timeout S  how long to wait for the healthy start (default %d s)\n"
"\n"
"Exit status: 0 migrated (or, with --dry-run, it can be); 1 refused or\n"
"failed before the switch (nothing changed); 2 switched back to heartbeat's\n"
"agent; %d usage.\n", MIGRATE_DEFAULT_TIMEOUT_S, FM_EXIT_USAGE);
}

/* Run argv into m->buf; \return its exit status, or -1 */
static int
run(struct migrate *m, char *const argv[], char *const envp[], uint64_t timeout_ms, size_t *len)
{
    size_t size = 0;
    int status = (envp != NULL)? fm_spawn_run_env(argv, envp, timeout_ms, m->buf, MIGRATE_OUT_MAX, &size)
                               : fm_spawn_run(argv, timeout_ms, m->buf, MIGRATE_OUT_MAX, &size);

    *len = strlen(m->buf);
    return status;
}

/* The last non-empty line of m->buf, for a one-line report. */
static const char *
last_line(struct migrate *m)
{
    char *end = m->buf + strlen(m->buf);

    while (end > m->buf && (end[-1] == '\n' || end[-1] == ' ')) {
        *--end = '\0';
    }
    while (end > m->buf && end[-1] != '\n') {
        end--;
    }
    return end;
}

static int
read_cib(struct migrate *m)
{
    char path[512];
    char *argv[] = { (char *) fm_cli_pcmk_tool("cibadmin", "FAULTMON_CIBADMIN", path, sizeof(path)),
                     (char *) "--query", NULL };
    size_t len = 0;
    int status = run(m, argv, NULL, MIGRATE_CMD_TIMEOUT_MS, &len);
    char err[256] = "";
    int rc = 0;

    if (status != 0) {
        snprintf(m->why, sizeof(m->why), "cannot read the CIB: %s --query: status %d: %s", argv[0], status,
                 last_line(m));
        return EIO;
    }
    rc = fm_migrate_parse_cib(m->buf, len, m->id, &m->rsc, err, sizeof(err));
    if (rc == ENOENT) {
        snprintf(m->why, sizeof(m->why), "no primitive %s in the CIB", m->id);
    } else if (rc != 0) {
        snprintf(m->why, sizeof(m->why), "%s", err);
    }
    return rc;
}

static int
read_mon(struct migrate *m, struct fm_migrate_mon *mon)
{
    char path[512];
    char *argv[] = { (char *) fm_cli_pcmk_tool("crm_mon", "FAULTMON_CRM_MON", path, sizeof(path)),
                     (char *) "--one-shot", (char *) "--output-as=xml", (char *) "--include=all", NULL };
    size_t len = 0;
    int status = run(m, argv, NULL, MIGRATE_CMD_TIMEOUT_MS, &len);

    if (status != 0 || fm_migrate_parse_mon(m->buf, len, m->id, mon) != 0) {
        snprintf(m->why, sizeof(m->why), "crm_mon --output-as=xml: status %d: %s", status, last_line(m));
        return EIO;
    }
    return 0;
}

/* The agent's path, or "" with m->why. */
static void
agent_path(const struct migrate *m, char *buf, size_t len)
{
    const char *root = getenv("OCF_ROOT");

    if (root == NULL || root[0] != '/') {
        root = FM_OCF_ROOT;
    }
    snprintf(buf, len, "%s/resource.d/faultmon/%s", root, m->rsc.type);
}

/* What faultmon's agent would not take, into m->why. */
static int
check_kind(struct migrate *m)
{
    const struct fm_migrate_rsc *r = &m->rsc;
    bool web = strcmp(r->type, "apache") == 0 || strcmp(r->type, "nginx") == 0;

    if (strcmp(r->cls, "ocf") == 0 && strcmp(r->provider, "faultmon") == 0 && web) {
        return EALREADY;
    }
    if (strcmp(r->cls, "ocf") != 0 || strcmp(r->provider, "heartbeat") != 0 || !web) {
        snprintf(m->why, sizeof(m->why), "%s is %s:%s:%s: only ocf:heartbeat:apache and ocf:heartbeat:nginx "
                 "have a faultmon agent", r->id, r->cls, r->provider, r->type);
        return EINVAL;
    }
    if (strcmp(r->parent, "") != 0 && strcmp(r->parent, "group") != 0) {
        /* Every instance restarts at once: an outage, not one restart. */
        snprintf(m->why, sizeof(m->why), "%s is in %s %s: not supported (every instance would restart at "
                 "once); change the provider by hand, one node at a time (README)", r->id, r->parent,
                 r->parent_id);
        return EINVAL;
    }
    if (r->param_rule) {
        snprintf(m->why, sizeof(m->why), "%s has instance attributes under a rule: not supported (the "
                 "check could not know which apply); migrate by hand (README)", r->id);
        return EINVAL;
    }
    return 0;
}

/* Every parameter must be one faultmon's agent takes. */
static int
check_params(struct migrate *m)
{
    char agent[512];
    char *argv[] = { agent, (char *) "meta-data", NULL };
    char *names = NULL;
    size_t len = 0;
    int status = 0;

    agent_path(m, agent, sizeof(agent));
    if (access(agent, X_OK) != 0) {
        snprintf(m->why, sizeof(m->why), "%s is not installed on this node (install faultmon on every node "
                 "first)", agent);
        return ENOENT;
    }
    status = run(m, argv, NULL, MIGRATE_AGENT_TIMEOUT_MS, &len);
    names = calloc(1, 64 * 1024);
    if (names == NULL || status != 0 || fm_migrate_parse_meta(m->buf, len, names, 64 * 1024) <= 0) {
        snprintf(m->why, sizeof(m->why), "%s meta-data: status %d, no parameter list", agent, status);
        free(names);
        return EIO;
    }
    for (size_t i = 0; i < m->rsc.n_params; i++) {
        if (!fm_migrate_meta_has(names, m->rsc.param[i])) {
            snprintf(m->why, sizeof(m->why), "parameter %s=%s is not one ocf:faultmon:%s takes: remove it "
                     "first", m->rsc.param[i], m->rsc.value[i], m->rsc.type);
            free(names);
            return EINVAL;
        }
    }
    free(names);
    return 0;
}

/* faultmon's validate-all with the resource's parameters (and its policy
 * check, which reads migration-threshold from the CIB). */
static int
check_validate(struct migrate *m)
{
    char agent[512];
    char *argv[] = { agent, (char *) "validate-all", NULL };
    char *envp[FM_MIGRATE_PARAMS_MAX + 8];
    char fixed[6][FM_MIGRATE_TEXT_MAX + 32];
    char (*kv)[2 * FM_MIGRATE_TEXT_MAX + 16] = calloc(FM_MIGRATE_PARAMS_MAX, sizeof(*kv));
    const char *root = getenv("OCF_ROOT");
    size_t n = 0;
    size_t len = 0;
    int status = 0;

    if (kv == NULL) {
        return ENOMEM;
    }
    agent_path(m, agent, sizeof(agent));
    snprintf(fixed[0], sizeof(fixed[0]), "OCF_ROOT=%s", (root != NULL && root[0] == '/')? root : FM_OCF_ROOT);
    snprintf(fixed[1], sizeof(fixed[1]), "OCF_RESOURCE_INSTANCE=%s", m->id);
    snprintf(fixed[2], sizeof(fixed[2]), "OCF_RESOURCE_TYPE=%s", m->rsc.type);
    snprintf(fixed[3], sizeof(fixed[3]), "OCF_RESOURCE_PROVIDER=faultmon");
    snprintf(fixed[4], sizeof(fixed[4]), "PATH=/usr/sbin:/usr/bin:/sbin:/bin");
    snprintf(fixed[5], sizeof(fixed[5]), "LANG=C");
    for (size_t i = 0; i < 6; i++) {
        envp[n++] = fixed[i];
    }
    for (size_t i = 0; i < m->rsc.n_params; i++) {
        snprintf(kv[i], sizeof(kv[i]), "OCF_RESKEY_%s=%s", m->rsc.param[i], m->rsc.value[i]);
        envp[n++] = kv[i];
    }
    envp[n] = NULL;
    status = run(m, argv, envp, MIGRATE_AGENT_TIMEOUT_MS, &len);
    free(kv);
    if (status != 0) {
        snprintf(m->why, sizeof(m->why), "ocf:faultmon:%s validate-all with %s's parameters: exit %d: %s",
                 m->rsc.type, m->id, status, last_line(m));
        return EINVAL;
    }
    return 0;
}

/* cibadmin --modify: the provider to \p provider. */
static int
switch_provider(struct migrate *m, const char *provider)
{
    char path[512];
    char xml[FM_MIGRATE_TEXT_MAX + 64];
    char *argv[] = { (char *) fm_cli_pcmk_tool("cibadmin", "FAULTMON_CIBADMIN", path, sizeof(path)),
                     (char *) "--modify", (char *) "--xml-text", xml, NULL };
    size_t len = 0;
    int status = 0;

    /* An id is an XML NCName: nothing in it to escape. */
    snprintf(xml, sizeof(xml), "<primitive id=\"%s\" provider=\"%s\"/>", m->id, provider);
    status = run(m, argv, NULL, MIGRATE_CMD_TIMEOUT_MS, &len);
    if (status != 0) {
        snprintf(m->why, sizeof(m->why), "cibadmin --modify provider=\"%s\": status %d: %s", provider, status,
                 last_line(m));
        return EIO;
    }
    return 0;
}

static long
before_call(const struct fm_migrate_mon *b, const char *node)
{
    for (size_t i = 0; i < b->n_nodes; i++) {
        if (strcmp(b->hist_node[i], node) == 0) {
            return b->last_call[i];
        }
    }
    return -1;
}

/* 1: started and monitored under \p agent since the switch; -1: a new
 * failure (m->why says which); 0: not yet. */
static int
judge_progress(struct migrate *m, const struct fm_migrate_mon *now, const char *agent)
{
    for (size_t i = 0; i < now->n_nodes; i++) {
        long since = before_call(&m->before, now->hist_node[i]);

        if (now->failure_call[i] > since) {
            snprintf(m->why, sizeof(m->why), "a failure under %s: %s", agent, now->failure);
            return -1;
        }
    }
    if (!now->found || strcmp(now->agent, agent) != 0 || strcmp(now->role, "Started") != 0 || now->failed
        || now->node[0] == '\0') {
        return 0;
    }
    for (size_t i = 0; i < now->n_nodes; i++) {
        if (strcmp(now->hist_node[i], now->node) == 0) {
            long since = before_call(&m->before, now->node);

            return (now->start_call[i] > since && now->monitor_call[i] > now->start_call[i])? 1 : 0;
        }
    }
    return 0;
}

/* Wait for \p agent's healthy start; \return 0, or ETIMEDOUT / EIO with m->why. */
static int
wait_healthy(struct migrate *m, const char *agent, char *node, size_t node_len)
{
    uint64_t deadline_us = fm_now_us() + m->timeout_ms * 1000u;
    struct fm_migrate_mon *now = calloc(1, sizeof(*now));
    int got = 0;

    if (now == NULL) {
        return ENOMEM;
    }
    while (fm_now_us() < deadline_us) {
        if (read_mon(m, now) == 0) {
            got = judge_progress(m, now, agent);
            if (got != 0) {
                break;
            }
        }
        usleep(MIGRATE_POLL_MS * 1000u);
    }
    snprintf(node, node_len, "%s", now->node);
    free(now);
    if (got == 0) {
        snprintf(m->why, sizeof(m->why), "no healthy start and first monitor under %s within %llu s", agent,
                 (unsigned long long) (m->timeout_ms / 1000u));
        return ETIMEDOUT;
    }
    return (got > 0)? 0 : EIO;
}

/*
 * resource-stickiness=1 on the primitive (NULL: delete it).  A restart
 * faultmon asks for is a failed operation after which the scheduler places
 * the resource again: with stickiness 0 it may pick another node (one with
 * fewer resources), a restart becomes a move to a node with a fresh history,
 * and Retry_count is never reached.
 */
static int
set_stickiness(struct migrate *m, const char *value)
{
    char path[512];
    char *argv[] = { (char *) fm_cli_pcmk_tool("crm_resource", "FAULTMON_CRM_RESOURCE", path, sizeof(path)),
                     (char *) "--resource", (char *) m->id, (char *) "--meta",
                     (char *) ((value != NULL)? "--set-parameter" : "--delete-parameter"),
                     (char *) "resource-stickiness", (char *) "--parameter-value", (char *) value, NULL };
    size_t len = 0;

    if (value == NULL) {
        argv[6] = NULL;
    }
    if (run(m, argv, NULL, MIGRATE_CMD_TIMEOUT_MS, &len) != 0) {
        snprintf(m->why, sizeof(m->why), "crm_resource --meta resource-stickiness: %s", last_line(m));
        return EIO;
    }
    return 0;
}

/* Back to heartbeat's agent, its failures under faultmon cleaned up. */
static int
roll_back(struct migrate *m)
{
    char path[512];
    char agent[FM_MIGRATE_TEXT_MAX];
    char node[FM_MIGRATE_TEXT_MAX];
    char *argv[] = { (char *) fm_cli_pcmk_tool("crm_resource", "FAULTMON_CRM_RESOURCE", path, sizeof(path)),
                     (char *) "--cleanup", (char *) "--resource", (char *) m->id, NULL };
    char failed_why[sizeof(m->why)];
    size_t len = 0;

    snprintf(failed_why, sizeof(failed_why), "%s", m->why);
    fprintf(stderr, "faultmon migrate: %s: %s: switching back to ocf:heartbeat:%s\n", m->id, failed_why,
            m->rsc.type);
    if (switch_provider(m, "heartbeat") != 0) {
        fprintf(stderr, "faultmon migrate: %s: cannot switch back: %s (switch it by hand: cibadmin --modify "
                "--xml-text '<primitive id=\"%s\" provider=\"heartbeat\"/>')\n", m->id, m->why, m->id);
        return MIGRATE_EXIT_ROLLED_BACK;
    }
    if (run(m, argv, NULL, MIGRATE_CMD_TIMEOUT_MS, &len) != 0) {
        fprintf(stderr, "faultmon migrate: %s: crm_resource --cleanup: %s\n", m->id, last_line(m));
    }
    if (m->set_sticky && set_stickiness(m, NULL) != 0) {
        fprintf(stderr, "faultmon migrate: %s: %s\n", m->id, m->why);
    }
    snprintf(agent, sizeof(agent), "ocf:heartbeat:%s", m->rsc.type);
    if (read_mon(m, &m->before) != 0 || wait_healthy(m, agent, node, sizeof(node)) != 0) {
        fprintf(stderr, "faultmon migrate: %s: switched back to %s, not started again yet: %s\n", m->id, agent,
                m->why);
    } else {
        printf("%s: switched back to %s, started on %s: the migration did not take (%s)\n", m->id, agent, node,
               failed_why);
    }
    return MIGRATE_EXIT_ROLLED_BACK;
}

/* What will change, and what it costs. */
static void
say_plan(const struct migrate *m)
{
    const struct fm_migrate_rsc *r = &m->rsc;

    printf("%s: ocf:heartbeat:%s -> ocf:faultmon:%s; %zu parameter(s) kept as they are", r->id, r->type, r->type,
           r->n_params);
    for (size_t i = 0; i < r->n_params; i++) {
        printf("%s%s", (i == 0)? ": " : ", ", r->param[i]);
    }
    printf("\n%s: checked: every parameter is one faultmon takes; validate-all (policy included) passes\n", r->id);
    printf("%s: cost: one restart in place%s%s (stop under heartbeat's agent, start under faultmon's)%s%s%s\n",
           r->id, (m->before.node[0] != '\0')? " on " : "", m->before.node,
           (r->parent[0] != '\0')? "; the members of group " : "", r->parent_id,
           (r->parent[0] != '\0')? " after it restart too" : "");
    if (!fm_migrate_sticky(r->stickiness)) {
        printf("%s: resource-stickiness is %s: it will be set to 1 on %s, so that a restart faultmon asks "
               "for stays on its node (with 0 Pacemaker may place it elsewhere, and Retry_count is never "
               "reached)\n", r->id, (r->stickiness[0] != '\0')? r->stickiness : "unset (0)", r->id);
    }
}

static int
parse_args(int argc, char **argv, struct migrate *m)
{
    static const struct option opts[] = {
        { "dry-run", no_argument, NULL, 'n' },
        { "timeout", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c = 0;

    m->timeout_ms = MIGRATE_DEFAULT_TIMEOUT_S * 1000u;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":nt:h", opts, NULL)) != -1) {
        uint64_t ms = 0;

        if (c == 'n') {
            m->dry_run = true;
        } else if (c == 't' && fm_parse_duration_ms(optarg, &ms) == 0 && ms >= 1000 && ms <= 3600 * 1000) {
            m->timeout_ms = ms;
        } else if (c == 't') {
            return fm_cli_error("migrate", "--timeout %s: a duration from 1 s to 1 h", optarg);
        } else if (c == 'h') {
            migrate_usage(stdout);
            return 0;
        } else {
            return fm_cli_getopt_error("migrate", c, argv, opts);
        }
    }
    if (optind + 1 != argc) {
        migrate_usage(stderr);
        return FM_EXIT_USAGE;
    }
    m->id = argv[optind];
    return -1;
}

static int
migrate(struct migrate *m)
{
    char agent[FM_MIGRATE_TEXT_MAX];
    char node[FM_MIGRATE_TEXT_MAX];
    int rc = read_cib(m);

    if (rc == 0) {
        rc = check_kind(m);
    }
    if (rc == EALREADY) {
        printf("%s: already ocf:faultmon:%s: nothing to do\n", m->id, m->rsc.type);
        return 0;
    }
    if (rc == 0 && (rc = check_params(m)) == 0 && (rc = check_validate(m)) == 0) {
        rc = read_mon(m, &m->before);
    }
    if (rc != 0) {
        fprintf(stderr, "faultmon migrate: %s: refused: %s\n", m->id, m->why);
        return MIGRATE_EXIT_REFUSED;
    }
    say_plan(m);
    if (m->dry_run) {
        printf("%s: dry run: nothing changed\n", m->id);
        return 0;
    }
    if (!fm_migrate_sticky(m->rsc.stickiness)) {
        if (set_stickiness(m, "1") != 0) {
            fprintf(stderr, "faultmon migrate: %s: %s: nothing changed\n", m->id, m->why);
            return MIGRATE_EXIT_REFUSED;
        }
        m->set_sticky = true;
    }
    if (switch_provider(m, "faultmon") != 0) {
        fprintf(stderr, "faultmon migrate: %s: %s\n", m->id, m->why);
        if (m->set_sticky) {
            set_stickiness(m, NULL);
        }
        return MIGRATE_EXIT_REFUSED;
    }
    printf("%s: provider switched to faultmon; waiting up to %llu s for a healthy start and first monitor\n",
           m->id, (unsigned long long) (m->timeout_ms / 1000u));
    fflush(stdout);
    snprintf(agent, sizeof(agent), "ocf:faultmon:%s", m->rsc.type);
    if (wait_healthy(m, agent, node, sizeof(node)) != 0) {
        return roll_back(m);
    }
    printf("%s: migrated: %s started and monitored on %s\n", m->id, agent, node);
    return 0;
}

int
fm_cmd_migrate(int argc, char **argv)
{
    struct migrate m;
    int rc = 0;

    memset(&m, 0, sizeof(m));
    rc = parse_args(argc, argv, &m);
    if (rc != -1) {
        return rc;
    }
    m.buf = calloc(1, MIGRATE_OUT_MAX);
    if (m.buf == NULL) {
        return fm_cli_error("migrate", "out of memory");
    }
    rc = migrate(&m);
    free(m.buf);
    return rc;
}
