/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the agent's record (RESOURCE/agent: what `start`
 * started, which `monitor` and `stop` believe) and the pid files it points
 * to.
 *
 * Input: the first line is a pid file's contents; the rest is the record.
 *
 * Properties:
 *  - the record reader neither crashes nor leaks; every value it keeps is one
 *    line and every key is found again by fm_ocf_record_get();
 *  - round trip: an accepted record, written with fm_ocf_record_write(),
 *    reads back the same;
 *  - a pid file gives 0 or a PID above 1 (never init, never a process group).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ocf_common.h"
#include "fuzz_common.h"

static char record_dir[512];
static char copy_dir[512];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void) argc;
    (void) argv;
    snprintf(record_dir, sizeof(record_dir), "%s/read", fm_fuzz_dir());
    snprintf(copy_dir, sizeof(copy_dir), "%s/copy", fm_fuzz_dir());
    if (mkdir(record_dir, 0700) != 0 || mkdir(copy_dir, 0700) != 0) {
        abort();
    }
    return 0;
}

static void
pid_file(struct fm_fuzz_input *in)
{
    char path[600];
    const uint8_t *start = in->data + in->pos;
    const uint8_t *nl = memchr(start, '\n', fm_fuzz_left(in));
    size_t n = (nl != NULL)? (size_t) (nl + 1 - start) : fm_fuzz_left(in);
    pid_t pid = 0;

    fm_fuzz_write_file(record_dir, "httpd.pid", start, n);
    in->pos += n;
    snprintf(path, sizeof(path), "%s/httpd.pid", record_dir);
    pid = fm_ocf_read_pid_file(path);
    FM_FUZZ_CHECK(pid == 0 || pid > 1, "pid file gives PID %d", (int) pid);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fm_fuzz_input in;
    struct fm_ocf_record *rec = NULL;
    struct fm_ocf_record *again = NULL;
    int rc = 0;

    if (size > 128 * 1024) {
        return -1;
    }
    fm_fuzz_input_init(&in, data, size);
    pid_file(&in);
    fm_fuzz_write_file(record_dir, "agent", in.data + in.pos, fm_fuzz_left(&in));

    rec = calloc(1, sizeof(*rec));
    again = calloc(1, sizeof(*again));
    if (rec == NULL || again == NULL) {
        abort();
    }
    rc = fm_ocf_record_read(record_dir, rec);
    FM_FUZZ_CHECK(rc == 0 || rc == EINVAL, "record read returns %d", rc);
    FM_FUZZ_CHECK(rec->n <= FM_OCF_RECORD_MAX, "%zu entries", rec->n);
    for (size_t i = 0; i < rec->n; i++) {
        FM_FUZZ_CHECK(memchr(rec->key[i], '\0', sizeof(rec->key[i])) != NULL, "key %zu", i);
        FM_FUZZ_CHECK(memchr(rec->value[i], '\0', sizeof(rec->value[i])) != NULL, "value %zu", i);
        FM_FUZZ_CHECK(strpbrk(rec->value[i], "\r\n") == NULL, "value %zu of several lines", i);
        FM_FUZZ_CHECK(fm_ocf_record_get(rec, rec->key[i]) == rec->value[i],
                      "key '%s' found elsewhere", rec->key[i]);
    }
    if (rc == 0) {
        FM_FUZZ_CHECK(fm_ocf_record_write(copy_dir, rec) == 0, "cannot write the record back");
        FM_FUZZ_CHECK(fm_ocf_record_read(copy_dir, again) == 0, "the record as written is refused");
        FM_FUZZ_CHECK(again->n == rec->n, "%zu entries read back as %zu", rec->n, again->n);
        for (size_t i = 0; i < rec->n; i++) {
            const char *v = fm_ocf_record_get(again, rec->key[i]);

            FM_FUZZ_CHECK(v != NULL && strcmp(v, rec->value[i]) == 0,
                          "'%s' reads back as '%s' instead of '%s'", rec->key[i],
                          (v != NULL)? v : "(none)", rec->value[i]);
        }
    }
    free(rec);
    free(again);
    return 0;
}
