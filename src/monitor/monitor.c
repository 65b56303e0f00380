/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the monitor (see faultmon/monitor.h): summary, decision, state
 * and what to do, for every outcome the loop learns of.  No clock is read
 * and no file is touched here: the caller passes the time in and carries
 * the answer out.
 */
#include <config.h>

#include <faultmon/monitor.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include <faultmon/recovery.h>
#include <faultmon/summary.h>
#include <faultmon/target.h>

#include "monitor_int.h"

static void __attribute__((format(printf, 3, 4)))
out_log(struct fm_monitor_out *out, int priority, const char *fmt, ...)
{
    va_list ap;

    if (out->n_logs == FM_MONITOR_LOGS_MAX) {
        return;
    }
    out->logs[out->n_logs].priority = priority;
    va_start(ap, fmt);
    vsnprintf(out->logs[out->n_logs].text, sizeof(out->logs[0].text), fmt, ap);
    va_end(ap);
    out->n_logs++;
}

static bool
is_recovery(enum fm_action action)
{
    return action == FM_ACTION_RESTART || action == FM_ACTION_FAILOVER;
}

int
fm_monitor_init(struct fm_monitor *mon, const struct fm_decide_opts *opts, const char *resource,
                const char *kind, bool signal_pacemaker)
{
    memset(mon, 0, sizeof(*mon));
    mon->opts = opts;
    mon->signal_pacemaker = signal_pacemaker && !opts->publish_only;
    snprintf(mon->st.resource, sizeof(mon->st.resource), "%s", resource);
    snprintf(mon->st.kind, sizeof(mon->st.kind), "%s", kind);
    mon->st.probe_timeout_ms = opts->probe_timeout_ms;
    mon->st.pending = FM_ACTION_NONE;
    mon->logged_state = FM_STATE_UP;
    fm_history_buf_init(&mon->history, opts, kind, mon->signal_pacemaker);
    return fm_decide_new(opts, &mon->decide);
}

void
fm_monitor_clear(struct fm_monitor *mon)
{
    fm_decide_free(mon->decide);
    mon->decide = NULL;
}

int
fm_monitor_restore(struct fm_monitor *mon, const struct fm_run_state *old, uint64_t now_us,
                   char *err, size_t err_len)
{
    if (fm_decide_import(mon->decide, &old->decide, now_us, err, err_len) != 0) {
        return EINVAL;
    }
    mon->st.n_records = old->n_records;
    memcpy(mon->st.records, old->records, sizeof(old->records));
    /* Counters go on counting: a loop's restart is no reset to Prometheus. */
    memcpy(mon->st.decisions, old->decisions, sizeof(old->decisions));
    mon->carried.n = old->n_targets;
    for (size_t i = 0; i < old->n_targets && i < FM_STATE_MAX_TARGETS; i++) {
        memcpy(mon->carried.targets[i].target, old->targets[i].target, sizeof(old->targets[i].target));
        memcpy(mon->carried.targets[i].failures, old->targets[i].failures, sizeof(old->targets[i].failures));
        mon->carried.targets[i].source = old->targets[i].source;
    }
    /* A restart we asked for has happened if we are starting again. */
    mon->verify_restart = (old->pending == FM_ACTION_RESTART);
    /* The story goes on from where the earlier loop left it. */
    mon->logged_state = old->state;
    mon->history.restored = true;
    return 0;
}

void
fm_monitor_reported(struct fm_monitor *mon)
{
    mon->recovery_reported = true;
}

/* What the agents and `faultmon status` act on, out of the state.  The
 * engine's clocks move and ok_streak grows every cycle; the reader takes
 * either as of the last write (a shorter streak only delays "up"). */
static void
take_shown(const struct fm_run_state *st, struct fm_monitor_shown *s)
{
    memset(s, 0, sizeof(*s));
    s->state = st->state;
    s->action = st->action;
    s->ocf_rc = st->ocf_rc;
    s->pending = st->pending;
    s->weight = st->weight;
    s->restarts_in_window = st->restarts_in_window;
    s->interval_ms = (int64_t) st->interval_ms;
    s->n_targets = (int64_t) st->n_targets;
    s->decide = st->decide;
    s->decide.clock_us = 0;
    s->decide.last_now_us = 0;
    s->decide.ok_streak = 0;
    for (size_t i = 0; i < st->n_targets && i < FM_STATE_MAX_TARGETS; i++) {
        s->targets[i].cls = (int32_t) st->targets[i].cls;
        s->targets[i].reason = (int32_t) st->targets[i].reason;
        s->targets[i].http_status = (int32_t) st->targets[i].http_status;
    }
    snprintf(s->reason, sizeof(s->reason), "%s", st->reason);
    snprintf(s->next_failure, sizeof(s->next_failure), "%s", st->next_failure);
}

/*
 * The state after an outcome, written when \p always, or when something
 * shown changed, or when the file is FM_RECOVERY_STATE_REFRESH_MS old (so
 * that a live loop never reads as stale).  A write costs more than an ok
 * cycle's probe (a new file, fsync, rename, the directory's fsync).
 */
static void
state_to_write(struct fm_monitor *mon, uint64_t now_us, int64_t now_wall_s, bool always,
               struct fm_monitor_out *out)
{
    struct fm_monitor_shown now_shown;

    fm_decide_export(mon->decide, &mon->st.decide);
    if (mon->st.pending == FM_ACTION_NONE) {
        mon->outage_pending = false;
        mon->recovery_reported = false;
    }
    take_shown(&mon->st, &now_shown);
    /* Nor when the history noted would no longer fit until the next one. */
    if (!always && mon->have_written && now_us - mon->written_us < FM_RECOVERY_STATE_REFRESH_MS * 1000u
        && mon->history.n + 8 < FM_HISTORY_BUF_RECORDS
        && now_us >= mon->written_us && memcmp(&now_shown, &mon->shown, sizeof(now_shown)) == 0) {
        mon->unwritten = true;
        return;
    }
    mon->st.updated_mono_us = now_us;
    mon->st.updated_wall_s = now_wall_s;
    mon->shown = now_shown;
    mon->written_us = now_us;
    mon->have_written = true;
    mon->unwritten = false;
    out->write_state = true;
}

void
fm_monitor_write_failed(struct fm_monitor *mon)
{
    mon->have_written = false;
    mon->unwritten = true;
}

void
fm_monitor_flush(struct fm_monitor *mon, uint64_t now_us, int64_t now_wall_s, struct fm_monitor_out *out)
{
    memset(out, 0, sizeof(*out));
    if (mon->unwritten) {
        state_to_write(mon, now_us, now_wall_s, true, out);
    }
}

/*
 * Every change of state, and every recovery decided (a second restart while
 * down is one too), is one notice line with its cause and reason, so that
 * the cluster's log tells an incident's story; a cycle that changes
 * nothing says nothing at this level.  The only place that tells of
 * transitions, in the manner of curl's mstate().
 */
static void
note_transition(struct fm_monitor *mon, const struct fm_decision *dec, const char *cause,
                struct fm_monitor_out *out)
{
    const char *asked = "";

    if (dec->state == mon->logged_state && !is_recovery(dec->action)) {
        return;
    }
    if (is_recovery(dec->action)) {
        asked = mon->opts->publish_only? ", unhealthy"
                : (dec->action == FM_ACTION_RESTART)? ", restart asked" : ", failover asked";
    }
    out_log(out, LOG_NOTICE, "state %s -> %s%s: %s%s%s", fm_state_name(mon->logged_state),
            fm_state_name(dec->state), asked, (cause != NULL)? cause : "", (cause != NULL)? ": " : "",
            dec->reason);
    mon->logged_state = dec->state;
    out->transition = true;
}

/* The current decision as the agent's monitor reports it. */
static void
set_decision(struct fm_monitor *mon, const struct fm_decision *dec, uint64_t now_us)
{
    struct fm_run_state *st = &mon->st;
    bool publish_only = mon->opts->publish_only;
    struct fm_decision next;

    st->state = dec->state;
    st->action = dec->action;
    st->weight = dec->weight;
    st->restarts_in_window = dec->restarts_in_window;
    st->interval_ms = dec->interval_ms;
    snprintf(st->reason, sizeof(st->reason), "%s", dec->reason);
    if (is_recovery(dec->action)) {
        st->decisions[dec->action]++;   /* the engine decides each once */
    }
    st->pending = fm_recovery_pending(st->pending, dec, publish_only);
    st->ocf_rc = fm_recovery_ocf_rc(st->pending, dec, publish_only);
    fm_decide_preview(mon->decide, now_us, FM_CLASS_COMPLETE, &next);
    snprintf(st->next_failure, sizeof(st->next_failure), "%s: %.200s",
             fm_action_word(next.action, publish_only), next.reason);
}

static void
add_record(struct fm_monitor *mon, enum fm_class verdict, uint64_t latency_us, enum fm_action action,
           int64_t now_wall_s)
{
    struct fm_run_state *st = &mon->st;
    struct fm_state_record *r = NULL;

    if (st->n_records == FM_STATE_MAX_RECORDS) {
        memmove(&st->records[0], &st->records[1], (FM_STATE_MAX_RECORDS - 1) * sizeof(st->records[0]));
        st->n_records--;
    }
    r = &st->records[st->n_records++];
    r->wall_s = now_wall_s;
    r->cls = verdict;
    r->latency_us = latency_us;
    r->action = action;
}

/* A recovery decided: ask the cluster (when \p may_request) and publish
 * its reason, or for httpmon only say that the agent publishes it. */
static void
act(struct fm_monitor *mon, const char *cause, const struct fm_decision *dec, bool may_request,
    struct fm_monitor_out *out)
{
    if (!is_recovery(dec->action)) {
        return;
    }
    if (may_request && mon->opts->publish_only) {
        out_log(out, LOG_WARNING, "unhealthy; the agent publishes it at its next monitor: %s", dec->reason);
        return;
    }
    if (may_request && mon->signal_pacemaker) {
        out->request = dec->action;
    }
    out->publish = true;
    snprintf(out->cause, sizeof(out->cause), "%s", (cause != NULL)? cause : "");
    snprintf(out->reason, sizeof(out->reason), "%s%s%s", (cause != NULL)? cause : "",
             (cause != NULL)? ": " : "", dec->reason);
}

/* The first failed target of the last cycle and why ("" when none). */
static void
first_failure(const struct fm_run_state *st, char *buf, size_t buf_len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < st->n_targets; i++) {
        const struct fm_state_target *t = &st->targets[i];

        if (t->cls == FM_CLASS_OK) {
            continue;
        }
        if (t->http_status != 0) {
            snprintf(buf, buf_len, "%s: %s, HTTP %d", t->target, fm_reason_name(t->reason), t->http_status);
        } else {
            snprintf(buf, buf_len, "%s: %s", t->target, fm_reason_name(t->reason));
        }
        return;
    }
}

/* The parameter a target came from, for the metrics' source label. */
static enum fm_state_source
target_source(const struct fm_target *target)
{
    if (target->dependency) {
        return FM_SOURCE_DEPENDENCY;
    }
    if (target->exec_argv != NULL) {
        return FM_SOURCE_COMMAND;
    }
    /* Only a Monitor_Uri_List entry is a GET (fm_target_parse()). */
    return (target->kind == FM_PROBE_GET)? FM_SOURCE_MONITOR_URI : FM_SOURCE_PORT_LIST;
}

/* A target new to the state (the loop's first cycle): its name, and the
 * failures an earlier loop counted for it (same text, same source), if any. */
static void
take_target(struct fm_monitor *mon, struct fm_state_target *t, const char *name,
            enum fm_state_source source)
{
    snprintf(t->target, sizeof(t->target), "%s", name);
    t->source = source;
    memset(t->failures, 0, sizeof(t->failures));
    for (size_t j = 0; j < mon->carried.n && j < FM_STATE_MAX_TARGETS; j++) {
        if (strcmp(mon->carried.targets[j].target, t->target) == 0
            && mon->carried.targets[j].source == source) {
            memcpy(t->failures, mon->carried.targets[j].failures, sizeof(t->failures));
            return;
        }
    }
}

/* What the metrics show of a probe (the failure counts are its state's).
 * Only what the reader accepts: a state it refused would be no verdict,
 * so phases longer than the probe (which the engine never gives) are
 * dropped, and so is a certificate that expired before 1970 (a peer can
 * present one; timegm() says -1 for one it cannot convert). */
static void
take_metrics(struct fm_state_target *t, const struct fm_result *r)
{
    uint64_t sum_us = 0;

    memset(t->phase_us, 0, sizeof(t->phase_us));
    t->phases = 0;
    for (size_t i = 0; i < FM_PHASE__COUNT; i++) {
        if ((r->phases & (1u << i)) != 0) {
            if (r->phase_us[i] > t->latency_us - sum_us) {
                memset(t->phase_us, 0, sizeof(t->phase_us));
                t->phases = 0;
                break;
            }
            sum_us += r->phase_us[i];
            t->phase_us[i] = r->phase_us[i];
            t->phases |= 1u << i;
        }
    }
    t->cert_not_after = (r->cert_not_after > 0)? r->cert_not_after : 0;
    if (t->cls != FM_CLASS_OK) {
        t->failures[t->cls]++;
    }
}

/* The cycle's results into the state's targets and the engine's input. */
static void
take_results(struct fm_monitor *mon, const struct fm_monitor_cycle *cycle, struct fm_decide_input *in)
{
    struct fm_run_state *st = &mon->st;
    struct fm_cycle_summary sum;

    fm_cycle_summarize(cycle->results, cycle->n, cycle->now_wall_s, &sum);
    st->n_targets = (cycle->n < FM_STATE_MAX_TARGETS)? cycle->n : FM_STATE_MAX_TARGETS;
    for (size_t i = 0; i < st->n_targets; i++) {
        const struct fm_result *r = &cycle->results[i];
        struct fm_state_target *t = &st->targets[i];

        char name[sizeof(t->target)];

        snprintf(name, sizeof(name), "%s", r->target->text);
        if (strcmp(t->target, name) != 0 || t->source != target_source(r->target)) {
            take_target(mon, t, name, target_source(r->target));
        }
        t->cls = fm_result_class(r);
        t->reason = r->reason;
        t->http_status = r->http_status;
        t->latency_us = r->latency_us;
        take_metrics(t, r);
    }
    in->cls = sum.worst;
    in->latency_us = sum.max_latency_us;
    in->have_cert = sum.have_cert;
    in->cert_left_s = sum.cert_left_s;
    in->maintenance = sum.n_maintenance;
    in->n_targets = sum.n_service;
    in->n_failed = sum.n_failed;
    /* Only successful probes say how fast the service is. */
    in->have_latency = (sum.worst == FM_CLASS_OK);
}

/* The cluster is carrying out the recovery of this outage: a failed cycle
 * is the same failure again, not a new one.  (Without a cluster nobody
 * does, and failures while down count as usual.)  A recovery the
 * controller did not take (a Pacemaker Remote node, whose request it
 * refuses) stands until the agent's next monitor reports it, even when the
 * service answers again meanwhile: as on a cluster node, where it is
 * carried out at once, a decided recovery is carried out. */
static bool
cycle_under_way(struct fm_monitor *mon, const struct fm_monitor_cycle *cycle,
                const struct fm_decide_input *in, struct fm_monitor_out *out)
{
    if (!mon->signal_pacemaker || !mon->outage_pending || mon->st.pending == FM_ACTION_NONE
        || (in->cls == FM_CLASS_OK && mon->recovery_reported)) {
        return false;
    }
    add_record(mon, in->cls, in->latency_us, FM_ACTION_NONE, cycle->now_wall_s);
    fm_monitor_note(mon, FM_HISTORY_CYCLE, in, FM_ACTION_NONE, FM_HISTORY_F_UNSEEN, cycle->now_us,
                    cycle->now_wall_s);
    state_to_write(mon, cycle->now_us, cycle->now_wall_s, in->cls != FM_CLASS_OK, out);
    out_log(out, LOG_INFO, "cycle %s while the %s %s", fm_class_name(in->cls), fm_action_name(mon->st.pending),
            mon->recovery_reported? "asked is under way" : "decided stands until Pacemaker acts on it");
    out->next_cycle_ms = mon->st.interval_ms;
    return true;
}

void
fm_monitor_cycle_done(struct fm_monitor *mon, const struct fm_monitor_cycle *cycle,
                      struct fm_monitor_out *out)
{
    struct fm_decide_input in = { .cls = FM_CLASS_PARTIAL };

    if (cycle->start_error == NULL) {
        take_results(mon, cycle, &in);
    }
    /* What the clients got counts for the whole service: every target. */
    if (cycle->access_log != NULL && in.cls == FM_CLASS_OK) {
        in.cls = FM_CLASS_PARTIAL;
        in.n_failed = in.n_targets;
    }
    fm_monitor_input_done(mon, cycle, &in, out);
}

void
fm_monitor_input_done(struct fm_monitor *mon, const struct fm_monitor_cycle *cycle,
                      const struct fm_decide_input *given, struct fm_monitor_out *out)
{
    struct fm_decide_input in = *given;
    struct fm_decision dec;
    char cause[FM_MONITOR_CAUSE_MAX] = "";
    uint64_t elapsed_ms = 0;

    memset(out, 0, sizeof(*out));
    mon->st.cycles++;
    if (cycle->start_error != NULL) {
        out_log(out, LOG_ERR, "cannot start a probe cycle (%s): counted as a partial failure",
                cycle->start_error);
        snprintf(cause, sizeof(cause), "the probe cycle could not start: %s", cycle->start_error);
    }
    in.observer_impaired = cycle->observer_impaired;
    in.dependency_everywhere = cycle->dependency_everywhere;
    in.dependency_here = cycle->dependency_here;
    in.overloaded = cycle->overloaded;
    if (cycle_under_way(mon, cycle, &in, out)) {
        return;
    }
    /* A failed restart fails over at once, unless this node's own verdict
     * is suspect, or a dependency down with no node known where it is up
     * explains it (a failover could not help): then the engine's rules,
     * which hold it back. */
    if (mon->verify_restart && in.cls == FM_CLASS_COMPLETE
        && (in.observer_impaired == NULL || in.observer_impaired[0] == '\0')
        && (in.dependency_everywhere == NULL || in.dependency_everywhere[0] == '\0')) {
        fm_decide_restart_failed(mon->decide, cycle->now_us, &dec);
    } else {
        fm_decide_cycle(mon->decide, cycle->now_us, &in, &dec);
    }
    mon->verify_restart = false;
    set_decision(mon, &dec, cycle->now_us);
    add_record(mon, in.cls, in.latency_us, dec.action, cycle->now_wall_s);
    fm_monitor_note(mon, FM_HISTORY_CYCLE, &in, dec.action,
                    (cycle->start_error != NULL)? FM_HISTORY_F_START_ERROR : 0, cycle->now_us, cycle->now_wall_s);
    if (is_recovery(dec.action)) {
        mon->outage_pending = true;
    }
    state_to_write(mon, cycle->now_us, cycle->now_wall_s, false, out);
    out->watch = true;
    if (dec.action != FM_ACTION_NONE || in.cls != FM_CLASS_OK) {
        out_log(out, LOG_INFO, "cycle %s, state %s, action %s: %s", fm_class_name(in.cls),
                fm_state_name(dec.state), fm_action_word(dec.action, mon->opts->publish_only), dec.reason);
    }
    if (cause[0] == '\0') {
        first_failure(&mon->st, cause, sizeof(cause));
    }
    if (cause[0] == '\0' && cycle->access_log != NULL) {
        snprintf(cause, sizeof(cause), "%s", cycle->access_log);
        out_log(out, LOG_WARNING, "%s: a partial failure", cycle->access_log);
    }
    note_transition(mon, &dec, (cause[0] != '\0')? cause : NULL, out);
    act(mon, (cause[0] != '\0')? cause : NULL, &dec, true, out);
    elapsed_ms = (cycle->now_us > cycle->start_us)? (cycle->now_us - cycle->start_us) / 1000u : 0;
    out->next_cycle_ms = (dec.interval_ms > elapsed_ms)? dec.interval_ms - elapsed_ms : 0;
}

void
fm_monitor_event(struct fm_monitor *mon, const char *cause, bool agent_answers, uint64_t now_us,
                 int64_t now_wall_s, struct fm_monitor_out *out)
{
    struct fm_decide_input ev = { .cls = FM_CLASS_COMPLETE };
    struct fm_decision dec;

    memset(out, 0, sizeof(*out));
    if (mon->st.pending != FM_ACTION_NONE && mon->outage_pending) {
        /* Counted already.  When our fail request reported it, the agent's
         * monitor answers "under way" instead of the decision: Pacemaker
         * has this outage.  Otherwise its answer is the report. */
        out->event_same = agent_answers && mon->recovery_reported;
        fm_monitor_note(mon, FM_HISTORY_EVENT, NULL, FM_ACTION_NONE,
                        FM_HISTORY_F_UNSEEN | (agent_answers? FM_HISTORY_F_AUX : 0), now_us, now_wall_s);
        out_log(out, LOG_INFO, "%s: the %s %s (same outage)", cause, fm_action_name(mon->st.pending),
                agent_answers? "decided is pending" : "asked is under way");
        return;
    }
    fm_decide_cycle(mon->decide, now_us, &ev, &dec);
    set_decision(mon, &dec, now_us);
    add_record(mon, FM_CLASS_COMPLETE, 0, dec.action, now_wall_s);
    fm_monitor_note(mon, FM_HISTORY_EVENT, NULL, dec.action, agent_answers? FM_HISTORY_F_AUX : 0, now_us,
                    now_wall_s);
    /* One outage, one failure, whoever reports it next. */
    mon->outage_pending = is_recovery(dec.action);
    state_to_write(mon, now_us, now_wall_s, true, out);
    out_log(out, LOG_INFO, "%s%s: state %s, action %s: %s", agent_answers? "monitor found " : "", cause,
            fm_state_name(dec.state), fm_action_name(dec.action), dec.reason);
    note_transition(mon, &dec, cause, out);
    act(mon, cause, &dec, !agent_answers, out);
}

int
fm_monitor_resume(struct fm_monitor *mon, uint64_t now_us, int64_t now_wall_s, struct fm_monitor_out *out)
{
    struct fm_decision dec;

    memset(out, 0, sizeof(*out));
    if (fm_decide_resume(mon->decide, now_us, &dec) != 0) {
        /* Noted all the same: a replay with manual_resume may be held.
         * The history goes out with the state: at the latest at stop. */
        fm_monitor_note(mon, FM_HISTORY_RESUME, NULL, FM_ACTION_NONE, 0, now_us, now_wall_s);
        mon->unwritten = true;
        return EALREADY;
    }
    mon->st.pending = FM_ACTION_NONE;
    set_decision(mon, &dec, now_us);
    fm_monitor_note(mon, FM_HISTORY_RESUME, NULL, FM_ACTION_NONE, 0, now_us, now_wall_s);
    state_to_write(mon, now_us, now_wall_s, true, out);
    /* Held is a state of its own: a resume always leaves it. */
    note_transition(mon, &dec, "faultmon resume", out);
    return 0;
}

int
fm_monitor_reset(struct fm_monitor *mon, uint64_t now_us, int64_t now_wall_s, struct fm_monitor_out *out)
{
    struct fm_decide *fresh = NULL;
    struct fm_decision dec;

    memset(out, 0, sizeof(*out));
    fm_decide_export(mon->decide, &mon->st.decide);
    if (mon->st.decide.held != 0) {
        fm_monitor_note(mon, FM_HISTORY_RESET, NULL, FM_ACTION_NONE, 0, now_us, now_wall_s);
        mon->unwritten = true;
        out_log(out, LOG_NOTICE, "held for manual resume; a reset keeps the hold (faultmon resume)");
        return EBUSY;
    }
    if (fm_decide_new(mon->opts, &fresh) != 0) {
        out_log(out, LOG_ERR, "cannot reset the history: out of memory");
        return ENOMEM;
    }
    fm_decide_free(mon->decide);
    mon->decide = fresh;
    mon->st.pending = FM_ACTION_NONE;
    mon->outage_pending = false;
    mon->recovery_reported = false;
    mon->verify_restart = false;
    fm_decide_status(mon->decide, now_us, &dec);
    snprintf(dec.reason, sizeof(dec.reason), "history and decision reset");
    set_decision(mon, &dec, now_us);
    fm_monitor_note(mon, FM_HISTORY_RESET, NULL, FM_ACTION_NONE, 0, now_us, now_wall_s);
    state_to_write(mon, now_us, now_wall_s, true, out);
    note_transition(mon, &dec, "cleanup or faultmon reset", out);
    if (!out->transition) {
        out_log(out, LOG_NOTICE, "failure history and decision reset (cleanup or faultmon reset)");
    }
    return 0;
}
