/*
 * faultmon OCF agents: node attributes through Pacemaker's attrd_updater
 * (fail-counts, the reason of a decision).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "ocf_common.h"

const char *
fm_ocf_attrd_updater_path(void)
{
    const char *env = getenv("FAULTMON_OCF_ATTRD_UPDATER");

    return (env != NULL && env[0] == '/')? env : FM_OCF_ATTRD_UPDATER;
}

int
fm_ocf_attrd(const struct fm_ocf *ocf, const char *name, const char *value)
{
    char out[512];
    char *argv[6];
    size_t n = 0;
    int status = 0;
    uint64_t left_ms = fm_ocf_left_ms(ocf);

    argv[n++] = (char *) fm_ocf_attrd_updater_path();
    argv[n++] = (char *) "-n";
    argv[n++] = (char *) name;
    if (value != NULL) {
        argv[n++] = (char *) "-U";
        argv[n++] = (char *) value;
    } else {
        argv[n++] = (char *) "-D";
    }
    argv[n] = NULL;
    status = fm_ocf_run(argv, out, sizeof(out), NULL, (left_ms > 5000 || left_ms == 0)? 5000 : left_ms);
    if (status != 0) {
        out[strcspn(out, "\n")] = '\0';
        fm_ocf_log(LOG_WARNING, "attrd_updater could not %s %s (status %d): %s",
                   (value != NULL)? "set" : "delete", name, status, out);
    }
    return status;
}
