/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: control of the fault-monitor loop (`faultmon run`):
 * validating its parameters, starting and stopping it, handing it a failure
 * the agent found (waking it and waiting for its answer; the files of that
 * exchange are faultmon/recovery.h's), resetting it, a fresh probe with the
 * helper, and the exit reasons made of its decisions.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/parse.h>
#include <faultmon/recovery.h>
#include <faultmon/runconf.h>
#include <faultmon/target_exec.h>
#include <faultmon/text.h>

#include "ocf_common.h"

const char *
fm_ocf_faultmon_path(void)
{
    const char *env = getenv("FAULTMON");

    if (env != NULL && env[0] == '/' && access(env, X_OK) == 0) {
        return env;
    }
    return FM_OCF_FAULTMON_BIN;
}

int
fm_ocf_probe_helper_path(char *buf, size_t buf_len)
{
    char self[FM_OCF_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash = NULL;

    if (n <= 0) {
        return errno;
    }
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL) {
        return EINVAL;
    }
    *slash = '\0';
    if (snprintf(buf, buf_len, "%s/faultmon-ocf-probe", self) >= (int) buf_len) {
        return ENAMETOOLONG;
    }
    return 0;
}

static const char *
fmt_ms(char *buf, size_t len, uint64_t ms)
{
    if (ms % 1000u == 0) {
        snprintf(buf, len, "%" PRIu64 "s", ms / 1000u);
    } else {
        snprintf(buf, len, "%" PRIu64 "ms", ms);
    }
    return buf;
}

/*
 * Probe_timeout longer than the operation's timeout (less the margin): a
 * policy mismatch, not a broken configuration.  validate-all refuses it;
 * start, monitor and reload run with the stricter of the two, the
 * operation's bound: Pacemaker ends the operation at its timeout whatever
 * Probe_timeout says (a timed-out start or monitor is a failure it recovers),
 * so a cycle capped to fit gives the same bound with a classified reason
 * instead of a killed agent.  Never below the parameter's least (100 ms).
 */
static int
probe_timeout_policy(const struct fm_ocf *ocf, uint64_t *probe_timeout_ms)
{
    char note[512];
    char a[32];
    char b[32];
    char c[32];
    uint64_t cap_ms = (ocf->timeout_ms > FM_OCF_MARGIN_MS + 100)? ocf->timeout_ms - FM_OCF_MARGIN_MS : 100;

    if (fm_ocf_policy_refuses(ocf)) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "Probe_timeout=%s is longer than the %s operation's timeout %s "
                           "(less a margin of %d ms): a probe cycle could not finish in time",
                           fm_ocf_param_or("Probe_timeout", fmt_ms(a, sizeof(a), *probe_timeout_ms)),
                           ocf->action, fmt_ms(b, sizeof(b), ocf->timeout_ms), FM_OCF_MARGIN_MS);
    }
    snprintf(note, sizeof(note), "Probe_timeout=%s is longer than the %s operation's timeout %s less "
             "%d ms: running with Probe_timeout=%s (validate-all refuses this; lower Probe_timeout or "
             "raise the timeout)", fm_ocf_param_or("Probe_timeout", fmt_ms(a, sizeof(a), *probe_timeout_ms)),
             ocf->action, fmt_ms(b, sizeof(b), ocf->timeout_ms), FM_OCF_MARGIN_MS,
             fmt_ms(c, sizeof(c), cap_ms));
    fm_ocf_param_set("Probe_timeout", c);
    *probe_timeout_ms = cap_ms;
    /* A monitor's fresh probe is bounded by the time left anyway: the
     * loop's policy is the start's to note. */
    if (strcmp(ocf->action, "monitor") != 0) {
        fm_ocf_policy_note(ocf, note);
    }
    return PCMK_OCF_OK;
}

int
fm_ocf_validate_loop_params(const struct fm_ocf *ocf, uint64_t *probe_timeout_ms)
{
    struct fm_run_config cfg;
    char err[512] = "";
    char warn[512] = "";
    /* Files the loop reads at start: missing ones are this node's problem. */
    static const char *const tls_files[] = { "tls_ca_file", "tls_cert_file", "tls_key_file" };
    int rc = PCMK_OCF_OK;

    fm_run_config_init(&cfg);
    if (fm_run_config_from_env(&cfg, err, sizeof(err)) != 0
        || fm_run_config_finish(&cfg, err, sizeof(err)) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s", (err[0] != '\0')? err : "invalid parameters");
        goto done;
    }
    /* As its loop will run (--kind=httpmon): no warning about Retry_count,
     * which httpmon does not have. */
    cfg.decide.publish_only = strcmp(ocf->agent, FM_KIND_HTTPMON) == 0;
    for (size_t i = 0; i < sizeof(tls_files) / sizeof(tls_files[0]); i++) {
        const char *file = fm_ocf_param(tls_files[i]);

        if (file != NULL && file[0] != '\0' && access(file, R_OK) != 0) {
            rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "%s '%s' cannot be read on this node: %s",
                             tls_files[i], file, strerror(errno));
            goto done;
        }
    }
    for (size_t i = 0; i < cfg.n_targets; i++) {
        if (cfg.targets[i].kind == FM_PROBE_EXEC
            && fm_exec_program_check(&cfg.targets[i], err, sizeof(err)) != 0) {
            rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "%s on this node", err);
            goto done;
        }
    }
    if (ocf->timeout_given && cfg.probe.timeout_ms + FM_OCF_MARGIN_MS > ocf->timeout_ms) {
        rc = probe_timeout_policy(ocf, &cfg.probe.timeout_ms);
        if (rc != PCMK_OCF_OK) {
            goto done;
        }
    }
    if (fm_decide_opts_validate(&cfg.decide, err, sizeof(err), warn, sizeof(warn)) == 0
        && warn[0] != '\0') {
        fm_ocf_log(LOG_WARNING, "%s", warn);
    }
    if (probe_timeout_ms != NULL) {
        *probe_timeout_ms = cfg.probe.timeout_ms;
    }

done:
    fm_run_config_clear(&cfg);
    return rc;
}

/* Keep a trace of a loop that died without stopping: the monitor restarts
 * it, which would otherwise hide the crash. */
static void
note_loop_death(const struct fm_ocf *ocf, int64_t pid)
{
    char path[FM_OCF_PATH_MAX + 16];
    char line[96];
    int fd = -1;
    int len = 0;

    fm_ocf_log(LOG_ERR, "the fault monitor (pid %lld) ended without stopping cleanly (crashed or "
               "killed); see %s/loop-died", (long long) pid, ocf->state_dir);
    snprintf(path, sizeof(path), "%s/loop-died", ocf->state_dir);
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        return;
    }
    len = snprintf(line, sizeof(line), "%lld pid %lld\n", (long long) time(NULL), (long long) pid);
    if (write(fd, line, (size_t) len) != len) {
        fm_ocf_log(LOG_WARNING, "cannot write %s: %s", path, strerror(errno));
    }
    close(fd);
}

void
fm_ocf_service_kept_env(bool kept)
{
    if (kept) {
        setenv("FAULTMON_SERVICE_KEPT", "1", 1);
    } else {
        unsetenv("FAULTMON_SERVICE_KEPT");
    }
}

int
fm_ocf_loop_start(const struct fm_ocf *ocf, const char *extra_arg, struct fm_run_state *st)
{
    char *argv[6];
    size_t argc = 0;
    char err[512];
    pid_t pid = 0;
    int64_t holder = 0;
    bool holder_is_loop = false;
    int64_t died = 0;
    int rc = 0;

    rc = fm_state_dir_create(ocf->state_dir);
    if (rc != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot create %s: %s", ocf->state_dir,
                           strerror(rc));
    }
    argv[argc++] = (char *) fm_ocf_faultmon_path();
    argv[argc++] = (char *) "run";
    argv[argc++] = (char *) ocf->resource;
    if (extra_arg != NULL) {
        argv[argc++] = (char *) extra_arg;
    }
    argv[argc] = NULL;

    /* Never a second loop: one that holds the lock is the loop. */
    if (fm_state_lock_holder(ocf->state_dir, &holder, &holder_is_loop)) {
        if (!holder_is_loop) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot start the fault monitor: %s/lock is held "
                               "by %s%lld, which is not a faultmon loop", ocf->state_dir,
                               (holder != 0)? "pid " : "an unknown process ", (long long) holder);
        }
        pid = (pid_t) holder;
        fm_ocf_log(LOG_INFO, "the fault monitor already runs (pid %ld); not starting another", (long) pid);
    } else {
        died = fm_state_loop_died(ocf->state_dir);
        if (died != 0) {
            note_loop_death(ocf, died);
        }
        if (access(argv[0], X_OK) != 0) {
            return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "cannot run %s: %s", argv[0], strerror(errno));
        }
        rc = fm_ocf_spawn_daemon(argv, &pid);
        if (rc != 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot start the fault monitor: %s",
                               strerror(rc));
        }
        fm_ocf_log(LOG_INFO, "started the fault monitor (pid %ld)", (long) pid);
    }

    /* Ready once the loop has written the state of its first cycle. */
    for (;;) {
        if (fm_state_read(ocf->state_dir, st, err, sizeof(err)) == 0
            && st->pid == (int64_t) pid && st->cycles >= 1) {
            return PCMK_OCF_OK;
        }
        if (!fm_ocf_pid_alive(pid, NULL)) {
            /* Another start won the lock between our check and our loop's:
             * that loop is the one to wait for. */
            if (fm_state_lock_holder(ocf->state_dir, &holder, &holder_is_loop) && holder_is_loop
                && holder != (int64_t) pid) {
                pid = (pid_t) holder;
                continue;
            }
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
                               "the fault monitor exited at once; run '%s run %s -v' with the "
                               "resource's OCF_RESKEY_ variables to see why",
                               argv[0], ocf->resource);
        }
        if (fm_ocf_left_ms(ocf) == 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
                               "the fault monitor (pid %ld) did not finish its first probe "
                               "cycle within the %s timeout", (long) pid, ocf->action);
        }
        fm_ocf_sleep_ms(20);
    }
}

/* A loop killed here leaves its PID in the lock file, which the next start
 * would report as a crash (fm_state_loop_died(): "ERROR ... crashed or
 * killed"): this kill was ours and is logged as it happens, so the lock is
 * taken and released as a clean stop would. */
static void
forget_killed_loop(const struct fm_ocf *ocf)
{
    int64_t holder = 0;
    bool holder_is_loop = false;
    int fd = -1;

    if (fm_state_lock(ocf->state_dir, &fd, &holder, &holder_is_loop) == 0) {
        fm_state_unlock(fd);
    }
}

bool
fm_ocf_loop_stop(const struct fm_ocf *ocf, uint64_t timeout_ms)
{
    int64_t pid = fm_state_loop_pid(ocf->state_dir);

    if (pid == 0) {
        return true;
    }
    kill((pid_t) pid, SIGTERM);
    if (fm_ocf_wait_gone((pid_t) pid, timeout_ms)) {
        fm_ocf_log(LOG_INFO, "stopped the fault monitor (pid %lld)", (long long) pid);
        return true;
    }
    fm_ocf_log(LOG_WARNING, "the fault monitor (pid %lld) ignored SIGTERM; killing it",
               (long long) pid);
    kill((pid_t) pid, SIGKILL);
    if (!fm_ocf_wait_gone((pid_t) pid, 1000)) {
        return false;
    }
    forget_killed_loop(ocf);
    return true;
}

static bool
first_cycle_due(const struct fm_ocf *ocf, uint64_t *age_s)
{
    char path[FM_OCF_PATH_MAX + 16];
    struct stat sb;
    uint64_t interval_ms = 60000;
    uint64_t timeout_ms = 5000;
    uint64_t bound_s = 0;
    time_t now = time(NULL);

    /* Defaults where a parameter is unset or not a duration (the loop's). */
    if (fm_parse_duration_ms(fm_ocf_param_or("Thorough_probe_interval", "60s"), &interval_ms) != 0) {
        interval_ms = 60000;
    }
    if (fm_parse_duration_ms(fm_ocf_param_or("Probe_timeout", "5s"), &timeout_ms) != 0) {
        timeout_ms = 5000;
    }
    /* The staleness bound of a written state (fm_recovery_state_stale()),
     * from the loop's start: it waits up to an interval for its phase,
     * then its first cycle takes up to Probe_timeout. */
    bound_s = (2 * (interval_ms + timeout_ms) + FM_RECOVERY_STALE_GRACE_MS) / 1000u;
    *age_s = 0;
    /* The loop writes its PID into its lock file when it starts. */
    snprintf(path, sizeof(path), "%s/lock", ocf->state_dir);
    if (stat(path, &sb) != 0 || now <= sb.st_mtime) {
        return true;
    }
    *age_s = (uint64_t) (now - sb.st_mtime);
    return *age_s <= bound_s;
}

int
fm_ocf_loop_state_read(const struct fm_ocf *ocf, struct fm_run_state *st, char *err, size_t err_len)
{
    uint64_t age_s = 0;
    int rc = fm_state_read(ocf->state_dir, st, err, err_len);

    if (rc != ENOENT || first_cycle_due(ocf, &age_s)) {
        return rc;
    }
    return fm_errf(err, err_len, ETIME, "the fault monitor has written no state in the %" PRIu64 " s since "
                   "it started", age_s);
}

void
fm_ocf_first_failure(const struct fm_run_state *st, char *buf, size_t buf_len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < st->n_targets; i++) {
        const struct fm_state_target *t = &st->targets[i];

        if (t->cls != FM_CLASS_OK) {
            if (t->http_status != 0) {
                snprintf(buf, buf_len, "%s: %s, HTTP %d", t->target, fm_reason_name(t->reason),
                           t->http_status);
            } else {
                snprintf(buf, buf_len, "%s: %s", t->target, fm_reason_name(t->reason));
            }
            return;
        }
    }
}

int
fm_ocf_fresh_probe(const struct fm_ocf *ocf, uint64_t probe_timeout_ms)
{
    char helper[FM_OCF_PATH_MAX];
    char timeout_arg[32];
    char out[1024];
    char *argv[4];
    uint64_t left_ms = fm_ocf_left_ms(ocf);
    uint64_t run_ms = probe_timeout_ms;
    int status = 0;

    if (fm_ocf_probe_helper_path(helper, sizeof(helper)) != 0 || access(helper, X_OK) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "the probe helper faultmon-ocf-probe is missing");
    }
    /* The cycle must end before the operation does; the helper gets a
     * little longer than its probes to report. */
    if (left_ms < 500) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "no time left in the monitor for a fresh probe");
    }
    if (run_ms > left_ms - 300) {
        run_ms = left_ms - 300;
    }
    snprintf(timeout_arg, sizeof(timeout_arg), "%" PRIu64, run_ms);
    argv[0] = helper;
    argv[1] = (char *) "--timeout-ms";
    argv[2] = timeout_arg;
    argv[3] = NULL;
    status = fm_ocf_run(argv, out, sizeof(out), NULL, run_ms + 300);
    out[strcspn(out, "\n")] = '\0';
    switch (status) {
        case 0:
            return PCMK_OCF_OK;
        case 1:
            return fm_ocf_fail(PCMK_OCF_DEGRADED, "fresh probe: partial failure: %s", out);
        case 2:
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "fresh probe: complete failure: %s", out);
        case -1:
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "fresh probe did not finish in %" PRIu64 " ms",
                               run_ms + 300);
        default:
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "fresh probe failed (status %d): %s",
                               status, out);
    }
}

int
fm_ocf_loop_event(const struct fm_ocf *ocf, const char *cause, struct fm_run_state *st)
{
    int64_t pid = fm_state_loop_pid(ocf->state_dir);
    char err[512];
    uint64_t left_ms = fm_ocf_left_ms(ocf);
    uint64_t end_us = 0;
    int rc = 0;

    if (pid == 0) {
        return ESRCH;
    }
    rc = fm_recovery_post_event(ocf->state_dir, cause);
    if (rc != 0) {
        return rc;
    }
    if (kill((pid_t) pid, SIGUSR2) != 0) {
        rc = errno;
        fm_recovery_withdraw_event(ocf->state_dir);
        return rc;
    }
    /* The loop removes the file once the state holds its decision. */
    end_us = fm_now_us() + ((left_ms > 0 && left_ms < 3000)? left_ms : 3000) * 1000u;
    while (fm_recovery_event_waiting(ocf->state_dir)) {
        if (fm_now_us() >= end_us) {
            fm_recovery_withdraw_event(ocf->state_dir);
            return ETIMEDOUT;
        }
        fm_ocf_sleep_ms(5);
    }
    rc = fm_state_read(ocf->state_dir, st, err, sizeof(err));
    if (rc == 0 && fm_recovery_take_event_same(ocf->state_dir)) {
        return EALREADY;
    }
    return rc;
}

void
fm_ocf_loop_reset(const struct fm_ocf *ocf)
{
    char *argv[4];
    char out[512];
    int status = 0;

    if (access(ocf->state_dir, F_OK) != 0) {
        return;
    }
    argv[0] = (char *) fm_ocf_faultmon_path();
    argv[1] = (char *) "reset";
    argv[2] = (char *) ocf->resource;
    argv[3] = NULL;
    out[0] = '\0';
    status = fm_ocf_run(argv, out, sizeof(out), NULL, 5000);
    out[strcspn(out, "\n")] = '\0';
    if (status != 0) {
        fm_ocf_log(LOG_WARNING, "faultmon reset %s failed (status %d): %s", ocf->resource, status, out);
        return;
    }
    fm_ocf_log(LOG_INFO, "probe (after a cleanup, or a new node): %s", out);
    /* The explanation of a decision that is gone goes with it. */
    {
        char name[FM_RESOURCE_NAME_MAX + 32];

        snprintf(name, sizeof(name), "faultmon-%s-reason", ocf->resource);
        fm_ocf_attrd(ocf, name, NULL);
    }
}

void
fm_ocf_short_decision(const struct fm_run_state *st, const char *cause, char *buf, size_t buf_len)
{
    const char *reason = (st->reason[0] != '\0')? st->reason : "the fault monitor reports a failure";
    const char *over = strstr(reason, ": failing over");
    const char *restart = strstr(reason, ": restart ");
    char failed[512];

    if (cause == NULL || cause[0] == '\0') {
        fm_ocf_first_failure(st, failed, sizeof(failed));
        cause = failed;
    }
    if (cause[0] == '\0' && st->pending != FM_ACTION_NONE && st->resource[0] != '\0') {
        /* A recovery not decided by a probe (httpd's exit, the monitor's
         * report): the loop wrote its cause beside the state. */
        char dir[FM_OCF_PATH_MAX];

        if (fm_state_dir(st->resource, dir, sizeof(dir)) == 0) {
            fm_recovery_read_cause(dir, failed, sizeof(failed));
        }
    }
    /* Target and cause, then the decision, then the rest: Pacemaker keeps
     * about 128 bytes. */
    if (over != NULL) {
        snprintf(buf, buf_len, "%s%sfailing over: %.*s%s", cause, (cause[0] != '\0')? ": " : "",
                   (int) (over - reason), reason, over + 14);
    } else if (restart != NULL) {
        snprintf(buf, buf_len, "%s%s%s; %.*s", cause, (cause[0] != '\0')? ": " : "", restart + 2,
                   (int) (restart - reason), reason);
    } else {
        snprintf(buf, buf_len, "%s%s%s", cause, (cause[0] != '\0')? ": " : "", reason);
    }
}

/*
 * On a Pacemaker Remote node the controller refuses the loop's fail request
 * (doc/admin-guide.md), so a failure is recovered when the monitor reports
 * it: with the meta-data's 60 s monitor, up to a minute later.  Said once a
 * loop (the file is removed once said; the loop writes it once), not at
 * every monitor; kept while the monitor is 10 s or shorter, so that a
 * monitor made slower later still says it.
 */
void
fm_ocf_loop_refusal_note(const struct fm_ocf *ocf)
{
    char every[32];
    int rc = 0;

    if (ocf->interval_ms <= FM_OCF_REFUSED_MONITOR_MAX_MS || !ocf->have_state_dir
        || !fm_recovery_file_exists(ocf->state_dir, FM_RECOVERY_REFUSED)) {
        return;
    }
    if (ocf->interval_ms % 1000 == 0) {
        snprintf(every, sizeof(every), "%" PRIu64 " s", ocf->interval_ms / 1000);
    } else {
        snprintf(every, sizeof(every), "%" PRIu64 " ms", ocf->interval_ms);
    }
    fm_ocf_log(LOG_WARNING, "the controller refused the fault monitor's fail request (a Pacemaker Remote "
               "node?): recovery on this node waits for the monitor, every %s; set op monitor "
               "interval=10s on %s to recover within 10 s", every,
               (ocf->resource != NULL)? ocf->resource : "the resource");
    rc = fm_recovery_file_mark(ocf->state_dir, FM_RECOVERY_REFUSED, false);
    if (rc != 0) {
        fm_ocf_log(LOG_WARNING, "cannot remove %s/" FM_RECOVERY_REFUSED ": %s", ocf->state_dir, strerror(rc));
    }
}
