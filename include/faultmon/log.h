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

#define fm_log_err(fmt, ...)     qb_log(LOG_ERR, fmt, ##__VA_ARGS__)
#define fm_log_warn(fmt, ...)    qb_log(LOG_WARNING, fmt, ##__VA_ARGS__)
#define fm_log_notice(fmt, ...)  qb_log(LOG_NOTICE, fmt, ##__VA_ARGS__)
#define fm_log_info(fmt, ...)    qb_log(LOG_INFO, fmt, ##__VA_ARGS__)
#define fm_log_debug(fmt, ...)   qb_log(LOG_DEBUG, fmt, ##__VA_ARGS__)

#endif
