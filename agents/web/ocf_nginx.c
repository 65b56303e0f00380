/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:nginx.  Its actions are the web
 * agents' (ocf_web.c); this file says what differs for nginx: its command
 * line, which processes are its own, ocf:heartbeat:nginx's monitor tests of
 * OCF_CHECK_LEVEL 10 (status10url), 20 (test20*) and 30
 * (external_monitor30_cmd), and its struct fm_web_ops.
 */
#include <config.h>

#include "ocf_nginx.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/words.h>

#include "ocf_web.h"

#define DEFAULT_STATUS10REGEX "Reading: [0-9]+ Writing: [0-9]+ Waiting: [0-9]+"

/* As heartbeat's: nginx OPTIONS [-t] -c CONFIGFILE. */
static char **
nginx_argv(const struct fm_web *w, const char *extra, char *buf, size_t buf_len)
{
    char **argv = calloc(w->n_options + 6, sizeof(char *));
    size_t n = 0;

    (void) buf;
    (void) buf_len;
    if (argv == NULL) {
        return NULL;
    }
    argv[n++] = (char *) w->program;
    for (size_t i = 0; i < w->n_options; i++) {
        argv[n++] = w->options[i];
    }
    if (extra != NULL) {
        argv[n++] = (char *) extra;
    }
    argv[n++] = (char *) "-c";
    argv[n++] = (char *) w->configfile;
    argv[n] = NULL;
    return argv;
}

/* nginx does not create the directory of its pid file. */
static void
nginx_make_runtime_dirs(const struct fm_web *w)
{
    char dir[FM_OCF_PATH_MAX];
    char *slash = NULL;

    snprintf(dir, sizeof(dir), "%s", w->pid_file);
    slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        fm_ocf_mkdir_p(dir, 0755);
    }
}

/*
 * nginx's processes: the master names our configuration in its title
 * ("nginx: master process /usr/sbin/nginx -c FILE"); its workers, cache
 * managers... are in the session the master leads, even after a kill -9 of
 * the master (then the pid file still holds its PID).
 */
static bool
nginx_own_process(const struct fm_web *w, pid_t pid, pid_t main_pid, const char *cmdline, size_t len)
{
    char title[8192];
    char needle[FM_OCF_PATH_MAX + 8];
    const char *hit = NULL;
    size_t n = (len < sizeof(title) - 1)? len : sizeof(title) - 1;

    if (main_pid == 0) {
        main_pid = fm_ocf_read_pid_file(w->pid_file);
    }
    if (main_pid > 1 && fm_ocf_proc_session(pid) == main_pid) {
        return true;
    }
    memcpy(title, cmdline, n);
    title[n] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (title[i] == '\0') {
            title[i] = ' ';
        }
    }
    snprintf(needle, sizeof(needle), " -c %s", w->configfile);
    hit = strstr(title, needle);
    return hit != NULL && (hit[strlen(needle)] == '\0' || hit[strlen(needle)] == ' ');
}

/* The program of an external command: as given when absolute, else
 * searched in PATH as heartbeat's `which` does. */
static bool
find_program(const char *name, char *buf, size_t buf_len)
{
    const char *path = getenv("PATH");

    if (strchr(name, '/') != NULL) {
        snprintf(buf, buf_len, "%s", name);
        return access(buf, X_OK) == 0;
    }
    for (const char *p = (path != NULL)? path : "/usr/sbin:/usr/bin:/sbin:/bin"; *p != '\0';) {
        size_t len = strcspn(p, ":");
        struct stat st;

        snprintf(buf, buf_len, "%.*s/%s", (int) len, p, name);
        if (len > 0 && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) {
            return true;
        }
        p += len + (p[len] == ':');
    }
    return false;
}

/*
 * external_monitor30_cmd: heartbeat runs it through the shell; faultmon
 * runs no parameter through a shell.  It is split into words as a shell
 * would split it, and shell syntax (pipes, redirections, $...) is refused.
 */
static int
external_test(const struct fm_ocf *ocf, bool check_only)
{
    const char *cmd = fm_ocf_param("external_monitor30_cmd");
    char **words = NULL;
    size_t n_words = 0;
    char syntax = '\0';
    char program[FM_OCF_PATH_MAX];
    char out[512] = "";
    int status = 0;

    if (cmd == NULL || cmd[0] == '\0') {
        return check_only? PCMK_OCF_OK
               : fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "External level 30 Monitor Command not configured.");
    }
    if (fm_words_split(cmd, &words, &n_words, &syntax) != 0 || n_words == 0) {
        fm_words_free(words, n_words);
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "external_monitor30_cmd '%s': unbalanced quote or empty",
                           cmd);
    }
    if (syntax != '\0') {
        fm_words_free(words, n_words);
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "external_monitor30_cmd '%s': no shell runs it, so '%c' "
                           "would be an argument; single-quote it, or name a shell: /bin/sh -c '...'", cmd, syntax);
    }
    if (!find_program(words[0], program, sizeof(program))) {
        fm_words_free(words, n_words);
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "External monitor command [%s] is not installed.", cmd);
    }
    if (!check_only) {
        char *saved = words[0];

        words[0] = program;
        status = fm_ocf_run(words, out, sizeof(out), NULL, fm_ocf_left_ms(ocf));
        words[0] = saved;
    }
    fm_words_free(words, n_words);
    if (status != 0) {
        out[strcspn(out, "\n")] = '\0';
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s reported failure [rc=%d]%s%s", program, status,
                           (out[0] != '\0')? ": " : "", out);
    }
    return PCMK_OCF_OK;
}

/* Level 20: test20conffile (a readable regular file), else test20url and
 * test20regex; the URL relative to the first listen, as heartbeat's
 * fixtesturl. */
static int
test20(const char *base_url, bool check_only)
{
    const char *conffile = fm_ocf_param("test20conffile");
    struct stat st;
    /* heartbeat's [ -f FILE -a -r FILE ]: otherwise test20url and test20regex. */
    bool in_file = conffile != NULL && conffile[0] != '\0' && stat(conffile, &st) == 0 && S_ISREG(st.st_mode)
                   && access(conffile, R_OK) == 0;
    char url[FM_WEB_URL_MAX] = "";
    char regex[FM_WEB_URL_MAX] = "";
    char user[512] = "";
    char password[512] = "";
    char full[2 * FM_WEB_URL_MAX];
    int rc = PCMK_OCF_OK;

    if (in_file) {
        rc = fm_web_read_testconf("test20conffile", conffile, fm_ocf_param("test20name"), url, sizeof(url),
                                  regex, sizeof(regex), user, sizeof(user), password, sizeof(password));
    } else {
        snprintf(url, sizeof(url), "%s", fm_ocf_param_or("test20url", ""));
        snprintf(regex, sizeof(regex), "%s", fm_ocf_param_or("test20regex", ""));
        if (check_only && url[0] == '\0' && regex[0] == '\0') {
            return PCMK_OCF_OK;
        }
        if (url[0] == '\0' || regex[0] == '\0') {
            rc = fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "test regular expression or test url empty");
        }
    }
    if (rc == PCMK_OCF_OK) {
        fm_web_absolute_url(base_url, url, full, sizeof(full));
        rc = fm_web_test_export(in_file? "test20conffile url" : "test20url",
                                in_file? "test20conffile match" : "test20regex", full, regex, user, password,
                                check_only);
    }
    explicit_bzero(password, sizeof(password));
    return rc;
}

/* heartbeat's validate-all: the status URL must be http://HOST/PATH. */
static bool
heartbeat_statusurl(const char *url)
{
    return strncmp(url, "http://", 7) == 0 && strchr(url + 7, '/') != NULL;
}

/*
 * Level 10: status10url and status10regex.  heartbeat's validate-all
 * refuses a status URL that is not http://HOST/PATH, the derived one too
 * (without a stub_status location it is the bare http://HOST:PORT):
 * validate-all does here; start and reload refuse only a status10url given
 * so, for heartbeat's start does not check it at all.
 */
static int
test10(const struct fm_ocf *ocf, const char *status_url, bool check_only)
{
    const char *given = fm_ocf_param("status10url");
    const char *regex = fm_ocf_param_or("status10regex", DEFAULT_STATUS10REGEX);
    bool validate_all = strcmp(ocf->action, "validate-all") == 0;

    if (given != NULL && given[0] != '\0' && !heartbeat_statusurl(given)) {
        return fm_ocf_fail(PCMK_OCF_INVALID_PARAM, "Invalid STATUSURL %s: expected http://HOST/PATH", given);
    }
    if (check_only && validate_all && !heartbeat_statusurl(status_url)) {
        return fm_ocf_fail(PCMK_OCF_INVALID_PARAM, "Invalid STATUSURL %s (no stub_status location found): "
                           "expected http://HOST/PATH, as ocf:heartbeat:nginx's validate-all", status_url);
    }
    if (strlen(regex) >= FM_WEB_URL_MAX || strlen(status_url) >= FM_WEB_URL_MAX) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "status10url or status10regex is longer than %d bytes",
                           FM_WEB_URL_MAX - 1);
    }
    if (regex[0] == '\0') {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "status10regex is empty");
    }
    return fm_web_test_export("status10url", "status10regex", status_url, regex, NULL, NULL, check_only);
}

/* The tests of OCF_CHECK_LEVEL as heartbeat's monitor_nginx chooses them
 * (below 20: level 10, below 30: 20, else 30); validate-all checks every
 * one that is configured. */
static int
nginx_test_prepare(const struct fm_ocf *ocf, const char *base_url, const char *status_url, bool check_only)
{
    int rc = PCMK_OCF_OK;

    if (check_only) {
        rc = test10(ocf, status_url, true);
        if (rc == PCMK_OCF_OK) {
            rc = test20(base_url, true);
        }
        return (rc == PCMK_OCF_OK)? external_test(ocf, true) : rc;
    }
    if (ocf->check_level < 10) {
        return PCMK_OCF_OK;
    }
    if (ocf->check_level < 20) {
        return test10(ocf, status_url, false);
    }
    if (ocf->check_level < 30) {
        return test20(base_url, false);
    }
    return external_test(ocf, false);
}

static const struct fm_web_ops nginx_ops = {
    .agent = "nginx",
    .server = "nginx",
    .stop_signal = SIGTERM,         /* heartbeat's: nginx's fast shutdown */
    .strict_levels = true,
    .resolve_params = fm_nginx_resolve_params,
    .resolve_rest = fm_nginx_resolve_rest,
    .argv = nginx_argv,
    .make_runtime_dirs = nginx_make_runtime_dirs,
    .own_process = nginx_own_process,
    .heartbeat_mode = fm_nginx_heartbeat_mode,
    .translate = fm_nginx_translate_params,
    .test_prepare = nginx_test_prepare,
    .digest = fm_nginx_params_digest,
};

int
fm_ocf_nginx_main(struct fm_ocf *ocf)
{
    return fm_web_main(ocf, &nginx_ops);
}
