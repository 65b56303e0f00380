/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a probe's result while it runs: cleared when it starts, and the
 * time it spends in each phase (enum fm_probe_phase, for the metrics).
 *
 * The phases cost no more than a clock read when a probe changes step (and
 * the one the verdict takes anyway): the time since the last change goes to
 * the step being left, so that the phases add up to the probe's latency,
 * never more.  No allocation, no system call but clock_gettime's.
 */
#include <config.h>

#include <faultmon/clock.h>
#include "probe_int.h"

/* The phase the time of a step counts to; FM_PHASE__COUNT for none. */
static enum fm_probe_phase
step_phase(enum fm_step step)
{
    switch (step) {
        case FM_STEP_RESOLVE: return FM_PHASE_RESOLVE;
        case FM_STEP_CONNECT: return FM_PHASE_CONNECT;
        case FM_STEP_TLS:     return FM_PHASE_TLS;
        case FM_STEP_SEND:    return FM_PHASE_REQUEST;
        case FM_STEP_READ:    return FM_PHASE_REPLY;
        default:              return FM_PHASE__COUNT;
    }
}

void
fm_conn_result_begin(struct fm_conn *conn, uint64_t now_us)
{
    struct fm_result *r = conn->result;

    r->reason = FM_REASON_OK;
    r->http_status = 0;
    r->sys_errno = 0;
    r->latency_us = 0;
    r->detail[0] = '\0';
    for (size_t i = 0; i < FM_PHASE__COUNT; i++) {
        r->phase_us[i] = 0;
    }
    r->phases = 0;
    /* The probe's latency counts from its deadline's start: so do the
     * phases (the same instant, fm_conn_begin()'s now). */
    conn->phase_mark_us = now_us;
}

void
fm_conn_phase_mark(struct fm_conn *conn, uint64_t now_us)
{
    enum fm_probe_phase phase = step_phase(conn->step);

    if (phase == FM_PHASE__COUNT) {
        return;
    }
    if (now_us > conn->phase_mark_us) {
        conn->result->phase_us[phase] += now_us - conn->phase_mark_us;
    }
    conn->result->phases |= 1u << phase;
    conn->phase_mark_us = now_us;
}

void
fm_conn_step(struct fm_conn *conn, enum fm_step step)
{
    if (step == conn->step) {
        return;     /* the next address, the next line: the same phase */
    }
    /* Leaving IDLE charges nothing: the (synchronous, instant) way from the
     * start to the first step goes to the first phase, without a read. */
    if (step_phase(conn->step) != FM_PHASE__COUNT) {
        fm_conn_phase_mark(conn, fm_now_us());
    }
    conn->step = step;
}
