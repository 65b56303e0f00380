/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: a restart asked in place stays in place (run/stay.h),
 * through a location constraint that expires by itself, written with
 * cibadmin: argv, no shell, run by the loop as a child it never waits for
 * (src/run/request.c), under FM_RUN_STAY_TIMEOUT_MS.
 */
#include <config.h>

#include "stay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <faultmon/log.h>

int
fm_run_stay_xml(const char *rsc_id, const char *node, long long until_s, char *buf, size_t len)
{
    time_t t = (time_t) until_s;
    struct tm tm;
    char end[32];
    int n = 0;

    /* An id is an XML name; a node name could hold anything. */
    if (rsc_id[strcspn(rsc_id, "&<>\"': ")] != '\0' || node[strcspn(node, "&<>\"'")] != '\0'
        || gmtime_r(&t, &tm) == NULL) {
        return EINVAL;
    }
    strftime(end, sizeof(end), "%Y-%m-%dT%H:%M:%SZ", &tm);
    n = snprintf(buf, len,
                 "<rsc_location id=\"faultmon-stay-%s\" rsc=\"%s\">"
                 "<rule id=\"faultmon-stay-%s-rule\" score=\"INFINITY\" boolean-op=\"and\">"
                 "<expression id=\"faultmon-stay-%s-node\" attribute=\"#uname\" operation=\"eq\" value=\"%s\"/>"
                 "<date_expression id=\"faultmon-stay-%s-until\" operation=\"lt\" end=\"%s\"/>"
                 "</rule></rsc_location>", rsc_id, rsc_id, rsc_id, rsc_id, node, rsc_id, end);
    return (n > 0 && (size_t) n < len)? 0 : EINVAL;
}

static const char *
cibadmin_tool(char *buf, size_t len)
{
    const char *env = getenv("FAULTMON_CIBADMIN");
    const char *slash = strrchr(FM_ATTRD_UPDATER, '/');

    if (env != NULL && env[0] == '/') {
        return env;
    }
    snprintf(buf, len, "%.*s/cibadmin", (slash != NULL)? (int) (slash - FM_ATTRD_UPDATER) : 0,
             FM_ATTRD_UPDATER);
    return buf;
}

int
fm_run_stay_argv(const struct fm_pcmk_resource *rsc, struct fm_run_stay *call)
{
    char *argv[] = { (char *) cibadmin_tool(call->tool, sizeof(call->tool)), (char *) "--modify",
                     (char *) "--allow-create", (char *) "--scope", (char *) "constraints",
                     (char *) "--xml-text", call->xml, NULL };

    /* A clone's instance (web:0) is not a primitive to place. */
    if (rsc->rsc_id == NULL || rsc->node == NULL || strchr(rsc->rsc_id, ':') != NULL) {
        return ENOENT;
    }
    if (fm_run_stay_xml(rsc->rsc_id, rsc->node, (long long) time(NULL) + FM_RUN_STAY_S, call->xml,
                        sizeof(call->xml)) != 0) {
        fm_log_info("%s: node name %s cannot be written into a constraint: restart placed by the scheduler",
                    rsc->rsc_id, rsc->node);
        return EINVAL;
    }
    memcpy(call->argv, argv, sizeof(argv));
    return 0;
}

void
fm_run_stay_done(const struct fm_pcmk_resource *rsc, bool timed_out, int status, const char *out)
{
    if (timed_out) {
        fm_log_info("%s: cannot keep the restart on %s (cibadmin did not answer within %d ms): "
                    "placed by the scheduler", rsc->rsc_id, rsc->node, FM_RUN_STAY_TIMEOUT_MS);
    } else if (status != 0) {
        fm_log_info("%s: cannot keep the restart on %s (cibadmin status %d%s%.*s): placed by the scheduler",
                    rsc->rsc_id, rsc->node, status, (out[0] != '\0')? ": " : "", (int) strcspn(out, "\n"), out);
    }
}
