/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the small value parsers every parameter goes through:
 * status sets ("200-399,401,5xx"), durations ("500ms", "5m"), sizes ("64k"),
 * resource names, the agent's word splitting (httpd `options`) and its
 * case-folding of a regex, and the escaping of control characters.
 *
 * Input: one line per parser, in that order; lines may hold any byte.
 *
 * Properties:
 *  - a status set holds only codes 100-999 and reads back the same from its
 *    canonical text; a duration or a size reads back the same from its
 *    canonical text and stays within the documented bounds (a year, 1 GiB);
 *  - a valid resource name is [A-Za-z0-9._:-]+ (':' for clone instances), at
 *    most 63 bytes, not "." or "..", so that it never leaves the state
 *    directory;
 *  - split words are as many as the blanks allow; folding a regex never
 *    writes past its buffer;
 *  - the same words as `advanced` (fm_ocf_unfold()) are accepted or refused
 *    with 6, never set a unique parameter (the resource's identity) or one
 *    the meta-data does not have, and when accepted set each NAME to the
 *    VALUE of its word;
 *  - escaped text has no control character and fits its buffer.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/parse.h>
#include <faultmon/state.h>
#include <faultmon/status_set.h>
#include <faultmon/target.h>
#include <faultmon/text.h>
#include <faultmon/words.h>

#include "ocf_common.h"
#include "fuzz_common.h"

#define FUZZ_VALUES_MAX 4096

static void
status_set(const char *text)
{
    struct fm_status_set set;
    struct fm_status_set again;
    char canon[8192];
    size_t o = 0;
    char err[512];

    memset(err, 'x', sizeof(err));
    if (fm_status_set_parse(&set, text, err, sizeof(err)) != 0) {
        fm_fuzz_check_message(err, sizeof(err));
        FM_FUZZ_CHECK(!fm_status_set_has(&set, 200), "a rejected set is not empty");
        return;
    }
    for (int s = -1; s < 1001; s++) {
        if (fm_status_set_has(&set, s)) {
            FM_FUZZ_CHECK(s >= 100 && s <= 999, "status %d in the set '%s'", s, text);
            o += (size_t) snprintf(canon + o, sizeof(canon) - o, "%s%d", (o > 0)? "," : "", s);
        }
    }
    FM_FUZZ_CHECK(o > 0, "'%s' parses as an empty set", text);
    FM_FUZZ_CHECK(fm_status_set_parse(&again, canon, err, sizeof(err)) == 0,
                  "canonical '%s' of '%s' rejected: %s", canon, text, err);
    FM_FUZZ_CHECK(memcmp(&set, &again, sizeof(set)) == 0, "'%s' reads back differently", text);
}

static void
duration(const char *text)
{
    uint64_t ms = UINT64_MAX;
    uint64_t again = 0;
    char canon[64];

    if (fm_parse_duration_ms(text, &ms) != 0) {
        return;
    }
    FM_FUZZ_CHECK(ms <= UINT64_C(365) * 24 * 3600 * 1000, "'%s' is %" PRIu64 " ms", text, ms);
    snprintf(canon, sizeof(canon), "%" PRIu64 "ms", ms);
    FM_FUZZ_CHECK(fm_parse_duration_ms(canon, &again) == 0 && again == ms,
                  "'%s' (%" PRIu64 " ms) does not read back", text, ms);
    if (ms % 1000 == 0) {
        snprintf(canon, sizeof(canon), "%" PRIu64, ms / 1000);
        FM_FUZZ_CHECK(fm_parse_duration_ms(canon, &again) == 0 && again == ms,
                      "'%s' in seconds does not read back", text);
    }
}

static void
size(const char *text)
{
    size_t bytes = SIZE_MAX;
    size_t again = 0;
    char canon[64];

    if (fm_parse_size_bytes(text, &bytes) != 0) {
        return;
    }
    FM_FUZZ_CHECK(bytes <= (size_t) 1 << 30, "'%s' is %zu bytes", text, bytes);
    snprintf(canon, sizeof(canon), "%zu", bytes);
    FM_FUZZ_CHECK(fm_parse_size_bytes(canon, &again) == 0 && again == bytes,
                  "'%s' (%zu bytes) does not read back", text, bytes);
}

static void
resource_name(const char *text)
{
    char dir[4096];

    if (!fm_resource_name_valid(text)) {
        return;
    }
    FM_FUZZ_CHECK(strlen(text) >= 1 && strlen(text) <= 63, "name of %zu bytes", strlen(text));
    FM_FUZZ_CHECK(strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-")
                  == strlen(text), "bad character in the name '%s'", text);
    FM_FUZZ_CHECK(strcmp(text, ".") != 0 && strcmp(text, "..") != 0, "name '%s'", text);
    if (fm_state_dir(text, dir, sizeof(dir)) == 0) {
        const char *last = strrchr(dir, '/');

        FM_FUZZ_CHECK(last != NULL && strcmp(last + 1, text) == 0,
                      "the state directory of '%s' is %s", text, dir);
    }
}

static void unfold(const char *text);

static void
words(const char *text)
{
    char **w = NULL;
    size_t n = 0;
    size_t blanks = 0;

    if (fm_words_split(text, &w, &n, NULL) != 0) {
        FM_FUZZ_CHECK(w == NULL && n == 0, "words kept after an error");
        return;
    }
    for (const char *p = text; *p != '\0'; p++) {
        blanks += (strchr(" \t\r\n", *p) != NULL);
    }
    FM_FUZZ_CHECK(n <= blanks + 1, "%zu words from %zu blanks", n, blanks);
    for (size_t i = 0; i < n; i++) {
        FM_FUZZ_CHECK(w[i] != NULL && strlen(w[i]) <= strlen(text), "word %zu", i);
    }
    FM_FUZZ_CHECK(n == 0 || w[n] == NULL, "word list not NULL-terminated");
    fm_words_free(w, n);
    unfold(text);
}

/* A meta-data cut to what fm_ocf_unfold() reads. */
static const char unfold_metadata[] =
    "<parameter name=\"configfile\" unique=\"1\">\n"
    "<parameter name=\"rise\" deprecated=\"1\">\n"
    "<parameter name=\"http_headers\" deprecated=\"1\">\n"
    "<parameter name=\"advanced\">\n";
static const char *const unfold_names[] = { "configfile", "rise", "http_headers", "advanced" };

static void
unfold(const char *text)
{
    char **w = NULL;
    size_t n = 0;
    int rc = 0;

    for (size_t i = 0; i < sizeof(unfold_names) / sizeof(unfold_names[0]); i++) {
        fm_ocf_param_set(unfold_names[i], NULL);
    }
    fm_ocf_param_set("advanced", text);
    rc = fm_ocf_unfold(unfold_metadata);
    FM_FUZZ_CHECK(rc == PCMK_OCF_OK || rc == PCMK_OCF_NOT_CONFIGURED, "unfold answered %d", rc);
    FM_FUZZ_CHECK(fm_ocf_param("configfile") == NULL, "advanced set the unique configfile");
    if (rc == PCMK_OCF_OK && fm_words_split(text, &w, &n, NULL) == 0) {
        for (size_t i = 0; i < n; i++) {
            const char *eq = strchr(w[i], '=');
            char name[64];
            const char *now = NULL;

            FM_FUZZ_CHECK(eq != NULL && eq != w[i] && (size_t) (eq - w[i]) < sizeof(name),
                          "word %zu accepted without NAME=", i);
            snprintf(name, sizeof(name), "%.*s", (int) (eq - w[i]), w[i]);
            FM_FUZZ_CHECK(strcmp(name, "rise") == 0 || strcmp(name, "http_headers") == 0,
                          "advanced set '%s'", name);
            now = fm_ocf_param(name);
            FM_FUZZ_CHECK(now != NULL && strcmp(now, eq + 1) == 0, "%s not set to its word", name);
        }
        fm_words_free(w, n);
    }
    for (size_t i = 0; i < sizeof(unfold_names) / sizeof(unfold_names[0]); i++) {
        fm_ocf_param_set(unfold_names[i], NULL);
    }
}

static void
regex_icase(const char *text, uint8_t room)
{
    char out[512];
    size_t out_len = 1 + room;

    memset(out, 'x', sizeof(out));
    if (fm_ocf_regex_icase(text, out, out_len) == 0) {
        FM_FUZZ_CHECK(strlen(out) < out_len, "folded regex longer than its buffer");
    }
    FM_FUZZ_CHECK(out[out_len] == 'x', "folding wrote past its buffer");
}

static void
escape(const char *text, uint8_t room)
{
    char buf[FUZZ_VALUES_MAX + 8];
    size_t buf_len = strlen(text) + 1 + room % 8;

    memset(buf, 'x', sizeof(buf));
    memcpy(buf, text, strlen(text) + 1);
    fm_escape_controls(buf, buf_len);
    FM_FUZZ_CHECK(memchr(buf, '\0', buf_len) != NULL, "escaped text not terminated");
    FM_FUZZ_CHECK(buf[buf_len] == 'x', "escaping wrote past its buffer");
    for (const unsigned char *p = (const unsigned char *) buf; *p != '\0'; p++) {
        FM_FUZZ_CHECK(*p >= 0x20 && *p != 0x7f, "control byte 0x%02x after escaping", *p);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size_bytes)
{
    struct fm_fuzz_input in;
    void (*const parsers[])(const char *) = { status_set, duration, size, resource_name, words };
    uint8_t room = 0;
    char *line = NULL;

    if (size_bytes > FUZZ_VALUES_MAX) {
        return -1;
    }
    fm_fuzz_input_init(&in, data, size_bytes);
    room = fm_fuzz_byte(&in);
    for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++) {
        line = fm_fuzz_line(&in);
        if (line == NULL) {
            return 0;
        }
        parsers[i](line);
        free(line);
    }
    line = fm_fuzz_line(&in);
    if (line != NULL) {
        regex_icase(line, room);
        free(line);
    }
    line = fm_fuzz_rest(&in);
    escape(line, room);
    free(line);
    return 0;
}
