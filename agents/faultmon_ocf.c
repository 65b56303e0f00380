/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the program behind ocf:faultmon:apache,
 * ocf:faultmon:nginx, ocf:faultmon:httpmon and ocf:faultmon:guard.  It is
 * installed once and
 * linked under each name;
 * the name it is called by says which agent it is ("faultmon-ocf AGENT
 * ACTION" works too, for tests).
 */
#include <config.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ocf_apache.h"
#include "ocf_common.h"
#include "ocf_guard.h"
#include "ocf_httpmon.h"
#include "ocf_metadata.h"
#include "ocf_nginx.h"

struct fm_ocf_agent {
    const char *name;
    const char *metadata;
    int (*run)(struct fm_ocf *ocf);
    const char *actions;
    uint64_t start_timeout_ms;      /* the meta-data's, for a caller that */
    uint64_t stop_timeout_ms;       /* does not pass CRM_meta_timeout */
};

static const struct fm_ocf_agent agents[] = {
    { "apache", fm_ocf_metadata_apache, fm_ocf_apache_main,
      "start stop status monitor validate-all meta-data usage", 40000, 60000 },
    { "nginx", fm_ocf_metadata_nginx, fm_ocf_nginx_main,
      "start stop status monitor reload validate-all meta-data usage", 40000, 60000 },
    { "httpmon", fm_ocf_metadata_httpmon, fm_ocf_httpmon_main,
      "start stop monitor validate-all meta-data usage", 20000, 20000 },
    { "guard", fm_ocf_metadata_guard, fm_ocf_guard_main,
      "start stop monitor validate-all reload meta-data usage", 20000, 20000 },
};

/* Without OCF_RESKEY_CRM_meta_timeout (ocf-tester, a shell), the action's
 * timeout of the meta-data; 20 s for the others. */
static uint64_t
default_timeout_ms(const struct fm_ocf_agent *agent, const char *action)
{
    if (strcmp(action, "start") == 0) {
        return agent->start_timeout_ms;
    }
    if (strcmp(action, "stop") == 0) {
        return agent->stop_timeout_ms;
    }
    return 20000;
}

static void
usage(FILE *out, const char *agent, const char *actions)
{
    fprintf(out,
            "Usage: %s ACTION\n"
            "\n"
            "The OCF resource agent ocf:faultmon:%s.  ACTION is one of:\n"
            "  %s\n"
            "Parameters come from OCF_RESKEY_* variables; 'meta-data' lists them, and\n"
            "'man 7 ocf_faultmon_%s' explains them.\n",
            agent, agent, actions, agent);
}

int
main(int argc, char **argv)
{
    const char *self = strrchr(argv[0], '/');
    const struct fm_ocf_agent *agent = NULL;
    const char *action = NULL;
    struct fm_ocf ocf;

    self = (self != NULL)? self + 1 : argv[0];
    for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]); i++) {
        if (strcmp(self, agents[i].name) == 0) {
            agent = &agents[i];
        }
    }
    if (agent == NULL && argc > 1) {
        /* faultmon-ocf AGENT ACTION */
        for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]); i++) {
            if (strcmp(argv[1], agents[i].name) == 0) {
                agent = &agents[i];
            }
        }
        argc--;
        argv++;
    }
    if (agent == NULL) {
        fprintf(stderr, "Usage: faultmon-ocf {apache|nginx|httpmon|guard} ACTION, or run as an agent name\n");
        return PCMK_OCF_UNIMPLEMENT_FEATURE;
    }
    if (argc < 2) {
        usage(stderr, agent->name, agent->actions);
        return PCMK_OCF_UNIMPLEMENT_FEATURE;
    }
    action = argv[1];
    if (strcmp(action, "meta-data") == 0) {
        fputs(agent->metadata, stdout);
        return (fflush(stdout) == 0)? PCMK_OCF_OK : PCMK_OCF_UNKNOWN_ERROR;
    }
    if (strcmp(action, "usage") == 0 || strcmp(action, "help") == 0) {
        usage(stdout, agent->name, agent->actions);
        return PCMK_OCF_OK;
    }
    /* A peer resetting a pipe must be an error code, not a signal. */
    signal(SIGPIPE, SIG_IGN);
    fm_ocf_init(&ocf, agent->name, action, default_timeout_ms(agent, action));
    fm_ocf_log_open(&ocf);
    {
        /* A stop must stop whatever the parameters say. */
        int rc = fm_ocf_unfold(agent->metadata);

        if (rc != PCMK_OCF_OK && strcmp(action, "stop") != 0) {
            return rc;
        }
        rc = agent->run(&ocf);

        if (rc == PCMK_OCF_UNIMPLEMENT_FEATURE) {
            usage(stderr, agent->name, agent->actions);
        }
        return rc;
    }
}
