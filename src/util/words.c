/*
 * faultmon: splitting a parameter into words as a shell would split it,
 * without a shell (see include/faultmon/words.h).
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/words.h>

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
    for (const char *p = text; *p != '\0' && rc == 0; p++) {
        if (quote != 0) {
            if (*p == quote) {
                quote = 0;
            } else if (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\')) {
                word[len++] = *++p;
            } else {
                word[len++] = *p;
            }
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            if (in_word) {
                rc = push_word(words, n_words, word, len);
                len = 0;
                in_word = false;
            }
            continue;
        }
        in_word = true;
        if (*p == '\'' || *p == '"') {
            quote = *p;
        } else if (*p == '\\' && p[1] != '\0') {
            word[len++] = *++p;
        } else {
            if (syntax != NULL && *syntax == '\0' && strchr(FM_WORDS_SHELL_SYNTAX, *p) != NULL) {
                *syntax = *p;
            }
            word[len++] = *p;
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
