/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the access log's rates (access_log; doc/access-log.md), kept
 * beside the state in a file of their own, RESOURCE/accesslog:
 *
 *   faultmon-accesslog 1
 *   window_ms=N requests=N errors_5xx=N slow=N unparsed=N  (one a line)
 *   end
 *
 * Not keys of the state file, whose previous version's reader refuses
 * every key it does not know (doc/reference/state-format.md).  The loop
 * writes it when the rates change (src/run/run_accesslog.c); `faultmon
 * status` and the metrics read it here, under the state directory's trust
 * rule as every file there.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/accesslog.h>
#include <faultmon/trust.h>

#define ACCESSLOG_HEADER "faultmon-accesslog 1\n"
#define ACCESSLOG_MAX_BYTES 512

/* One "key=N" line into the field of that name; false: not ours. */
static bool
take_field(const char *line, size_t len, struct fm_accesslog_rate *rate, uint64_t *unparsed)
{
    static const char *const keys[] = { "window_ms", "requests", "errors_5xx", "slow", "unparsed" };
    uint64_t *fields[] = { &rate->window_ms, &rate->requests, &rate->errors, &rate->slow, unparsed };
    char copy[64];
    char *end = NULL;

    if (len >= sizeof(copy)) {
        return false;
    }
    memcpy(copy, line, len);
    copy[len] = '\0';
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        size_t klen = strlen(keys[i]);

        if (strncmp(copy, keys[i], klen) == 0 && copy[klen] == '=' && copy[klen + 1] >= '0'
            && copy[klen + 1] <= '9') {
            errno = 0;
            *fields[i] = strtoull(copy + klen + 1, &end, 10);
            return errno == 0 && *end == '\0';
        }
    }
    return false;
}

int
fm_state_accesslog_read(const char *dir, struct fm_accesslog_rate *rate, uint64_t *unparsed)
{
    char err[256];
    char *buf = NULL;
    size_t len = 0;
    int rc = EINVAL;

    memset(rate, 0, sizeof(*rate));
    *unparsed = 0;
    if (fm_trust_load(dir, "accesslog", ACCESSLOG_MAX_BYTES, &buf, &len, err, sizeof(err)) != 0) {
        return ENOENT;          /* none (access_log off), or not trusted */
    }
    if (len >= strlen(ACCESSLOG_HEADER) && memcmp(buf, ACCESSLOG_HEADER, strlen(ACCESSLOG_HEADER)) == 0) {
        const char *end = buf + len;

        for (const char *p = buf + strlen(ACCESSLOG_HEADER); p < end;) {
            const char *eol = memchr(p, '\n', (size_t) (end - p));

            if (eol == NULL) {
                break;                  /* cut short: not the writer's */
            }
            if (eol - p == 3 && memcmp(p, "end", 3) == 0) {
                rc = (rate->errors <= rate->requests && rate->slow <= rate->requests)? 0 : EINVAL;
                break;
            }
            if (!take_field(p, (size_t) (eol - p), rate, unparsed)) {
                break;
            }
            p = eol + 1;
        }
    }
    free(buf);
    return rc;
}
