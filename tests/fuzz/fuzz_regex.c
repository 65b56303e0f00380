/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: user regular expressions (receive_regex, and the apache
 * agent's testregex, case-folded by fm_ocf_regex_icase()), through the one
 * entry point that compiles them, fm_probe_opts_set_receive().
 *
 * Input: one option byte (fold the case first or not), the pattern up to the
 * first newline, then a subject the compiled pattern is run on (a body in
 * the receive window; every byte of it, NULs included).
 *
 * Properties (issue 8, item 8):
 *  - a pattern is refused or compiled within 64 MiB and 3 s of CPU time
 *    (about 1 s outside ASan, whose allocator makes regcomp() some 4 times
 *    slower), never left to take gigabytes; a refusal is one terminated line;
 *  - a compiled pattern matches a 4 KiB subject within the same time;
 *  - differential: where the in-process automaton (regex_linear.h) takes
 *    the pattern (alternation, groups, intervals, anchors, classes ...), it
 *    answers as regexec() does on the subject; a difference is a false ok
 *    or a false failure on one of the two paths.
 */
#include <config.h>

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sanitizer/allocator_interface.h>

#include <faultmon/probe_opts.h>
#include <faultmon/regex_linear.h>
#include <faultmon/target.h>

#include "ocf_common.h"
#include "fuzz_common.h"

#define FUZZ_REGEX_MAX 8192
#define FUZZ_SUBJECT_MAX 4096
#define FUZZ_CPU_LIMIT_NS INT64_C(3000000000)
#define FUZZ_MEMORY_LIMIT_BYTES ((size_t) 64 << 20)

static int64_t
cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fm_fuzz_input in;
    struct fm_probe_opts opts;
    char folded[4 * FUZZ_REGEX_MAX + 1];
    char err[512];
    uint8_t flags = 0;
    char *pattern = NULL;
    char *subject = NULL;
    size_t subject_len = 0;
    const char *regex = NULL;
    size_t before = 0;
    int64_t start_ns = 0;
    int rc = 0;
    bool found = false;

    if (size > FUZZ_REGEX_MAX) {
        return -1;
    }
    fm_fuzz_input_init(&in, data, size);
    flags = fm_fuzz_byte(&in);
    pattern = fm_fuzz_line(&in);
    if (pattern == NULL) {
        return 0;
    }
    /* The subject whole, NULs included: a body holds what the server sent,
     * and both searches see all of it (REG_STARTEND). */
    subject_len = fm_fuzz_left(&in);
    subject = fm_fuzz_rest(&in);
    regex = pattern;
    if ((flags & 1) && fm_ocf_regex_icase(pattern, folded, sizeof(folded)) == 0) {
        regex = folded;
    }

    fm_probe_opts_init(&opts);
    before = __sanitizer_get_current_allocated_bytes();
    start_ns = cpu_ns();
    memset(err, 'x', sizeof(err));
    err[sizeof(err) - 1] = '\0';
    rc = fm_probe_opts_set_receive(&opts, regex, err, sizeof(err));
    FM_FUZZ_CHECK(cpu_ns() - start_ns < FUZZ_CPU_LIMIT_NS, "compiling a %zu-byte pattern took %lld ms",
                  strlen(regex), (long long) ((cpu_ns() - start_ns) / 1000000));
    if (rc != 0) {
        fm_fuzz_check_message(err, sizeof(err));
    } else {
        size_t used = __sanitizer_get_current_allocated_bytes() - before;
        size_t len = subject_len;
        regmatch_t match = { .rm_so = 0, .rm_eo = 0 };

        FM_FUZZ_CHECK(used < FUZZ_MEMORY_LIMIT_BYTES, "a %zu-byte pattern compiled into %zu bytes",
                      strlen(regex), used);
        if (len > FUZZ_SUBJECT_MAX) {
            len = FUZZ_SUBJECT_MAX;
        }
        match.rm_eo = (regoff_t) len;
        start_ns = cpu_ns();
        found = (regexec(&opts.receive, subject, 1, &match, REG_STARTEND) == 0);
        FM_FUZZ_CHECK(cpu_ns() - start_ns < FUZZ_CPU_LIMIT_NS, "matching took %lld ms",
                      (long long) ((cpu_ns() - start_ns) / 1000000));
        /* The plain-pattern search, where it is used, answers as regexec(). */
        FM_FUZZ_CHECK(!opts.have_receive_linear
                      || fm_regex_linear_search(&opts.receive_linear, subject, len) == found,
                      "the linear search of '%s' says %s, regexec() the opposite", regex,
                      found? "no match" : "a match");
    }
    fm_probe_opts_clear(&opts);
    free(pattern);
    free(subject);
    return 0;
}
