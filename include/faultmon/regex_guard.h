/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a guard in front of every regcomp() of a user's pattern.
 *
 * glibc's regcomp() expands repetitions into copies of their operand: a
 * pattern such as "a" followed by 60 '+' or "a{1000}{1000}" makes it build
 * millions of nodes and take gigabytes, so a receive_regex or testregex
 * could stall validate-all or the loop.  fm_regex_check() refuses such a
 * pattern from its text alone, in time linear in its length, before it is
 * compiled.  Libc only: the OCF agent program uses it too.
 */
#ifndef FAULTMON_REGEX_GUARD_H
#define FAULTMON_REGEX_GUARD_H

#include <stddef.h>

/* Longest pattern accepted, in bytes (a case-folded testregex is up to
 * four times its text). */
#define FM_REGEX_MAX_BYTES 4096

/* Deepest nesting of parentheses. */
#define FM_REGEX_MAX_GROUP_DEPTH 32

/* Most repetition operators on one atom ("a*?" is two). */
#define FM_REGEX_MAX_STACKED_OPS 2

/* Deepest nesting of repeated groups that themselves repeat ("((a*)*)*" is 3). */
#define FM_REGEX_MAX_REPEAT_DEPTH 8

/* Most nodes regcomp() may build, estimated from the pattern: each
 * repetition multiplies its operand as glibc copies it.  32768 nodes cost
 * about 8 MB and a few milliseconds. */
#define FM_REGEX_MAX_NODES 32768

/* Most of those nodes that may be skipped ("x?", "x*", "x{0,n}"): regcomp()
 * keeps for each the nodes it reaches without input, so their cost grows
 * with their square (and copies of a starred group that can match nothing,
 * "(()*){500}", take most of a second with few nodes); 256 cost a few ms. */
#define FM_REGEX_MAX_OPTIONAL_NODES 256

/* Most loops ("*", "+", "{m,}") over what can match the empty string, once
 * expanded: next to an anchor, regcomp()'s work doubles with each ("^$()*{20}"
 * takes 12 s, "(()*()*){10}" 7 s); 8 cost a millisecond. */
#define FM_REGEX_MAX_EMPTY_LOOPS 8

/* Most choices, once expanded, between alternatives that can all match the
 * empty string ("()?", "(a*|)", "(^|$)", "(){0,n}"): after an anchor
 * regcomp()'s memory grows with about the cube of their number ("^()?{80}"
 * takes 50 MB, "^(^|$){80}" 200 MB); 24 cost at most a few MB. */
#define FM_REGEX_MAX_EMPTY_CHOICES 24

/*!
 * \brief Whether a POSIX extended regex is small enough to compile.
 *
 * Refuses a pattern longer than FM_REGEX_MAX_BYTES, groups nested deeper
 * than FM_REGEX_MAX_GROUP_DEPTH, more than FM_REGEX_MAX_STACKED_OPS
 * repetition operators on one atom, repeated groups nested deeper than
 * FM_REGEX_MAX_REPEAT_DEPTH, an estimated expansion above
 * FM_REGEX_MAX_NODES (or FM_REGEX_MAX_OPTIONAL_NODES that may be skipped,
 * or FM_REGEX_MAX_EMPTY_LOOPS loops over what can match nothing, or
 * FM_REGEX_MAX_EMPTY_CHOICES choices between ways of matching nothing), and
 * back-references (not POSIX ERE, and exponential
 * to match).  Syntax errors are left to regcomp().
 *
 * \param[in]  regex    the pattern
 * \param[out] err      why it is refused (one line, without the pattern)
 * \param[in]  err_len  size of \p err
 *
 * \return 0, or EINVAL (\p err says why)
 */
int fm_regex_check(const char *regex, char *err, size_t err_len);

#endif
