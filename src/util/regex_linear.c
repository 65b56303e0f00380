/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a search in linear time for the receive patterns administrators
 * write (see regex_linear.h).
 *
 * The syntax tree (regex_linear_parse.c) becomes a Thompson automaton:
 * states that match one byte of a set, split in two, assert something of
 * the bytes either side of a position, or accept.  A search keeps the set
 * of live states (each once: a mark per state and position), adds the start
 * state at every position (a match may start anywhere) and stops at the
 * first position where the accepting state is reached.  Each byte costs at
 * most one visit per state, hence a time linear in the subject, whatever
 * the pattern, unlike glibc's backtracking through its state log.
 */
#include <config.h>

#include <faultmon/regex_linear.h>

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "regex_linear_int.h"

enum op {
    OP_BYTE,            /* one byte of sets[arg], then out */
    OP_SPLIT,           /* out and out1 */
    OP_ASSERT,          /* enum fm_rl_assert arg holds here, then out */
    OP_MATCH,
};

struct state {
    enum op op;
    int arg;
    int out;
    int out1;
};

struct fm_regex_nfa {
    struct state *states;
    size_t n_states;
    struct fm_rl_set *sets;
    int start;
    /* The bytes a match can begin with, when the start state reaches
     * neither an assertion nor acceptance without input: the search skips
     * to the next of them while nothing is live. */
    bool can_skip;
    struct fm_rl_set first;
    int first_byte;         /* the one byte in first (memchr() finds it), or -1 */
    /* A search's working memory, made with the automaton so that a search
     * cannot fail for want of it (one search at a time: the loop is one
     * thread). */
    unsigned *mark;         /* == gen: already live at this position */
    unsigned gen;
    int *live;              /* byte states live at this position */
    int *carried;           /* states reached by the byte at this position */
    int *stack;
};

/* Most nodes the build visits: a repetition of what has no state ("()",
 * "a{0}") adds none, so the state bound alone would let "((){32767}){32767}"
 * take a billion steps (seconds) to build an automaton of one state.  A
 * pattern within the state bound needs a few visits per state. */
#define FM_RL_MAX_STEPS (64 * FM_REGEX_LINEAR_MAX_STATES)

/* The automaton under construction. */
struct builder {
    const struct fm_rl_tree *tree;
    struct fm_regex_nfa *nfa;
    size_t steps;
    bool failed;
};

static int
add_state(struct builder *b, enum op op, int arg, int out, int out1)
{
    struct fm_regex_nfa *nfa = b->nfa;

    if (b->failed || nfa->n_states == FM_REGEX_LINEAR_MAX_STATES) {
        b->failed = true;
        return -1;
    }
    nfa->states[nfa->n_states] = (struct state) { .op = op, .arg = arg, .out = out, .out1 = out1 };
    return (int) nfa->n_states++;
}

/* States for \p node, followed by state \p next; the first of them (built
 * backwards, so that each knows its successor when made), or -1. */
static int
emit(struct builder *b, int node, int next)
{
    const struct fm_rl_node *n = &b->tree->nodes[node];
    int tail = next;

    if (b->failed || next < 0 || ++b->steps > FM_RL_MAX_STEPS) {
        b->failed = true;
        return -1;
    }
    switch (n->kind) {
        case FM_RL_EMPTY:
            return next;
        case FM_RL_BYTES:
            return add_state(b, OP_BYTE, n->a, next, -1);
        case FM_RL_ASSERT:
            return add_state(b, OP_ASSERT, n->a, next, -1);
        case FM_RL_CAT:
            return emit(b, n->a, emit(b, n->b, next));
        case FM_RL_ALT:
            return add_state(b, OP_SPLIT, 0, emit(b, n->a, next), emit(b, n->b, next));
        case FM_RL_REPEAT:
            break;
    }
    if (n->max < 0) {
        /* "x*" after the mandatory copies: a split back into x or on */
        int loop = add_state(b, OP_SPLIT, 0, -1, next);
        int body = emit(b, n->a, loop);

        if (body < 0) {
            return -1;
        }
        b->nfa->states[loop].out = body;
        tail = loop;
    } else {
        /* "x{0,k}" as (x(x(...)?)?)? */
        for (int i = 0; i < n->max - n->min && tail >= 0; i++) {
            tail = add_state(b, OP_SPLIT, 0, emit(b, n->a, tail), next);
        }
    }
    for (int i = 0; i < n->min && tail >= 0; i++) {
        tail = emit(b, n->a, tail);
    }
    return tail;
}

/* What the search may skip: see struct fm_regex_nfa. */
static void
find_first(struct fm_regex_nfa *nfa)
{
    int *stack = malloc(2 * (nfa->n_states + 1) * sizeof(*stack));
    bool *seen = calloc(nfa->n_states, sizeof(*seen));
    size_t top = 0;

    nfa->can_skip = (stack != NULL && seen != NULL);
    if (nfa->can_skip) {
        stack[top++] = nfa->start;
    }
    while (nfa->can_skip && top > 0) {
        int s = stack[--top];
        const struct state *st = &nfa->states[s];

        if (seen[s]) {
            continue;
        }
        seen[s] = true;
        if (st->op == OP_BYTE) {
            for (size_t i = 0; i < 4; i++) {
                nfa->first.bits[i] |= nfa->sets[st->arg].bits[i];
            }
        } else if (st->op == OP_SPLIT) {
            stack[top++] = st->out;
            stack[top++] = st->out1;
        } else {
            nfa->can_skip = false;
        }
    }
    free(stack);
    free(seen);
    nfa->first_byte = -1;
    if (__builtin_popcountll(nfa->first.bits[0]) + __builtin_popcountll(nfa->first.bits[1])
        + __builtin_popcountll(nfa->first.bits[2]) + __builtin_popcountll(nfa->first.bits[3]) == 1) {
        for (int c = 0; c < 256; c++) {
            if (fm_rl_set_has(&nfa->first, (unsigned char) c)) {
                nfa->first_byte = c;
            }
        }
    }
}

/* Whether the process reads patterns as the C locale does: the one faultmon
 * runs in, and the one whose ranges, classes and "." the parser assumes. */
static bool
locale_is_c(void)
{
    static const int categories[] = { LC_CTYPE, LC_COLLATE };

    for (size_t i = 0; i < sizeof(categories) / sizeof(categories[0]); i++) {
        const char *name = setlocale(categories[i], NULL);

        if (name == NULL || (strcmp(name, "C") != 0 && strcmp(name, "POSIX") != 0)) {
            return false;
        }
    }
    return true;
}

bool
fm_regex_linear_compile(const char *pattern, struct fm_regex_linear *prog)
{
    struct fm_rl_tree tree;
    struct fm_regex_nfa *nfa = NULL;
    struct builder b = { .tree = &tree };
    int match = -1;

    prog->nfa = NULL;
    if (!locale_is_c() || !fm_rl_parse(pattern, &tree)) {
        return false;
    }
    nfa = calloc(1, sizeof(*nfa));
    if (nfa != NULL) {
        nfa->states = malloc(FM_REGEX_LINEAR_MAX_STATES * sizeof(*nfa->states));
    }
    if (nfa == NULL || nfa->states == NULL) {
        free(nfa);
        fm_rl_tree_free(&tree);
        return false;
    }
    b.nfa = nfa;
    match = add_state(&b, OP_MATCH, 0, -1, -1);
    nfa->start = emit(&b, tree.root, match);
    /* The sets move to the automaton; the tree's nodes are no longer needed. */
    nfa->sets = tree.sets;
    tree.sets = NULL;
    fm_rl_tree_free(&tree);
    prog->nfa = nfa;
    if (b.failed || nfa->start < 0) {
        fm_regex_linear_free(prog);
        return false;
    }
    /* Keep only the states used (a few hundred bytes for the usual pattern). */
    nfa->states = realloc(nfa->states, nfa->n_states * sizeof(*nfa->states)) ?: nfa->states;
    nfa->mark = calloc(nfa->n_states, sizeof(*nfa->mark));
    nfa->live = malloc(nfa->n_states * sizeof(*nfa->live));
    nfa->carried = malloc(nfa->n_states * sizeof(*nfa->carried));
    nfa->stack = malloc((2 * nfa->n_states + 2) * sizeof(*nfa->stack));
    if (nfa->mark == NULL || nfa->live == NULL || nfa->carried == NULL || nfa->stack == NULL) {
        fm_regex_linear_free(prog);
        return false;
    }
    find_first(nfa);
    return true;
}

void
fm_regex_linear_free(struct fm_regex_linear *prog)
{
    if (prog->nfa != NULL) {
        free(prog->nfa->states);
        free(prog->nfa->sets);
        free(prog->nfa->mark);
        free(prog->nfa->live);
        free(prog->nfa->carried);
        free(prog->nfa->stack);
        free(prog->nfa);
        prog->nfa = NULL;
    }
}

/* One search: the automaton (its working memory) and the subject. */
struct search {
    struct fm_regex_nfa *nfa;
    const unsigned char *s;
    size_t len;
    size_t n_live;
};

static bool
is_word(int c)
{
    return c >= 0 && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                      || c == '_');
}

/* Whether \p what holds at position \p i (glibc's contexts, REG_NEWLINE:
 * the subject's ends count as line ends). */
static bool
holds(const struct search *sr, int what, size_t i)
{
    int prev = (i > 0)? sr->s[i - 1] : -1;
    int next = (i < sr->len)? sr->s[i] : -1;

    switch (what) {
        case FM_RL_LINE_START:
            return prev < 0 || prev == '\n';
        case FM_RL_LINE_END:
            return next < 0 || next == '\n';
        case FM_RL_BUF_START:
            return prev < 0;
        case FM_RL_BUF_END:
            return next < 0;
        case FM_RL_WORD_START:
            return !is_word(prev) && is_word(next);
        case FM_RL_WORD_END:
            return is_word(prev) && !is_word(next);
        case FM_RL_WORD_EDGE:
            return is_word(prev) != is_word(next);
        default:
            return is_word(prev) == is_word(next);
    }
}

/* Make state \p s live at position \p i, and all it reaches without input;
 * true when that accepts. */
static bool
add_live(struct search *sr, int s, size_t i)
{
    size_t top = 0;
    bool accepted = false;

    sr->nfa->stack[top++] = s;
    while (top > 0) {
        const struct state *st = NULL;

        s = sr->nfa->stack[--top];
        if (sr->nfa->mark[s] == sr->nfa->gen) {
            continue;
        }
        sr->nfa->mark[s] = sr->nfa->gen;
        st = &sr->nfa->states[s];
        switch (st->op) {
            case OP_BYTE:
                sr->nfa->live[sr->n_live++] = s;
                break;
            case OP_SPLIT:
                sr->nfa->stack[top++] = st->out1;
                sr->nfa->stack[top++] = st->out;
                break;
            case OP_ASSERT:
                if (holds(sr, st->arg, i)) {
                    sr->nfa->stack[top++] = st->out;
                }
                break;
            case OP_MATCH:
                accepted = true;
                break;
        }
    }
    return accepted;
}

/* The next position from \p i where a match can begin, while nothing is
 * live. */
static size_t
skip(const struct search *sr, size_t i)
{
    if (sr->nfa->first_byte >= 0 && i < sr->len) {
        const unsigned char *at = memchr(sr->s + i, sr->nfa->first_byte, sr->len - i);

        return (at != NULL)? (size_t) (at - sr->s) : sr->len;
    }
    while (i < sr->len && !fm_rl_set_has(&sr->nfa->first, sr->s[i])) {
        i++;
    }
    return i;
}

static bool
run(struct search *sr)
{
    int *carried = sr->nfa->carried;
    size_t n_carried = 0;

    for (size_t i = 0; i <= sr->len; i++) {
        bool accepted = false;

        if (n_carried == 0 && sr->nfa->can_skip) {
            i = skip(sr, i);
            if (i == sr->len) {
                return false;
            }
        }
        if (++sr->nfa->gen == 0) {
            memset(sr->nfa->mark, 0, sr->nfa->n_states * sizeof(*sr->nfa->mark));
            sr->nfa->gen = 1;
        }
        sr->n_live = 0;
        for (size_t k = 0; k < n_carried; k++) {
            accepted = add_live(sr, carried[k], i) || accepted;
        }
        accepted = add_live(sr, sr->nfa->start, i) || accepted;
        if (accepted) {
            return true;
        }
        if (i == sr->len) {
            break;
        }
        n_carried = 0;
        for (size_t k = 0; k < sr->n_live; k++) {
            const struct state *st = &sr->nfa->states[sr->nfa->live[k]];

            if (fm_rl_set_has(&sr->nfa->sets[st->arg], sr->s[i])) {
                carried[n_carried++] = st->out;
            }
        }
    }
    return false;
}

bool
fm_regex_linear_search(const struct fm_regex_linear *prog, const char *data, size_t len)
{
    struct search sr = { .nfa = prog->nfa, .s = (const unsigned char *) data, .len = len };

    return run(&sr);
}
