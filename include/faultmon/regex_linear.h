/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a search in linear time for the plainest receive patterns.
 *
 * glibc's regexec() can take seconds on a subject the server chooses and
 * cannot be interrupted, so the probe runs it in a child process killed at
 * the deadline: a fork per match, the largest fixed cost of a probe cycle.
 * Most receive patterns (the agents' default testregex "</ *html *>",
 * case-folded as "</ *[Hh][Tt][Mm][Ll] *>") are a sequence of single
 * characters and bracket lists under "*", "+" or "?": a language that an
 * automaton of a few states decides in one pass, in time bounded by the
 * subject's length times the pattern's.  fm_regex_linear_compile() accepts
 * only such a pattern, written so that it means the same under every locale
 * and under REG_NEWLINE (ASCII literals and lists of ASCII literals: no ".",
 * no anchor, no negated list, no range, no class, no interval, no group, no
 * alternative, no backslash sequence but an escaped metacharacter); any
 * other pattern is left to regexec() as before.  Libc only.
 */
#ifndef FAULTMON_REGEX_LINEAR_H
#define FAULTMON_REGEX_LINEAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most items (atoms with their repetition) in an accepted pattern: the
 * automaton's states are the bits of a 64-bit word. */
#define FM_REGEX_LINEAR_MAX_ITEMS 63

struct fm_regex_linear_item {
    uint64_t set[2];                /* the ASCII bytes the atom matches */
    bool optional;                  /* "?" or "*": may match nothing */
    bool repeat;                    /* "*" or "+": may match again */
};

/* A compiled pattern; plain data, may be copied. */
struct fm_regex_linear {
    size_t n_items;
    int first_byte;                 /* the one byte item 0 matches, or -1 */
    struct fm_regex_linear_item items[FM_REGEX_LINEAR_MAX_ITEMS];
};

/*!
 * \brief Compile \p pattern (POSIX ERE) if it is in the plain subset.
 * \return true when \p prog now decides it: its search answers exactly as
 *         regexec() of the pattern compiled with REG_EXTENDED | REG_NOSUB |
 *         REG_NEWLINE would; false when the pattern is outside the subset
 *         (or not a valid ERE): use regexec()
 */
bool fm_regex_linear_compile(const char *pattern, struct fm_regex_linear *prog);

/*!
 * \brief Whether \p prog matches anywhere in \p len bytes at \p data (which
 *        may hold NULs and need not be terminated).  Time linear in \p len.
 */
bool fm_regex_linear_search(const struct fm_regex_linear *prog, const char *data, size_t len);

#endif /* FAULTMON_REGEX_LINEAR_H */
