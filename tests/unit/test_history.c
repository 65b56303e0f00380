/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the cycle history (src/core/history.c, src/monitor/
 * history_note.c): the header and record codec, what the whole-file judge
 * refuses and skips (hostile bytes included), the rotation arithmetic, the
 * text of history.params read back, and what the monitor notes.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/history.h>
#include <faultmon/monitor.h>
#include <faultmon/state.h>

#define BASE_MS UINT64_C(5000000)

/* A file of \p n records built from \p recs, into \p buf. */
static size_t
build_file(uint8_t *buf, const struct fm_history_rec *recs, size_t n)
{
    fm_history_header_encode(buf, BASE_MS, 1700000000);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(fm_history_rec_encode(&recs[i], BASE_MS,
                                               buf + FM_HISTORY_HEADER_BYTES + i * FM_HISTORY_REC_BYTES), 0);
    }
    return FM_HISTORY_HEADER_BYTES + n * FM_HISTORY_REC_BYTES;
}

static struct fm_history_rec
cycle(uint64_t mono_ms, enum fm_class cls, enum fm_action action)
{
    struct fm_history_rec r;

    memset(&r, 0, sizeof(r));
    r.wall_s = 1700000000 + (uint32_t) (mono_ms / 1000);
    r.mono_ms = BASE_MS + mono_ms;
    r.kind = FM_HISTORY_CYCLE;
    r.cls = cls;
    r.action = action;
    r.n_targets = 3;
    r.state = (cls == FM_CLASS_OK)? FM_STATE_UP : FM_STATE_DOWN;
    if (cls == FM_CLASS_OK) {
        r.have_latency = true;
        r.value = 1234;
        r.maintenance = 2;
    } else {
        r.value = 2;        /* failed targets */
    }
    return r;
}

struct seen {
    size_t n;
    struct fm_history_rec recs[64];
};

static void
collect(const struct fm_history_rec *r, void *data)
{
    struct seen *s = data;

    if (s->n < 64) {
        s->recs[s->n] = *r;
    }
    s->n++;
}

static void
test_header(void **state)
{
    uint8_t h[FM_HISTORY_HEADER_BYTES];
    struct fm_history_header got;
    char err[128];

    (void) state;
    fm_history_header_encode(h, BASE_MS, 1700000000);
    assert_int_equal(fm_history_header_decode(h, sizeof(h), &got, err, sizeof(err)), 0);
    assert_true(got.mono_base_ms == BASE_MS);
    assert_true(got.created_wall_s == 1700000000);
    assert_int_equal(fm_history_header_decode(h, 31, &got, err, sizeof(err)), EINVAL);
    h[1] = 'X';
    assert_int_equal(fm_history_header_decode(h, sizeof(h), &got, err, sizeof(err)), EINVAL);
    assert_string_equal(err, "not a faultmon history file (bad magic)");
    fm_history_header_encode(h, BASE_MS, 1700000000);
    h[8] = 2;
    assert_int_equal(fm_history_header_decode(h, sizeof(h), &got, err, sizeof(err)), EINVAL);
    assert_string_equal(err, "history format version 2, not 1");
    fm_history_header_encode(h, BASE_MS, 1700000000);
    h[10] = 24;
    assert_int_equal(fm_history_header_decode(h, sizeof(h), &got, err, sizeof(err)), EINVAL);
    assert_string_equal(err, "record size 24, not 16");
    fm_history_header_encode(h, BASE_MS, 1700000000);
    h[13] = 1;
    assert_int_equal(fm_history_header_decode(h, sizeof(h), &got, err, sizeof(err)), EINVAL);
}

static void
test_record_round_trip(void **state)
{
    struct fm_history_rec in[3] = { cycle(0, FM_CLASS_OK, FM_ACTION_NONE),
                                    cycle(2000, FM_CLASS_COMPLETE, FM_ACTION_RESTART),
                                    cycle(UINT64_C(0xffffffff), FM_CLASS_PARTIAL, FM_ACTION_DEGRADED) };
    uint8_t b[FM_HISTORY_REC_BYTES];
    struct fm_history_rec out;
    char err[128];

    (void) state;
    in[1].flags = FM_HISTORY_F_IMPAIRED;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fm_history_rec_encode(&in[i], BASE_MS, b), 0);
        assert_int_equal(fm_history_rec_decode(b, BASE_MS, &out, err, sizeof(err)), 0);
        assert_memory_equal(&in[i], &out, sizeof(out));
    }
    /* Saturated, not wrapped: maintenance beyond 31, targets beyond the field. */
    in[0].maintenance = 200;
    assert_int_equal(fm_history_rec_encode(&in[0], BASE_MS, b), 0);
    assert_int_equal(fm_history_rec_decode(b, BASE_MS, &out, err, sizeof(err)), 0);
    assert_int_equal(out.maintenance, FM_HISTORY_MAX_MAINTENANCE);
    /* A record outside its file's 32-bit offsets is not encoded. */
    in[0].mono_ms = BASE_MS - 1;
    assert_int_equal(fm_history_rec_encode(&in[0], BASE_MS, b), ERANGE);
    in[0].mono_ms = BASE_MS + UINT64_C(0x100000000);
    assert_int_equal(fm_history_rec_encode(&in[0], BASE_MS, b), ERANGE);
}

/* Hostile records: each field out of range or inconsistent is refused. */
static void
test_record_refused(void **state)
{
    struct fm_history_rec ok = cycle(0, FM_CLASS_COMPLETE, FM_ACTION_RESTART);
    uint8_t good[FM_HISTORY_REC_BYTES];
    uint8_t b[FM_HISTORY_REC_BYTES];
    struct fm_history_rec out;
    char err[128];
    struct {
        int byte;
        uint8_t value;
        const char *why;
    } cases[] = {
        { 14, 0x06 | (2u << 3) | (1u << 5), "kind 6 unknown" },
        { 14, 0x00 | (3u << 3) | (1u << 5), "class 3 out of range" },
        { 15, 0x05, "state 5 out of range" },
        { 15, 0x82, "reserved bit set" },
        { 14, 0x00 | (2u << 3) | (1u << 5) | 0x80u, "a latency on a record that is no ok cycle" },
        { 8, 9, "more failed targets than targets" },
        { 14, 0x01 | (1u << 3), "an event that is not a complete failure" },
        { 14, 0x02 | (2u << 3), "a class, action or flag on a record that takes none" },
    };

    (void) state;
    assert_int_equal(fm_history_rec_encode(&ok, BASE_MS, good), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memcpy(b, good, sizeof(b));
        b[cases[i].byte] = cases[i].value;
        if (cases[i].byte == 14 && (cases[i].value & 7u) != 0 && (cases[i].value & 7u) < 6) {
            b[12] = 0;
            b[13] = 0;      /* no targets, as a record that is no cycle has */
            b[8] = 0;
        }
        assert_int_equal(fm_history_rec_decode(b, BASE_MS, &out, err, sizeof(err)), EINVAL);
        assert_string_equal(err, cases[i].why);
    }
    /* More targets than a loop can have. */
    memcpy(b, good, sizeof(b));
    b[12] = 0xff;
    b[13] = 0x07;
    assert_int_equal(fm_history_rec_decode(b, BASE_MS, &out, err, sizeof(err)), EINVAL);
    assert_string_equal(err, "2047 targets out of range");
}

static void
test_parse_skips(void **state)
{
    struct fm_history_rec recs[4] = { cycle(0, FM_CLASS_OK, FM_ACTION_NONE),
                                      cycle(5000, FM_CLASS_COMPLETE, FM_ACTION_RESTART),
                                      cycle(4000, FM_CLASS_OK, FM_ACTION_NONE),
                                      cycle(6000, FM_CLASS_OK, FM_ACTION_NONE) };
    uint8_t buf[FM_HISTORY_HEADER_BYTES + 8 * FM_HISTORY_REC_BYTES];
    struct fm_history_parse_stats st;
    struct seen seen = { 0 };
    char err[128];
    size_t len = build_file(buf, recs, 4);

    (void) state;
    /* The third goes back in time: skipped, and said once. */
    buf[len] = 0xaa;        /* and 5 bytes of a record cut short */
    assert_int_equal(fm_history_parse(buf, len + 5, collect, &seen, &st, err, sizeof(err)), 0);
    assert_int_equal(seen.n, 3);
    assert_true(st.records == 3 && st.bad == 1);
    assert_int_equal(st.trailing_bytes, 5);
    assert_string_equal(st.first_bad, "record 3: time going backwards (1000 ms before the record before)");
    assert_true(seen.recs[2].mono_ms == BASE_MS + 6000);
    /* A bad header: nothing is handed on. */
    seen.n = 0;
    buf[0] = 0;
    assert_int_equal(fm_history_parse(buf, len, collect, &seen, &st, err, sizeof(err)), EINVAL);
    assert_int_equal(seen.n, 0);
    /* A header alone is an empty history. */
    fm_history_header_encode(buf, BASE_MS, 1);
    assert_int_equal(fm_history_parse(buf, FM_HISTORY_HEADER_BYTES, collect, &seen, &st, err, sizeof(err)), 0);
    assert_int_equal(seen.n, 0);
}

/* Random bytes after a good header, and random headers: never a crash,
 * never a record beyond the bytes, every record handed on in range. */
static void
test_parse_hostile(void **state)
{
    static uint8_t buf[FM_HISTORY_HEADER_BYTES + 512 * FM_HISTORY_REC_BYTES];
    uint32_t x = 12345;

    (void) state;
    for (int round = 0; round < 2000; round++) {
        struct fm_history_parse_stats st;
        struct seen seen = { 0 };
        char err[128];
        size_t len = 0;

        for (size_t i = 0; i < sizeof(buf); i++) {
            x = x * 1103515245u + 12345u;
            buf[i] = (uint8_t) (x >> 16);
        }
        len = (x >> 3) % sizeof(buf);
        if (round % 2 == 0) {
            fm_history_header_encode(buf, x % 100000, 1);
        }
        if (fm_history_parse(buf, len, collect, &seen, &st, err, sizeof(err)) == 0) {
            assert_true(st.records + st.bad == (len - FM_HISTORY_HEADER_BYTES) / FM_HISTORY_REC_BYTES);
            assert_int_equal(seen.n, st.records);
            for (size_t i = 0; i < seen.n && i < 64; i++) {
                assert_true(seen.recs[i].kind <= FM_HISTORY_CERT);
                assert_true(seen.recs[i].cls <= FM_CLASS_COMPLETE && seen.recs[i].state <= FM_STATE_HELD);
            }
        } else {
            assert_int_equal(seen.n, 0);
        }
    }
}

static void
test_rotation(void **state)
{
    uint64_t full = FM_HISTORY_HEADER_BYTES + FM_HISTORY_FILE_RECORDS * FM_HISTORY_REC_BYTES;

    (void) state;
    /* 7 days at 2 s in each file: 4 838 432 bytes, the pair at most twice that. */
    assert_true(FM_HISTORY_FILE_RECORDS == 7 * 86400 / 2);
    assert_true(FM_HISTORY_FILE_MAX_BYTES == 4838432);
    assert_false(fm_history_must_rotate(0, BASE_MS, 1, BASE_MS, BASE_MS));
    assert_false(fm_history_must_rotate(full - FM_HISTORY_REC_BYTES, BASE_MS, 1, BASE_MS, BASE_MS));
    assert_true(fm_history_must_rotate(full - FM_HISTORY_REC_BYTES, BASE_MS, 2, BASE_MS, BASE_MS));
    assert_true(fm_history_must_rotate(full, BASE_MS, 1, BASE_MS, BASE_MS));
    /* Another boot's clock, and the end of the 32-bit offsets (49.7 days). */
    assert_true(fm_history_must_rotate(64, BASE_MS, 1, BASE_MS - 1, BASE_MS));
    assert_false(fm_history_must_rotate(64, BASE_MS, 1, BASE_MS, BASE_MS + UINT64_C(0xffffffff)));
    assert_true(fm_history_must_rotate(64, BASE_MS, 1, BASE_MS, BASE_MS + UINT64_C(0x100000000)));
}

static void
test_params_round_trip(void **state)
{
    struct fm_decide_opts o;
    struct fm_decide_opts back;
    struct fm_history_buf *b = calloc(1, sizeof(*b));
    char a[FM_HISTORY_PARAMS_MAX];
    char z[FM_HISTORY_PARAMS_MAX];
    char err[256];
    bool cluster = false;

    (void) state;
    assert_non_null(b);
    fm_decide_opts_init(&o);
    o.retry_count = 5;
    o.fall = 2;
    o.retry_interval_ms = 1500;
    o.adaptive_limit_ms = 40;
    o.adaptive = 1;
    o.manual_resume = true;
    o.publish_only = true;
    fm_history_buf_init(b, &o, FM_KIND_HTTPMON, true);
    assert_int_equal(fm_history_params_parse(b->params, strlen(b->params), &back, &cluster, err,
                                             sizeof(err)), 0);
    assert_true(cluster);
    assert_true(back.publish_only);
    fm_decide_opts_format(&o, a, sizeof(a));
    fm_decide_opts_format(&back, z, sizeof(z));
    assert_string_equal(a, z);
    assert_true(b->params_hash == fm_history_params_hash(b->params));
    /* Refused: an unknown kind, a bad value, no trailer. */
    assert_int_equal(fm_history_params_parse("faultmon-history-params 1\nkind=x\nend\n", 37, &back, &cluster,
                                             err, sizeof(err)), EINVAL);
    assert_int_equal(fm_history_params_parse("faultmon-history-params 1\nkind=apache\nRetry_count=99\nend\n",
                                             56, &back, &cluster, err, sizeof(err)), EINVAL);
    assert_int_equal(fm_history_params_parse("faultmon-history-params 1\nkind=apache\n", 38, &back, &cluster,
                                             err, sizeof(err)), EINVAL);
    free(b);
}

/* The monitor notes a loop start, then each outcome with the engine's
 * input and decision; a certificate record only when its days change. */
static void
test_monitor_notes(void **state)
{
    struct fm_decide_opts o;
    struct fm_monitor *mon = calloc(1, sizeof(*mon));
    struct fm_monitor_out out;
    struct fm_monitor_cycle c = { .now_wall_s = 1700000000 };
    struct fm_decide_input in = { .cls = FM_CLASS_COMPLETE, .n_targets = 2, .n_failed = 1,
                                  .have_cert = true, .cert_left_s = 10 * 86400 + 5 };

    (void) state;
    assert_non_null(mon);
    fm_decide_opts_init(&o);
    assert_int_equal(fm_monitor_init(mon, &o, "web", FM_KIND_APACHE, false), 0);
    c.now_us = c.start_us = 1000000;
    fm_monitor_input_done(mon, &c, &in, &out);
    assert_int_equal(mon->history.n, 3);
    assert_int_equal(mon->history.recs[0].kind, FM_HISTORY_LOOP_START);
    assert_true(mon->history.recs[0].value == mon->history.params_hash);
    assert_int_equal(mon->history.recs[1].kind, FM_HISTORY_CERT);
    assert_int_equal((int32_t) mon->history.recs[1].value, 10 * 86400 + 5);
    assert_int_equal(mon->history.recs[2].kind, FM_HISTORY_CYCLE);
    assert_int_equal(mon->history.recs[2].action, FM_ACTION_RESTART);
    assert_int_equal(mon->history.recs[2].value, 1);
    assert_true(mon->history.recs[2].mono_ms == 1000);
    /* The same day: no certificate record; the next day: one. */
    in.cls = FM_CLASS_OK;
    in.n_failed = 0;
    in.have_latency = true;
    in.latency_us = 777;
    in.cert_left_s = 10 * 86400;
    c.now_us += 1000000;
    fm_monitor_input_done(mon, &c, &in, &out);
    assert_int_equal(mon->history.n, 4);
    assert_true(mon->history.recs[3].have_latency && mon->history.recs[3].value == 777);
    in.cert_left_s = 10 * 86400 - 1;
    c.now_us += 1000000;
    fm_monitor_input_done(mon, &c, &in, &out);
    assert_int_equal(mon->history.n, 6);
    assert_int_equal(mon->history.recs[4].kind, FM_HISTORY_CERT);
    /* Events, resumes and resets too. */
    fm_monitor_event(mon, "httpd exited", false, c.now_us + 1, 1700000001, &out);
    assert_int_equal(fm_monitor_resume(mon, c.now_us + 2, 1700000001, &out), EALREADY);
    assert_int_equal(mon->history.n, 8);
    assert_int_equal(mon->history.recs[6].kind, FM_HISTORY_EVENT);
    assert_int_equal(mon->history.recs[7].kind, FM_HISTORY_RESUME);
    fm_monitor_clear(mon);
    free(mon);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_record_round_trip),
        cmocka_unit_test(test_record_refused),
        cmocka_unit_test(test_parse_skips),
        cmocka_unit_test(test_parse_hostile),
        cmocka_unit_test(test_rotation),
        cmocka_unit_test(test_params_round_trip),
        cmocka_unit_test(test_monitor_notes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
