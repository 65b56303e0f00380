/*
 * faultmon OCF agents: splitting a parameter (options, envfiles) into words
 * as a shell would split it, without a shell: quotes and backslashes are
 * honoured, nothing is expanded.
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ocf_common.h"

static void
push_word(char ***words, size_t *n, const char *text, size_t len)
{
    char **grown = realloc(*words, (*n + 2) * sizeof(char *));

    if (grown == NULL) {
        return;
    }
    *words = grown;
    (*words)[*n] = strndup(text, len);
    if ((*words)[*n] != NULL) {
        (*n)++;
    }
    (*words)[*n] = NULL;
}

int
fm_ocf_split_words(const char *text, char ***words, size_t *n_words)
{
    size_t cap = strlen(text) + 1;
    char *word = calloc(1, cap);
    size_t len = 0;
    bool in_word = false;
    char quote = 0;

    *words = NULL;
    *n_words = 0;
    if (word == NULL) {
        return ENOMEM;
    }
    for (const char *p = text; *p != '\0'; p++) {
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
                push_word(words, n_words, word, len);
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
            word[len++] = *p;
        }
    }
    if (quote != 0) {
        free(word);
        fm_ocf_free_words(*words, *n_words);
        *words = NULL;
        *n_words = 0;
        return EINVAL;
    }
    if (in_word) {
        push_word(words, n_words, word, len);
    }
    free(word);
    return 0;
}

void
fm_ocf_free_words(char **words, size_t n_words)
{
    if (words == NULL) {
        return;
    }
    for (size_t i = 0; i < n_words; i++) {
        free(words[i]);
    }
    free(words);
}
