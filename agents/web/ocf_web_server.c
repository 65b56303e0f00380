/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the server process of a web agent (httpd, nginx):
 * its configuration test, starting it until every listening address
 * answers, stopping every process of it, and what the loop needs to watch
 * it.  Its command line, directories and processes come from the server's
 * struct fm_web_ops (ocf_apache.c, ocf_nginx.c).
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

#include "ocf_conf_chain.h"
#include "ocf_web.h"

pid_t
fm_web_server_pid(const char *pid_file, const char *program)
{
    pid_t pid = fm_ocf_read_pid_file(pid_file);

    return (pid != 0 && fm_ocf_pid_alive(pid, program))? pid : 0;
}

/* The loop watches the server's parent and finds its exit at once; its
 * reasons name it as the agent does ("nginx (pid 812) exited"). */
void
fm_web_watch_env(const struct fm_web *w, const char *pid_file, bool kept)
{
    setenv("FAULTMON_WATCH_PIDFILE", pid_file, 1);
    setenv("FAULTMON_WATCH_NAME", w->ops->server, 1);
    fm_ocf_service_kept_env(kept);
}

int
fm_web_server_configtest(const struct fm_web *w, uint64_t timeout_ms)
{
    char pid_directive[FM_OCF_PATH_MAX + 16];
    char out[2048];
    char **argv = w->ops->argv(w, "-t", pid_directive, sizeof(pid_directive));
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
        /* Its error may take two lines (httpd: where, then what): one line. */
        char *line = out;

        for (char *p = out; *p != '\0'; p++) {
            if (*p == '\n' || *p == '\t') {
                *p = ' ';
            }
        }
        const char *name = strrchr(w->program, '/');
        size_t name_len = 0;

        name = (name != NULL)? name + 1 : w->program;
        name_len = strlen(name);
        while (*line == ' ') {
            line++;
        }
        /* "apache2: Syntax error on line 7 of FILE: ...": Pacemaker keeps
         * about 128 bytes of a reason, so the server's own words come first. */
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

/* Whether a TCP connection to HOST:PORT (an address, not a name) opens. */
static bool
tcp_answers(const char *host, uint16_t port)
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
listens_answer(const struct fm_web *w)
{
    for (size_t i = 0; i < w->conf.n_listen; i++) {
        const struct fm_web_listen *l = &w->conf.listen[i];
        const char *host = l->host;

        if (host[0] == '\0') {
            host = w->ipv6? "::1" : "127.0.0.1";
        } else if (strcmp(host, "::") == 0) {
            host = "::1";
        }
        if (!tcp_answers(host, l->port)) {
            return false;
        }
    }
    return true;
}

int
fm_web_server_start(struct fm_web *w)
{
    char pid_directive[FM_OCF_PATH_MAX + 16];
    char out[2048];
    char **argv = NULL;
    int status = 0;

    w->ops->make_runtime_dirs(w);
    argv = w->ops->argv(w, NULL, pid_directive, sizeof(pid_directive));
    if (argv == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    status = fm_ocf_run(argv, out, sizeof(out), NULL, fm_ocf_left_ms(w->ocf));
    free(argv);
    out[strcspn(out, "\n")] = '\0';
    fm_conf_hide_quoted(out, sizeof(out));
    if (status != 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s did not start (status %d): %s", w->program, status,
                           (out[0] != '\0')? out : "(no output; see its ErrorLog)");
    }
    if (out[0] != '\0') {
        fm_ocf_log(LOG_INFO, "%s says: %s", w->program, out);
    }
    /* Up once its pid file names a live server and every listen answers. */
    for (;;) {
        pid_t pid = fm_web_server_pid(w->pid_file, w->program);

        if (pid != 0 && listens_answer(w)) {
            fm_ocf_log(LOG_INFO, "%s is up (pid %ld)", w->ops->server, (long) pid);
            return PCMK_OCF_OK;
        }
        if (fm_ocf_left_ms(w->ocf) == 0) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR,
                               "%s did not answer on every listening address within the start timeout "
                               "(pid file %s)", w->ops->server, w->pid_file);
        }
        fm_ocf_sleep_ms(50);
    }
}

/* Processes of this server: the program, and what ops->own_process says. */
static size_t
find_server_processes(const struct fm_web *w, pid_t main_pid, pid_t *pids, size_t max)
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
        if (pid == getpid() || !fm_ocf_pid_alive(pid, w->program)) {
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
        if (w->ops->own_process(w, pid, main_pid, cmdline, (size_t) len)) {
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
 * would wait the whole timeout for a hung server. */
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
fm_web_server_stop(struct fm_web *w, pid_t pid)
{
    pid_t pids[256];
    size_t n = 0;
    uint64_t left_ms = fm_ocf_left_ms(w->ocf);

    if (pid != 0) {
        fm_ocf_log(LOG_INFO, "stopping %s (pid %ld, signal %d)", w->ops->server, (long) pid,
                   w->ops->stop_signal);
        signal_continued(pid, w->ops->stop_signal);
        if (!fm_ocf_wait_gone(pid, left_ms / 2)) {
            fm_ocf_log(LOG_WARNING, "%s (pid %ld) still running after %" PRIu64 " ms; sending SIGTERM",
                       w->ops->server, (long) pid, left_ms / 2);
            signal_continued(pid, SIGTERM);
            left_ms = fm_ocf_left_ms(w->ocf);
            fm_ocf_wait_gone(pid, (left_ms * 2) / 3);
        }
    }
    n = find_server_processes(w, pid, pids, sizeof(pids) / sizeof(pids[0]));
    if (n > 0) {
        for (size_t i = 0; i < n; i++) {
            signal_continued(pids[i], SIGTERM);
        }
        if (!all_gone(pids, n, fm_ocf_left_ms(w->ocf) / 2)) {
            fm_ocf_log(LOG_WARNING, "killing %zu remaining %s process(es)", n, w->ops->server);
            for (size_t i = 0; i < n; i++) {
                kill(pids[i], SIGKILL);
            }
            all_gone(pids, n, 1000);
        }
    }
    n = find_server_processes(w, pid, pids, sizeof(pids) / sizeof(pids[0]));
    if (n > 0 || (pid != 0 && fm_ocf_pid_alive(pid, NULL))) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s (pid %ld) still running after SIGKILL", w->ops->server,
                           (long) ((pid != 0)? pid : pids[0]));
    }
    /* A pid file left by a killed server would name a PID that another
     * program may get. */
    if (w->pid_directive || fm_ocf_read_pid_file(w->pid_file) != 0) {
        unlink(w->pid_file);
    }
    return PCMK_OCF_OK;
}
