/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: what both agents share.  The program is one binary,
 * installed as ocf:faultmon:apache and ocf:faultmon:httpmon; it links only
 * libc (and the libc-only parts of the probe core), so that a monitor costs
 * a process start and a file read.  Whatever needs OpenSSL runs in the
 * helper program faultmon-ocf-probe or in `faultmon run`.
 *
 * One header for the shared plumbing, in sections by concern, each section
 * naming the one file that implements it: the agent is one program whose
 * action files use most of the sections, and one short list shows a newcomer
 * every helper an agent has (one header per concern would be nine headers
 * of a few declarations each).
 *
 * No .c of its name: the interface of the folder agents/ocf/, one
 * ocf_SECTION.c per section.
 */
#ifndef FAULTMON_OCF_COMMON_H
#define FAULTMON_OCF_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <crm/common/results.h>     /* enum ocf_exitcode */

#include <faultmon/state.h>

#define FM_OCF_PATH_MAX 4096

/* Milliseconds an action keeps in hand before its own timeout. */
#define FM_OCF_MARGIN_MS 1500

/* ---- the invocation and the parameters (ocf_env.c) ---- */

/* The invocation: which agent, which action, and the operation's limits. */
struct fm_ocf {
    const char *agent;              /* "apache" or "httpmon" */
    const char *action;
    const char *resource;           /* OCF_RESOURCE_INSTANCE */
    char state_dir[FM_OCF_PATH_MAX];
    bool have_state_dir;
    uint64_t timeout_ms;            /* OCF_RESKEY_CRM_meta_timeout, or a default */
    bool timeout_given;
    uint64_t interval_ms;           /* OCF_RESKEY_CRM_meta_interval */
    int check_level;                /* OCF_CHECK_LEVEL */
    uint64_t start_us;              /* CLOCK_MONOTONIC when the action began */
};

/*!
 * \brief Fill \p ocf from the environment the executor sets.
 *
 * \param[out] ocf             the invocation
 * \param[in]  agent           agent name
 * \param[in]  action          action name
 * \param[in]  default_timeout_ms  when OCF_RESKEY_CRM_meta_timeout is unset
 */
void fm_ocf_init(struct fm_ocf *ocf, const char *agent, const char *action,
                 uint64_t default_timeout_ms);

/*! \brief Whether this monitor is a probe (interval 0). */
bool fm_ocf_is_probe(const struct fm_ocf *ocf);

/*! \brief Milliseconds left before the operation's timeout, minus the margin. */
uint64_t fm_ocf_left_ms(const struct fm_ocf *ocf);

/*! \brief OCF_RESKEY_<name>, or NULL when unset. */
const char *fm_ocf_param(const char *name);

/*! \brief OCF_RESKEY_<name>, or \p dflt when unset or empty. */
const char *fm_ocf_param_or(const char *name, const char *dflt);

/*! \brief Set (or with value NULL, unset) OCF_RESKEY_<name> for our children. */
int fm_ocf_param_set(const char *name, const char *value);

/*! \brief A boolean parameter; \p dflt when unset; -1 when not a boolean. */
int fm_ocf_param_bool(const char *name, bool dflt);

/* The parameter that holds the rarely set ones as NAME=VALUE words: pcs 0.11
 * lists every parameter of an OCF agent that is not deprecated in `pcs
 * resource describe`, and an administrator needs the first ones on one
 * screen.  Those folded stay in the meta-data (deprecated, which pcs hides),
 * so that a configuration that sets them by name still works. */
#define FM_OCF_FOLD_PARAM "advanced"

/*!
 * \brief Set OCF_RESKEY_<NAME> for each NAME=VALUE word of `advanced` (split
 *        as a shell would, nothing expanded), for this action and its
 *        children, as if each were set by name.
 *
 * \param[in] metadata  the agent's meta-data: NAME must be one of its
 *                      parameters (other than `advanced`)
 * \return PCMK_OCF_OK, or PCMK_OCF_NOT_CONFIGURED (with an exit reason) for
 *         a word that is not NAME=VALUE, an unknown NAME, an unbalanced
 *         quote, or a NAME also set with another value
 */
int fm_ocf_unfold(const char *metadata);

/* ---- logging (ocf_log.c) ---- */

/*
 * Logging: everything goes to syslog (facility daemon) as
 * "faultmon-ocf:AGENT(RESOURCE)", and to Pacemaker's log file as ocf_log
 * writes it (HA_LOGFILE, HA_DEBUGLOG: ocf_halog.c); warnings and errors also
 * to stderr, which the executor keeps in Pacemaker's log.  Every message and exit reason goes
 * through fm_text_format() (include/faultmon/text.h): no URI secret, no
 * control character, no invalid UTF-8 (Pacemaker keeps exit reasons in XML).
 */
void fm_ocf_log_open(const struct fm_ocf *ocf);

void fm_ocf_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*!
 * \brief Print the "ocf-exit-reason:" line (once; later calls are logged
 *        only) and return \p rc, so that `return fm_ocf_fail(rc, ...)` reads
 *        as what it does.
 */
int fm_ocf_fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*!
 * \brief fm_ocf_fail() for a refusal that is a hold (held for manual resume,
 *        failed over until a cleanup): the same exit reason, logged as a
 *        warning, not an error.
 */
int fm_ocf_hold(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- Pacemaker's log file, as ocf_log writes it (ocf_halog.c) ---- */

/*! \return ocf_log's word for a syslog priority ("ERROR", "WARNING", "INFO"...) */
const char *fm_ocf_halog_word(int priority);

/*!
 * \brief One line as resource-agents' ha_log appends it to HA_LOGFILE, or
 *        (\p debug_form) as it and ha_debug append it to HA_DEBUGLOG.
 *
 * \param[out] buf       the line, with its newline
 * \param[in]  tm        the local time
 * \param[in]  datefmt   HA_DATEFMT, or NULL for its default "%b %d %T "
 * \param[in]  tag       HA_LOGTAG, or "AGENT(RESOURCE)[PID]"
 * \param[in]  priority  syslog priority
 * \param[in]  msg       the message, clean already
 */
void fm_ocf_halog_line(char *buf, size_t buf_len, const struct tm *tm, const char *datefmt, const char *tag,
                       int priority, const char *msg, bool debug_form);

/*!
 * \brief Append \p line with one write (O_APPEND) to an existing regular
 *        file named by an absolute path; never creates one.
 * \return 0, or an errno value (EINVAL: not an absolute path or not a
 *         regular file); the caller drops the line
 */
int fm_ocf_halog_append(const char *path, const char *line);

/*!
 * \brief Write one message where ocf_log would: HA_LOGFILE (else
 *        PCMK_logfile, HA_logfile) and HA_DEBUGLOG, as the top of ocf_halog.c says.
 *
 * \param[in] resource  OCF_RESOURCE_INSTANCE, or NULL
 */
void fm_ocf_halog(int priority, const char *agent, const char *resource, const char *msg);

/* ---- files and processes (ocf_proc.c) ---- */

/*! \brief Sleep \p ms milliseconds (signals do not cut it short). */
void fm_ocf_sleep_ms(uint64_t ms);

/*! \brief A PID from a pid file: 0 when absent, unreadable or not a number. */
pid_t fm_ocf_read_pid_file(const char *path);

/*!
 * \brief Whether \p pid is alive, and (when \p exe is not NULL) runs the
 *        program \p exe, compared by base name so that a PID reused by
 *        another program does not count.
 */
bool fm_ocf_pid_alive(pid_t pid, const char *exe);

/*! \return the session of \p pid (/proc/PID/stat), or 0 when it cannot be read */
pid_t fm_ocf_proc_session(pid_t pid);

/*!
 * \brief Wait until \p pid is gone (or, as a child of ours, reaped).
 * \return true when it is gone within \p timeout_ms
 */
bool fm_ocf_wait_gone(pid_t pid, uint64_t timeout_ms);

/*! \brief mkdir -p with \p mode for the directories it creates. \return 0 or errno */
int fm_ocf_mkdir_p(const char *path, mode_t mode);

/*!
 * \brief Run a program (fork and execve, never a shell) with the current
 *        environment and wait for it, within \p timeout_ms (then SIGKILL).
 *
 * A program that daemonizes is waited for until it exits, not until its
 * output ends (its daemon may keep the pipe).
 *
 * \param[in]  argv        program path and arguments
 * \param[out] out         when not NULL, its stdout and stderr, NUL-terminated
 *                         (truncated to out_len)
 * \param[in]  out_len     size of \p out
 * \param[out] out_used    when not NULL, how many bytes \p out holds
 * \param[in]  timeout_ms  deadline
 * \return the exit status (0-255), 128+signal, or -1 when it could not be
 *         started or timed out
 */
int fm_ocf_run(char *const argv[], char *out, size_t out_len, size_t *out_used,
               uint64_t timeout_ms);

/*!
 * \brief Run \p fn(\p arg) in a detached process the agent does not wait
 *        for (its own session, stdio on /dev/null, no other descriptors),
 *        which ends with _exit() once \p fn returns: for cluster tools an
 *        action need not wait for.  When no such process can be made, the
 *        agent runs \p fn itself.
 */
void fm_ocf_detached(void (*fn)(void *arg), void *arg);

/*!
 * \brief Start a program as a daemon: its own session, stdio on /dev/null,
 *        no other descriptors, the current environment; never a shell.
 * \param[out] daemon_pid  its PID
 * \return 0 or errno
 */
int fm_ocf_spawn_daemon(char *const argv[], pid_t *daemon_pid);

/* ---- case folding (ocf_regex.c); words are fm_words_split()'s ---- */

/*!
 * \brief Turn a POSIX extended regex into one that matches regardless of
 *        case, by writing each letter outside bracket expressions as [aA]
 *        and adding the other case inside them.
 * \return 0, or ENAMETOOLONG when \p out is too small
 */
int fm_ocf_regex_icase(const char *regex, char *out, size_t out_len);

/* ---- reading what a program answers (ocf_text.c) ---- */

/*!
 * \brief The value that follows \p key in \p text, up to the first
 *        character of \p stop or the end, when \p key starts before \p
 *        limit (NULL: anywhere); "" when it does not.
 */
void fm_ocf_text_value(const char *text, const char *limit, const char *key, const char *stop, char *buf,
                       size_t buf_len);

/* ---- the agent's record, RESOURCE/agent in the state directory (ocf_record.c) ---- */

/*
 * What start found out and monitor and stop need without reading the Apache
 * configuration again: written by start, removed by stop.  Its presence means
 * "started by the agent and not stopped since".  Key=value lines between a
 * "faultmon-agent 1" header and an "end" trailer; values hold no secrets.
 */
#define FM_OCF_RECORD_MAX 16
#define FM_OCF_RECORD_HEADER "faultmon-agent 1"
/* A record of ours is at most 16 lines of a key and a path: about 66 KiB. */
#define FM_OCF_RECORD_MAX_BYTES (128 * 1024)

struct fm_ocf_record {
    size_t n;
    char key[FM_OCF_RECORD_MAX][48];
    char value[FM_OCF_RECORD_MAX][FM_OCF_PATH_MAX];
};

void fm_ocf_record_set(struct fm_ocf_record *rec, const char *key, const char *value);
const char *fm_ocf_record_get(const struct fm_ocf_record *rec, const char *key);

/*!
 * \brief Read the record (a symbolic link, a file that is not whole,
 *        data after "end", a NUL byte: not a record).
 * \param[out] err  why it is refused (may be NULL)
 * \return 0, ENOENT when there is none, EINVAL when it is not one
 */
int fm_ocf_record_read_why(const char *dir, struct fm_ocf_record *rec, char *err, size_t err_len);

/*! \brief fm_ocf_record_read_why() without the reason. */
int fm_ocf_record_read(const char *dir, struct fm_ocf_record *rec);
int fm_ocf_record_write(const char *dir, const struct fm_ocf_record *rec);
void fm_ocf_record_remove(const char *dir);

/* ---- the fault-monitor loop (ocf_loop.c) ---- */

/*! \brief The faultmon program: $FAULTMON when it is an absolute path to an
 *         executable (tests), else the installed one. */
const char *fm_ocf_faultmon_path(void);

/*! \brief The helper faultmon-ocf-probe, beside this program. */
int fm_ocf_probe_helper_path(char *buf, size_t buf_len);

/*!
 * \brief Validate the loop's parameters as `faultmon run` will read them
 *        from the environment (the agent has set its derived ones), and
 *        Probe_timeout against the operation's timeout.
 * \return PCMK_OCF_OK, or PCMK_OCF_NOT_CONFIGURED / PCMK_OCF_INVALID_PARAM with an exit reason
 */
int fm_ocf_validate_loop_params(const struct fm_ocf *ocf, uint64_t *probe_timeout_ms);

/*!
 * \brief Start `faultmon run RESOURCE [extra]` as a daemon and wait until it
 *        has written the state of its first cycle.
 * \param[out] st  that state
 * \return PCMK_OCF_OK, or PCMK_OCF_UNKNOWN_ERROR with an exit reason
 */
int fm_ocf_loop_start(const struct fm_ocf *ocf, const char *extra_arg,
                      struct fm_run_state *st);

/*!
 * \brief Stop the loop (SIGTERM, SIGKILL after \p timeout_ms).
 * \return true when no loop runs afterwards
 */
bool fm_ocf_loop_stop(const struct fm_ocf *ocf, uint64_t timeout_ms);

/*!
 * \brief The first failed target of the loop's last cycle, as
 *        "TARGET: reason[ HTTP status]" (target texts are redacted by the
 *        probe core), or "" when none failed.
 */
void fm_ocf_first_failure(const struct fm_run_state *st, char *buf, size_t buf_len);

/*!
 * \brief fm_state_read() of a running loop's state.  No file is ENOENT only
 *        while its first cycle may still be under way (it started within the
 *        staleness bound of its Thorough_probe_interval and Probe_timeout);
 *        past that it is no verdict, as a refused file (ETIME, \p err says
 *        so): never an OK from nothing.
 * \return 0, ENOENT, or another errno value with \p err set
 */
int fm_ocf_loop_state_read(const struct fm_ocf *ocf, struct fm_run_state *st, char *err, size_t err_len);

/* The monitor interval under which a refused fail request costs little:
 * recovery then waits at most this long (heartbeat's default interval). */
#define FM_OCF_REFUSED_MONITOR_MAX_MS 10000

/*!
 * \brief Where the loop's fail request was refused (a Pacemaker Remote
 *        node: the loop leaves STATE_DIR/refused), warn once a loop that
 *        recovery here waits for the monitor, when its interval is longer
 *        than FM_OCF_REFUSED_MONITOR_MAX_MS, and what to set.
 * \param[in] ocf  a recurring monitor's action
 */
void fm_ocf_loop_refusal_note(const struct fm_ocf *ocf);

/*!
 * \brief Run one fresh probe cycle with the helper (OCF_CHECK_LEVEL=10).
 * \return PCMK_OCF_OK, PCMK_OCF_UNKNOWN_ERROR or PCMK_OCF_DEGRADED with an exit reason, or
 *         PCMK_OCF_NOT_INSTALLED when the helper is missing
 */
int fm_ocf_fresh_probe(const struct fm_ocf *ocf, uint64_t probe_timeout_ms);

/* ---- node attributes (ocf_attrd.c) ---- */

/*! \brief Pacemaker's attrd_updater (FAULTMON_OCF_ATTRD_UPDATER in tests). */
const char *fm_ocf_attrd_updater_path(void);

/*!
 * \brief Set (\p value) or delete (NULL) node attribute \p name of this
 *        node with attrd_updater; a failure is logged.
 * \return the exit status of attrd_updater
 */
int fm_ocf_attrd(const struct fm_ocf *ocf, const char *name, const char *value);

/*!
 * \brief At a stop: forget the start's policy note (STATE_DIR/policy) and,
 *        run by Pacemaker, delete the resource's reason attribute
 *        (faultmon-RESOURCE-reason): neither may outlive the resource on
 *        this node (deleted, moved away, or stopped by the administrator).
 *        The loop removes its state and weight attributes itself.
 */
void fm_ocf_stop_attributes(const struct fm_ocf *ocf);

/* ---- the fault-monitor loop, continued (ocf_loop.c) ---- */

/*!
 * \brief Give the loop a complete failure the agent found (\p cause, e.g.
 *        httpd not running) and wait until its decision is in the state.
 * \param[out] st  the state holding the decision
 * \return 0; EALREADY when the loop found it the same outage as a recovery
 *         the cluster already knows of (\p st holds that decision); ESRCH
 *         when no loop runs; ETIMEDOUT when it did not answer; another errno
 */
int fm_ocf_loop_event(const struct fm_ocf *ocf, const char *cause, struct fm_run_state *st);

/*! \brief Forget the loop's history and decision (`faultmon reset`). */
void fm_ocf_loop_reset(const struct fm_ocf *ocf);

/*!
 * \brief Tell the loop about to start whether the service kept running since
 *        the earlier loop (FAULTMON_SERVICE_KEPT): a reload, a dead loop
 *        restarted, a start beside a running service.  Then a restart the
 *        earlier loop asked for has not happened, and the new loop does not
 *        take its first failure for a failed restart (a false failover).
 */
void fm_ocf_service_kept_env(bool kept);

/* ---- a policy mismatch: refused by validate-all only (ocf_policy.c) ---- */

/* In the state directory: why the loop runs with a stricter policy than
 * its parameters say (faultmon status prints it). */
#define FM_OCF_POLICY_FILE "policy"

/*! \brief Whether this action refuses a policy mismatch (validate-all only). */
bool fm_ocf_policy_refuses(const struct fm_ocf *ocf);

/*! \brief Forget the notes of an earlier start (STATE_DIR/policy). */
void fm_ocf_policy_clear(const struct fm_ocf *ocf);

/*!
 * \brief Say that the loop runs with a stricter policy (\p note): a warning,
 *        STATE_DIR/policy and the reason attribute.
 */
void fm_ocf_policy_note(const struct fm_ocf *ocf, const char *note);

/*!
 * \brief migration-threshold (CIB) against Retry_count: validate-all refuses
 *        a threshold below Retry_count + 2; any other action lowers
 *        OCF_RESKEY_Retry_count to threshold - 2 (at least 0) and notes it.
 * \param[out] effective_retry_count  the lowered value, or -1 when unchanged
 * \return PCMK_OCF_OK, or PCMK_OCF_NOT_CONFIGURED (validate-all only)
 */
int fm_ocf_policy_migration(const struct fm_ocf *ocf, int64_t *effective_retry_count);

/*! \brief Note nothing from now on (a validation in a child process). */
void fm_ocf_policy_quiet(void);

/*! \brief Keep the Retry_count fm_ocf_policy_migration() set in the agent's
 *         record, for a loop the monitor restarts. */
void fm_ocf_policy_record(struct fm_ocf_record *rec);

/*! \brief The Retry_count a record kept into OCF_RESKEY_Retry_count. */
void fm_ocf_policy_restore(const struct fm_ocf_record *rec);

/* ---- the CIB (ocf_cib.c) ---- */

/*!
 * \brief The resource's shortest recurring monitor operation in the CIB.
 * \return whether one was found (\p timeout_ms is 0 when it sets none)
 */
bool fm_ocf_monitor_op(const struct fm_ocf *ocf, uint64_t *interval_ms, uint64_t *timeout_ms);

/*!
 * \brief A meta attribute of the resource in the CIB (its own, else
 *        rsc_defaults'), e.g. migration-threshold, which Pacemaker does not
 *        pass to agents.
 * \return whether one is set
 */
bool fm_ocf_meta_attr(const struct fm_ocf *ocf, const char *name, char *buf, size_t buf_len);

/*! \brief At a stop that is not the restart faultmon asked for, delete the
 *         constraint faultmon-stay-RSC that kept such a restart on its node
 *         (RSC: \p rsc_id, or this resource's primitive when NULL). */
void fm_ocf_stay_clear(const struct fm_ocf *ocf, const char *rsc_id);

/* What the CIB says of a primitive resource (fm_ocf_cib_primitive()). */
struct fm_ocf_cib_rsc {
    char standard[32];              /* class: ocf, systemd, lsb, service, ... */
    char provider[64];              /* ocf's only */
    char type[128];
    bool cloned;                    /* inside a clone or bundle */
    char kind[32];                  /* ENOENT's cousin EISDIR: what the id names */
};

/*!
 * \brief Look primitive \p id (an XML ID the caller checked) up in the CIB.
 * \return 0; ENOENT when no resource has that id; EISDIR when it names
 *         something else (rsc->kind: group, clone, ...); ENOTCONN when the
 *         CIB cannot be read (no cluster here); ENOMEM
 */
int fm_ocf_cib_primitive(const char *id, struct fm_ocf_cib_rsc *rsc);

/*!
 * \brief Does the CIB keep \p guard with \p guarded and start it after:
 *        a group of the two (guarded first), or an order and a colocation?
 */
bool fm_ocf_cib_guard_placed(const char *guarded, const char *guard);

/* ---- the fault-monitor loop, its decisions as exit reasons (ocf_loop.c);
 * the files the loop and the agent exchange are faultmon/recovery.h's ---- */

/*!
 * \brief An exit reason for the decision in \p st: the target and cause
 *        (\p cause, or the first failed target), then the decision, then
 *        the rest of the engine's reason.
 */
void fm_ocf_short_decision(const struct fm_run_state *st, const char *cause, char *buf, size_t buf_len);

#endif
