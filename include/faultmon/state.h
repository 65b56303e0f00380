/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the run loop's state directory, /run/faultmon/RESOURCE/.
 *
 * The loop (`faultmon run`) is the only writer of `state`; every write is
 * atomic (write to a temporary file, fsync, rename), so a reader sees either
 * the old or the new file, whole.  The format is line-based text, one
 * "key=value" per line, between a "faultmon-state 1" header and an "end"
 * trailer, so that a truncated or foreign file is recognised and set aside
 * instead of being believed (the metrics' keys, optional, are described in
 * src/core/state_metrics.c); and every reader judges it through
 * fm_state_parse(), so that a well-formed file whose fields disagree with
 * each other is no verdict either.
 *
 * Files in the directory (mode 0700):
 *   state        the loop's state (this header's struct), written after each
 *                cycle; its other writers, only while no loop runs, are the
 *                apache agent's start, which rewrites it once to clear
 *                pending=failover after refusing to start on this node, and
 *                `faultmon resume` (both through fm_state_clear_pending())
 *   lock         held by the running loop for its whole life (an OFD write
 *                lock, see fm_state_lock()); holds the loop's PID while it
 *                runs and is emptied when it stops cleanly, so that a PID
 *                left in an unlocked file means the loop died
 *   pid          the loop's PID (written by the loop at start, for people;
 *                whether a loop runs is decided by the lock, never by this)
 *   reported, asked, cause, event, event.same, resume, reset
 *                the files the loop and the agents (and `faultmon resume`
 *                and `faultmon reset`) exchange: the pending-recovery
 *                protocol, described, read and written by faultmon/recovery.h
 *                (src/pcmk/recovery.c) alone
 *   loop-died    one line per loop that died without stopping cleanly, added
 *                by the agent that started the next one
 *   agent        the agent's record of the service it started (written by
 *                start, removed by stop; see agents/)
 *   httpd.pid    httpd's PID when the Apache configuration names no PidFile
 *   history, history.1, history.params, history.bad
 *                the cycle history that `faultmon simulate --replay` runs
 *                again, and the parameters of the loop that wrote it
 *                (faultmon/history.h; written by src/run/run_history.c)
 *   .*.tmp       files being written, renamed into place when complete
 *   *.bad        a state file that failed to parse, set aside for inspection
 */
#ifndef FAULTMON_STATE_H
#define FAULTMON_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <faultmon/decide_persist.h>
#include <faultmon/result.h>

/* Linux's PID_MAX_LIMIT: no PID in a state file or lock is larger. */
#define FM_STATE_MAX_PID 4194304

#define FM_STATE_FORMAT_VERSION 1
#define FM_STATE_MAX_TARGETS 64
#define FM_STATE_MAX_RECORDS 50
#define FM_STATE_TEXT_MAX 256
#define FM_RESOURCE_NAME_MAX 64
#define FM_STATE_KIND_MAX 16

/* The agents that run loops: what a recovery means for the resource. */
#define FM_KIND_APACHE "apache"     /* Pacemaker restarts or moves it */
#define FM_KIND_HTTPMON "httpmon"   /* only a node attribute goes to 0 */

/* Which parameter a target came from: the same URL may be in Port_list (a
 * HEAD) and Monitor_Uri_List (a GET), two probes the metrics tell apart by
 * their "source" label (state_metrics.c's target.source). */
enum fm_state_source {
    FM_SOURCE_PORT_LIST = 0,        /* Port_list, or the default target */
    FM_SOURCE_MONITOR_URI,          /* Monitor_Uri_List (--uri) */
    FM_SOURCE_DEPENDENCY,           /* Dependency_list */
    FM_SOURCE_COMMAND,              /* Probe_command (--exec) */
    FM_SOURCE__COUNT,
};

/*! \brief "port_list", "monitor_uri", "dependency", "probe_command"; "invalid" else. */
const char *fm_state_source_name(enum fm_state_source source);

/* The last result of one target, and its failures so far. */
struct fm_state_target {
    char target[FM_STATE_TEXT_MAX];
    enum fm_class cls;
    enum fm_reason reason;
    int http_status;
    uint64_t latency_us;
    /* The metrics' (state_metrics.c), each absent from a file of a version
     * before them, which reads as 0: */
    uint64_t phase_us[FM_PHASE__COUNT]; /* of the last probe; sum <= latency_us */
    unsigned int phases;            /* bit (1 << phase): the phases it went through */
    int64_t cert_not_after;         /* its leaf certificate's notAfter, UNIX
                                       time, as of the last handshake; 0: none */
    uint64_t failures[FM_CLASS_COMPLETE + 1];   /* probes failed partial and
                                       complete ([FM_CLASS_OK] stays 0), kept
                                       across loops by the target's text */
    enum fm_state_source source;    /* the parameter it came from */
};

/* One probe cycle, for the history of the last FM_STATE_MAX_RECORDS. */
struct fm_state_record {
    int64_t wall_s;                 /* CLOCK_REALTIME, for people */
    enum fm_class cls;              /* the cycle's verdict */
    uint64_t latency_us;            /* the cycle's slowest probe */
    enum fm_action action;          /* what the engine decided */
};

struct fm_run_state {
    char resource[FM_RESOURCE_NAME_MAX];
    int64_t pid;                    /* the loop's PID */
    uint64_t updated_mono_us;       /* CLOCK_MONOTONIC of the last write */
    int64_t updated_wall_s;         /* CLOCK_REALTIME of the last write */
    uint64_t interval_ms;           /* until the next probe */
    uint64_t probe_timeout_ms;
    uint64_t cycles;                /* probe cycles since the loop started */
    char kind[FM_STATE_KIND_MAX];   /* FM_KIND_*, from `faultmon run --kind`;
                                       written only when not apache: empty
                                       means apache */

    /* The current decision, as the agent's monitor reports it. */
    enum fm_state state;
    enum fm_action action;          /* of the last cycle */
    int ocf_rc;                     /* fm_ocf_rc_for_action() of the current state */
    char reason[FM_DECIDE_REASON_MAX];
    enum fm_action pending;         /* recovery asked and not yet carried out */
    uint32_t weight;
    uint32_t restarts_in_window;
    char next_failure[FM_DECIDE_REASON_MAX];  /* what the next failure would cause */

    struct fm_decide_state decide;
    /* Recoveries decided (restart, failover; also a publish-only loop's
     * "unhealthy"), kept across loops; [FM_ACTION_NONE] and [DEGRADED] stay 0. */
    uint64_t decisions[FM_ACTION_DEGRADED + 1];

    size_t n_targets;
    struct fm_state_target targets[FM_STATE_MAX_TARGETS];
    size_t n_records;               /* oldest first */
    struct fm_state_record records[FM_STATE_MAX_RECORDS];
};

/*! \brief Check a resource name: [A-Za-z0-9._-]+, at most 63 bytes, not "." or "..". */
bool fm_resource_name_valid(const char *name);

/*!
 * \brief The state directory of a resource: $FAULTMON_STATE_DIR (for tests)
 *        or the configured one, plus the resource name.
 * \return 0, or ENAMETOOLONG/EINVAL
 */
int fm_state_dir(const char *resource, char *buf, size_t buf_len);

/*! \brief Create the directory (mode 0700) and its parent. \return 0 or errno */
int fm_state_dir_create(const char *dir);

/*!
 * \brief Write DIR/NAME atomically: fm_kvfile_write() (kvfile.h), under the
 *        name its older callers use.
 * \return 0 or errno
 */
int fm_state_file_write(const char *dir, const char *name,
                        void (*write_fn)(FILE *out, const void *data), const void *data);

/*!
 * \brief Write `state` atomically (see fm_state_file_write()).
 * \return 0 or errno; err says why in one line
 */
int fm_state_write(const char *dir, const struct fm_run_state *st, char *err, size_t err_len);

/*!
 * \brief Parse and validate the text of a state file.
 *
 * The one judge of a state file, for the loop, the agents and `faultmon
 * status` alike.  Besides the syntax (header, every key exactly once, known
 * keys, whole numbers, "end" last; the metrics' keys at most once, a
 * target's after its target line), it checks the meaning: every field in
 * range, enums known, the resource named as \p resource, the decision
 * engine's history as fm_decide_import() demands it, and the fields
 * consistent with each other and with that history (state and the engine's
 * down/held/streaks, ocf_rc as the loop derives it from pending and action,
 * weight and restarts as the engine counts them, each target's class as its
 * reason gives it).  A file it rejects is no verdict: never a recovery.
 *
 * \param[in]  text          the file's bytes (need not be NUL-terminated)
 * \param[in]  len           their number
 * \param[in]  resource      the resource the file must name (NULL: any valid)
 * \param[in]  now_mono_us   CLOCK_MONOTONIC now, in microseconds: a state
 *                           written later than this (another boot) is rejected
 * \param[out] st            the state; zeroed on rejection
 * \param[out] err           on rejection, why, in one line
 * \param[in]  err_len       size of \p err
 * \return 0, or EINVAL
 */
int fm_state_parse(const char *text, size_t len, const char *resource, uint64_t now_mono_us,
                   struct fm_run_state *st, char *err, size_t err_len);

/*!
 * \brief Check a state's meaning (the second half of fm_state_parse()).
 * \return 0, or EINVAL with \p err saying which field is wrong
 */
int fm_state_validate(const struct fm_run_state *st, const char *resource, uint64_t now_mono_us,
                      char *err, size_t err_len);

/*!
 * \brief Read `state` and judge it with fm_state_parse().
 * \return 0; ENOENT when there is none; EINVAL when it is corrupt, truncated,
 *         foreign or inconsistent (err says why)
 */
int fm_state_read(const char *dir, struct fm_run_state *st, char *err, size_t err_len);

/*!
 * \brief The OCF code a valid state stands for: 1 for a pending restart, 4
 *        for a pending failover, otherwise 190 for a degraded action and 0;
 *        always 0 for an httpmon loop (kind), whose verdict is an attribute.
 *
 * Never anything else, whatever the struct holds.
 */
int fm_state_ocf_rc(const struct fm_run_state *st);

/*!
 * \brief Clear a pending recovery in a state that no loop owns (a refused
 *        start, a resume without a loop), keeping the file consistent: the
 *        action, weight and ocf_rc are set as the loop would have set them.
 */
void fm_state_clear_pending(struct fm_run_state *st);

/* What an offline `faultmon reset` or `faultmon resume` forgets. */
enum fm_state_forget {
    FM_STATE_FORGET_HISTORY,        /* reset: failures, restarts, decision; a hold stays */
    FM_STATE_FORGET_HOLD,           /* resume: the hold, the failures and the pending recovery */
};

/*!
 * \brief Forget in a state that no loop owns what `faultmon reset` or
 *        `faultmon resume` forgets (src/core/state_forget.c), as the
 *        engine's own reset and resume would, keeping the file one the
 *        reader accepts (the caller still checks with fm_state_validate()).
 *
 * \param[in,out] st    the state read from the file
 * \param[in]     what  which of the two
 */
void fm_state_forget(struct fm_run_state *st, enum fm_state_forget what);

/*!
 * \brief Move a bad state file aside as state.<wall-time>.bad, keeping the
 *        evidence, so that a fresh state can replace it.
 */
int fm_state_set_aside(const char *dir);

/*!
 * \brief Take the loop lock of a state directory for the life of the caller.
 *
 * An OFD write lock (fcntl F_OFD_SETLK) on DIR/lock, opened O_CLOEXEC so that
 * no program the loop runs inherits it; the kernel drops it when the loop
 * dies, however it dies, so a stale PID can never pass for a running loop.
 * The caller's PID is written into the file once the lock is held.
 *
 * \param[in]  dir         state directory (must exist)
 * \param[out] fd          the lock's descriptor, to keep open
 * \param[out] holder_pid  on EBUSY, the PID of the faultmon loop holding it,
 *                         or of any other process holding a POSIX lock on the
 *                         file; 0 if unknown
 * \param[out] holder_is_loop  on EBUSY, whether the holder is a faultmon loop
 * \return 0, EBUSY when another process holds it, or another errno
 */
int fm_state_lock(const char *dir, int *fd, int64_t *holder_pid, bool *holder_is_loop);

/*!
 * \brief Whether DIR/lock is still the file locked through \p fd (the
 *        directory may have been removed or replaced under the loop).
 * \return 0, or ESTALE
 */
int fm_state_lock_check(const char *dir, int fd);

/* How long a state directory renamed away may go unseen by its loop: the
 * longest time between two checks of DIR/lock by path. */
#define FM_STATE_LOCK_PATH_CHECK_US (5 * 1000 * 1000)

/*!
 * \brief fm_state_lock_check() at most every FM_STATE_LOCK_PATH_CHECK_US
 *        (and whenever \p by_path is true), and in between only
 *        whether the file locked through \p fd still has a name.
 *
 * Removing the lock file or its directory, or renaming another file over
 * it, unlinks the file: one fstat() sees that, without walking the path
 * every cycle.  Only a rename of the directory itself keeps the name count,
 * and the check by path finds it.
 *
 * \param[in,out] path_checked_us  when the path was last checked
 * \return 0, or ESTALE
 */
int fm_state_lock_recheck(const char *dir, int fd, bool by_path, uint64_t now_us,
                          uint64_t *path_checked_us);

/*! \brief Release the lock: empty the file (a clean stop) and close \p fd. */
void fm_state_unlock(int fd);

/*!
 * \brief Who holds DIR/lock.
 * \param[out] pid      as for fm_state_lock()'s holder_pid
 * \param[out] is_loop  whether the holder is a faultmon loop (may be NULL)
 * \return true when the lock is held
 */
bool fm_state_lock_holder(const char *dir, int64_t *pid, bool *is_loop);

/*! \brief The PID of the loop holding the lock of \p dir; 0 when none runs. */
int64_t fm_state_loop_pid(const char *dir);

/*!
 * \brief The PID of a loop that died without stopping cleanly (crash,
 *        SIGKILL): left in an unlocked DIR/lock; 0 when there is none.
 */
int64_t fm_state_loop_died(const char *dir);

#endif
