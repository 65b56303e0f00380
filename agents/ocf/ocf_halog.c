/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the agents' lines in Pacemaker's log file, as
 * resource-agents' ocf_log (ha_log and ha_debug in ocf-shellfuncs) appends
 * them, so that an administrator greps the C agents as the shell ones:
 *
 *   HA_LOGFILE:   `date "+$HA_DATEFMT"`"  TAG:    PRIO: message"
 *   HA_DEBUGLOG:  "TAG:<tab>"`date "+$HA_DATEFMT"`"PRIO: message"
 *
 * where TAG is HA_LOGTAG or "AGENT(RESOURCE)[PID]", PRIO ocf_log's word
 * (ERROR, WARNING, INFO, DEBUG...) and HA_DATEFMT "%b %d %T " by default;
 * the date is unquoted there, so the shell splits it into words and joins
 * them with one space each.  Debug lines go to HA_DEBUGLOG only, when
 * HA_debug is set and not 0; other lines to HA_LOGFILE (else PCMK_logfile
 * or HA_logfile, which Pacemaker sets) and to HA_DEBUGLOG when that is
 * another file.  As ha_log, nothing is written when stdin is a terminal (an
 * administrator running the agent by hand reads stderr).
 *
 * Unlike `>>`, a file is never created, and only a regular file (after
 * symlinks, as `>>` follows them) named by an absolute path is written: a
 * FIFO, a terminal or a device there is left alone.  A line that cannot be
 * written is dropped: logging never fails an action.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/text.h>

#include "ocf_common.h"

#define HALOG_DATEFMT "%b %d %T "

const char *
fm_ocf_halog_word(int priority)
{
    switch (priority) {
        case LOG_EMERG:   return "EMERG";
        case LOG_ALERT:   return "ALERT";
        case LOG_CRIT:    return "CRIT";
        case LOG_ERR:     return "ERROR";
        case LOG_WARNING: return "WARNING";
        case LOG_NOTICE:  return "NOTICE";
        case LOG_INFO:    return "INFO";
        default:          return "DEBUG";
    }
}

static bool
is_ifs(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* The date as the shell passes an unquoted `hadate` on: its words joined by
 * one space, and one more when it ended in a blank (the next quoted word is
 * a word of its own then, else it is glued to the last). */
static void
halog_date(char *buf, size_t buf_len, const struct tm *tm, const char *datefmt)
{
    char raw[128];
    size_t n = 0;
    size_t used = 0;
    bool words = false;

    /* HA_DATEFMT is the administrator's, as for ha_log's `date`; strftime()
     * reads no argument for any conversion, so a format of the environment
     * cannot make it read beyond \p tm. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    n = strftime(raw, sizeof(raw), datefmt, tm);
#pragma GCC diagnostic pop
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 2 < buf_len; i++) {
        if (is_ifs(raw[i])) {
            continue;
        }
        if (words && is_ifs(raw[i - 1])) {
            buf[used++] = ' ';
        }
        buf[used++] = raw[i];
        words = true;
    }
    if (words && n > 0 && is_ifs(raw[n - 1]) && used + 1 < buf_len) {
        buf[used++] = ' ';
    }
    buf[used] = '\0';
}

void
fm_ocf_halog_line(char *buf, size_t buf_len, const struct tm *tm, const char *datefmt, const char *tag,
                  int priority, const char *msg, bool debug_form)
{
    char date[160];

    halog_date(date, sizeof(date), tm, (datefmt != NULL && datefmt[0] != '\0')? datefmt : HALOG_DATEFMT);
    if (debug_form) {
        snprintf(buf, buf_len, "%s:\t%s%s: %s\n", tag, date, fm_ocf_halog_word(priority), msg);
    } else {
        snprintf(buf, buf_len, "%s %s:    %s: %s\n", date, tag, fm_ocf_halog_word(priority), msg);
    }
}

int
fm_ocf_halog_append(const char *path, const char *line)
{
    struct stat sb;
    size_t len = strlen(line);
    ssize_t wrote = 0;
    int fd = -1;
    int rc = 0;

    if (path == NULL || path[0] != '/') {
        return EINVAL;
    }
    fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        return errno;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return EINVAL;
    }
    /* One write: O_APPEND puts the whole line at the end, between the
     * cluster daemons' lines. */
    wrote = write(fd, line, len);
    if (wrote < 0) {
        rc = errno;
    } else if ((size_t) wrote != len) {
        rc = EIO;
    }
    close(fd);
    return rc;
}

static const char *
env_value(const char *name)
{
    const char *value = getenv(name);

    return (value != NULL && value[0] != '\0')? value : NULL;
}

void
fm_ocf_halog(int priority, const char *agent, const char *resource, const char *msg)
{
    const char *logfile = env_value("HA_LOGFILE");
    const char *debuglog = env_value("HA_DEBUGLOG");
    const char *debug = env_value("HA_debug");
    const char *tag_env = env_value("HA_LOGTAG");
    char tag[256];
    char line[2048];
    struct tm tm;
    time_t now = time(NULL);

    if (isatty(STDIN_FILENO)) {
        return;
    }
    /* Pacemaker exports its log file as PCMK_logfile and, for old agents,
     * HA_logfile (pcmk__set_env_option()); ha_log reads HA_LOGFILE only. */
    if (logfile == NULL) {
        logfile = env_value("PCMK_logfile");
    }
    if (logfile == NULL) {
        logfile = env_value("HA_logfile");
    }
    if (tag_env != NULL) {
        fm_text_format(tag, sizeof(tag), "%s", tag_env);
    } else if (resource != NULL) {
        fm_text_format(tag, sizeof(tag), "%s(%s)[%ld]", agent, resource, (long) getpid());
    } else {
        fm_text_format(tag, sizeof(tag), "%s[%ld]", agent, (long) getpid());
    }
    localtime_r(&now, &tm);
    if (priority >= LOG_DEBUG) {
        if (debug == NULL || strcmp(debug, "0") == 0 || debuglog == NULL) {
            return;
        }
        fm_ocf_halog_line(line, sizeof(line), &tm, getenv("HA_DATEFMT"), tag, priority, msg, true);
        fm_ocf_halog_append(debuglog, line);
        return;
    }
    if (logfile != NULL) {
        fm_ocf_halog_line(line, sizeof(line), &tm, getenv("HA_DATEFMT"), tag, priority, msg, false);
        fm_ocf_halog_append(logfile, line);
    }
    if (debuglog != NULL && (logfile == NULL || strcmp(debuglog, logfile) != 0)) {
        fm_ocf_halog_line(line, sizeof(line), &tm, getenv("HA_DATEFMT"), tag, priority, msg, true);
        fm_ocf_halog_append(debuglog, line);
    }
}
