/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: logging through libqb, to where Pacemaker's own logs go.
 */
#ifndef FAULTMON_LOG_H
#define FAULTMON_LOG_H

#include <stdbool.h>
#include <syslog.h>
#include <qb/qblog.h>

/*!
 * \brief Set up libqb logging for this process.
 *
 * Logs go to syslog (facility from PCMK_logfacility or HA_LOGFACILITY,
 * "daemon" by default, "none" to disable) and, like Pacemaker's daemons and
 * ocf_log, to the file named by PCMK_logfile or HA_LOGFILE, else to
 * /var/log/pacemaker/pacemaker.log when that file exists and is writable.
 *
 * \param[in] ident      program name shown in each line
 * \param[in] to_stderr  also print to stderr (interactive commands)
 * \param[in] verbosity  0: notice and above, 1: info, 2+: debug
 */
void fm_log_init(const char *ident, bool to_stderr, int verbosity);
void fm_log_fini(void);

/*!
 * \brief Log one message, redacted and escaped (fm_text_format()) as a whole:
 *        syslog, Pacemaker's log file and stderr get no password and no raw
 *        control character or invalid UTF-8, whatever the arguments hold.
 *
 * \param[in] priority  syslog priority
 * \param[in] fmt       printf format
 */
void fm_log_msg(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define fm_log_err(fmt, ...)     fm_log_msg(LOG_ERR, fmt, ##__VA_ARGS__)
#define fm_log_warn(fmt, ...)    fm_log_msg(LOG_WARNING, fmt, ##__VA_ARGS__)
#define fm_log_notice(fmt, ...)  fm_log_msg(LOG_NOTICE, fmt, ##__VA_ARGS__)
#define fm_log_info(fmt, ...)    fm_log_msg(LOG_INFO, fmt, ##__VA_ARGS__)
#define fm_log_debug(fmt, ...)   fm_log_msg(LOG_DEBUG, fmt, ##__VA_ARGS__)

#endif
