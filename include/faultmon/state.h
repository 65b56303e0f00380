/*
 * faultmon: the run loop's state directory, /run/faultmon/RESOURCE/.
 *
 * The loop (`faultmon run`) is the only writer of `state`; every write is
 * atomic (write to a temporary file, fsync, rename), so a reader sees either
 * the old or the new file, whole.  The format is line-based text, one
 * "key=value" per line, between a "faultmon-state 1" header and an "end"
 * trailer, so that a truncated or foreign file is recognised and set aside
 * instead of being believed.
 *
 * Files in the directory (mode 0700):
 *   state        the loop's state (this header's struct), written after each
 *                cycle; its one other writer is the apache agent's start,
 *                which, while no loop runs, rewrites it once to clear
 *                pending=failover after refusing to start on this node
 *   pid          the loop's PID (written by the loop at start)
 *   resume       present when an administrator asked to resume a held service
 *   agent        the agent's record of the service it started (written by
 *                start, removed by stop; see agents/)
 *   httpd.pid    httpd's PID when the Apache configuration names no PidFile
 *   .*.tmp       files being written, renamed into place when complete
 *   *.bad        a state file that failed to parse, set aside for inspection
 */
#ifndef FAULTMON_STATE_H
#define FAULTMON_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <faultmon/decide.h>
#include <faultmon/result.h>

#define FM_STATE_FORMAT_VERSION 1
#define FM_STATE_MAX_TARGETS 64
#define FM_STATE_MAX_RECORDS 50
#define FM_STATE_TEXT_MAX 256
#define FM_RESOURCE_NAME_MAX 64

/* The last result of one target. */
struct fm_state_target {
    char target[FM_STATE_TEXT_MAX];
    enum fm_class cls;
    enum fm_reason reason;
    int http_status;
    uint64_t latency_us;
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

    /* The current decision, as the agent's monitor reports it. */
    enum fm_state state;
    enum fm_action action;          /* of the last cycle */
    int ocf_rc;                     /* fm_decide_ocf_rc() of the current state */
    char reason[FM_DECIDE_REASON_MAX];
    enum fm_action pending;         /* recovery asked and not yet carried out */
    uint32_t weight;
    uint32_t restarts_in_window;
    char next_failure[FM_DECIDE_REASON_MAX];  /* what the next failure would cause */

    struct fm_decide_state decide;

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
 * \brief Write DIR/NAME atomically: a temporary file filled by \p write_fn,
 *        fsync, rename over NAME, fsync of DIR.  Readers see the old file or
 *        the new one, whole.
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
 * \brief Read and validate `state`.
 * \return 0; ENOENT when there is none; EINVAL when it is corrupt, truncated
 *         or foreign (err names the line)
 */
int fm_state_read(const char *dir, struct fm_run_state *st, char *err, size_t err_len);

/*!
 * \brief Move a bad state file aside as state.<wall-time>.bad, keeping the
 *        evidence, so that a fresh state can replace it.
 */
int fm_state_set_aside(const char *dir);

/*! \brief Read the loop's PID from `pid`; 0 if absent or not a live faultmon. */
int64_t fm_state_loop_pid(const char *dir);

#endif
