/*
 * faultmon: node attributes through Pacemaker's attrd_updater, for the loop
 * (the reason of a recovery) and the agents (fail-counts, httpmon's verdict).
 *
 * libc only, so that the agent program links it; faultmon/spawn.h runs the
 * tool (no shell, one deadline).
 */
#include <config.h>

#include <string.h>

#include <faultmon/attrd.h>
#include <faultmon/spawn.h>

#define ATTRD_ARGS_MAX 10

int
fm_attrd_update(const char *tool, const char *name, const char *value, const char *dampen,
                uint64_t timeout_ms, char *out, size_t out_len)
{
    char *argv[ATTRD_ARGS_MAX];
    size_t n = 0;
    int rc = 0;

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
    rc = fm_spawn_run(argv, timeout_ms, out, out_len, NULL);
    if (out != NULL && out_len > 0) {
        /* Its first line says why it failed. */
        out[strcspn(out, "\n")] = '\0';
    }
    return rc;
}
