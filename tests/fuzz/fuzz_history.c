/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the cycle history (faultmon/history.h), which `faultmon
 * simulate --replay` reads from a directory anyone with root may have
 * touched, and the text of history.params.
 *
 * Input: the first byte chooses: even, the rest is a history file; odd, it
 * is a history.params text.
 *
 * Properties:
 *  - the file judge neither crashes nor reads beyond its bytes; with a good
 *    header every whole record is either handed on or counted as bad, and
 *    the tail is what is left;
 *  - every record handed on is in range, not earlier than the one before,
 *    and encodes back to bytes that decode to the same record;
 *  - an error is one line; accepted parameters pass fm_decide_opts_validate()
 *    and read back the same from their own text.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/history.h>

#include "fuzz_common.h"

struct walk {
    uint64_t base_ms;
    uint64_t prev_ms;
    uint64_t n;
};

static void
check_rec(const struct fm_history_rec *r, void *data)
{
    struct walk *w = data;
    uint8_t bytes[FM_HISTORY_REC_BYTES];
    struct fm_history_rec back;
    char err[128];

    FM_FUZZ_CHECK(r->kind <= FM_HISTORY_CERT && r->cls <= FM_CLASS_COMPLETE && r->state <= FM_STATE_HELD,
                  "record %llu out of range", (unsigned long long) w->n);
    FM_FUZZ_CHECK(r->mono_ms >= w->prev_ms, "record %llu goes back", (unsigned long long) w->n);
    FM_FUZZ_CHECK(fm_history_rec_encode(r, w->base_ms, bytes) == 0, "record %llu does not encode",
                  (unsigned long long) w->n);
    FM_FUZZ_CHECK(fm_history_rec_decode(bytes, w->base_ms, &back, err, sizeof(err)) == 0
                  && memcmp(&back, r, sizeof(back)) == 0, "record %llu does not read back",
                  (unsigned long long) w->n);
    w->prev_ms = r->mono_ms;
    w->n++;
}

static void
fuzz_file(const uint8_t *data, size_t size)
{
    struct fm_history_parse_stats st;
    struct fm_history_header h;
    struct walk w = { 0 };
    char err[256] = "";

    if (fm_history_header_decode(data, size, &h, NULL, 0) == 0) {
        w.base_ms = h.mono_base_ms;
    }
    if (fm_history_parse(data, size, check_rec, &w, &st, err, sizeof(err)) != 0) {
        FM_FUZZ_CHECK(w.n == 0 && strchr(err, '\n') == NULL && err[0] != '\0', "a refusal is one line");
        return;
    }
    FM_FUZZ_CHECK(st.records == w.n, "counted %llu, handed on %llu", (unsigned long long) st.records,
                  (unsigned long long) w.n);
    FM_FUZZ_CHECK(st.records + st.bad == (size - FM_HISTORY_HEADER_BYTES) / FM_HISTORY_REC_BYTES
                  && st.trailing_bytes == (size - FM_HISTORY_HEADER_BYTES) % FM_HISTORY_REC_BYTES,
                  "every byte is accounted for");
    FM_FUZZ_CHECK(strchr(st.first_bad, '\n') == NULL, "the first bad record is said in one line");
}

static void
fuzz_params(const uint8_t *data, size_t size)
{
    struct fm_decide_opts o;
    struct fm_decide_opts back;
    struct fm_history_buf *b = NULL;
    bool cluster = false;
    bool cluster_back = false;
    char err[512] = "";
    char a[FM_HISTORY_PARAMS_MAX];
    char z[FM_HISTORY_PARAMS_MAX];

    if (fm_history_params_parse((const char *) data, size, &o, &cluster, err, sizeof(err)) != 0) {
        FM_FUZZ_CHECK(strchr(err, '\n') == NULL, "a refusal is one line: %s", err);
        return;
    }
    FM_FUZZ_CHECK(fm_decide_opts_validate(&o, err, sizeof(err), NULL, 0) == 0, "accepted, invalid: %s", err);
    b = calloc(1, sizeof(*b));
    if (b == NULL) {
        return;
    }
    fm_history_buf_init(b, &o, o.publish_only? "httpmon" : "apache", cluster);
    FM_FUZZ_CHECK(fm_history_params_parse(b->params, strlen(b->params), &back, &cluster_back, err,
                                          sizeof(err)) == 0, "its own text is refused: %s", err);
    fm_decide_opts_format(&o, a, sizeof(a));
    fm_decide_opts_format(&back, z, sizeof(z));
    FM_FUZZ_CHECK(strcmp(a, z) == 0 && cluster == cluster_back && o.publish_only == back.publish_only,
                  "the parameters read back otherwise");
    free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    if ((data[0] & 1u) == 0) {
        fuzz_file(data + 1, size - 1);
    } else {
        fuzz_params(data + 1, size - 1);
    }
    return 0;
}
