/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: node attributes through Pacemaker's attrd_updater, for the loop
 * (the reason of a recovery) and the agents (fail-counts, httpmon's verdict).
 *
 * libc only, so that the agent program links it; faultmon/spawn.h runs the
 * tool (no shell, one deadline).
 */
#include <config.h>

#include <faultmon/attrd.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/spawn.h>

size_t
fm_attrd_update_argv(char *argv[FM_ATTRD_ARGS_MAX], const char *tool, const char *name, const char *value,
                     const char *dampen)
{
    size_t n = 0;

    argv[n++] = (char *) tool;
    argv[n++] = (char *) "-n";
    argv[n++] = (char *) name;
    argv[n++] = (char *) ((value != NULL)? "-U" : "-D");
    if (value != NULL) {
        argv[n++] = (char *) value;
    }
    if (dampen != NULL) {
        argv[n++] = (char *) "-d";
        argv[n++] = (char *) dampen;
    }
    argv[n] = NULL;
    return n;
}

int
fm_attrd_update(const char *tool, const char *name, const char *value, const char *dampen,
                uint64_t timeout_ms, char *out, size_t out_len)
{
    char *argv[FM_ATTRD_ARGS_MAX];
    int rc = 0;

    fm_attrd_update_argv(argv, tool, name, value, dampen);
    rc = fm_spawn_run(argv, timeout_ms, out, out_len, NULL);
    if (out != NULL && out_len > 0) {
        /* Its first line says why it failed. */
        out[strcspn(out, "\n")] = '\0';
    }
    return rc;
}

/* The variables that make Pacemaker's tools aim at one node (a resource's
 * own, as the executor passes them to agents and the loop inherits them):
 * with them, even --all answers for that node only. */
static bool
aims_at_a_node(const char *var)
{
    static const char *const names[] = {
        "OCF_RESKEY_CRM_meta_on_node=", "OCF_RESKEY_CRM_meta_container_attribute_target=",
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strncmp(var, names[i], strlen(names[i])) == 0) {
            return true;
        }
    }
    return false;
}

char **
fm_attrd_query_envp(void)
{
    extern char **environ;
    size_t n = 0;
    size_t used = 0;
    char **envp = NULL;

    while (environ[n] != NULL) {
        n++;
    }
    envp = calloc(n + 1, sizeof(*envp));
    if (envp == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!aims_at_a_node(environ[i])) {
            envp[used++] = environ[i];
        }
    }
    return envp;
}

int
fm_attrd_query_all(const char *tool, const char *name, uint64_t timeout_ms, char *out, size_t out_len)
{
    char *argv[] = { (char *) tool, (char *) "-Q", (char *) "-A", (char *) "-n", (char *) name, NULL };
    char **envp = fm_attrd_query_envp();
    int rc = 0;

    if (envp == NULL) {
        snprintf(out, out_len, "out of memory");
        return -1;
    }
    rc = fm_spawn_run_env(argv, envp, timeout_ms, out, out_len, NULL);
    free(envp);
    return rc;
}
