/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:apache.  Its actions are the web
 * agents' (ocf_web.c); this file says what differs for httpd: its command
 * line, the directories it needs, which processes are its own, and its
 * struct fm_web_ops.  Its parameters are in ocf_apache_params.c, its
 * level-10 test in ocf_apache_level10.c, its configuration reader in
 * ocf_apache_conf.c.
 */
#include <config.h>

#include "ocf_apache.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "ocf_web.h"

#ifndef FM_OCF_CHOWN
#define FM_OCF_CHOWN "/bin/chown"
#endif

/* httpd's command line: -DSTATUS, options, -f configfile [-c PidFile]. */
static char **
httpd_argv(const struct fm_web *w, const char *extra, char *pid_directive, size_t pd_len)
{
    char **argv = calloc(w->n_options + 8, sizeof(char *));
    size_t n = 0;

    if (argv == NULL) {
        return NULL;
    }
    argv[n++] = (char *) w->program;
    if (extra != NULL) {
        argv[n++] = (char *) extra;
    }
    argv[n++] = (char *) "-DSTATUS";
    for (size_t i = 0; i < w->n_options; i++) {
        argv[n++] = w->options[i];
    }
    argv[n++] = (char *) "-f";
    argv[n++] = (char *) w->configfile;
    if (w->pid_directive) {
        snprintf(pid_directive, pd_len, "PidFile %s", w->pid_file);
        argv[n++] = (char *) "-c";
        argv[n++] = pid_directive;
    }
    argv[n] = NULL;
    return argv;
}

/*
 * The lock directory belongs to APACHE_RUN_USER, as apache2ctl makes it.
 * chown(1) looks the name up: getpwnam() here would load glibc's NSS modules
 * into the agent, and in a static agent (--enable-static-agent) that crashes
 * for a user not in /etc/passwd (libnss_systemd links the shared libc).
 */
static void
httpd_chown_lock_dir(const struct fm_web *w, const char *dir, const char *user)
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
                        (fm_ocf_left_ms(w->ocf) < 5000)? fm_ocf_left_ms(w->ocf) : 5000);
    if (status != 0) {
        out[strcspn(out, "\n")] = '\0';
        fm_ocf_log(LOG_WARNING, "cannot give %s to %s: %s", dir, user,
                   (out[0] != '\0')? out : "chown did not finish");
    }
}

/* Debian's apache2ctl creates the directories envvars names; httpd does not. */
static void
httpd_make_runtime_dirs(const struct fm_web *w)
{
    static const char *const dirs[] = { "APACHE_RUN_DIR", "APACHE_LOCK_DIR", "APACHE_LOG_DIR", NULL };
    char dir[FM_OCF_PATH_MAX];
    char *slash = NULL;

    for (size_t i = 0; dirs[i] != NULL; i++) {
        const char *path = getenv(dirs[i]);

        if (path != NULL && path[0] == '/' && fm_ocf_mkdir_p(path, 0755) == 0
            && strcmp(dirs[i], "APACHE_LOCK_DIR") == 0 && getenv("APACHE_RUN_USER") != NULL) {
            httpd_chown_lock_dir(w, path, getenv("APACHE_RUN_USER"));
        }
    }
    snprintf(dir, sizeof(dir), "%s", w->pid_file);
    slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        fm_ocf_mkdir_p(dir, 0755);
    }
    if (w->conf.runtime_dir[0] == '/') {
        fm_ocf_mkdir_p(w->conf.runtime_dir, 0755);
    } else if (w->conf.runtime_dir[0] != '\0'
               && snprintf(dir, sizeof(dir), "%s/%s", w->conf.server_root, w->conf.runtime_dir)
                  < (int) sizeof(dir)) {
        fm_ocf_mkdir_p(dir, 0755);
    }
}

/* httpd's processes: the program, with our configfile after -f. */
static bool
httpd_own_process(const struct fm_web *w, pid_t pid, pid_t main_pid, const char *cmdline, size_t len)
{
    (void) pid;
    (void) main_pid;
    for (const char *arg = cmdline; arg < cmdline + len; arg += strlen(arg) + 1) {
        const char *next = arg + strlen(arg) + 1;

        if (strcmp(arg, "-f") == 0 && next < cmdline + len && strcmp(next, w->configfile) == 0) {
            return true;
        }
    }
    return false;
}

static const struct fm_web_ops apache_ops = {
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
    .digest = fm_apache_params_digest,
};

int
fm_ocf_apache_main(struct fm_ocf *ocf)
{
    return fm_web_main(ocf, &apache_ops);
}
