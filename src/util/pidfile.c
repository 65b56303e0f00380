/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: reading a daemon's pid file (see faultmon/pidfile.h).
 */
#include <config.h>

#include <faultmon/pidfile.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include <faultmon/kvfile.h>
#include <faultmon/parse.h>
#include <faultmon/text.h>

int
fm_pidfile_read(const char *path, pid_t *pid, char *err, size_t err_len)
{
    char *text = NULL;
    size_t len = 0;
    int64_t v = 0;
    int rc = fm_kvfile_load(path, FM_PIDFILE_MAX_BYTES, &text, &len, err, err_len);

    if (rc != 0) {
        return rc;
    }
    if (len > 0 && text[len - 1] == '\n') {
        text[len - 1] = '\0';
    }
    rc = fm_parse_i64(text, 2, INT_MAX, FM_PARSE_DEFAULT, &v);
    free(text);
    if (rc != 0) {
        return fm_errf(err, err_len, EINVAL, "%s holds no PID", path);
    }
    *pid = (pid_t) v;
    return 0;
}
