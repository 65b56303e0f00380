/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FROZEN: a copy of src/core/state_metrics.c at 391a9ef (tests/unit/compat/state_v1_names.h).
 * faultmon: the state file's keys that only the metrics read (issue 14):
 *
 *   target.phases=RESOLVE CONNECT TLS REQUEST REPLY
 *       after a target line, the microseconds of each phase of its last
 *       probe, "-" for a phase it did not go through; their sum is at most
 *       the target's latency
 *   target.cert=UNIX_TIME
 *       after a target line, its leaf certificate's notAfter (> 0)
 *   target.failures=PARTIAL COMPLETE
 *       after a target line, its failed probes of each class
 *   decisions=RESTARTS FAILOVERS
 *       the recoveries the resource's loops decided
 *
 * Each is written only when it holds something, at most once (a target's
 * once per target), and read as strictly as the rest of the file: a key
 * before any target, twice, or with a value the writer never writes is
 * refused.  A file without them (the previous version's) reads as 0: no
 * phases, no certificate, no failures, no decisions.
 *
 * Here too, beside the keys that follow them: the check of the target lines
 * (and of the records) once the whole file is read.
 */
#include <config.h>

#include "state_v1_names.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <faultmon/parse.h>
#include <faultmon/text.h>

#include "state_v1_int.h"

/* The bits of struct fm_state_metrics_parse's seen. */
#define SEEN_PHASES (1u << 0)
#define SEEN_CERT (1u << 1)
#define SEEN_FAILURES (1u << 2)

void
fm_state_metrics_write(FILE *out, const struct fm_run_state *st)
{
    if (st->decisions[FM_ACTION_RESTART] != 0 || st->decisions[FM_ACTION_FAILOVER] != 0) {
        fprintf(out, "decisions=%" PRIu64 " %" PRIu64 "\n", st->decisions[FM_ACTION_RESTART],
                st->decisions[FM_ACTION_FAILOVER]);
    }
}

void
fm_state_metrics_write_target(FILE *out, const struct fm_state_target *t)
{
    if (t->phases != 0) {
        fputs("target.phases=", out);
        for (size_t i = 0; i < FM_PHASE__COUNT; i++) {
            if ((t->phases & (1u << i)) != 0) {
                fprintf(out, "%s%" PRIu64, (i > 0)? " " : "", t->phase_us[i]);
            } else {
                fprintf(out, "%s-", (i > 0)? " " : "");
            }
        }
        fputc('\n', out);
    }
    if (t->cert_not_after > 0) {         /* the reader takes no other */
        fprintf(out, "target.cert=%" PRId64 "\n", t->cert_not_after);
    }
    if (t->failures[FM_CLASS_PARTIAL] != 0 || t->failures[FM_CLASS_COMPLETE] != 0) {
        fprintf(out, "target.failures=%" PRIu64 " %" PRIu64 "\n", t->failures[FM_CLASS_PARTIAL],
                t->failures[FM_CLASS_COMPLETE]);
    }
}

static bool
parse_count(const char *text, uint64_t *out)
{
    return fm_parse_u64(text, 0, UINT64_MAX, FM_PARSE_CANONICAL, out) == 0;
}

/* RESOLVE CONNECT TLS REQUEST REPLY, each microseconds or "-"; not more in
 * all than the probe's latency (the engine's phases never are). */
static bool
parse_phases(char *value, struct fm_state_target *t)
{
    char *f[FM_PHASE__COUNT];
    uint64_t sum = 0;

    if (!fm_state_split_fields(value, f, FM_PHASE__COUNT, false)) {
        return false;
    }
    for (size_t i = 0; i < FM_PHASE__COUNT; i++) {
        if (strcmp(f[i], "-") == 0) {
            continue;
        }
        if (!parse_count(f[i], &t->phase_us[i]) || t->phase_us[i] > t->latency_us - sum) {
            return false;
        }
        sum += t->phase_us[i];
        t->phases |= 1u << i;
    }
    return t->phases != 0;
}

static bool
parse_pair(char *value, uint64_t *first, uint64_t *second)
{
    char *f[2];

    return fm_state_split_fields(value, f, 2, false) && parse_count(f[0], first)
           && parse_count(f[1], second);
}

/* A key of the target whose line came last. */
static const char *
target_entry(unsigned int bit, char *value, struct fm_run_state *st,
             struct fm_state_metrics_parse *mp)
{
    struct fm_state_target *t = NULL;
    int64_t not_after = 0;
    bool ok = false;

    if (st->n_targets == 0) {
        return "a target's key before any target";
    }
    if (mp->target != st->n_targets) {
        mp->target = st->n_targets;
        mp->seen = 0;
    }
    if ((mp->seen & bit) != 0) {
        return "a key given twice";
    }
    mp->seen |= bit;
    t = &st->targets[st->n_targets - 1];
    if (bit == SEEN_PHASES) {
        ok = parse_phases(value, t);
    } else if (bit == SEEN_CERT) {
        ok = fm_parse_i64(value, 1, INT64_MAX, FM_PARSE_CANONICAL, &not_after) == 0;
        t->cert_not_after = not_after;
    } else {
        ok = parse_pair(value, &t->failures[FM_CLASS_PARTIAL], &t->failures[FM_CLASS_COMPLETE]);
    }
    return ok? NULL : "unknown key or bad value";
}

const char *
fm_state_metrics_entry(const char *key, char *value, struct fm_run_state *st,
                       struct fm_state_metrics_parse *mp, bool *ours)
{
    *ours = true;
    if (strcmp(key, "target.phases") == 0) {
        return target_entry(SEEN_PHASES, value, st, mp);
    }
    if (strcmp(key, "target.cert") == 0) {
        return target_entry(SEEN_CERT, value, st, mp);
    }
    if (strcmp(key, "target.failures") == 0) {
        return target_entry(SEEN_FAILURES, value, st, mp);
    }
    if (strcmp(key, "decisions") == 0) {
        if (mp->decisions) {
            return "a key given twice";
        }
        mp->decisions = true;
        return parse_pair(value, &st->decisions[FM_ACTION_RESTART], &st->decisions[FM_ACTION_FAILOVER])?
               NULL : "unknown key or bad value";
    }
    *ours = false;
    return NULL;
}

int
fm_state_validate_targets(const struct fm_run_state *st, char *err, size_t err_len)
{
    if ((st->cycles == 0) != (st->n_targets == 0)) {
        return fm_errf(err, err_len, EINVAL, "%zu targets after %" PRIu64 " cycles", st->n_targets, st->cycles);
    }
    for (size_t i = 0; i < st->n_targets; i++) {
        const struct fm_state_target *t = &st->targets[i];

        if (t->target[0] == '\0' || t->cls != fm_reason_class(t->reason)
            || (t->http_status != 0 && t->http_status < 100)
            || (t->reason == FM_REASON_STATUS && t->http_status == 0)) {
            return fm_errf(err, err_len, EINVAL, "target %zu: class, reason and status do not agree", i + 1);
        }
    }
    for (size_t i = 0; i < st->n_records; i++) {
        if (st->records[i].wall_s < 0) {
            return fm_errf(err, err_len, EINVAL, "record %zu: negative time", i + 1);
        }
    }
    return 0;
}
