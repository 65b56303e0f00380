/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: httpd control for ocf:faultmon:apache: its command
 * line, the configuration test, the directories it needs, starting it
 * until every Listen answers, and stopping every process of it.
 */
#include <config.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/clock.h>
#include <faultmon/parse.h>

#include "ocf_apache_int.h"
#include "ocf_conf_chain.h"

#ifndef FM_OCF_CHOWN
#define FM_OCF_CHOWN "/bin/chown"
#endif

pid_t
fm_apache_httpd_pid(const char *pid_file, const char *httpd)
{
    pid_t pid = fm_ocf_read_pid_file(pid_file);

    return (pid != 0 && fm_ocf_pid_alive(pid, httpd))? pid : 0;
}

/* httpd's command line: -DSTATUS, options, -f configfile [-c PidFile]. */
static char **
httpd_argv(const struct apache *a, const char *extra, char *pid_directive, size_t pd_len)
{
    char **argv = calloc(a->n_options + 8, sizeof(char *));
    size_t n = 0;

    if (argv == NULL) {
        return NULL;
    }
    argv[n++] = (char *) a->httpd;
    if (extra != NULL) {
        argv[n++] = (char *) extra;
    }
    argv[n++] = (char *) "-DSTATUS";
    for (size_t i = 0; i < a->n_options; i++) {
        argv[n++] = a->options[i];
    }
    argv[n++] = (char *) "-f";
    argv[n++] = (char *) a->configfile;
    if (a->pid_directive) {
        snprintf(pid_directive, pd_len, "PidFile %s", a->pid_file);
        argv[n++] = (char *) "-c";
        argv[n++] = pid_directive;
    }
    argv[n] = NULL;
    return argv;
}

int
fm_apache_httpd_configtest(const struct apache *a, uint64_t timeout_ms)
{
    char pid_directive[FM_OCF_PATH_MAX + 16];
    char out[2048];
    char **argv = a->ops->argv(a, "-t", pid_directive, sizeof(pid_directive));
    int status = 0;

    if (argv == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    status = fm_ocf_run(argv, out, sizeof(out), NULL, timeout_ms);
    free(argv);
    if (status == 0) {
        return PCMK_OCF_OK;
    }
    /* It may quote a file's words (an include of /etc/shadow): never show them. */
    fm_conf_hide_quoted(out, sizeof(out));
    {
        /* httpd's error takes two lines (where, then what): keep them on one. */
        char *line = out;

        for (char *p = out; *p != '\0'; p++) {
            if (*p == '\n' || *p == '\t') {
                *p = ' ';
            }
        }
        const char *name = strrchr(a->httpd, '/');
        size_t name_len = 0;

        name = (name != NULL)? name + 1 : a->httpd;
        name_len = strlen(name);
        while (*line == ' ') {
            line++;
        }
        /* "apache2: Syntax error on line 7 of FILE: ...": Pacemaker keeps
         * about 128 bytes of a reason, so httpd's own words come first. */
        if (strncmp(line, name, name_len) == 0 && line[name_len] == ':') {
            line += name_len + 1;
            while (*line == ' ') {
                line++;
            }
        }
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s -t: %s", name,
                           (line[0] != '\0')? line : "(no output) for configfile");
    }
}

/*
 * The lock directory belongs to APACHE_RUN_USER, as apache2ctl makes it.
 * chown(1) looks the name up: getpwnam() here would load glibc's NSS modules
 * into the agent, and in a static agent (--enable-static-agent) that crashes
 * for a user not in /etc/passwd (libnss_systemd links the shared libc).
 */
static void
httpd_chown_lock_dir(const struct apache *a, const char *dir, const char *user)
{
    char *argv[] = { (char *) FM_OCF_CHOWN, (char *) "--", (char *) user, (char *) dir, NULL };
    char out[256];
    int status = 0;

    if (user[0] == '\0' || strchr(user, ':') != NULL) {
        fm_ocf_log(LOG_WARNING, "cannot give %s to APACHE_RUN_USER '%s': not a user name", dir, user);
        return;
    }
    /* At most 5 s, as the agent's other helpers: a lookup stuck on a
     * directory server must not eat the action's whole deadline. */
    status = fm_ocf_run(argv, out, sizeof(out), NULL,
                        (fm_ocf_left_ms(a->ocf) < 5000)? fm_ocf_left_ms(a->ocf) : 5000);
    if (status != 0) {
        out[strcspn(out, "\n")] = '\0';
        fm_ocf_log(LOG_WARNING, "cannot give %s to %s: %s", dir, user,
                   (out[0] != '\0')? out : "chown did not finish");
    }
}

/* Debian's apache2ctl creates the directories envvars names; httpd does not. */
static void
httpd_make_runtime_dirs(const struct apache *a)
{
    static const char *const dirs[] = { "APACHE_RUN_DIR", "APACHE_LOCK_DIR", "APACHE_LOG_DIR", NULL };
    char dir[FM_OCF_PATH_MAX];
    char *slash = NULL;

    for (size_t i = 0; dirs[i] != NULL; i++) {
        const char *path = getenv(dirs[i]);

        if (path != NULL && path[0] == '/' && fm_ocf_mkdir_p(path, 0755) == 0
            && strcmp(dirs[i], "APACHE_LOCK_DIR") == 0 && getenv("APACHE_RUN_USER") != NULL) {
            httpd_chown_lock_dir(a, path, getenv("APACHE_RUN_USER"));
        }
    }
    snprintf(dir, sizeof(dir), "%s", a->pid_file);
    slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        fm_ocf_mkdir_p(dir, 0755);
    }
    if (a->conf.runtime_dir[0] == '/') {
        fm_ocf_mkdir_p(a->conf.runtime_dir, 0755);
    } else if (a->conf.runtime_dir[0] != '\0'
               && snprintf(dir, sizeof(dir), "%s/%s", a->conf.server_root, a->conf.runtime_dir)
                  < (int) sizeof(dir)) {
        fm_ocf_mkdir_p(dir, 0755);
    }
}

/* Whether a TCP connection to HOST:PORT (an address, not a name) opens. */
bool
fm_web_tcp_answers(const char *host, uint16_t port)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    int fd = -1;
    bool ok = false;

    memset(&ss, 0, sizeof(ss));
    if (strchr(host, ':') != NULL) {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) &ss;

        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons(port);
        if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1) {
            return true;        /* not an address: leave it to the loop */
        }
        len = sizeof(*sin6);
    } else {
        struct sockaddr_in *sin = (struct sockaddr_in *) &ss;

        sin->sin_family = AF_INET;
        sin->sin_port = htons(port);
        if (inet_pton(AF_INET, host, &sin->sin_addr) != 1) {
            return true;
        }
        len = sizeof(*sin);
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        return false;
    }
    if (connect(fd, (struct sockaddr *) &ss, len) == 0) {
        ok = true;
    } else if (errno == EINPROGRESS) {
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        int soerr = 0;
        socklen_t slen = sizeof(soerr);

        if (poll(&pfd, 1, 200) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen) == 0) {
            ok = (soerr == 0);
        }
    }
    close(fd);
    return ok;
}

static bool
listens_answer(const struct apache *a)
{
    for (size_t i = 0; i < a->conf.n_listen; i++) {
        const struct fm_apache_listen *l = &a->conf.listen[i];
        const char *host = l->host;

        if (host[0] == '\0') {
            host = a->ipv6? "::1" : "127.0.0.1";
        } else if (strcmp(host, "::") == 0) {
            host = "::1";
        }
        if (!fm_web_tcp_answers(host, l->port)) {
            return false;
        }
    }
    return true;
}

int
fm_apache_httpd_start(struct apache *a)
{
    char pid_directive[FM_OCF_PATH_MAX + 16];
    char out[2048];
    char **argv = NULL;
    int status = 0;

    a->ops->make_runtime_dirs(a);
    argv = a->ops->argv(a, NULL, pid_directive, sizeof(pid_directive));
    if (argv == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    status = fm_ocf_run(argv, out, sizeof(out), NULL, fm_ocf_left_ms(a->ocf));
    free(argv);
    out[strcspn(out, "\n")] = '\0';
    fm_conf_hide_quoted(out, sizeof(out));
    if (status != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s did not start (status %d): %s", a->httpd, status,
                           (out[0] != '\0')? out : "(no output; see its ErrorLog)");
    }
    if (out[0] != '\0') {
        fm_ocf_log(LOG_INFO, "%s says: %s", a->httpd, out);
    }
    /* Up once its pid file names a live httpd and every Listen answers. */
    for (;;) {
        pid_t pid = fm_apache_httpd_pid(a->pid_file, a->httpd);

        if (pid != 0 && listens_answer(a)) {
            fm_ocf_log(LOG_INFO, "%s is up (pid %ld)", a->ops->server, (long) pid);
            return PCMK_OCF_OK;
        }
        if (fm_ocf_left_ms(a->ocf) == 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
                               "%s did not answer on every listening address within the start timeout "
                               "(pid file %s)", a->ops->server, a->pid_file);
        }
        fm_ocf_sleep_ms(50);
    }
}

/* httpd's processes: the program, with our configfile after -f. */
static bool
httpd_own_process(const struct apache *a, pid_t pid, pid_t main_pid, const char *cmdline, size_t len)
{
    (void) pid;
    (void) main_pid;
    for (const char *arg = cmdline; arg < cmdline + len; arg += strlen(arg) + 1) {
        const char *next = arg + strlen(arg) + 1;

        if (strcmp(arg, "-f") == 0 && next < cmdline + len && strcmp(next, a->configfile) == 0) {
            return true;
        }
    }
    return false;
}

/* Processes of this server: the program, and what ops->own_process says. */
static size_t
find_httpd_processes(const struct apache *a, pid_t main_pid, pid_t *pids, size_t max)
{
    DIR *proc = opendir("/proc");
    struct dirent *de = NULL;
    size_t n = 0;

    if (proc == NULL) {
        return 0;
    }
    while ((de = readdir(proc)) != NULL && n < max) {
        char path[64];
        char cmdline[8192];
        ssize_t len = 0;
        int fd = -1;
        int64_t v = 0;
        pid_t pid = 0;

        /* Only the /proc entries that are processes: their PID as name. */
        if (fm_parse_i64(de->d_name, 2, INT_MAX, FM_PARSE_DEFAULT, &v) != 0) {
            continue;
        }
        pid = (pid_t) v;
        if (pid == getpid() || !fm_ocf_pid_alive(pid, a->httpd)) {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            continue;
        }
        len = read(fd, cmdline, sizeof(cmdline) - 1);
        close(fd);
        if (len <= 0) {
            continue;
        }
        cmdline[len] = '\0';
        if (a->ops->own_process(a, pid, main_pid, cmdline, (size_t) len)) {
            pids[n++] = pid;
        }
    }
    closedir(proc);
    return n;
}

static bool
all_gone(const pid_t *pids, size_t n, uint64_t timeout_ms)
{
    uint64_t end_us = fm_now_us() + timeout_ms * 1000u;

    for (;;) {
        bool alive = false;

        for (size_t i = 0; i < n; i++) {
            alive = alive || fm_ocf_pid_alive(pids[i], NULL);
        }
        if (!alive) {
            return true;
        }
        if (fm_now_us() >= end_us) {
            return false;
        }
        fm_ocf_sleep_ms(50);
    }
}

/* A stopped process (SIGSTOP, a debugger) acts on no signal until it is
 * continued: follow each request with SIGCONT, as systemd does, or a stop
 * would wait the whole timeout for a hung httpd. */
static void
signal_continued(pid_t pid, int sig)
{
    kill(pid, sig);
    kill(pid, SIGCONT);
}

/* The server's stop signal (httpd: SIGWINCH, graceful) for half of the
 * time left, SIGTERM until most of it is gone, then SIGKILL for every
 * process of this server. */
int
fm_apache_httpd_stop(struct apache *a, pid_t pid)
{
    pid_t pids[256];
    size_t n = 0;
    uint64_t left_ms = fm_ocf_left_ms(a->ocf);

    if (pid != 0) {
        fm_ocf_log(LOG_INFO, "stopping %s (pid %ld, signal %d)", a->ops->server, (long) pid,
                   a->ops->stop_signal);
        signal_continued(pid, a->ops->stop_signal);
        if (!fm_ocf_wait_gone(pid, left_ms / 2)) {
            fm_ocf_log(LOG_WARNING, "%s (pid %ld) still running after %" PRIu64 " ms; sending SIGTERM",
                       a->ops->server, (long) pid, left_ms / 2);
            signal_continued(pid, SIGTERM);
            left_ms = fm_ocf_left_ms(a->ocf);
            fm_ocf_wait_gone(pid, (left_ms * 2) / 3);
        }
    }
    n = find_httpd_processes(a, pid, pids, sizeof(pids) / sizeof(pids[0]));
    if (n > 0) {
        for (size_t i = 0; i < n; i++) {
            signal_continued(pids[i], SIGTERM);
        }
        if (!all_gone(pids, n, fm_ocf_left_ms(a->ocf) / 2)) {
            fm_ocf_log(LOG_WARNING, "killing %zu remaining %s process(es)", n, a->ops->server);
            for (size_t i = 0; i < n; i++) {
                kill(pids[i], SIGKILL);
            }
            all_gone(pids, n, 1000);
        }
    }
    n = find_httpd_processes(a, pid, pids, sizeof(pids) / sizeof(pids[0]));
    if (n > 0 || (pid != 0 && fm_ocf_pid_alive(pid, NULL))) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s (pid %ld) still running after SIGKILL", a->ops->server,
                           (long) ((pid != 0)? pid : pids[0]));
    }
    /* A pid file left by a killed httpd would name a PID that another
     * program may get. */
    if (a->pid_directive || fm_ocf_read_pid_file(a->pid_file) != 0) {
        unlink(a->pid_file);
    }
    return PCMK_OCF_OK;
}

const struct fm_web_ops fm_apache_ops = {
    .agent = "apache",
    .server = "httpd",
    .stop_signal = SIGWINCH,
    .resolve_params = fm_apache_resolve_params,
    .resolve_rest = fm_apache_resolve_rest,
    .argv = httpd_argv,
    .make_runtime_dirs = httpd_make_runtime_dirs,
    .own_process = httpd_own_process,
    .heartbeat_mode = fm_apache_heartbeat_mode,
    .translate = fm_apache_translate_params,
    .test_prepare = fm_apache_level10_prepare,
    .digest = fm_apache_httpd_params_digest,
};

int
fm_ocf_apache_main(struct fm_ocf *ocf)
{
    return fm_web_main(ocf, &fm_apache_ops);
}
