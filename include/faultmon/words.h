/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: splitting a parameter into words as a shell would split it,
 * without a shell: quotes and backslashes are honoured, nothing is expanded
 * (libfmutil, libc only).  The agents split httpd's options and envfiles
 * with it, and the exec probe its command.
 */
#ifndef FAULTMON_WORDS_H
#define FAULTMON_WORDS_H

#include <stddef.h>

/* The characters a shell would treat as syntax, which fm_words_split()
 * reports when one stands outside quotes and unescaped ('$' and '`' inside
 * double quotes too, and '#' and '~' at a word's start). */
#define FM_WORDS_SHELL_SYNTAX "|&;<>()$`"

/*!
 * \brief Split \p text at blanks into words, honouring '...' and "..." and
 *        backslash escapes exactly as POSIX sh (XCU 2.2); nothing is expanded.
 *
 * Outside quotes a backslash takes the next character as it is, and removes
 * a newline with itself; inside double quotes it escapes only '$', '`', '"',
 * '\\' and a newline, and stays before anything else ("a\x" is a\x).  What
 * a shell would expand or drop instead of splitting, an unescaped '$' or '`'
 * (inside double quotes too) and '#' or '~' at a word's start, is reported
 * in \p syntax.  (A carriage return is a blank here; '*', '?' and '[' are
 * kept as they are, as a shell keeps a pattern that matches no file.)
 *
 * \param[in]  text     the text
 * \param[out] words    NULL-terminated array of the words; fm_words_free() it
 * \param[out] n_words  how many
 * \param[out] syntax   if not NULL: the first of FM_WORDS_SHELL_SYNTAX found
 *                      outside quotes and unescaped, or '\0' for none (a
 *                      caller that runs no shell refuses it, since whoever
 *                      wrote it expected a shell)
 * \return 0, ENOMEM, or EINVAL for an unbalanced quote (words freed)
 */
int fm_words_split(const char *text, char ***words, size_t *n_words, char *syntax);

/*! \brief Free what fm_words_split() gave. */
void fm_words_free(char **words, size_t n_words);

#endif
