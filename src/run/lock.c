/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon run: the loop's lock and pid file (run/lock.h).
 */
#include <config.h>

#include "lock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <faultmon/commands.h>
#include <faultmon/state.h>

int
fm_run_lock_busy(const char *resource, int64_t pid, bool is_loop)
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

static void
write_pid(FILE *out, const void *data)
{
    fprintf(out, "%ld\n", (long) getpid());
}

int
fm_run_write_pid_file(const char *dir)
{
    return fm_state_file_write(dir, "pid", write_pid, NULL);
}

int
fm_run_lock(const char *dir, const char *resource, int *lock_fd)
{
    int64_t holder = 0;
    bool is_loop = false;
    int rc = fm_state_dir_create(dir);

    if (rc != 0) {
        return fm_cli_error("run", "cannot create %s: %s", dir, strerror(rc));
    }
    rc = fm_state_lock(dir, lock_fd, &holder, &is_loop);
    if (rc == EBUSY) {
        return fm_run_lock_busy(resource, holder, is_loop);
    }
    if (rc != 0) {
        return fm_cli_error("run", "cannot lock %s/lock: %s", dir, strerror(rc));
    }
    return -1;
}
