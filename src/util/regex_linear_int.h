/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what the two halves of the linear-time search share: the
 * pattern's syntax tree (regex_linear_parse.c reads it) and the automaton
 * built from it (regex_linear.c).
 *
 * No .c of its name: the interface between regex_linear_parse.c and
 * regex_linear.c.
 */
#ifndef FAULTMON_REGEX_LINEAR_INT_H
#define FAULTMON_REGEX_LINEAR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A set of bytes, one bit each. */
struct fm_rl_set {
    uint64_t bits[4];
};

static inline bool
fm_rl_set_has(const struct fm_rl_set *set, unsigned char c)
{
    return (set->bits[c >> 6] & ((uint64_t) 1 << (c & 63))) != 0;
}

static inline void
fm_rl_set_add(struct fm_rl_set *set, unsigned char c)
{
    set->bits[c >> 6] |= (uint64_t) 1 << (c & 63);
}

/* Zero-width assertions, decided from the bytes either side of a position. */
enum fm_rl_assert {
    FM_RL_LINE_START,       /* "^": start of the subject or after "\n" */
    FM_RL_LINE_END,         /* "$": end of the subject or before "\n" */
    FM_RL_BUF_START,        /* "\`" */
    FM_RL_BUF_END,          /* "\'" */
    FM_RL_WORD_START,       /* "\<" */
    FM_RL_WORD_END,         /* "\>" */
    FM_RL_WORD_EDGE,        /* "\b" */
    FM_RL_NOT_WORD_EDGE,    /* "\B" */
};

enum fm_rl_node_kind {
    FM_RL_EMPTY,            /* matches the empty string */
    FM_RL_BYTES,            /* one byte of set[a] */
    FM_RL_ASSERT,           /* enum fm_rl_assert a */
    FM_RL_CAT,              /* node a, then node b */
    FM_RL_ALT,              /* node a or node b */
    FM_RL_REPEAT,           /* node a, min to max times (max < 0: no bound) */
};

struct fm_rl_node {
    enum fm_rl_node_kind kind;
    int a;
    int b;
    int min;
    int max;
};

/* A parsed pattern: nodes and byte sets, indexed by int. */
struct fm_rl_tree {
    struct fm_rl_node *nodes;
    size_t n_nodes;
    size_t cap_nodes;
    struct fm_rl_set *sets;
    size_t n_sets;
    size_t cap_sets;
    int root;
};

/*!
 * \brief Parse \p pattern into \p tree (free it with fm_rl_tree_free()).
 * \return false when the pattern is outside what the automaton takes (see
 *         regex_linear.h) or not a valid ERE
 */
bool fm_rl_parse(const char *pattern, struct fm_rl_tree *tree);

void fm_rl_tree_free(struct fm_rl_tree *tree);

#endif /* FAULTMON_REGEX_LINEAR_INT_H */
