/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the agent's record, RESOURCE/agent in the state
 * directory (see ocf_common.h), read and written through the one kvfile
 * reader and atomic writer (include/faultmon/kvfile.h).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <faultmon/kvfile.h>

#include "ocf_common.h"

void
fm_ocf_record_set(struct fm_ocf_record *rec, const char *key, const char *value)
{
    size_t i = 0;

    /* No key of ours is that long; cut short, two keys of a foreign file
     * would become one name twice (found by tests/fuzz/fuzz_record). */
    if (strlen(key) >= sizeof(rec->key[0])) {
        return;
    }
    for (i = 0; i < rec->n; i++) {
        if (strcmp(rec->key[i], key) == 0) {
            break;
        }
    }
    if (i == rec->n) {
        if (rec->n == FM_OCF_RECORD_MAX) {
            return;
        }
        rec->n++;
    }
    snprintf(rec->key[i], sizeof(rec->key[i]), "%s", key);
    snprintf(rec->value[i], sizeof(rec->value[i]), "%s", (value != NULL)? value : "");
    /* One line each. */
    for (char *p = rec->value[i]; *p != '\0'; p++) {
        if (*p == '\n' || *p == '\r') {
            *p = ' ';
        }
    }
}

const char *
fm_ocf_record_get(const struct fm_ocf_record *rec, const char *key)
{
    for (size_t i = 0; i < rec->n; i++) {
        if (strcmp(rec->key[i], key) == 0) {
            return rec->value[i];
        }
    }
    return NULL;
}

/* One key=value line of a record: kept (see fm_ocf_record_set()). */
static const char *
record_entry(char *key, char *value, void *data)
{
    fm_ocf_record_set(data, key, value);
    return NULL;
}

int
fm_ocf_record_read_why(const char *dir, struct fm_ocf_record *rec, char *err, size_t err_len)
{
    static const struct fm_kvfile_format format = {
        .header = FM_OCF_RECORD_HEADER,
        .name = "faultmon agent record",
        .max_bytes = FM_OCF_RECORD_MAX_BYTES,
    };
    char path[FM_OCF_PATH_MAX + 16];
    int rc = 0;

    /* Only the first n entries are ever read: zeroing all 66 KB cost each
     * monitor a third of its page faults. */
    rec->n = 0;
    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (snprintf(path, sizeof(path), "%s/agent", dir) >= (int) sizeof(path)) {
        return EINVAL;
    }
    rc = fm_kvfile_read(path, &format, record_entry, rec, err, err_len);
    /* Out of memory is no verdict either: the record is not there to trust. */
    return (rc == 0 || rc == ENOENT)? rc : EINVAL;
}

int
fm_ocf_record_read(const char *dir, struct fm_ocf_record *rec)
{
    return fm_ocf_record_read_why(dir, rec, NULL, 0);
}

static void
write_record_body(FILE *out, const void *data)
{
    const struct fm_ocf_record *rec = data;

    fprintf(out, FM_OCF_RECORD_HEADER "\n");
    for (size_t i = 0; i < rec->n; i++) {
        fprintf(out, "%s=%s\n", rec->key[i], rec->value[i]);
    }
    fprintf(out, "end\n");
}

int
fm_ocf_record_write(const char *dir, const struct fm_ocf_record *rec)
{
    return fm_kvfile_write(dir, "agent", write_record_body, rec);
}

void
fm_ocf_record_remove(const char *dir)
{
    char path[FM_OCF_PATH_MAX + 16];

    snprintf(path, sizeof(path), "%s/agent", dir);
    unlink(path);
}
