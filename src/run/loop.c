/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the fault-monitor loop of one resource, on one event loop
 * (include/faultmon/ev.h): probe, hand the outcome to the monitor
 * (src/monitor), carry its answer out, sleep the interval of the current
 * state.  The probes' sockets and timers are entries of the loop's own epoll
 * set (fm_probe_run_new_on()), so each wake-up is one epoll_wait, and one
 * timer of the loop's (the wait's timeout, src/run/timer.h) carries either
 * the next cycle or the running cycle's deadline.
 * This file is the wiring only (set-up, callbacks, the files and calls
 * asked for).
 *
 * Size: one concern, the loop's wiring: every callback of the main loop and
 * the order of a cycle; what it wires (args, attrs, jobs...) has its own files.
 */
#include <config.h>

#include "loop.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/commands.h>
#include <faultmon/log.h>
#include <faultmon/monitor.h>
#include <faultmon/pidfile.h>
#include <faultmon/pcmk.h>
#include <faultmon/probe.h>
#include <faultmon/recovery.h>
#include <faultmon/runconf.h>
#include <faultmon/state.h>

#include "args.h"
#include "observe.h"
#include "attrs.h"
#include "run_deps.h"
#include "run_overload.h"
#include "run_history.h"
#include "jobs.h"
#include "lock.h"
#include "request.h"
#include "timer.h"


static void loop_cycle_start(struct fm_loop *lp);
static void loop_dispatch(struct fm_loop *lp);

static void
loop_arm(struct fm_loop *lp, uint64_t delay_ms, void (*fn)(void *data))
{
    fm_run_timer_arm(&lp->timer, fm_now_us(), delay_ms, fn, lp);
}

static void
on_timer_cycle(void *data)
{
    loop_cycle_start(data);
}

static void
on_timer_deadline(void *data)
{
    loop_dispatch(data);
}

/* After a wake-up that had events of the probes' (or the status page's). */
static void
on_probe_ready(void *data)
{
    loop_dispatch(data);
}

/*
 * The state directory can be removed or replaced while the loop runs (by hand,
 * or a tmpfs cleaner).  A lock on a file nobody can reach would let a second
 * loop start beside this one: lock the new directory, or stop if another loop
 * has it.  The path is checked before a write, and at least every 5 s.
 */
static bool
loop_keep_lock(struct fm_loop *lp, bool writing)
{
    int64_t pid = 0;
    bool is_loop = false;
    int fd = -1;
    int rc = 0;

    if (fm_state_lock_recheck(lp->dir, lp->lock_fd, writing, fm_now_us(), &lp->lock_path_checked_us) == 0) {
        return true;
    }
    rc = fm_state_dir_create(lp->dir);
    if (rc == 0) {
        rc = fm_state_lock(lp->dir, &fd, &pid, &is_loop);
    }
    if (rc == 0) {
        fm_log_warn("%s: the state directory %s was removed or replaced; locked it again",
                    lp->resource, lp->dir);
        fm_state_unlock(lp->lock_fd);
        lp->lock_fd = fd;
        fm_run_write_pid_file(lp->dir);
        fm_monitor_write_failed(&lp->mon);      /* the new directory has none */
        return true;
    }
    if (rc == EBUSY) {
        fm_log_err("%s: the state directory was replaced and pid %lld holds its lock now; stopping",
                   lp->resource, (long long) pid);
        lp->exit_rc = fm_run_lock_busy(lp->resource, pid, is_loop);
    } else {
        fm_log_err("%s: the state directory %s was removed and cannot be locked again (%s); stopping",
                   lp->resource, lp->dir, strerror(rc));
        lp->exit_rc = 1;
    }
    fm_ev_stop(lp->loop);
    return false;
}

/* `reported` tells the agent's monitor that the cluster already knows of the
 * pending recovery, so that it does not report it again. */
static void
loop_sync_reported(struct fm_loop *lp)
{
    if (lp->mon.recovery_reported == lp->reported_file) {
        return;
    }
    fm_recovery_file_mark(lp->dir, FM_RECOVERY_REPORTED, lp->mon.recovery_reported);
    lp->reported_file = lp->mon.recovery_reported;
}

/* \return false when the loop lost its state directory and stops */
static bool
loop_write_state(struct fm_loop *lp)
{
    char err[512];

    if (!loop_keep_lock(lp, true)) {
        return false;
    }
    /* The agents believe only what the one reader accepts: a state of ours
     * it refuses would hide every verdict, so say so loudly. */
    if (fm_state_validate(&lp->mon.st, lp->resource, fm_now_us(), err, sizeof(err)) != 0) {
        fm_log_err("%s: bug: the state written now will read as no verdict: %s", lp->resource, err);
    }
    if (fm_state_write(lp->dir, &lp->mon.st, err, sizeof(err)) != 0) {
        fm_log_err("%s: %s", lp->resource, err);
        fm_monitor_write_failed(&lp->mon);
    }
    fm_run_history_write(&lp->mon.history, lp->dir, lp->resource);
    loop_sync_reported(lp);
    return true;
}

/* Write the cycles the monitor has not asked to write yet, if any. */
static bool
loop_flush(struct fm_loop *lp)
{
    struct fm_monitor_out out;

    fm_monitor_flush(&lp->mon, fm_now_us(), (int64_t) time(NULL), &out);
    return !out.write_state || loop_write_state(lp);
}

static void
on_jobs_idle(void *data)
{
    struct fm_loop *lp = data;

    fm_ev_stop(lp->loop);
}

/* Stop, the state file up to date with the last cycle, once the deletes of
 * the attributes have run (each under its short deadline). */
static void
loop_stop(struct fm_loop *lp)
{
    if (lp->stopping) {
        return;
    }
    loop_flush(lp);
    lp->stopping = true;
    fm_run_jobs_cancel_all(&lp->jobs);
    /* No loop, no verdict or view to show.  (A loop that lost its
     * directory to another does not come here: it leaves them to that
     * one.) */
    fm_run_attrs_remove(&lp->attrs);
    fm_run_deps_withdraw(&lp->deps);
    if (fm_run_jobs_busy(&lp->jobs)) {
        lp->jobs.idle = on_jobs_idle;
        lp->jobs.idle_data = lp;
    } else {
        fm_ev_stop(lp->loop);
    }
}

static int32_t
on_stop_signal(int32_t sig, void *data)
{
    struct fm_loop *lp = data;

    fm_log_notice("%s: stopping on signal %d", lp->resource, sig);
    loop_stop(lp);
    return 0;
}

/* The first half of the monitor's answer: the state, then the logs. */
bool
fm_run_loop_apply(struct fm_loop *lp, const struct fm_monitor_out *out)
{
    /* Every cycle, written or not: a loop whose directory was replaced
     * must not keep running beside the loop that locked the new one. */
    if (out->write_state) {
        if (!loop_write_state(lp)) {
            return false;
        }
    } else if (out->watch && (!loop_keep_lock(lp, false) || (!lp->mon.have_written && !loop_flush(lp)))) {
        return false;
    }
    if (out->watch) {
        fm_run_loop_watch(lp);
    }
    if (out->event_same) {
        fm_recovery_file_mark(lp->dir, FM_RECOVERY_EVENT_SAME, true);
    }
    for (size_t i = 0; i < out->n_logs; i++) {
        fm_log_msg(out->logs[i].priority, "%s: %s", lp->resource, out->logs[i].text);
    }
    return true;
}

/* The second half: recovery first, the explanations follow: the whole
 * reason where the administrator looks (the log has it in the transition
 * line), and the node attributes. */
void
fm_run_loop_act(struct fm_loop *lp, const struct fm_monitor_out *out)
{
    if (lp->stopping) {
        return;
    }
    /* A guard bans the guarded resource first: not ours to refuse a start. */
    if (out->request != FM_ACTION_NONE
        && !fm_run_request_start(&lp->request, out->request,
                                 out->request == FM_ACTION_FAILOVER && lp->rsc.guarded)) {
        fm_log_info("%s: the controller has the last request still: not asked again", lp->resource);
    }
    if (out->publish) {
        fm_run_observer_recovered(&lp->obs);   /* for the others' node budget */
        /* The agent's exit reasons (a refused start) lead with it. */
        if (out->cause[0] != '\0' && fm_recovery_write_cause(lp->dir, out->cause) != 0) {
            fm_log_warn("%s: cannot write %s/%s", lp->resource, lp->dir, FM_RECOVERY_CAUSE);
        }
        fm_run_attrs_reason(&lp->attrs, out->reason);
    }
    fm_run_attrs_publish(&lp->attrs, &lp->mon.st, fm_now_us());
}

/* The controller's answer to fm_run_loop_act()'s request, from its child. */
static void
on_request_done(void *data, int rc, const char *err)
{
    struct fm_loop *lp = data;

    if (rc != 0) {
        /* Without the cluster's environment the next monitor reports it. */
        fm_log_warn("%s: %s; the next monitor will report the failure", lp->resource, err);
        /* Refused (a Pacemaker Remote node): every recovery here waits for
         * the monitor; the agent's monitor tells the administrator, once a
         * loop, when its interval makes that wait long. */
        if (rc == EACCES && !lp->refused_noted) {
            lp->refused_noted = true;
            if (fm_recovery_file_mark(lp->dir, FM_RECOVERY_REFUSED, true) != 0) {
                fm_log_warn("%s: cannot write %s/%s", lp->resource, lp->dir, FM_RECOVERY_REFUSED);
            }
        }
        return;
    }
    fm_monitor_reported(&lp->mon);
    loop_sync_reported(lp);
    /* The agent's next start sets Pacemaker's fail-count from it, since
     * the controller counts such a request once or twice. */
    if (fm_recovery_note_asked(lp->dir, (int64_t) time(NULL),
                               (int64_t) (lp->cfg->decide.retry_interval_ms / 1000u)) != 0) {
        fm_log_warn("%s: cannot write %s/%s", lp->resource, lp->dir, FM_RECOVERY_ASKED);
    }
}

/* The cycle judged, once the observer's checks have answered. */
static void
loop_cycle_judge(struct fm_loop *lp)
{
    struct fm_monitor_out out;
    char observer[128];

    if (lp->stopping) {
        return;
    }
    lp->cycle.observer_impaired = fm_run_observe(&lp->obs, &lp->cfg->decide, lp->cycle_failed,
        (lp->cycle_due_us > 0 && lp->cycle_start_us > lp->cycle_due_us)?
        (lp->cycle_start_us - lp->cycle_due_us) / 1000u : 0, observer, sizeof(observer));
    lp->cycle.access_log = fm_run_accesslog_cycle(&lp->alog, fm_now_us());
    fm_monitor_cycle_done(&lp->mon, &lp->cycle, &out);
    if (!fm_run_loop_apply(lp, &out)) {
        return;
    }
    fm_run_loop_act(lp, &out);
    if (lp->max_cycles != 0 && lp->mon.st.cycles >= lp->max_cycles) {
        loop_stop(lp);
        return;
    }
    loop_arm(lp, out.next_cycle_ms, on_timer_cycle);
    lp->cycle_due_us = fm_now_us() + out.next_cycle_ms * 1000u;
}

static void
on_observer_ready(void *data)
{
    loop_cycle_judge(data);
}

/* A cycle ended, or could not start (\p start_error says why).  A failed
 * one is judged when the observer's checks have answered, on the loop. */
static void
loop_cycle_done(struct fm_loop *lp, const char *start_error)
{
    lp->in_cycle = false;
    if (lp->stopping) {
        return;
    }
    lp->cycle = (struct fm_monitor_cycle) {
        .start_error = start_error,
        .start_us = lp->cycle_start_us,
        .now_us = fm_now_us(),
        .now_wall_s = (int64_t) time(NULL),
        .overloaded = fm_run_overload_evidence(&lp->ovl, lp->cycle_start_us),
    };
    if (start_error == NULL) {
        lp->cycle.results = fm_probe_run_results(lp->probe, &lp->cycle.n);
    }
    lp->cycle_failed = start_error != NULL || fm_run_deps_service_failed(lp->cycle.results, lp->cycle.n);
    fm_run_deps_cycle(&lp->deps, fm_run_deps_service_failed(lp->cycle.results, lp->cycle.n), &lp->cycle);
    if (!fm_run_observe_begin(&lp->obs, &lp->cfg->decide, lp->cycle_failed, on_observer_ready, lp)) {
        loop_cycle_judge(lp);
    }
}

static void
loop_dispatch(struct fm_loop *lp)
{
    uint64_t now_us = fm_now_us();
    bool done = fm_probe_run_dispatch(lp->probe, now_us);
    int wait_ms = 0;

    /* A TLS cycle's connections all closed: give their buffers back, so
     * that memory between cycles stays proportional to the targets. */
    if (fm_probe_run_take_released(lp->probe)) {
        malloc_trim(0);
    }
    if (!lp->in_cycle) {
        return;     /* between cycles: TLS session tickets still arriving */
    }
    if (!fm_run_overload_hold(&lp->ovl, lp->probe, done, lp->cycle_start_us, &wait_ms)) {
        loop_cycle_done(lp, NULL);
        return;
    }
    if (wait_ms >= 0) {
        loop_arm(lp, (uint64_t) wait_ms, on_timer_deadline);
    }
}

static void
loop_cycle_start(struct fm_loop *lp)
{
    int rc = 0;

    if (lp->stopping) {
        return;
    }
    /* The resume file is checked at start-up and on SIGUSR1 (which
     * `faultmon resume` sends), not every cycle. */
    lp->cycle_start_us = fm_now_us();
    /* How late the timer let it start: what tests/cluster/frozen-daemons.sh
     * reads (PCMK_debug=faultmon) while a cluster daemon is frozen. */
    if (lp->cycle_due_us > 0) {
        fm_log_debug("%s: cycle %llu started %lld ms after its schedule", lp->resource,
                     (unsigned long long) lp->mon.st.cycles + 1,
                     (long long) ((int64_t) (lp->cycle_start_us - lp->cycle_due_us) / 1000));
    }
    /* In spread mode the probes spread over the interval of the state. */
    fm_probe_run_set_interval(lp->probe, (lp->mon.st.interval_ms > 0)? lp->mon.st.interval_ms
                                         : lp->cfg->decide.interval_up_ms);
    rc = fm_probe_run_start(lp->probe, lp->cycle_start_us);
    if (rc != 0) {
        /* Not a silent skip: the monitor counts it (see fm_monitor_cycle_done()). */
        loop_cycle_done(lp, strerror((rc > 0)? rc : EIO));
        return;
    }
    lp->in_cycle = true;
    loop_dispatch(lp);
}

static void
loop_check_resume(struct fm_loop *lp)
{
    struct fm_monitor_out out;

    if (!fm_recovery_file_exists(lp->dir, FM_RECOVERY_RESUME)) {
        return;
    }
    fm_recovery_file_mark(lp->dir, FM_RECOVERY_RESUME, false);
    if (fm_monitor_resume(&lp->mon, fm_now_us(), (int64_t) time(NULL), &out) == 0 && fm_run_loop_apply(lp, &out)) {
        fm_run_loop_act(lp, &out);
    }
}

/*
 * `faultmon reset` or a Pacemaker probe (after a cleanup): forget the
 * failure history and any decision, as Pacemaker forgets the fail-count.
 */
static void
loop_check_reset(struct fm_loop *lp)
{
    struct fm_monitor_out out;

    if (!fm_recovery_file_exists(lp->dir, FM_RECOVERY_RESET)) {
        return;
    }
    if (fm_monitor_reset(&lp->mon, fm_now_us(), (int64_t) time(NULL), &out) == 0) {
        if (fm_run_loop_apply(lp, &out)) {
            fm_run_loop_act(lp, &out);
        }
        fm_recovery_file_mark(lp->dir, FM_RECOVERY_ASKED, false);
        fm_recovery_file_mark(lp->dir, FM_RECOVERY_CAUSE, false);
    } else {
        fm_run_loop_apply(lp, &out);
    }
    /* Last: whoever asked sees the request gone once the state is new. */
    fm_recovery_file_mark(lp->dir, FM_RECOVERY_RESET, false);
}

static int32_t
on_resume_signal(int32_t sig, void *data)
{
    loop_check_reset(data);
    loop_check_resume(data);
    return 0;
}

/*
 * A failure that the agent's monitor found (httpd dead), in the file
 * `event`: "complete CAUSE".  It enters the same history under the same
 * rules as a failed probe cycle, once: while a recovery the cluster knows of
 * is pending, it is the same outage.  The monitor answers Pacemaker with the
 * decision, so the loop does not signal it; the monitor waits for `event` to
 * disappear, after the state is written.
 */
static void
loop_check_event(struct fm_loop *lp)
{
    char cause[600];
    struct fm_monitor_out out;
    int rc = fm_recovery_read_event(lp->dir, cause, sizeof(cause));

    if (rc == ENOENT) {
        return;
    }
    if (rc != 0) {
        fm_log_warn("%s: ignoring a malformed event '%s'", lp->resource, cause);
        fm_recovery_file_mark(lp->dir, FM_RECOVERY_EVENT, false);
        return;
    }
    /* Reported too long ago and still not carried out: the monitor's
     * answer is the failure now, not "under way" (FM_RECOVERY_UNDER_WAY_MAX_S). */
    if (lp->mon.recovery_reported && !fm_recovery_reported(lp->dir)) {
        fm_log_warn("%s: the %s asked %d s ago is not carried out: the monitor reports the failure",
                    lp->resource, fm_action_name(lp->mon.st.pending), FM_RECOVERY_UNDER_WAY_MAX_S);
        lp->mon.recovery_reported = false;
    }
    fm_monitor_event(&lp->mon, cause, true, fm_now_us(), (int64_t) time(NULL), &out);
    fm_run_loop_apply(lp, &out);
    fm_recovery_file_mark(lp->dir, FM_RECOVERY_EVENT, false);
    fm_run_loop_act(lp, &out);
}

static int32_t
on_event_signal(int32_t sig, void *data)
{
    loop_check_event(data);
    return 0;
}

/* Bring back earlier loops' history; a bad file is set aside, never a recovery. */
static void
loop_restore(struct fm_loop *lp)
{
    struct fm_run_state old;
    char err[512];
    int rc = fm_state_read(lp->dir, &old, err, sizeof(err));

    if (rc == ENOENT) {
        return;
    }
    if (rc == 0 && fm_monitor_restore(&lp->mon, &old, fm_now_us(), err, sizeof(err)) == 0) {
        fm_run_args_restored(&lp->mon, lp->resource, &old);
        return;
    }
    fm_log_warn("%s: ignoring bad state (%s); it is kept as state.*.bad", lp->resource, err);
    fm_state_set_aside(lp->dir);
}

/*!
 * \brief Everything the loop needs before it runs: the cluster's address,
 *        the lock (before the state is read), the probe engine, the
 *        monitor with its history, the pid file.
 * \return -1 to go on, else the exit status
 */
static int
run_setup(struct fm_loop *lp, struct fm_run_args *args)
{
    char err[512] = "";
    int rc = 0;

    lp->resource = args->resource;
    lp->dir = args->dir;
    lp->cfg = &args->cfg;
    lp->max_cycles = args->max_cycles;
    lp->signal_pacemaker = args->signal_pacemaker;
    lp->watch = args->watch;
    if (lp->signal_pacemaker && !fm_pcmk_resource_from_env(&lp->rsc)) {
        fm_log_info("%s: no OCF resource environment; decisions are only recorded", lp->resource);
        lp->signal_pacemaker = false;
    }
    lp->attrs.resource = lp->resource;
    lp->attrs.enabled = lp->signal_pacemaker;
    rc = fm_run_lock(lp->dir, lp->resource, &lp->lock_fd);
    if (rc != -1) {
        return rc;
    }
    rc = fm_probe_reserve_fds(lp->cfg->n_targets, err, sizeof(err));
    /* The loop's epoll set first: the probes' sockets are its entries. */
    if (rc == 0 && (rc = fm_ev_init(&lp->ev)) != 0) {
        snprintf(err, sizeof(err), "cannot create the event loop: %s", strerror(rc));
    }
    if (rc == 0) {
        rc = fm_probe_run_new_on(&lp->ev, on_probe_ready, lp, lp->cfg->targets, lp->cfg->n_targets,
                                 &lp->cfg->probe, &lp->probe, err, sizeof(err));
    }
    if (rc != 0) {
        return fm_cli_error("run", "%s", err);
    }
    fm_probe_run_set_keep_sessions(lp->probe, true);
    if (fm_monitor_init(&lp->mon, &lp->cfg->decide, lp->resource, args->kind, lp->signal_pacemaker) != 0) {
        return fm_cli_error("run", "invalid decision parameters");
    }
    lp->have_monitor = true;
    lp->mon.st.pid = (int64_t) getpid();
    fm_run_observer_init(&lp->obs, lp->resource, lp->dir, &lp->attrs);
    fm_run_deps_init(&lp->deps, lp->resource, lp->cfg->targets, lp->cfg->n_targets, args->publish_deps,
                     lp->cfg->decide.interval_up_ms);
    loop_restore(lp);
    /* A recovery reported by an earlier loop is not this one's, nor its
     * refusal. */
    fm_recovery_file_mark(lp->dir, FM_RECOVERY_REPORTED, false);
    fm_recovery_file_mark(lp->dir, FM_RECOVERY_REFUSED, false);
    rc = fm_run_write_pid_file(lp->dir);
    if (rc != 0) {
        return fm_cli_error("run", "cannot write the pid file in %s: %s", lp->dir, strerror(rc));
    }
    return -1;
}

/* The loop's wiring, until SIGTERM or --cycles. \return the exit status */
static int
run_loop(struct fm_loop *lp)
{
    int rc = 0;

    lp->loop = &lp->ev;
    rc = fm_ev_signal(lp->loop, SIGTERM, on_stop_signal, lp);
    rc = (rc != 0)? rc : fm_ev_signal(lp->loop, SIGINT, on_stop_signal, lp);
    rc = (rc != 0)? rc : fm_ev_signal(lp->loop, SIGUSR1, on_resume_signal, lp);
    rc = (rc != 0)? rc : fm_ev_signal(lp->loop, SIGUSR2, on_event_signal, lp);
    fm_run_accesslog_start(&lp->alog, lp->loop, &lp->cfg->probe.access_log, lp->resource, lp->dir);
    fm_run_overload_start(&lp->ovl, lp->loop, &lp->cfg->probe, lp->resource, on_probe_ready, lp);
    rc = (rc != 0)? rc : fm_run_timer_init(&lp->timer, lp->loop);
    rc = (rc != 0)? rc : fm_run_jobs_init(&lp->jobs, lp->loop);
    if (rc != 0) {
        /* No signal, no cycle or no deadline: a loop that cannot keep time. */
        return fm_cli_error("run", "cannot set up the event loop: %s", strerror(rc));
    }
    lp->attrs.jobs = &lp->jobs;
    lp->request = (struct fm_run_request) { .jobs = &lp->jobs, .attrs = &lp->attrs, .rsc = &lp->rsc,
                                            .done = on_request_done, .data = lp };
    fm_run_deps_set_jobs(&lp->deps, &lp->jobs);
    fm_run_observer_set_jobs(&lp->obs, &lp->jobs);
    fm_log_notice("%s: monitoring %zu target(s), Probe_timeout %llu ms", lp->resource,
                  lp->cfg->n_targets, (unsigned long long) lp->cfg->probe.timeout_ms);
    lp->mon.st.pending = FM_ACTION_NONE;
    loop_check_reset(lp);
    loop_check_resume(lp);
    fm_probe_run_set_interval(lp->probe, lp->cfg->decide.interval_up_ms);
    loop_arm(lp, fm_probe_run_phase_ms(lp->probe), on_timer_cycle);     /* spread: the node's phase */
    rc = fm_ev_run(lp->loop);
    if (rc != 0) {
        fm_log_err("%s: the event loop failed: %s", lp->resource, strerror(rc));
        return 1;
    }
    return lp->exit_rc;
}

static void
run_teardown(struct fm_loop *lp)
{
    if (lp->watch_fd >= 0) {
        close(lp->watch_fd);
    }
    if (lp->loop != NULL) {
        fm_run_observer_clear(&lp->obs);
        fm_run_jobs_fini(&lp->jobs);
        fm_run_timer_clear(&lp->timer);
        fm_run_accesslog_stop(&lp->alog);
    }
    if (lp->lock_fd >= 0 && lp->mon.st.pid != 0 && fm_state_lock_check(lp->dir, lp->lock_fd) == 0) {
        fm_recovery_file_mark(lp->dir, "pid", false);
    }
    fm_state_unlock(lp->lock_fd);
    if (lp->have_monitor) {
        fm_monitor_clear(&lp->mon);
    }
    fm_probe_run_free(lp->probe);
    fm_run_overload_free(&lp->ovl);
    if (lp->ev.epfd >= 0) {
        fm_ev_fini(&lp->ev);    /* last: the engines' entries were in it */
    }
}

int
fm_cmd_run(int argc, char **argv)
{
    struct fm_run_args args;
    struct fm_loop lp;
    int rc = 0;

    memset(&lp, 0, sizeof(lp));
    lp.lock_fd = -1;
    lp.watch_fd = -1;
    lp.ev.epfd = -1;
    fm_run_args_init(&args);
    rc = fm_run_args_parse(argc, argv, &args);
    if (rc == -1) {
        rc = fm_run_args_configure(&args);
    }
    if (rc == -1) {
        fm_log_init("faultmon", args.verbose > 0, args.verbose);
        rc = run_setup(&lp, &args);
        if (rc == -1) {
            rc = run_loop(&lp);
        }
        run_teardown(&lp);
        fm_log_fini();
    }
    fm_run_args_clear(&args);
    return rc;
}
