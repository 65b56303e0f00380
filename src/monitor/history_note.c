/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what the monitor notes in the cycle history (faultmon/history.h)
 * for each outcome it hands the engine: the engine's input, as the replay
 * will hand it again, and the decision, as the replay will compare it.
 * Memory only; the loop writes the records with its state.
 */
#include <config.h>

#include <string.h>

#include <faultmon/history.h>
#include <faultmon/monitor.h>

#include "monitor_int.h"

#define S_PER_DAY INT64_C(86400)

static uint32_t
clamp_u32(uint64_t v)
{
    return (v > UINT32_MAX)? UINT32_MAX : (uint32_t) v;
}

/* Days to the certificate's expiry, rounded down: the engine compares
 * cert_left_s with whole days, so a record per change of this number tells
 * it all it needs. */
static int64_t
cert_days(int64_t left_s)
{
    return (left_s >= 0)? left_s / S_PER_DAY : -((-left_s + S_PER_DAY - 1) / S_PER_DAY);
}

/* The records that go before an outcome's: where the loop started (once),
 * and the certificate's seconds when its day count changed. */
static void
note_context(struct fm_monitor *mon, const struct fm_history_rec *base, const struct fm_decide_input *in)
{
    struct fm_history_buf *b = &mon->history;
    struct fm_history_rec r = *base;

    r.cls = FM_CLASS_OK;
    r.action = FM_ACTION_NONE;
    r.state = FM_STATE_UP;
    r.flags = 0;
    if (!b->started) {
        r.kind = FM_HISTORY_LOOP_START;
        r.value = b->params_hash;
        r.flags = b->restored? FM_HISTORY_F_AUX : 0;
        fm_history_note(b, &r);
        b->started = true;
        r.flags = 0;
    }
    if (in != NULL && in->have_cert && (!b->have_cert_days || cert_days(in->cert_left_s) != b->cert_days)) {
        int64_t s = in->cert_left_s;

        s = (s > INT32_MAX)? INT32_MAX : (s < INT32_MIN)? INT32_MIN : s;
        r.kind = FM_HISTORY_CERT;
        r.value = (uint32_t) (int32_t) s;
        fm_history_note(b, &r);
        b->have_cert_days = true;
        b->cert_days = cert_days(in->cert_left_s);
    }
}

void
fm_monitor_note(struct fm_monitor *mon, enum fm_history_kind kind, const struct fm_decide_input *in,
                enum fm_action action, unsigned int flags, uint64_t now_us, int64_t now_wall_s)
{
    struct fm_history_rec r;

    memset(&r, 0, sizeof(r));
    r.wall_s = (now_wall_s < 0)? 0 : clamp_u32((uint64_t) now_wall_s);
    r.mono_ms = now_us / 1000u;
    note_context(mon, &r, in);
    r.kind = kind;
    r.cls = (kind == FM_HISTORY_EVENT)? FM_CLASS_COMPLETE : FM_CLASS_OK;
    if (kind == FM_HISTORY_CYCLE && in != NULL) {
        r.cls = in->cls;
        r.n_targets = (uint16_t) ((in->n_targets > FM_HISTORY_MAX_TARGETS)? FM_HISTORY_MAX_TARGETS
                                  : in->n_targets);
        if (in->cls == FM_CLASS_OK) {
            r.maintenance = (uint8_t) ((in->maintenance > FM_HISTORY_MAX_MAINTENANCE)?
                                       FM_HISTORY_MAX_MAINTENANCE : in->maintenance);
            r.have_latency = in->have_latency;
            r.value = in->have_latency? clamp_u32(in->latency_us) : 0;
        } else {
            r.value = clamp_u32((in->n_failed < r.n_targets)? in->n_failed : r.n_targets);
        }
        if (in->observer_impaired != NULL && in->observer_impaired[0] != '\0') {
            flags |= FM_HISTORY_F_IMPAIRED;
        }
    }
    r.action = action;
    r.state = mon->st.state;
    r.flags = flags;
    fm_history_note(&mon->history, &r);
}
