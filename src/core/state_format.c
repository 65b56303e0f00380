/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the version of the state file's format and what a reader makes
 * of a version it was not written for (doc/reference/state-format.md).
 *
 * The version is the header line, "faultmon-state MAJOR[.MINOR]".  A reader
 * reads every MINOR of its MAJOR: it ignores the keys it does not know
 * (optional by definition: a later minor version may add only keys that an
 * older reader can do without) and names a required one that is missing;
 * another MAJOR is refused with that reason.  The writer writes MINOR 0 as
 * "faultmon-state 1" and no key beyond format 1.0's: the readers before this
 * rule accept nothing else (they refuse an unknown key and any other
 * header), and a rolling upgrade or downgrade has one of them beside this
 * one.  tests/unit/compat/ holds a frozen copy of that reader and writer.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <faultmon/parse.h>
#include <faultmon/text.h>

#include "state_int.h"

bool
fm_state_key_repeated(const char *key)
{
    static const char *const repeated_keys[] = { "kind", "d.failure", "d.restart", "target", "record" };

    for (size_t i = 0; i < sizeof(repeated_keys) / sizeof(repeated_keys[0]); i++) {
        if (strcmp(key, repeated_keys[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* A key as a writer of this format would name one: [a-z0-9_.], at most 64. */
bool
fm_state_key_name_valid(const char *key)
{
    size_t len = strlen(key);

    return len > 0 && len <= 64 && strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_.") == len;
}

/*
 * The header of \p text: FM_STATE_HEADER, or "faultmon-state 1.MINOR" (a
 * later minor version, read as ours) into \p header.  Another major version
 * is refused here, with the reason; anything else is left to the framing's
 * "not a faultmon state file".
 */
int
fm_state_format_header(const char *text, size_t len, char *header, size_t header_len, char *err, size_t err_len)
{
    const char *nl = memchr(text, '\n', len);
    size_t line_len = (nl != NULL)? (size_t) (nl - text) : len;
    size_t name_len = strlen(FM_STATE_FORMAT_NAME " ");
    char version[32];
    char *dot = NULL;
    uint64_t major = 0;
    uint64_t minor = 0;

    snprintf(header, header_len, "%s", FM_STATE_HEADER);
    if (line_len <= name_len || line_len - name_len >= sizeof(version)
        || strncmp(text, FM_STATE_FORMAT_NAME " ", name_len) != 0) {
        return 0;
    }
    memcpy(version, text + name_len, line_len - name_len);
    version[line_len - name_len] = '\0';
    dot = strchr(version, '.');
    if (dot != NULL) {
        *dot = '\0';
    }
    if (fm_parse_u64(version, 0, UINT32_MAX, FM_PARSE_CANONICAL, &major) != 0
        || (dot != NULL && fm_parse_u64(dot + 1, 0, UINT32_MAX, FM_PARSE_CANONICAL, &minor) != 0)) {
        return 0;
    }
    if (major != FM_STATE_FORMAT_MAJOR) {
        return fm_errf(err, err_len, EINVAL, "state format %" PRIu64 " (%s): this faultmon reads format %d "
                       "only", major, (major > FM_STATE_FORMAT_MAJOR)? "written by a newer faultmon" : "too old",
                       FM_STATE_FORMAT_MAJOR);
    }
    if (dot != NULL) {
        snprintf(header, header_len, "%.*s", (int) line_len, text);
    }
    return 0;
}
