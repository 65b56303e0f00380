/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the cycle history of a resource, DIR/history and DIR/history.1,
 * that `faultmon simulate --replay` runs through the decision engine again
 * with other parameters.
 *
 * One fixed-size binary record per outcome the monitor hands the engine (a
 * probe cycle, a watched-process exit or the agent's event, a resume, a
 * reset), plus a record where a loop starts and one where the peer
 * certificate's day count changes.  The monitor notes records in memory
 * (struct fm_history_buf, no I/O); the loop appends them in one write
 * whenever it writes its state (at most every 10 s, at every change, before
 * a recovery is asked, at stop).  The codec below is pure, so that a
 * hostile file is judged by functions the unit tests and a fuzzer call.
 *
 * File: a 32-byte header, then records of FM_HISTORY_REC_BYTES, all numbers
 * little-endian:
 *
 *   header  0  8  magic "\x89" "FMHIST\n"
 *           8  2  version (1)
 *          10  2  record size (16)
 *          12  4  reserved, 0
 *          16  8  mono_base_ms: CLOCK_MONOTONIC (ms) the offsets count from
 *          24  8  created_wall_s: CLOCK_REALTIME when the file was made
 *   record  0  4  wall_s (CLOCK_REALTIME, s; for people and --since)
 *           4  4  mono offset (ms) from mono_base_ms, never decreasing
 *           8  4  value: an ok cycle's latency (µs, saturated); a failed
 *                 cycle's failed targets; a CERT record's seconds to the
 *                 certificate's expiry (int32); a LOOP_START record's
 *                 parameters hash (fm_history_params_hash())
 *          12  2  bits 0-10 targets of the cycle, bits 11-15 targets that
 *                 signal maintenance (saturated at 31)
 *          14  1  bits 0-2 kind, 3-4 class, 5-6 action decided, 7 latency
 *                 present
 *          15  1  bits 0-2 state after, 3 observer impaired, 4 the cycle
 *                 could not start, 5 not seen by the engine (a recovery
 *                 was under way, or the same outage), 6 kind-specific
 *                 (event: the agent's monitor found it; loop start: the
 *                 earlier loop's history was restored), 7 reserved, 0
 *
 * Each file holds at most FM_HISTORY_FILE_RECORDS records (7 days at a 2 s
 * interval); the writer then renames `history` to `history.1` and starts a
 * new one, so the pair holds 7 to 14 days: at most 2 x 4 838 432 bytes.
 */
#ifndef FAULTMON_HISTORY_H
#define FAULTMON_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <faultmon/decide.h>

#define FM_HISTORY_VERSION 1
#define FM_HISTORY_HEADER_BYTES 32
#define FM_HISTORY_REC_BYTES 16
#define FM_HISTORY_FILE_RECORDS UINT64_C(302400)    /* 7 d at one cycle per 2 s */
#define FM_HISTORY_FILE_MAX_BYTES \
    (FM_HISTORY_HEADER_BYTES + FM_HISTORY_FILE_RECORDS * FM_HISTORY_REC_BYTES)
#define FM_HISTORY_MAX_TARGETS 2047
#define FM_HISTORY_MAX_MAINTENANCE 31
/* Records noted between two writes of the state: the state is written at
 * least every 10 s, and a cycle takes at least 100 ms (the shortest
 * interval), so about 100 cycles, with a certificate record each at most. */
#define FM_HISTORY_BUF_RECORDS 256

#define FM_HISTORY_NAME "history"
#define FM_HISTORY_OLD_NAME "history.1"
#define FM_HISTORY_PARAMS_NAME "history.params"
#define FM_HISTORY_PARAMS_HEADER "faultmon-history-params 1"
#define FM_HISTORY_PARAMS_MAX 2048

enum fm_history_kind {
    FM_HISTORY_CYCLE = 0,       /* a probe cycle (or one that could not start) */
    FM_HISTORY_EVENT,           /* a complete failure found outside a cycle */
    FM_HISTORY_RESUME,          /* `faultmon resume` */
    FM_HISTORY_RESET,           /* `faultmon reset`, or a cleanup */
    FM_HISTORY_LOOP_START,      /* a loop started here */
    FM_HISTORY_CERT,            /* the certificate's day count changed */
};

#define FM_HISTORY_F_IMPAIRED 0x08u
#define FM_HISTORY_F_START_ERROR 0x10u
#define FM_HISTORY_F_UNSEEN 0x20u
#define FM_HISTORY_F_AUX 0x40u

/* One record, decoded. */
struct fm_history_rec {
    uint32_t wall_s;
    uint64_t mono_ms;               /* absolute: the file's base plus offset */
    uint32_t value;
    uint16_t n_targets;
    uint8_t maintenance;
    enum fm_history_kind kind;
    enum fm_class cls;
    enum fm_action action;
    bool have_latency;
    enum fm_state state;
    unsigned int flags;             /* FM_HISTORY_F_* */
};

struct fm_history_header {
    uint64_t mono_base_ms;
    int64_t created_wall_s;
};

/* The records a monitor noted and the loop has not written yet. */
struct fm_history_buf {
    size_t n;
    struct fm_history_rec recs[FM_HISTORY_BUF_RECORDS];
    uint64_t dropped;               /* noted with the buffer full */
    bool started;                   /* the loop-start record is noted */
    bool restored;                  /* the loop restored an earlier history */
    bool have_cert_days;
    int64_t cert_days;              /* as of the last CERT record */
    uint32_t params_hash;
    char params[FM_HISTORY_PARAMS_MAX];     /* history.params, as written */
    /* The writer's (src/run/run_history.c). */
    bool params_written;
    int last_error;                 /* said once, until a write succeeds */
};

/* ---- the codec (pure) ---- */

/*! \brief The 32-byte header of a new file. */
void fm_history_header_encode(uint8_t *out, uint64_t mono_base_ms, int64_t created_wall_s);

/*!
 * \brief Judge a header.
 * \return 0, or EINVAL with err "bad magic", "version N, not 1", ...
 */
int fm_history_header_decode(const uint8_t *in, size_t len, struct fm_history_header *h,
                             char *err, size_t err_len);

/*!
 * \brief Encode one record of a file whose base is \p base_ms.
 * \return 0, or ERANGE when \p r is before the base or 2^32 ms after it
 *         (the writer starts a new file then)
 */
int fm_history_rec_encode(const struct fm_history_rec *r, uint64_t base_ms, uint8_t *out);

/*!
 * \brief Decode and judge one record: every field in range and consistent
 *        with its kind (a latency only on an ok cycle, no failed targets on
 *        one, more failed targets than targets nowhere, reserved bits 0).
 * \return 0, or EINVAL with a short reason in \p err
 */
int fm_history_rec_decode(const uint8_t *in, uint64_t base_ms, struct fm_history_rec *r,
                          char *err, size_t err_len);

/* What fm_history_parse() skipped. */
struct fm_history_parse_stats {
    uint64_t records;               /* accepted */
    uint64_t bad;                   /* skipped: out of range, or time going back */
    size_t trailing_bytes;          /* of a truncated last record, ignored */
    char first_bad[160];            /* "record N: why" of the first bad one */
};

typedef void (*fm_history_rec_fn)(const struct fm_history_rec *r, void *data);

/*!
 * \brief Judge a whole history file and hand each good record to \p fn.
 *
 * The header must be good (else EINVAL and nothing is handed on); a record
 * that is out of range or earlier than the one before is skipped and
 * counted; a truncated last record is ignored and counted.  Never reads
 * beyond \p len.
 *
 * \return 0 or EINVAL (err: why the header is refused)
 */
int fm_history_parse(const uint8_t *buf, size_t len, fm_history_rec_fn fn, void *data,
                     struct fm_history_parse_stats *stats, char *err, size_t err_len);

/*!
 * \brief Whether a file of \p file_bytes (header included) with base
 *        \p base_ms must be rotated before \p n_new records ending at
 *        \p last_mono_ms and starting at \p first_mono_ms are appended: it
 *        would exceed FM_HISTORY_FILE_RECORDS, or a record would not fit
 *        its 32-bit offset (before the base: another boot's clock).
 */
bool fm_history_must_rotate(uint64_t file_bytes, uint64_t base_ms, size_t n_new,
                            uint64_t first_mono_ms, uint64_t last_mono_ms);

/* ---- the monitor's side (pure) ---- */

/*!
 * \brief Set up an empty buffer, with the text of history.params: the kind,
 *        whether recoveries are asked of the cluster, and every decision
 *        parameter (fm_decide_opts_format()).
 */
void fm_history_buf_init(struct fm_history_buf *b, const struct fm_decide_opts *opts, const char *kind,
                         bool cluster);

/*! \brief Note a record (dropped and counted when the buffer is full). */
void fm_history_note(struct fm_history_buf *b, const struct fm_history_rec *r);

/*! \brief FNV-1a of the parameters' text, which LOOP_START records carry. */
uint32_t fm_history_params_hash(const char *text);

/*!
 * \brief Read history.params' text back into options, as the loop ran.
 * \param[out] cluster  whether the loop asked the cluster for recoveries
 * \return 0, or EINVAL with err saying which line is wrong
 */
int fm_history_params_parse(const char *text, size_t len, struct fm_decide_opts *opts, bool *cluster,
                            char *err, size_t err_len);

#endif
