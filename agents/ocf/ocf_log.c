/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: logging and the exit reason.  Every message goes
 * through fm_text_format() (no URI secret, no control character, valid
 * UTF-8): Pacemaker keeps exit reasons in XML.
 */
#include <config.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>

#include <faultmon/text.h>

#include "ocf_common.h"

/* The invocation named in every line; set once by fm_ocf_log_open(). */
static const struct fm_ocf *log_ocf = NULL;

/* Pacemaker keeps the last exit reason: the first one is the cause. */
static bool reason_printed = false;

void
fm_ocf_log_open(const struct fm_ocf *ocf)
{
    log_ocf = ocf;
    openlog("faultmon-ocf", LOG_PID, LOG_DAEMON);
}

/* "AGENT(RESOURCE) ACTION", as clean as the message: the resource name and
 * the action come from outside too. */
static void
log_who(char *who, size_t who_len)
{
    fm_text_format(who, who_len, "%s(%s) %s", (log_ocf != NULL)? log_ocf->agent : "agent",
                   (log_ocf != NULL && log_ocf->resource != NULL)? log_ocf->resource : "-",
                   (log_ocf != NULL)? log_ocf->action : "-");
}

/* The file line, as ocf_log's: the tag names agent and resource, the
 * message leads with the action. */
static void
log_file(int priority, const char *msg)
{
    char text[1300];

    fm_text_format(text, sizeof(text), "%s: %s", (log_ocf != NULL)? log_ocf->action : "-", msg);
    fm_ocf_halog(priority, (log_ocf != NULL)? log_ocf->agent : "agent",
                 (log_ocf != NULL)? log_ocf->resource : NULL, text);
}

static void
log_text(int priority, const char *msg)
{
    char who[256];

    log_who(who, sizeof(who));
    syslog(priority, "%s: %s", who, msg);
    log_file(priority, msg);
    if (priority <= LOG_WARNING) {
        fprintf(stderr, "%s: %s: %s\n", (priority <= LOG_ERR)? "ERROR" : "WARNING", who, msg);
    }
}

void
fm_ocf_log(int priority, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    fm_text_vformat(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    log_text(priority, msg);
}

/* The exit reason's log line at the level of what it reports: not running
 * is information; a degraded service, a recovery under way or a hold is a
 * warning (nothing is broken that the cluster must repair); the rest an
 * error. */
static int
fail_priority(int rc)
{
    switch (rc) {
        case PCMK_OCF_NOT_RUNNING:
            return LOG_INFO;
        case PCMK_OCF_DEGRADED:
        case PCMK_OCF_DEGRADED_PROMOTED:
            return LOG_WARNING;
        default:
            return LOG_ERR;
    }
}

static int
vfail(int rc, int priority, const char *fmt, va_list ap)
{
    char msg[1024];
    char who[256];

    fm_text_vformat(msg, sizeof(msg), fmt, ap);
    if (!reason_printed) {
        /* The executor keeps the last such line as the exit reason. */
        fprintf(stderr, "ocf-exit-reason:%s\n", msg);
        reason_printed = true;
    }
    log_who(who, sizeof(who));
    syslog(priority, "%s: %s", who, msg);
    log_file(priority, msg);
    return rc;
}

int
fm_ocf_fail(int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rc = vfail(rc, fail_priority(rc), fmt, ap);
    va_end(ap);
    return rc;
}

int
fm_ocf_hold(int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rc = vfail(rc, LOG_WARNING, fmt, ap);
    va_end(ap);
    return rc;
}
