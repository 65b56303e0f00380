/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the parameter each target of a state came from (Port_list,
 * Monitor_Uri_List, Dependency_list, Probe_command), kept beside the state
 * in a file of its own, RESOURCE/sources:
 *
 *   faultmon-sources 1
 *   source=port_list|monitor_uri|dependency|probe_command   (one per target, in order)
 *   end
 *
 * Why not a key of the state file: the state format is read by the version
 * before this one, whose reader refuses every key it does not know
 * (doc/reference/state-format.md), and a rolling upgrade or a downgrade has
 * both versions read the same file.  The sources do not change during a
 * loop's life (a new configuration is a new loop), so the file is written
 * when they differ from what this process last wrote, not every cycle; a
 * reader that finds no file, or one whose count is not the state's, keeps
 * the sources the state gave (port_list unless a target.source key said
 * otherwise).  Only the metrics' "source" label and the carried failure
 * counts of a loop's next start use them.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <faultmon/kvfile.h>
#include <faultmon/trust.h>

#include "state_int.h"

#define SOURCES_HEADER "faultmon-sources 1\n"
#define SOURCES_MAX_BYTES (FM_STATE_MAX_TARGETS * 32 + 64)

static void
write_sources(FILE *out, const void *data)
{
    const struct fm_run_state *st = data;

    fputs(SOURCES_HEADER, out);
    for (size_t i = 0; i < st->n_targets; i++) {
        fprintf(out, "source=%s\n", fm_state_source_name(st->targets[i].source));
    }
    fputs("end\n", out);
}

/* The sources as one string, one letter a target: what was last written. */
static void
sources_signature(const struct fm_run_state *st, char *sig, size_t sig_len)
{
    size_t n = 0;

    for (size_t i = 0; i < st->n_targets && n + 1 < sig_len; i++) {
        sig[n++] = (char) ('a' + (int) st->targets[i].source);
    }
    sig[n] = '\0';
}

int
fm_state_sources_write(const char *dir, const struct fm_run_state *st)
{
    /* One loop a process: what it wrote last, and where. */
    static char last_dir[4096];
    static char last_sig[FM_STATE_MAX_TARGETS + 1];
    char sig[FM_STATE_MAX_TARGETS + 1];
    int rc = 0;

    char path[4200];

    sources_signature(st, sig, sizeof(sig));
    snprintf(path, sizeof(path), "%s/sources", dir);
    if (strcmp(dir, last_dir) == 0 && strcmp(sig, last_sig) == 0 && access(path, F_OK) == 0) {
        return 0;
    }
    rc = fm_kvfile_write(dir, "sources", write_sources, st);
    if (rc == 0) {
        snprintf(last_dir, sizeof(last_dir), "%s", dir);
        snprintf(last_sig, sizeof(last_sig), "%s", sig);
    }
    return rc;
}

/* One "source=NAME" line's value; FM_SOURCE__COUNT when unknown. */
static enum fm_state_source
source_by_name(const char *name, size_t len)
{
    for (int i = 0; i < FM_SOURCE__COUNT; i++) {
        const char *known = fm_state_source_name((enum fm_state_source) i);

        if (strlen(known) == len && memcmp(known, name, len) == 0) {
            return (enum fm_state_source) i;
        }
    }
    return FM_SOURCE__COUNT;
}

void
fm_state_sources_apply(const char *dir, struct fm_run_state *st)
{
    enum fm_state_source found[FM_STATE_MAX_TARGETS];
    char err[256];
    char *buf = NULL;
    size_t len = 0;
    size_t n = 0;
    const char *p = NULL;
    const char *end = NULL;

    if (fm_trust_load(dir, "sources", SOURCES_MAX_BYTES, &buf, &len, err, sizeof(err)) != 0) {
        return;     /* none (a loop of an earlier version), or not trusted */
    }
    end = buf + len;
    if (len < strlen(SOURCES_HEADER) || memcmp(buf, SOURCES_HEADER, strlen(SOURCES_HEADER)) != 0) {
        goto done;
    }
    for (p = buf + strlen(SOURCES_HEADER); p < end;) {
        const char *eol = memchr(p, '\n', (size_t) (end - p));

        if (eol == NULL) {
            goto done;              /* cut short: not the writer's */
        }
        if (eol - p == 3 && memcmp(p, "end", 3) == 0) {
            break;
        }
        if (eol - p < 7 || memcmp(p, "source=", 7) != 0 || n == FM_STATE_MAX_TARGETS) {
            goto done;
        }
        found[n] = source_by_name(p + 7, (size_t) (eol - p - 7));
        if (found[n] == FM_SOURCE__COUNT) {
            goto done;
        }
        n++;
        p = eol + 1;
    }
    if (p < end && n == st->n_targets) {
        for (size_t i = 0; i < n; i++) {
            st->targets[i].source = found[i];
        }
    }
done:
    free(buf);
}
