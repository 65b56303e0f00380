/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the cycle history's codec (see faultmon/history.h): the header,
 * the records, the whole-file judge, the rotation rule, and the text of
 * history.params.  Pure functions: no I/O, no clock, so that a hostile file
 * can be thrown at them by a unit test or a fuzzer.
 */
#include <config.h>

#include <faultmon/history.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/kvfile.h>
#include <faultmon/runconf.h>
#include <faultmon/state.h>
#include <faultmon/text.h>

static const uint8_t history_magic[8] = { 0x89, 'F', 'M', 'H', 'I', 'S', 'T', '\n' };

#define OFFSET_MAX_MS UINT64_C(0xffffffff)

static void
put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t) v;
    p[1] = (uint8_t) (v >> 8);
}

static void
put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t) (v >> (8 * i));
    }
}

static void
put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t) (v >> (8 * i));
    }
}

static uint16_t
get_u16(const uint8_t *p)
{
    return (uint16_t) (p[0] | (p[1] << 8));
}

static uint32_t
get_u32(const uint8_t *p)
{
    return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static uint64_t
get_u64(const uint8_t *p)
{
    return (uint64_t) get_u32(p) | ((uint64_t) get_u32(p + 4) << 32);
}

void
fm_history_header_encode(uint8_t *out, uint64_t mono_base_ms, int64_t created_wall_s)
{
    memset(out, 0, FM_HISTORY_HEADER_BYTES);
    memcpy(out, history_magic, sizeof(history_magic));
    put_u16(out + 8, FM_HISTORY_VERSION);
    put_u16(out + 10, FM_HISTORY_REC_BYTES);
    put_u64(out + 16, mono_base_ms);
    put_u64(out + 24, (uint64_t) created_wall_s);
}

int
fm_history_header_decode(const uint8_t *in, size_t len, struct fm_history_header *h, char *err,
                         size_t err_len)
{
    if (len < FM_HISTORY_HEADER_BYTES) {
        return fm_errf(err, err_len, EINVAL, "shorter than a history header (%zu bytes)", len);
    }
    if (memcmp(in, history_magic, sizeof(history_magic)) != 0) {
        return fm_errf(err, err_len, EINVAL, "not a faultmon history file (bad magic)");
    }
    if (get_u16(in + 8) != FM_HISTORY_VERSION) {
        return fm_errf(err, err_len, EINVAL, "history format version %u, not %d", get_u16(in + 8),
                       FM_HISTORY_VERSION);
    }
    if (get_u16(in + 10) != FM_HISTORY_REC_BYTES) {
        return fm_errf(err, err_len, EINVAL, "record size %u, not %d", get_u16(in + 10),
                       FM_HISTORY_REC_BYTES);
    }
    h->mono_base_ms = get_u64(in + 16);
    h->created_wall_s = (int64_t) get_u64(in + 24);
    /* A clock of more than 2^52 ms (142 000 years) is no boot's. */
    if (get_u32(in + 12) != 0 || h->mono_base_ms > (UINT64_C(1) << 52) || h->created_wall_s < 0
        || h->created_wall_s > (int64_t) UINT32_MAX) {
        return fm_errf(err, err_len, EINVAL, "header fields out of range");
    }
    return 0;
}

int
fm_history_rec_encode(const struct fm_history_rec *r, uint64_t base_ms, uint8_t *out)
{
    unsigned maint = (r->maintenance > FM_HISTORY_MAX_MAINTENANCE)? FM_HISTORY_MAX_MAINTENANCE : r->maintenance;
    unsigned targets = (r->n_targets > FM_HISTORY_MAX_TARGETS)? FM_HISTORY_MAX_TARGETS : r->n_targets;

    if (r->mono_ms < base_ms || r->mono_ms - base_ms > OFFSET_MAX_MS) {
        return ERANGE;
    }
    put_u32(out, r->wall_s);
    put_u32(out + 4, (uint32_t) (r->mono_ms - base_ms));
    put_u32(out + 8, r->value);
    put_u16(out + 12, (uint16_t) (targets | (maint << 11)));
    out[14] = (uint8_t) (((unsigned) r->kind & 7u) | (((unsigned) r->cls & 3u) << 3)
                         | (((unsigned) r->action & 3u) << 5) | (r->have_latency? 0x80u : 0u));
    out[15] = (uint8_t) (((unsigned) r->state & 7u) | (r->flags & 0x78u));
    return 0;
}

/* What a record of its kind may hold; NULL when it is consistent. */
static const char *
rec_inconsistent(const struct fm_history_rec *r)
{
    bool cycle = (r->kind == FM_HISTORY_CYCLE);

    if (r->have_latency && (!cycle || r->cls != FM_CLASS_OK)) {
        return "a latency on a record that is no ok cycle";
    }
    if (cycle && r->cls == FM_CLASS_OK && !r->have_latency && r->value != 0) {
        return "a value on an ok cycle without latency";
    }
    if (cycle && r->cls != FM_CLASS_OK && r->value > r->n_targets) {
        return "more failed targets than targets";
    }
    if (cycle && r->cls != FM_CLASS_OK && r->maintenance != 0) {
        return "maintenance on a failed cycle";
    }
    if ((r->flags & FM_HISTORY_F_START_ERROR) != 0 && (!cycle || r->cls != FM_CLASS_PARTIAL
                                                       || r->n_targets != 0)) {
        return "a cycle that could not start with results";
    }
    if (!cycle && (r->n_targets != 0 || r->maintenance != 0)) {
        return "targets on a record that is no cycle";
    }
    if (r->kind == FM_HISTORY_EVENT && r->cls != FM_CLASS_COMPLETE) {
        return "an event that is not a complete failure";
    }
    if (!cycle && r->kind != FM_HISTORY_EVENT
        && (r->cls != FM_CLASS_OK || r->action != FM_ACTION_NONE
            || (r->flags & ~((r->kind == FM_HISTORY_LOOP_START)? FM_HISTORY_F_AUX : 0u)) != 0)) {
        return "a class, action or flag on a record that takes none";
    }
    if (!cycle && (r->flags & (FM_HISTORY_F_IMPAIRED | FM_HISTORY_F_START_ERROR)) != 0) {
        return "a cycle's flag on a record that is no cycle";
    }
    return NULL;
}

int
fm_history_rec_decode(const uint8_t *in, uint64_t base_ms, struct fm_history_rec *r, char *err,
                      size_t err_len)
{
    uint16_t t = get_u16(in + 12);
    const char *why = NULL;

    memset(r, 0, sizeof(*r));
    r->wall_s = get_u32(in);
    r->mono_ms = base_ms + get_u32(in + 4);
    r->value = get_u32(in + 8);
    r->n_targets = (uint16_t) (t & 0x7ffu);
    r->maintenance = (uint8_t) (t >> 11);
    r->kind = (enum fm_history_kind) (in[14] & 7u);
    r->cls = (enum fm_class) ((in[14] >> 3) & 3u);
    r->action = (enum fm_action) ((in[14] >> 5) & 3u);
    r->have_latency = (in[14] & 0x80u) != 0;
    r->state = (enum fm_state) (in[15] & 7u);
    r->flags = in[15] & 0x78u;
    if (r->kind > FM_HISTORY_CERT) {
        return fm_errf(err, err_len, EINVAL, "kind %u unknown", (unsigned) r->kind);
    }
    if ((unsigned) r->cls > FM_CLASS_COMPLETE) {
        return fm_errf(err, err_len, EINVAL, "class %u out of range", (unsigned) r->cls);
    }
    if ((unsigned) r->state > FM_STATE_HELD) {
        return fm_errf(err, err_len, EINVAL, "state %u out of range", (unsigned) r->state);
    }
    if ((in[15] & 0x80u) != 0) {
        return fm_errf(err, err_len, EINVAL, "reserved bit set");
    }
    if (r->n_targets > FM_RUN_CONFIG_MAX_TARGETS) {
        return fm_errf(err, err_len, EINVAL, "%u targets out of range", (unsigned) r->n_targets);
    }
    why = rec_inconsistent(r);
    if (why != NULL) {
        return fm_errf(err, err_len, EINVAL, "%s", why);
    }
    return 0;
}

int
fm_history_parse(const uint8_t *buf, size_t len, fm_history_rec_fn fn, void *data,
                 struct fm_history_parse_stats *stats, char *err, size_t err_len)
{
    struct fm_history_header h;
    uint64_t prev_ms = 0;
    size_t n = 0;

    memset(stats, 0, sizeof(*stats));
    if (fm_history_header_decode(buf, len, &h, err, err_len) != 0) {
        return EINVAL;
    }
    n = (len - FM_HISTORY_HEADER_BYTES) / FM_HISTORY_REC_BYTES;
    stats->trailing_bytes = (len - FM_HISTORY_HEADER_BYTES) % FM_HISTORY_REC_BYTES;
    for (size_t i = 0; i < n; i++) {
        struct fm_history_rec r;
        char why[128] = "";

        if (fm_history_rec_decode(buf + FM_HISTORY_HEADER_BYTES + i * FM_HISTORY_REC_BYTES, h.mono_base_ms,
                                  &r, why, sizeof(why)) == 0 && r.mono_ms < prev_ms) {
            snprintf(why, sizeof(why), "time going backwards (%llu ms before the record before)",
                     (unsigned long long) (prev_ms - r.mono_ms));
        }
        if (why[0] != '\0') {
            if (stats->bad++ == 0) {
                snprintf(stats->first_bad, sizeof(stats->first_bad), "record %zu: %s", i + 1, why);
            }
            continue;
        }
        prev_ms = r.mono_ms;
        stats->records++;
        fn(&r, data);
    }
    return 0;
}

bool
fm_history_must_rotate(uint64_t file_bytes, uint64_t base_ms, size_t n_new, uint64_t first_mono_ms,
                       uint64_t last_mono_ms)
{
    uint64_t held = (file_bytes > FM_HISTORY_HEADER_BYTES)?
                    (file_bytes - FM_HISTORY_HEADER_BYTES) / FM_HISTORY_REC_BYTES : 0;

    return held + n_new > FM_HISTORY_FILE_RECORDS || first_mono_ms < base_ms
           || last_mono_ms - base_ms > OFFSET_MAX_MS;
}

uint32_t
fm_history_params_hash(const char *text)
{
    uint32_t h = UINT32_C(2166136261);

    for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++) {
        h = (h ^ *p) * UINT32_C(16777619);
    }
    return h;
}

void
fm_history_buf_init(struct fm_history_buf *b, const struct fm_decide_opts *opts, const char *kind,
                    bool cluster)
{
    int n = 0;

    memset(b, 0, sizeof(*b));
    n = snprintf(b->params, sizeof(b->params), "%s\nkind=%s\ncluster=%s\n", FM_HISTORY_PARAMS_HEADER,
                 (kind != NULL && kind[0] != '\0')? kind : FM_KIND_APACHE, cluster? "true" : "false");
    if (n > 0 && (size_t) n < sizeof(b->params)) {
        size_t used = (size_t) n;

        used += fm_decide_opts_format(opts, b->params + used, sizeof(b->params) - used);
        if (used + 5 < sizeof(b->params)) {
            snprintf(b->params + used, sizeof(b->params) - used, "end\n");
        }
    }
    b->params_hash = fm_history_params_hash(b->params);
}

void
fm_history_note(struct fm_history_buf *b, const struct fm_history_rec *r)
{
    if (b->n == FM_HISTORY_BUF_RECORDS) {
        b->dropped++;
        return;
    }
    b->recs[b->n++] = *r;
}

struct params_walk {
    struct fm_decide_opts *opts;
    bool *cluster;
    bool have_kind;
    char why[256];
};

static const char *
params_entry(char *key, char *value, void *data)
{
    struct params_walk *w = data;
    int rc = 0;

    if (strcmp(key, "kind") == 0) {
        w->opts->publish_only = (strcmp(value, FM_KIND_HTTPMON) == 0);
        w->have_kind = true;
        return (w->opts->publish_only || strcmp(value, FM_KIND_APACHE) == 0)? NULL : "unknown kind";
    }
    if (strcmp(key, "cluster") == 0) {
        *w->cluster = (strcmp(value, "true") == 0);
        return (*w->cluster || strcmp(value, "false") == 0)? NULL : "not true or false";
    }
    rc = fm_decide_opts_set(w->opts, key, value, w->why, sizeof(w->why));
    /* Probe_timeout is the probe's own, which may be shorter than the
     * parameter allows; the engine only checks it against the others. */
    if (rc != 0 && strcmp(key, "Probe_timeout") == 0) {
        return NULL;
    }
    return (rc == 0)? NULL : w->why;
}

int
fm_history_params_parse(const char *text, size_t len, struct fm_decide_opts *opts, bool *cluster,
                        char *err, size_t err_len)
{
    static const struct fm_kvfile_format format = {
        .header = FM_HISTORY_PARAMS_HEADER,
        .name = "faultmon history parameters file",
        .max_bytes = FM_HISTORY_PARAMS_MAX,
    };
    struct params_walk w = { .opts = opts, .cluster = cluster };

    fm_decide_opts_init(opts);
    *cluster = false;
    if (fm_kvfile_parse(text, len, &format, params_entry, &w, err, err_len) != 0) {
        return EINVAL;
    }
    if (!w.have_kind) {
        return fm_errf(err, err_len, EINVAL, "no kind= line");
    }
    return fm_decide_opts_validate(opts, err, err_len, NULL, 0);
}
