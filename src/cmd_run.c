/*
 * faultmon run: the fault-monitor loop of one resource.
 *
 * Probe, feed the decision engine, persist the state, act, sleep the
 * interval of the current state; all on one libqb main loop.  The probe
 * engine's epoll fd is one poll entry of that loop, and one timer carries
 * either the next cycle or the running cycle's deadline, so the process
 * sleeps in epoll_wait between probes and costs nothing there.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <qb/qbloop.h>

#include <faultmon/commands.h>
#include <faultmon/deadline.h>
#include <faultmon/decide.h>
#include <faultmon/log.h>
#include <faultmon/ocf_rc.h>
#include <faultmon/pcmk.h>
#include <faultmon/probe.h>
#include <faultmon/runconf.h>
#include <faultmon/state.h>

#define FM_PCMK_TIMEOUT_MS 1000
#define FM_ASKED_MAX 64

extern char **environ;

struct fm_loop {
    const char *resource;
    char dir[4096];
    struct fm_run_config cfg;
    struct fm_probe_run *probe;
    struct fm_decide *decide;
    qb_loop_t *loop;
    qb_loop_timer_handle timer;
    bool timer_armed;
    bool in_cycle;
    uint64_t cycle_start_us;
    uint64_t max_cycles;            /* 0: forever */
    bool signal_pacemaker;
    bool verify_restart;            /* first cycle after a restart we asked for */
    bool outage_pending;            /* the pending recovery was decided for an
                                       outage still being recovered: a later
                                       report of it (httpd's exit, the monitor's,
                                       in a cluster a failed probe) is the same
                                       outage, not a new failure */
    bool recovery_reported;         /* our fail request reported it to the
                                       cluster: the monitor must not again */
    bool reported_file;             /* the `reported` file exists */
    const char *watch_pid_file;     /* FAULTMON_WATCH_PIDFILE: the service's */
    int watch_fd;                   /* pidfd of the watched process, or -1 */
    long watch_pid;
    struct fm_pcmk_resource rsc;
    struct fm_run_state st;
    int lock_fd;                    /* DIR/lock, held for the loop's life */
    int exit_rc;                    /* set when the loop stops on an error */
};

static void loop_cycle_start(struct fm_loop *lp);
static void loop_dispatch(struct fm_loop *lp);
static void loop_watch(struct fm_loop *lp);

static void
loop_arm(struct fm_loop *lp, uint64_t delay_ms, void (*fn)(void *data))
{
    if (lp->timer_armed) {
        qb_loop_timer_del(lp->loop, lp->timer);
        lp->timer_armed = false;
    }
    if (qb_loop_timer_add(lp->loop, QB_LOOP_MED, delay_ms * 1000000u, lp, fn, &lp->timer) == 0) {
        lp->timer_armed = true;
    }
}

static void
on_timer_cycle(void *data)
{
    struct fm_loop *lp = data;

    lp->timer_armed = false;
    loop_cycle_start(lp);
}

static void
on_timer_deadline(void *data)
{
    struct fm_loop *lp = data;

    lp->timer_armed = false;
    loop_dispatch(lp);
}

static int32_t
on_probe_ready(int32_t fd, int32_t revents, void *data)
{
    loop_dispatch(data);
    return 0;
}

static int32_t
on_stop_signal(int32_t sig, void *data)
{
    struct fm_loop *lp = data;

    fm_log_notice("%s: stopping on signal %d", lp->resource, sig);
    qb_loop_stop(lp->loop);
    return 0;
}

/* Print why another loop holds the resource, in one line. */
static int
lock_busy(const char *resource, int64_t pid, bool is_loop)
{
    if (pid == 0) {
        fprintf(stderr, "faultmon run: %s: another process holds the loop lock; not starting a second loop\n",
                resource);
    } else {
        fprintf(stderr, "faultmon run: %s: %s (pid %lld) holds the loop lock; not starting a second loop\n",
                resource, is_loop? "another faultmon loop" : "a process that is not a faultmon loop",
                (long long) pid);
    }
    return FM_EXIT_LOCKED;
}

static int write_pid_file(const char *dir);

/*
 * The state directory can be removed or replaced while the loop runs (by
 * hand, or a tmpfs cleaner).  Holding a lock on a file nobody can reach
 * would let a second loop start beside this one: take the lock again in the
 * new directory, or stop if another loop already has it.
 */
static bool
loop_keep_lock(struct fm_loop *lp)
{
    int64_t pid = 0;
    bool is_loop = false;
    int fd = -1;
    int rc = 0;

    if (fm_state_lock_check(lp->dir, lp->lock_fd) == 0) {
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
        write_pid_file(lp->dir);
        return true;
    }
    if (rc == EBUSY) {
        fm_log_err("%s: the state directory was replaced and pid %lld holds its lock now; stopping",
                   lp->resource, (long long) pid);
        lp->exit_rc = lock_busy(lp->resource, pid, is_loop);
    } else {
        fm_log_err("%s: the state directory %s was removed and cannot be locked again (%s); stopping",
                   lp->resource, lp->dir, strerror(rc));
        lp->exit_rc = 1;
    }
    qb_loop_stop(lp->loop);
    return false;
}

/* `reported` tells the agent's monitor that the cluster already knows of the
 * pending recovery, so that it does not report it again. */
static void
loop_sync_reported(struct fm_loop *lp)
{
    char path[4200];

    if (lp->recovery_reported == lp->reported_file) {
        return;
    }
    snprintf(path, sizeof(path), "%s/reported", lp->dir);
    if (lp->recovery_reported) {
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

        if (fd >= 0) {
            close(fd);
        }
    } else {
        unlink(path);
    }
    lp->reported_file = lp->recovery_reported;
}

static void
loop_write_state(struct fm_loop *lp)
{
    char err[512];

    if (!loop_keep_lock(lp)) {
        return;
    }
    lp->st.updated_mono_us = fm_now_us();
    lp->st.updated_wall_s = (int64_t) time(NULL);
    fm_decide_export(lp->decide, &lp->st.decide);
    /* The agents believe only what the one reader accepts: a state of ours
     * it refuses would hide every verdict, so say so loudly. */
    if (fm_state_validate(&lp->st, lp->resource, fm_now_us(), err, sizeof(err)) != 0) {
        fm_log_err("%s: bug: the state written now will read as no verdict: %s", lp->resource, err);
    }
    if (fm_state_write(lp->dir, &lp->st, err, sizeof(err)) != 0) {
        fm_log_err("%s: %s", lp->resource, err);
    }
    if (lp->st.pending == FM_ACTION_NONE) {
        lp->outage_pending = false;
        lp->recovery_reported = false;
    }
    loop_sync_reported(lp);
}

/* The current decision as the agent's monitor reports it. */
static void
loop_set_decision(struct fm_loop *lp, const struct fm_decision *dec)
{
    struct fm_decision next;

    lp->st.state = dec->state;
    lp->st.action = dec->action;
    lp->st.weight = dec->weight;
    lp->st.restarts_in_window = dec->restarts_in_window;
    lp->st.interval_ms = dec->interval_ms;
    snprintf(lp->st.reason, sizeof(lp->st.reason), "%s", dec->reason);
    if (lp->cfg.decide.publish_only) {
        /* httpmon answers 0 and publishes the verdict: nobody carries a
         * recovery out, so none is pending. */
        lp->st.pending = FM_ACTION_NONE;
    } else if (dec->action == FM_ACTION_RESTART || dec->action == FM_ACTION_FAILOVER) {
        lp->st.pending = dec->action;
    } else if (dec->state == FM_STATE_UP) {
        /* Up again while still running: nobody carried the recovery out
         * (no cluster, or the service came back by itself); it is moot. */
        lp->st.pending = FM_ACTION_NONE;
    }
    if (lp->cfg.decide.publish_only) {
        lp->st.ocf_rc = 0;
    } else if (lp->st.pending != FM_ACTION_NONE) {
        lp->st.ocf_rc = (int) fm_ocf_rc_for_action(lp->st.pending);
    } else {
        lp->st.ocf_rc = (int) fm_ocf_rc_for_action(dec->action);
    }
    fm_decide_preview(lp->decide, fm_now_us(), FM_CLASS_COMPLETE, &next);
    snprintf(lp->st.next_failure, sizeof(lp->st.next_failure), "%s: %.200s",
             fm_action_word(next.action, lp->cfg.decide.publish_only), next.reason);
}

/* The first failed target of the last cycle and why ("" when none). */
static void
loop_first_failure(const struct fm_run_state *st, char *buf, size_t buf_len)
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

/* Pacemaker's attrd_updater, never through a shell; the loop runs inside
 * the cluster, so a missing cluster is only a log line. */
static void
loop_attrd(const struct fm_loop *lp, const char *name, const char *value)
{
    const char *tool = getenv("FAULTMON_ATTRD_UPDATER");
    char *argv[8];
    size_t n = 0;
    pid_t pid = 0;
    int status = 0;

    if (tool == NULL || tool[0] != '/') {
        tool = FM_ATTRD_UPDATER;
    }
    argv[n++] = (char *) tool;
    argv[n++] = (char *) "-n";
    argv[n++] = (char *) name;
    if (value != NULL) {
        argv[n++] = (char *) "-U";
        argv[n++] = (char *) value;
    } else {
        argv[n++] = (char *) "-D";
    }
    argv[n] = NULL;
    if (posix_spawn(&pid, tool, NULL, NULL, argv, environ) != 0) {
        fm_log_warn("%s: cannot run %s: %s", lp->resource, tool, strerror(errno));
        return;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        continue;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fm_log_warn("%s: %s -n %s failed (status %d)", lp->resource, tool, name, status);
    }
}

static void
write_lines(FILE *out, const void *data)
{
    fputs(data, out);
}

/* The whole reason of a recovery where the administrator looks: the log and
 * the node attribute faultmon-RESOURCE-reason (exit reasons are cut at 128
 * bytes). */
static void
loop_publish_reason(const struct fm_loop *lp, const char *cause, const struct fm_decision *dec)
{
    char name[FM_RESOURCE_NAME_MAX + 32];
    char full[FM_DECIDE_REASON_MAX + 600];

    snprintf(full, sizeof(full), "%s%s%s", (cause != NULL)? cause : "", (cause != NULL)? ": " : "",
             dec->reason);
    fm_log_warn("%s: %s: %s", lp->resource,
                (dec->action == FM_ACTION_RESTART)? "asking for a local restart" : "asking for a failover",
                full);
    /* The agent's exit reasons (a refused start) lead with it. */
    if (cause != NULL && fm_state_file_write(lp->dir, "cause", write_lines, cause) != 0) {
        fm_log_warn("%s: cannot write %s/cause", lp->resource, lp->dir);
    }
    if (lp->signal_pacemaker) {
        snprintf(name, sizeof(name), "faultmon-%s-reason", lp->resource);
        loop_attrd(lp, name, full);
    }
}

/* Remember each fail request in `asked` (wall-clock seconds, one a line,
 * those within Retry_interval): the agent's next start sets Pacemaker's
 * fail-count from it, since the controller counts such a request once or
 * twice. */
static void
loop_note_asked(const struct fm_loop *lp)
{
    char path[4200];
    char line[64];
    char *text = calloc(FM_ASKED_MAX + 1, sizeof(line));
    int64_t now_s = (int64_t) time(NULL);
    int64_t window_s = (int64_t) (lp->cfg.decide.retry_interval_ms / 1000u);
    size_t used = 0;
    size_t n = 0;
    FILE *in = NULL;

    if (text == NULL) {
        return;
    }
    snprintf(path, sizeof(path), "%s/asked", lp->dir);
    in = fopen(path, "re");
    while (in != NULL && fgets(line, sizeof(line), in) != NULL && n < FM_ASKED_MAX - 1) {
        long long t = strtoll(line, NULL, 10);

        if (t > 0 && now_s - t <= window_s) {
            used += (size_t) snprintf(text + used, sizeof(line), "%lld\n", t);
            n++;
        }
    }
    if (in != NULL) {
        fclose(in);
    }
    snprintf(text + used, sizeof(line), "%lld\n", (long long) now_s);
    if (fm_state_file_write(lp->dir, "asked", write_lines, text) != 0) {
        fm_log_warn("%s: cannot write %s", lp->resource, path);
    }
    free(text);
}

static void
loop_act(struct fm_loop *lp, const char *cause, const struct fm_decision *dec)
{
    char err[512];

    if (dec->action != FM_ACTION_RESTART && dec->action != FM_ACTION_FAILOVER) {
        return;
    }
    if (lp->cfg.decide.publish_only) {
        fm_log_warn("%s: unhealthy; the agent publishes it at its next monitor: %s", lp->resource,
                    dec->reason);
        return;
    }
    if (!lp->signal_pacemaker) {
        loop_publish_reason(lp, cause, dec);
        return;
    }
    /* Recovery first; the explanations follow. */
    if (fm_pcmk_request_recovery(&lp->rsc, FM_PCMK_TIMEOUT_MS, err, sizeof(err)) != 0) {
        /* Without the cluster's environment the next monitor reports it. */
        fm_log_warn("%s: %s; the next monitor will report the failure", lp->resource, err);
    } else {
        lp->recovery_reported = true;
        loop_sync_reported(lp);
        loop_note_asked(lp);
    }
    loop_publish_reason(lp, cause, dec);
}

static void
loop_record(struct fm_loop *lp, enum fm_class verdict, uint64_t latency_us, enum fm_action action)
{
    struct fm_state_record *r = NULL;

    if (lp->st.n_records == FM_STATE_MAX_RECORDS) {
        memmove(&lp->st.records[0], &lp->st.records[1],
                (FM_STATE_MAX_RECORDS - 1) * sizeof(lp->st.records[0]));
        lp->st.n_records--;
    }
    r = &lp->st.records[lp->st.n_records++];
    r->wall_s = (int64_t) time(NULL);
    r->cls = verdict;
    r->latency_us = latency_us;
    r->action = action;
}

static void
loop_cycle_done(struct fm_loop *lp)
{
    size_t n = 0;
    const struct fm_result *results = fm_probe_run_results(lp->probe, &n);
    struct fm_decide_input in = { .cls = fm_probe_run_verdict(lp->probe), .have_latency = true };
    struct fm_decision dec;
    uint64_t now_us = fm_now_us();
    uint64_t elapsed_ms = 0;
    int64_t now_wall = (int64_t) time(NULL);

    lp->in_cycle = false;
    lp->st.cycles++;
    lp->st.n_targets = (n < FM_STATE_MAX_TARGETS)? n : FM_STATE_MAX_TARGETS;
    for (size_t i = 0; i < n; i++) {
        const struct fm_result *r = &results[i];

        if (r->latency_us > in.latency_us) {
            in.latency_us = r->latency_us;
        }
        if (r->cert_not_after != 0 && (!in.have_cert || r->cert_not_after - now_wall < in.cert_left_s)) {
            in.have_cert = true;
            in.cert_left_s = r->cert_not_after - now_wall;
        }
        if (i < FM_STATE_MAX_TARGETS) {
            struct fm_state_target *t = &lp->st.targets[i];

            snprintf(t->target, sizeof(t->target), "%s", r->target->text);
            t->cls = fm_result_class(r);
            t->reason = r->reason;
            t->http_status = r->http_status;
            t->latency_us = r->latency_us;
        }
    }
    /* Only successful probes say how fast the service is. */
    in.have_latency = (in.cls == FM_CLASS_OK);

    if (lp->signal_pacemaker && lp->outage_pending && lp->st.pending != FM_ACTION_NONE
        && in.cls != FM_CLASS_OK) {
        /* The cluster is carrying out the recovery of this outage: the
         * same failure again, not a new one.  (Without a cluster nobody
         * does, and failures while down count as usual.) */
        loop_record(lp, in.cls, in.latency_us, FM_ACTION_NONE);
        loop_write_state(lp);
        fm_log_info("%s: cycle %s while the %s asked is under way", lp->resource,
                    fm_class_name(in.cls), fm_action_name(lp->st.pending));
        if (lp->max_cycles != 0 && lp->st.cycles >= lp->max_cycles) {
            qb_loop_stop(lp->loop);
            return;
        }
        loop_arm(lp, lp->st.interval_ms, on_timer_cycle);
        return;
    }
    if (lp->verify_restart && in.cls == FM_CLASS_COMPLETE) {
        fm_decide_restart_failed(lp->decide, now_us, &dec);
    } else {
        fm_decide_cycle(lp->decide, now_us, &in, &dec);
    }
    lp->verify_restart = false;
    loop_set_decision(lp, &dec);
    loop_record(lp, in.cls, in.latency_us, dec.action);
    if (dec.action == FM_ACTION_RESTART || dec.action == FM_ACTION_FAILOVER) {
        lp->outage_pending = true;
    }
    loop_write_state(lp);
    if (lp->exit_rc != 0) {
        return;
    }
    loop_watch(lp);
    if (dec.action != FM_ACTION_NONE || in.cls != FM_CLASS_OK) {
        fm_log_info("%s: cycle %s, state %s, action %s: %s", lp->resource, fm_class_name(in.cls),
                    fm_state_name(dec.state), fm_action_word(dec.action, lp->cfg.decide.publish_only),
                    dec.reason);
    }
    {
        char cause[600];

        loop_first_failure(&lp->st, cause, sizeof(cause));
        loop_act(lp, (cause[0] != '\0')? cause : NULL, &dec);
    }

    if (lp->max_cycles != 0 && lp->st.cycles >= lp->max_cycles) {
        qb_loop_stop(lp->loop);
        return;
    }
    elapsed_ms = (now_us - lp->cycle_start_us) / 1000u;
    loop_arm(lp, (dec.interval_ms > elapsed_ms)? dec.interval_ms - elapsed_ms : 0, on_timer_cycle);
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
    if (done) {
        loop_cycle_done(lp);
        return;
    }
    /* Wake for the deadline even if no fd does. */
    wait_ms = fm_probe_run_wait_ms(lp->probe, fm_now_us());
    loop_arm(lp, (wait_ms > 0)? (uint64_t) wait_ms : 0, on_timer_deadline);
}

static void
loop_check_resume(struct fm_loop *lp)
{
    char path[4200];
    struct fm_decision dec;

    snprintf(path, sizeof(path), "%s/resume", lp->dir);
    if (access(path, F_OK) != 0) {
        return;
    }
    unlink(path);
    if (fm_decide_resume(lp->decide, fm_now_us(), &dec) == 0) {
        fm_log_notice("%s: resumed by an administrator", lp->resource);
        lp->st.pending = FM_ACTION_NONE;
        loop_set_decision(lp, &dec);
        loop_write_state(lp);
    }
}

/*
 * The watched process (httpd's parent, named by the pid file the agent
 * passes) exited: a complete failure, found at once rather than at the next
 * probe, under the same rules and once (see loop_check_event()).  Apache's
 * graceful and full restarts keep the parent's PID, and the agent stops the
 * loop before httpd, so an exit seen here is a crash.
 */
static int32_t
on_watch_exit(int32_t fd, int32_t revents, void *data)
{
    struct fm_loop *lp = data;
    struct fm_decide_input ev = { .cls = FM_CLASS_COMPLETE };
    struct fm_decision dec;
    char cause[128];

    qb_loop_poll_del(lp->loop, lp->watch_fd);
    close(lp->watch_fd);
    lp->watch_fd = -1;
    snprintf(cause, sizeof(cause), "httpd (pid %ld) exited", lp->watch_pid);
    if (lp->st.pending != FM_ACTION_NONE && lp->outage_pending) {
        fm_log_info("%s: %s: the %s asked is under way (same outage)", lp->resource, cause,
                    fm_action_name(lp->st.pending));
        return -1;
    }
    fm_decide_cycle(lp->decide, fm_now_us(), &ev, &dec);
    loop_set_decision(lp, &dec);
    loop_record(lp, FM_CLASS_COMPLETE, 0, dec.action);
    lp->outage_pending = (dec.action == FM_ACTION_RESTART || dec.action == FM_ACTION_FAILOVER);
    loop_write_state(lp);
    fm_log_info("%s: %s: state %s, action %s: %s", lp->resource, cause, fm_state_name(dec.state),
                fm_action_name(dec.action), dec.reason);
    loop_act(lp, cause, &dec);
    return -1;
}

/* Watch the process of the pid file, once it names a live one. */
static void
loop_watch(struct fm_loop *lp)
{
    FILE *in = NULL;
    long pid = 0;
    int fd = -1;

    if (lp->watch_pid_file == NULL || lp->watch_fd >= 0) {
        return;
    }
    in = fopen(lp->watch_pid_file, "re");
    if (in == NULL) {
        return;
    }
    if (fscanf(in, "%ld", &pid) != 1 || pid <= 1) {
        fclose(in);
        return;
    }
    fclose(in);
    if (pid == lp->watch_pid) {
        return;                     /* that one has exited already */
    }
    fd = pidfd_open((pid_t) pid, 0);
    if (fd < 0) {
        return;
    }
    if (qb_loop_poll_add(lp->loop, QB_LOOP_HIGH, fd, POLLIN, lp, on_watch_exit) != 0) {
        close(fd);
        return;
    }
    lp->watch_fd = fd;
    lp->watch_pid = pid;
}

/*
 * `faultmon reset` or a Pacemaker probe (after a cleanup): forget the
 * failure history and any decision, as Pacemaker forgets the fail-count.
 */
static void
loop_check_reset(struct fm_loop *lp)
{
    char path[4200];
    struct fm_decide *fresh = NULL;
    struct fm_decision dec;

    snprintf(path, sizeof(path), "%s/reset", lp->dir);
    if (access(path, F_OK) != 0) {
        return;
    }
    fm_decide_export(lp->decide, &lp->st.decide);
    if (lp->st.decide.held != 0) {
        fm_log_notice("%s: held for manual resume; a reset keeps the hold (faultmon resume)", lp->resource);
        unlink(path);
        return;
    }
    if (fm_decide_new(&lp->cfg.decide, &fresh) != 0) {
        fm_log_err("%s: cannot reset the history: out of memory", lp->resource);
        unlink(path);
        return;
    }
    fm_decide_free(lp->decide);
    lp->decide = fresh;
    lp->st.pending = FM_ACTION_NONE;
    lp->outage_pending = false;
    lp->recovery_reported = false;
    lp->verify_restart = false;
    fm_decide_status(lp->decide, fm_now_us(), &dec);
    snprintf(dec.reason, sizeof(dec.reason), "history and decision reset");
    loop_set_decision(lp, &dec);
    loop_write_state(lp);
    snprintf(path, sizeof(path), "%s/asked", lp->dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/cause", lp->dir);
    unlink(path);
    /* Last: whoever asked sees the request gone once the state is new. */
    snprintf(path, sizeof(path), "%s/reset", lp->dir);
    unlink(path);
    fm_log_notice("%s: failure history and decision reset (cleanup or faultmon reset)", lp->resource);
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
    char path[4200];
    char line[600] = "";
    char *cause = NULL;
    FILE *in = NULL;
    struct fm_decide_input ev = { .cls = FM_CLASS_COMPLETE };
    struct fm_decision dec;

    snprintf(path, sizeof(path), "%s/event", lp->dir);
    in = fopen(path, "re");
    if (in == NULL) {
        return;
    }
    if (fgets(line, sizeof(line), in) == NULL) {
        line[0] = '\0';
    }
    fclose(in);
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "complete ", 9) != 0) {
        fm_log_warn("%s: ignoring a malformed event '%s'", lp->resource, line);
        unlink(path);
        return;
    }
    cause = line + 9;
    if (lp->st.pending != FM_ACTION_NONE && lp->outage_pending) {
        /* Counted already.  When our fail request reported it, tell the
         * monitor, which answers "under way" instead of the decision:
         * Pacemaker has this outage.  Otherwise its answer is the report. */
        if (lp->recovery_reported) {
            char same[4200];
            int fd = -1;

            snprintf(same, sizeof(same), "%s/event.same", lp->dir);
            fd = open(same, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
            if (fd >= 0) {
                close(fd);
            }
        }
        fm_log_info("%s: %s: the %s decided is pending (same outage)", lp->resource, cause,
                    fm_action_name(lp->st.pending));
        unlink(path);
        return;
    }
    fm_decide_cycle(lp->decide, fm_now_us(), &ev, &dec);
    loop_set_decision(lp, &dec);
    loop_record(lp, FM_CLASS_COMPLETE, 0, dec.action);
    /* The monitor's answer is the report: exactly one failure. */
    lp->outage_pending = (dec.action == FM_ACTION_RESTART || dec.action == FM_ACTION_FAILOVER);
    loop_write_state(lp);
    unlink(path);
    fm_log_info("%s: monitor found %s: state %s, action %s: %s", lp->resource, cause,
                fm_state_name(dec.state), fm_action_name(dec.action), dec.reason);
    if (dec.action == FM_ACTION_RESTART || dec.action == FM_ACTION_FAILOVER) {
        loop_publish_reason(lp, cause, &dec);
    }
}

static int32_t
on_event_signal(int32_t sig, void *data)
{
    loop_check_event(data);
    return 0;
}

static void
loop_cycle_start(struct fm_loop *lp)
{
    /* The resume file is checked at start-up and on SIGUSR1 (which
     * `faultmon resume` sends), not every cycle. */
    lp->cycle_start_us = fm_now_us();
    if (fm_probe_run_start(lp->probe, lp->cycle_start_us) != 0) {
        fm_log_err("%s: cannot start a probe cycle", lp->resource);
    }
    lp->in_cycle = true;
    loop_dispatch(lp);
}

/* Bring back the history of earlier loops; a bad file is kept aside and
 * replaced, and never causes recovery by itself. */
static void
loop_restore(struct fm_loop *lp)
{
    struct fm_run_state old;
    char err[512];
    int rc = fm_state_read(lp->dir, &old, err, sizeof(err));

    if (rc == ENOENT) {
        return;
    }
    if (rc == 0 && fm_decide_import(lp->decide, &old.decide, fm_now_us(), err, sizeof(err)) == 0) {
        lp->st.n_records = old.n_records;
        memcpy(lp->st.records, old.records, sizeof(old.records));
        /* A restart we asked for has happened if we are starting again. */
        lp->verify_restart = (old.pending == FM_ACTION_RESTART);
        fm_log_info("%s: history restored (%lld failures, %lld restarts on record)", lp->resource,
                    (long long) old.decide.n_failures, (long long) old.decide.n_restarts);
        return;
    }
    fm_log_warn("%s: ignoring bad state (%s); it is kept as state.*.bad", lp->resource, err);
    fm_state_set_aside(lp->dir);
}

static int
write_pid_file(const char *dir)
{
    char path[4200];
    char tmp[4200];
    FILE *out = NULL;

    snprintf(path, sizeof(path), "%s/pid", dir);
    snprintf(tmp, sizeof(tmp), "%s/.pid.tmp", dir);
    out = fopen(tmp, "we");
    if (out == NULL) {
        return errno;
    }
    fprintf(out, "%ld\n", (long) getpid());
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        return errno;
    }
    return 0;
}

static const struct option run_options[] = {
    { "param",        required_argument, NULL, 'p' },
    { "no-env",       no_argument,       NULL, 'E' },
    { "no-pacemaker", no_argument,       NULL, 'P' },
    { "kind",         required_argument, NULL, 'k' },
    { "cycles",       required_argument, NULL, 'n' },
    { "verbose",      no_argument,       NULL, 'v' },
    { "help",         no_argument,       NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void
run_usage(FILE *out)
{
    fprintf(out,
"Usage: faultmon run RESOURCE [OPTIONS]\n"
"\n"
"Run the fault-monitor loop of RESOURCE in the foreground: probe, decide,\n"
"record the state in " FM_STATE_DIR "/RESOURCE/, and ask Pacemaker for a\n"
"restart or a failover when the failure history calls for one.  The agents\n"
"start it with the service; it stops on SIGTERM.\n"
"\n"
"Parameters come from OCF_RESKEY_<name> variables (as the agents pass them,\n"
"which keeps secrets out of ps) and from --param; see faultmon simulate --help\n"
"for the decision parameters.\n"
"\n"
"Options:\n"
"  -p, --param NAME=VALUE  set a parameter (Port_list, Monitor_Uri_List,\n"
"                          Probe_timeout, Retry_count, Retry_interval, ...)\n"
"      --no-env            ignore OCF_RESKEY_* variables\n"
"      --no-pacemaker      never call the cluster; only record decisions\n"
"      --kind KIND         the agent that runs the loop: apache (the default:\n"
"                          recovery is a restart or a failover) or httpmon\n"
"                          (recovery only marks the service unhealthy; implies\n"
"                          --no-pacemaker)\n"
"  -n, --cycles N          stop after N probe cycles (for tests)\n"
"  -v, --verbose           log to stderr too (twice: debug)\n"
"  -h, --help              show this help and exit\n"
"\n"
"One loop runs per resource: it holds a lock on " FM_STATE_DIR "/RESOURCE/lock\n"
"for its whole life.  Exit status: 0 after SIGTERM or --cycles, 64 on a usage\n"
"error or a state directory it cannot set up, 75 when another process holds\n"
"the lock (the error names its pid), 1 when the state directory vanished and\n"
"cannot be locked again.\n");
}

int
fm_cmd_run(int argc, char **argv)
{
    struct fm_loop lp;
    char err[512] = "";
    bool use_env = true;
    bool logging = false;
    int verbose = 0;
    int opt = 0;
    int rc = 0;
    char **params = calloc((size_t) argc + 1, sizeof(char *));
    size_t n_params = 0;

    memset(&lp, 0, sizeof(lp));
    lp.lock_fd = -1;
    lp.watch_fd = -1;
    fm_run_config_init(&lp.cfg);
    lp.signal_pacemaker = true;
    fm_cli_fold_long_options(argc, argv, ":p:n:vh", run_options);
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":p:n:vh", run_options, NULL)) != -1) {
        switch (opt) {
            case 'p':
                params[n_params++] = optarg;
                break;
            case 'E':
                use_env = false;
                break;
            case 'P':
                lp.signal_pacemaker = false;
                break;
            case 'k':
                if (strcmp(optarg, FM_KIND_APACHE) != 0 && strcmp(optarg, FM_KIND_HTTPMON) != 0) {
                    rc = fm_cli_error("run", "invalid value '%s' for --kind: expected apache or httpmon", optarg);
                    goto done;
                }
                snprintf(lp.st.kind, sizeof(lp.st.kind), "%s", optarg);
                break;
            case 'n': {
                char *end = NULL;

                lp.max_cycles = strtoull(optarg, &end, 10);
                if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || lp.max_cycles == 0) {
                    rc = fm_cli_error("run", "invalid value '%s' for --cycles: expected a whole number from 1", optarg);
                    goto done;
                }
                break;
            }
            case 'v':
                verbose++;
                break;
            case 'h':
                run_usage(stdout);
                goto done;
            case ':':
                rc = fm_cli_error("run", "option '%s' needs a value (see faultmon run --help)", argv[optind - 1]);
                goto done;
            default:
                rc = fm_cli_error("run", "unknown option '%s' (see faultmon run --help)", argv[optind - 1]);
                goto done;
        }
    }
    if (optind + 1 != argc) {
        rc = fm_cli_error("run", "expected one RESOURCE name (see faultmon run --help)");
        goto done;
    }
    lp.resource = argv[optind];
    lp.watch_pid_file = getenv("FAULTMON_WATCH_PIDFILE");
    if (lp.watch_pid_file != NULL && lp.watch_pid_file[0] != '/') {
        lp.watch_pid_file = NULL;
    }
    if (fm_state_dir(lp.resource, lp.dir, sizeof(lp.dir)) != 0) {
        rc = fm_cli_error("run", "invalid resource name '%s': use letters, digits, '.', '_', '-' and ':'", lp.resource);
        goto done;
    }
    if (use_env && fm_run_config_from_env(&lp.cfg, err, sizeof(err)) != 0) {
        rc = fm_cli_error("run", "%s", err);
        goto done;
    }
    for (size_t i = 0; i < n_params; i++) {
        char *eq = strchr(params[i], '=');

        if (eq == NULL) {
            rc = fm_cli_error("run", "invalid --param '%s': expected NAME=VALUE", params[i]);
            goto done;
        }
        *eq = '\0';
        rc = fm_run_config_set(&lp.cfg, params[i], eq + 1, err, sizeof(err));
        *eq = '=';
        if (rc == ENOENT) {
            rc = fm_cli_error("run", "unknown parameter '%.*s'", (int) (eq - params[i]), params[i]);
            goto done;
        }
        if (rc != 0) {
            rc = fm_cli_error("run", "%s", err);
            goto done;
        }
    }
    if (fm_run_config_finish(&lp.cfg, err, sizeof(err)) != 0) {
        rc = fm_cli_error("run", "%s", err);
        goto done;
    }
    if (strcmp(lp.st.kind, FM_KIND_HTTPMON) == 0) {
        lp.cfg.decide.publish_only = true;
        lp.signal_pacemaker = false;
    } else {
        snprintf(lp.st.kind, sizeof(lp.st.kind), "%s", FM_KIND_APACHE);
    }
    fm_log_init("faultmon", verbose > 0, verbose);
    logging = true;
    if (lp.signal_pacemaker && !fm_pcmk_resource_from_env(&lp.rsc)) {
        fm_log_info("%s: no OCF resource environment; decisions are only recorded", lp.resource);
        lp.signal_pacemaker = false;
    }
    rc = fm_state_dir_create(lp.dir);
    if (rc != 0) {
        rc = fm_cli_error("run", "cannot create %s: %s", lp.dir, strerror(rc));
        goto done;
    }
    {
        int64_t holder = 0;
        bool is_loop = false;

        /* Before the state is read: one loop, one decision engine. */
        rc = fm_state_lock(lp.dir, &lp.lock_fd, &holder, &is_loop);
        if (rc == EBUSY) {
            rc = lock_busy(lp.resource, holder, is_loop);
            goto done;
        }
        if (rc != 0) {
            rc = fm_cli_error("run", "cannot lock %s/lock: %s", lp.dir, strerror(rc));
            goto done;
        }
    }
    rc = fm_probe_reserve_fds(lp.cfg.n_targets, err, sizeof(err));
    if (rc == 0) {
        rc = fm_probe_run_new(lp.cfg.targets, lp.cfg.n_targets, &lp.cfg.probe, &lp.probe, err, sizeof(err));
    }
    if (rc != 0) {
        rc = fm_cli_error("run", "%s", err);
        goto done;
    }
    fm_probe_run_set_keep_sessions(lp.probe, true);
    if (fm_decide_new(&lp.cfg.decide, &lp.decide) != 0) {
        rc = fm_cli_error("run", "invalid decision parameters");
        goto done;
    }
    snprintf(lp.st.resource, sizeof(lp.st.resource), "%s", lp.resource);
    lp.st.pid = (int64_t) getpid();
    lp.st.probe_timeout_ms = lp.cfg.probe.timeout_ms;
    loop_restore(&lp);
    {
        char path[4200];

        /* A recovery reported by an earlier loop is not this one's. */
        snprintf(path, sizeof(path), "%s/reported", lp.dir);
        unlink(path);
    }
    rc = write_pid_file(lp.dir);
    if (rc != 0) {
        rc = fm_cli_error("run", "cannot write the pid file in %s: %s", lp.dir, strerror(rc));
        goto done;
    }

    lp.loop = qb_loop_create();
    if (lp.loop == NULL) {
        rc = fm_cli_error("run", "cannot create the main loop");
        goto done;
    }
    qb_loop_signal_add(lp.loop, QB_LOOP_HIGH, SIGTERM, &lp, on_stop_signal, NULL);
    qb_loop_signal_add(lp.loop, QB_LOOP_HIGH, SIGINT, &lp, on_stop_signal, NULL);
    qb_loop_signal_add(lp.loop, QB_LOOP_HIGH, SIGUSR1, &lp, on_resume_signal, NULL);
    qb_loop_signal_add(lp.loop, QB_LOOP_HIGH, SIGUSR2, &lp, on_event_signal, NULL);
    qb_loop_poll_add(lp.loop, QB_LOOP_MED, fm_probe_run_fd(lp.probe), POLLIN, &lp, on_probe_ready);
    fm_log_notice("%s: monitoring %zu target(s), Probe_timeout %llu ms", lp.resource,
                  lp.cfg.n_targets, (unsigned long long) lp.cfg.probe.timeout_ms);
    lp.st.pending = FM_ACTION_NONE;
    loop_check_reset(&lp);
    loop_check_resume(&lp);
    loop_arm(&lp, 0, on_timer_cycle);
    qb_loop_run(lp.loop);
    rc = lp.exit_rc;

done:
    if (lp.watch_fd >= 0) {
        close(lp.watch_fd);
    }
    if (lp.loop != NULL) {
        qb_loop_destroy(lp.loop);
    }
    if (lp.lock_fd >= 0 && lp.st.pid != 0 && fm_state_lock_check(lp.dir, lp.lock_fd) == 0) {
        char path[4200];

        snprintf(path, sizeof(path), "%s/pid", lp.dir);
        unlink(path);
    }
    fm_state_unlock(lp.lock_fd);
    fm_decide_free(lp.decide);
    fm_probe_run_free(lp.probe);
    fm_run_config_clear(&lp.cfg);
    free(params);
    if (logging) {
        fm_log_fini();
    }
    return rc;
}
