/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: what the reload of ocf:faultmon:apache and nginx
 * needs beside the actions (ocf_apache.c): a digest of the server's own
 * parameters, kept in the agent's record at start, and validate-all in a
 * child process.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ocf_apache_int.h"

/* The parameters of httpd itself, as given (not as resolved), in 16 hex
 * digits: a reload that changes them restarts httpd, one that does not
 * restarts only the fault monitor.  FNV-1a over "set?value" of each. */
void
fm_web_params_digest(const char *const *names, size_t n_names, char out[17])
{
    uint64_t h = UINT64_C(14695981039346656037);

    for (size_t i = 0; i < n_names; i++) {
        const char *v = fm_ocf_param(names[i]);
        const char *p = (v != NULL)? v : "";

        h = (h ^ (unsigned char) ((v != NULL)? '1' : '0')) * UINT64_C(1099511628211);
        for (; ; p++) {
            h = (h ^ (unsigned char) *p) * UINT64_C(1099511628211);
            if (*p == '\0') {
                break;
            }
        }
    }
    snprintf(out, 17, "%016" PRIx64, h);
}

void
fm_apache_httpd_params_digest(char out[17])
{
    static const char *const names[] = { "httpd", "options", "envfiles", "configfile" };

    fm_web_params_digest(names, sizeof(names) / sizeof(names[0]), out);
}

/* validate-all in a child: validation rewrites this process's parameters
 * (the targets it derives), which the start below derives again. */
int
fm_apache_validate_in_child(struct apache *a)
{
    int status = 0;
    pid_t pid = fork();

    if (pid < 0) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: cannot fork: %s", strerror(errno));
    }
    if (pid == 0) {
        fm_ocf_policy_quiet();      /* the start that follows says it */
        _exit(fm_apache_validate(a, true));     /* its exit reason goes out as usual */
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: %s", strerror(errno));
        }
    }
    return WIFEXITED(status)? WEXITSTATUS(status) : PCMK_OCF_UNKNOWN_ERROR;
}
