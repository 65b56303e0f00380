/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: logging set-up.  libqb does the work; this file only decides the
 * targets the way Pacemaker's daemons and ocf_log do, so that faultmon's
 * lines land next to the cluster's own.
 */
#include <config.h>

#include <faultmon/log.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/text.h>

#define FM_PACEMAKER_LOG "/var/log/pacemaker/pacemaker.log"

struct fm_facility {
    const char *name;
    int value;
};

static const struct fm_facility fm_facilities[] = {
    { "daemon", LOG_DAEMON }, { "user", LOG_USER },
    { "local0", LOG_LOCAL0 }, { "local1", LOG_LOCAL1 },
    { "local2", LOG_LOCAL2 }, { "local3", LOG_LOCAL3 },
    { "local4", LOG_LOCAL4 }, { "local5", LOG_LOCAL5 },
    { "local6", LOG_LOCAL6 }, { "local7", LOG_LOCAL7 },
};

/* The least urgent priority any target takes: a message past it is not
 * worth formatting. */
static int fm_log_max_priority = LOG_DEBUG;

static const char *
first_env(const char *a, const char *b)
{
    const char *value = getenv(a);

    if (value == NULL || value[0] == '\0') {
        value = getenv(b);
    }
    return (value != NULL && value[0] != '\0')? value : NULL;
}

/* Returns -1 for "none". */
static int
syslog_facility(void)
{
    const char *name = first_env("PCMK_logfacility", "HA_LOGFACILITY");

    if (name == NULL) {
        return LOG_DAEMON;
    }
    if (strcasecmp(name, "none") == 0 || strcasecmp(name, "false") == 0) {
        return -1;
    }
    for (size_t i = 0; i < sizeof(fm_facilities) / sizeof(fm_facilities[0]); i++) {
        if (strcasecmp(name, fm_facilities[i].name) == 0) {
            return fm_facilities[i].value;
        }
    }
    return LOG_DAEMON;
}

static const char *
log_file_path(void)
{
    const char *path = first_env("PCMK_logfile", "HA_LOGFILE");

    if (path != NULL) {
        if (strcasecmp(path, "none") == 0 || strcasecmp(path, "/dev/null") == 0) {
            return NULL;
        }
        return path;
    }
    /* Without the cluster's environment (an administrator at a shell), only
     * join Pacemaker's log when it is already there. */
    if (access(FM_PACEMAKER_LOG, W_OK) == 0) {
        return FM_PACEMAKER_LOG;
    }
    return NULL;
}

/* Pacemaker's own switch for debug logs (PCMK_debug in
 * /etc/sysconfig/pacemaker, passed down to the agents and their loops):
 * "yes" or a list of daemon names, where faultmon's name counts. */
static bool
pcmk_debug_wanted(const char *ident)
{
    const char *v = getenv("PCMK_debug");
    size_t len = strlen(ident);

    if (v == NULL) {
        return false;
    }
    if (strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "on") == 0
        || strcmp(v, "1") == 0) {
        return true;
    }
    for (const char *p = v; *p != '\0'; p += strcspn(p, ", ")) {
        p += strspn(p, ", ");
        if (strncmp(p, ident, len) == 0 && (p[len] == '\0' || p[len] == ',' || p[len] == ' ')) {
            return true;
        }
    }
    return false;
}

void
fm_log_init(const char *ident, bool to_stderr, int verbosity)
{
    int facility = syslog_facility();
    const char *path = log_file_path();
    int stderr_level = (verbosity >= 2)? LOG_DEBUG : (verbosity == 1)? LOG_INFO : LOG_NOTICE;
    int level = pcmk_debug_wanted(ident)? LOG_DEBUG : stderr_level;

    fm_log_max_priority = (level > LOG_INFO)? level : LOG_INFO;
    qb_log_init(ident, (facility < 0)? LOG_DAEMON : facility, LOG_INFO);
    qb_log_format_set(QB_LOG_SYSLOG, "%b");
    if (facility < 0) {
        qb_log_ctl(QB_LOG_SYSLOG, QB_LOG_CONF_ENABLED, QB_FALSE);
    } else {
        qb_log_ctl(QB_LOG_SYSLOG, QB_LOG_CONF_ENABLED, QB_TRUE);
        qb_log_filter_ctl(QB_LOG_SYSLOG, QB_LOG_FILTER_ADD, QB_LOG_FILTER_FILE,
                          "*", (level > LOG_INFO)? level : LOG_INFO);
    }

    if (path != NULL) {
        int32_t target = qb_log_file_open(path);

        if (target >= 0) {
            /* The same shape as Pacemaker's detail log lines. */
            qb_log_format_set(target, "%t [%P] %H %N: %p: %b");
            qb_log_ctl(target, QB_LOG_CONF_ENABLED, QB_TRUE);
            qb_log_filter_ctl(target, QB_LOG_FILTER_ADD, QB_LOG_FILTER_FILE,
                              "*", (level > LOG_INFO)? level : LOG_INFO);
        }
    }

    if (to_stderr) {
        qb_log_format_set(QB_LOG_STDERR, "%N: %p: %b");
        qb_log_ctl(QB_LOG_STDERR, QB_LOG_CONF_ENABLED, QB_TRUE);
        qb_log_filter_ctl(QB_LOG_STDERR, QB_LOG_FILTER_ADD, QB_LOG_FILTER_FILE,
                          "*", stderr_level);
    }
}

void
fm_log_msg(int priority, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (priority > fm_log_max_priority) {
        return;
    }
    va_start(ap, fmt);
    fm_text_vformat(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* One call site per priority: libqb's filters work per call site. */
    switch (priority) {
        case LOG_EMERG:
        case LOG_ALERT:
        case LOG_CRIT:
        case LOG_ERR:
            qb_log(LOG_ERR, "%s", msg);
            break;
        case LOG_WARNING:
            qb_log(LOG_WARNING, "%s", msg);
            break;
        case LOG_NOTICE:
            qb_log(LOG_NOTICE, "%s", msg);
            break;
        case LOG_INFO:
            qb_log(LOG_INFO, "%s", msg);
            break;
        default:
            qb_log(LOG_DEBUG, "%s", msg);
            break;
    }
}

void
fm_log_fini(void)
{
    qb_log_fini();
}
