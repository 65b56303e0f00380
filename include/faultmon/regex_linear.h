/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a search in linear time for the receive patterns administrators
 * write.
 *
 * glibc's regexec() can take seconds on a subject the server chooses and
 * cannot be interrupted, so the probe runs it in a child process killed at
 * the deadline: a fork per match, the largest fixed cost of a probe cycle.
 * An automaton decides the same question in one pass, in time bounded by
 * the subject's length times the pattern's size, so every pattern it can
 * express is searched here instead: POSIX ERE with alternation, groups,
 * "*", "+", "?", "{m}", "{m,}", "{m,n}", "^" and "$" (at each line:
 * REG_NEWLINE), ".", bracket expressions with ranges, "[:class:]", "[=x=]"
 * and "[.x.]" (one byte each in the C locale), bytes beyond ASCII (each a
 * character of its own, ordered by value), escaped metacharacters, and glibc's "\w", "\W", "\s", "\S", "\b", "\B", "\<",
 * "\>", "\`" and "\'".  The answer is the one regexec() gives for the pattern
 * compiled with REG_EXTENDED | REG_NOSUB | REG_NEWLINE in the C locale, the
 * locale faultmon runs in (it never calls setlocale()).
 *
 * fm_regex_linear_compile() declines, and regexec() in its child keeps, only
 * what an automaton cannot do or what is not worth the risk of answering
 * differently: back-references (which the guard refuses anyway), a
 * collating element as a range's endpoint ("[[.a.]-z]"), an escaped byte
 * beyond ASCII, a control byte written as such, an unmatched ")", an
 * anchor under a repetition ("(a|a$b)+$", which glibc answers wrongly), any pattern when the process's
 * locale is not C or POSIX (ranges, classes and "." then depend on it), and
 * a pattern that expands to more than FM_REGEX_LINEAR_MAX_STATES states
 * (below the guard's bound, so that a search stays within milliseconds) or
 * whose expansion takes more than a few steps per state to build
 * ("((){32767}){32767}": one state, a billion copies of nothing).  What
 * regcomp() refuses ("[[.space.]]" in the C locale) is declined too, and
 * the option setters report regcomp()'s error.
 * Libc only.
 */
#ifndef FAULTMON_REGEX_LINEAR_H
#define FAULTMON_REGEX_LINEAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most automaton states of a pattern searched here: a search costs at most
 * this many steps per byte of the subject (a 64 KiB window, 2048 states:
 * about 0.1 s in the worst case, microseconds for the usual pattern). */
#define FM_REGEX_LINEAR_MAX_STATES 2048

struct fm_regex_nfa;

/* A compiled pattern: owns its automaton (fm_regex_linear_free()); a copy
 * of the struct shares it, as a copy of a regex_t does. */
struct fm_regex_linear {
    struct fm_regex_nfa *nfa;
};

/*!
 * \brief Compile \p pattern (POSIX ERE) if an automaton decides it here.
 * \return true when \p prog now decides it: its search answers exactly as
 *         regexec() of the pattern compiled with REG_EXTENDED | REG_NOSUB |
 *         REG_NEWLINE would; false (and \p prog holds nothing) when the
 *         pattern is outside what this file does (or not a valid ERE): use
 *         regexec()
 */
bool fm_regex_linear_compile(const char *pattern, struct fm_regex_linear *prog);

/*! \brief Free what \p prog holds (nothing after a failed compile). */
void fm_regex_linear_free(struct fm_regex_linear *prog);

/*!
 * \brief Whether \p prog matches anywhere in \p len bytes at \p data (which
 *        may hold NULs and need not be terminated).  Time linear in \p len.
 */
bool fm_regex_linear_search(const struct fm_regex_linear *prog, const char *data, size_t len);

#endif /* FAULTMON_REGEX_LINEAR_H */
