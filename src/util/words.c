/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: splitting a parameter into words as a shell would split it,
 * without a shell (see include/faultmon/words.h).
 */
#include <config.h>

#include <faultmon/words.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int
push_word(char ***words, size_t *n, const char *text, size_t len)
{
    char **grown = realloc(*words, (*n + 2) * sizeof(char *));

    if (grown == NULL) {
        return ENOMEM;
    }
    *words = grown;
    (*words)[*n] = strndup(text, len);
    if ((*words)[*n] == NULL) {
        return ENOMEM;
    }
    (*n)++;
    (*words)[*n] = NULL;
    return 0;
}

/* Note the first shell syntax seen (fm_words_split()). */
static void
note_syntax(char *syntax, char c)
{
    if (syntax != NULL && *syntax == '\0') {
        *syntax = c;
    }
}

/*
 * One character inside double quotes (POSIX 2.2.3): a backslash escapes
 * only '$', '`', '"', '\\' and a newline (which it removes with itself);
 * before any other character it stays.  An unescaped '$' or '`' would be
 * expanded by a shell, so it is reported.
 * \return how many characters of \p p were taken
 */
static size_t
double_quoted(const char *p, char *word, size_t *len, char *syntax)
{
    if (*p == '\\' && p[1] == '\n') {
        return 2;
    }
    if (*p == '\\' && p[1] != '\0' && strchr("$`\"\\", p[1]) != NULL) {
        word[(*len)++] = p[1];
        return 2;
    }
    if (*p == '$' || *p == '`') {
        note_syntax(syntax, *p);
    }
    word[(*len)++] = *p;
    return 1;
}

/* One unquoted character that is not a blank, a quote or a line
 * continuation ("\\\n", removed whole). */
static size_t
unquoted(const char *p, bool word_start, char *word, size_t *len, char *syntax)
{
    if (*p == '\\' && p[1] != '\0') {
        word[(*len)++] = p[1];
        return 2;
    }
    /* '#' starts a comment and '~' is expanded, only at a word's start. */
    if (strchr(FM_WORDS_SHELL_SYNTAX, *p) != NULL || (word_start && (*p == '#' || *p == '~'))) {
        note_syntax(syntax, *p);
    }
    word[(*len)++] = *p;
    return 1;
}

int
fm_words_split(const char *text, char ***words, size_t *n_words, char *syntax)
{
    size_t cap = strlen(text) + 1;
    char *word = calloc(1, cap);
    size_t len = 0;
    bool in_word = false;
    char quote = 0;
    int rc = 0;

    *words = NULL;
    *n_words = 0;
    if (syntax != NULL) {
        *syntax = '\0';
    }
    if (word == NULL) {
        return ENOMEM;
    }
    for (const char *p = text; *p != '\0' && rc == 0;) {
        if (quote == '\'') {
            quote = (*p == '\'')? 0 : quote;
            if (quote != 0) {
                word[len++] = *p;
            }
            p++;
        } else if (quote == '"') {
            if (*p == '"') {
                quote = 0;
                p++;
            } else {
                p += double_quoted(p, word, &len, syntax);
            }
        } else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            if (in_word) {
                rc = push_word(words, n_words, word, len);
                len = 0;
                in_word = false;
            }
            p++;
        } else if (*p == '\'' || *p == '"') {
            in_word = true;
            quote = *p++;
        } else if (*p == '\\' && p[1] == '\n') {
            p += 2;
        } else {
            p += unquoted(p, !in_word, word, &len, syntax);
            in_word = true;
        }
    }
    if (rc == 0 && quote != 0) {
        rc = EINVAL;
    }
    if (rc == 0 && in_word) {
        rc = push_word(words, n_words, word, len);
    }
    free(word);
    if (rc != 0) {
        fm_words_free(*words, *n_words);
        *words = NULL;
        *n_words = 0;
    }
    return rc;
}

void
fm_words_free(char **words, size_t n_words)
{
    if (words == NULL) {
        return;
    }
    for (size_t i = 0; i < n_words; i++) {
        free(words[i]);
    }
    free(words);
}
