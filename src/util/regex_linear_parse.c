/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: read a POSIX extended regex into the syntax tree the linear-time
 * search builds its automaton from (regex_linear_int.h).
 *
 * A recursive-descent reading of ERE as glibc's regcomp() reads it with
 * REG_EXTENDED | REG_NEWLINE in the C locale.  Where glibc gives a construct
 * a meaning this reader does not reproduce, or rejects the pattern, the
 * reader declines (returns false) and the pattern stays with regexec(): a
 * decline costs a child process, a wrong reading a false answer.  Nesting is
 * bounded by the guard (FM_REGEX_MAX_GROUP_DEPTH) that every pattern passes
 * first, and again here.
 */
#include <config.h>

#include "regex_linear_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Deepest nesting of groups read (the guard's bound is lower). */
#define FM_RL_MAX_DEPTH 64

/* glibc's RE_DUP_MAX: a larger bound is an error to regcomp(). */
#define FM_RL_DUP_MAX 0x7fff

struct reader {
    const char *p;
    struct fm_rl_tree *tree;
};

static int
new_node(struct reader *r, enum fm_rl_node_kind kind, int a, int b)
{
    struct fm_rl_tree *t = r->tree;

    if (t->n_nodes == t->cap_nodes) {
        size_t cap = (t->cap_nodes == 0)? 32 : 2 * t->cap_nodes;
        struct fm_rl_node *nodes = realloc(t->nodes, cap * sizeof(*nodes));

        if (nodes == NULL) {
            return -1;
        }
        t->nodes = nodes;
        t->cap_nodes = cap;
    }
    t->nodes[t->n_nodes] = (struct fm_rl_node) { .kind = kind, .a = a, .b = b };
    return (int) t->n_nodes++;
}

/* A new empty byte set; its index, or -1. */
static int
new_set(struct reader *r)
{
    struct fm_rl_tree *t = r->tree;

    if (t->n_sets == t->cap_sets) {
        size_t cap = (t->cap_sets == 0)? 8 : 2 * t->cap_sets;
        struct fm_rl_set *sets = realloc(t->sets, cap * sizeof(*sets));

        if (sets == NULL) {
            return -1;
        }
        t->sets = sets;
        t->cap_sets = cap;
    }
    memset(&t->sets[t->n_sets], 0, sizeof(t->sets[0]));
    return (int) t->n_sets++;
}

/* A node matching one byte of a set filled by the caller; the node, or -1. */
static int
new_bytes(struct reader *r, struct fm_rl_set **set)
{
    int s = new_set(r);

    if (s < 0) {
        return -1;
    }
    *set = &r->tree->sets[s];
    return new_node(r, FM_RL_BYTES, s, 0);
}

/* glibc's word characters: alphanumerics and "_" (C locale: ASCII). */
static bool
is_word_byte(int c)
{
    return isalnum(c) || c == '_';
}

/* Every byte but those in \p set, and but the newline when \p newline is
 * false: REG_NEWLINE keeps it out of a negated list, as it does of ".", but
 * glibc's "\W" matches it. */
static void
negate(struct fm_rl_set *set, bool newline)
{
    for (size_t i = 0; i < 4; i++) {
        set->bits[i] = ~set->bits[i];
    }
    if (!newline) {
        set->bits['\n' >> 6] &= ~((uint64_t) 1 << ('\n' & 63));
    }
}

/* Whether \p c may stand for itself in a pattern: printable ASCII or a tab
 * (other control bytes are declined); bytes beyond ASCII: is_high_byte(). */
static bool
is_plain_byte(char c)
{
    return (c >= 0x20 && c <= 0x7e) || c == '\t';
}

/* A byte past ASCII: one character of its own in the C locale, to
 * regcomp() as here, ordered by its value in a range ("caf\xc3\xa9", UTF-8
 * "café", is five characters; "[\x80-\xff]" every such byte). */
static bool
is_high_byte(char c)
{
    return (unsigned char) c >= 0x80;
}

/* "[:name:]" at \p p into \p set; the text after it, or NULL. */
static const char *
read_class(const char *p, struct fm_rl_set *set)
{
    static const struct {
        const char *name;
        int (*is)(int);
    } classes[] = {
        { "alpha", isalpha }, { "upper", isupper }, { "lower", islower }, { "digit", isdigit },
        { "xdigit", isxdigit }, { "space", isspace }, { "print", isprint }, { "punct", ispunct },
        { "alnum", isalnum }, { "cntrl", iscntrl }, { "graph", isgraph }, { "blank", isblank },
    };
    const char *end = strstr(p + 2, ":]");
    size_t len = 0;

    if (end == NULL) {
        return NULL;
    }
    len = (size_t) (end - (p + 2));
    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
        if (strlen(classes[i].name) == len && memcmp(classes[i].name, p + 2, len) == 0) {
            for (int c = 0; c < 256; c++) {
                if (classes[i].is(c)) {
                    fm_rl_set_add(set, (unsigned char) c);
                }
            }
            return end + 2;
        }
    }
    return NULL;
}

/* One member of a bracket list at \p p ("x", "x-y", "[:name:]"); the text
 * after it, or NULL to decline. */
static const char *
read_member(const char *p, bool first, struct fm_rl_set *set)
{
    char lo = *p;
    char hi = 0;

    if (p[0] == '[' && p[1] == ':') {
        p = read_class(p, set);
        /* A class cannot begin a range: an error to regcomp(). */
        return (p == NULL || (p[0] == '-' && p[1] != ']'))? NULL : p;
    }
    /* A collating element or an equivalence class: in the C locale each
     * names one byte (regcomp() refuses a longer name), and stands for that
     * byte.  As a range's endpoint, left to regexec(). */
    if (p[0] == '[' && (p[1] == '.' || p[1] == '=')) {
        if (p[2] != '\0' && p[3] == p[1] && p[4] == ']' && !(p[5] == '-' && p[6] != ']')) {
            fm_rl_set_add(set, (unsigned char) p[2]);
            return p + 5;
        }
        return NULL;
    }
    /* "-" stands for itself only first or last (or as a range's end). */
    if ((!is_plain_byte(lo) && !is_high_byte(lo)) || (lo == '-' && !first && p[1] != ']')) {
        return NULL;
    }
    p++;
    if (p[0] != '-' || p[1] == ']' || p[1] == '\0') {
        fm_rl_set_add(set, (unsigned char) lo);
        return p;
    }
    hi = p[1];
    if ((!is_plain_byte(hi) && !is_high_byte(hi)) || (hi == '[' && strchr(".=:", p[2]) != NULL)
        || (unsigned char) hi < (unsigned char) lo) {
        return NULL;
    }
    for (int c = (unsigned char) lo; c <= (unsigned char) hi; c++) {
        fm_rl_set_add(set, (unsigned char) c);
    }
    return p + 2;
}

/* A bracket expression at r->p ("[" ... "]"); its node, or -1. */
static int
read_bracket(struct reader *r)
{
    struct fm_rl_set *set = NULL;
    int node = new_bytes(r, &set);
    const char *p = r->p + 1;
    bool negated = false;
    bool first = true;

    if (node < 0) {
        return -1;
    }
    if (*p == '^') {
        negated = true;
        p++;
    }
    /* A "]" first is a member; any later one closes the list. */
    while (first || *p != ']') {
        if (*p == '\0') {
            return -1;
        }
        p = read_member(p, first, set);
        if (p == NULL) {
            return -1;
        }
        first = false;
    }
    if (negated) {
        negate(set, false);
    }
    r->p = p + 1;
    return node;
}

/* A backslash sequence at r->p; its node, or -1. */
static int
read_escape(struct reader *r)
{
    static const char asserts[] = "`'<>bB";     /* enum fm_rl_assert's order */
    char c = r->p[1];
    struct fm_rl_set *set = NULL;
    const char *at = NULL;
    int node = -1;

    /* Back-references, and the end of the pattern: an error. */
    if (!is_plain_byte(c) || (c >= '1' && c <= '9')) {
        return -1;
    }
    r->p += 2;
    at = strchr(asserts, c);
    if (at != NULL) {
        return new_node(r, FM_RL_ASSERT, FM_RL_BUF_START + (int) (at - asserts), 0);
    }
    node = new_bytes(r, &set);
    if (node < 0) {
        return -1;
    }
    if (c == 'w' || c == 'W' || c == 's' || c == 'S') {
        for (int b = 0; b < 256; b++) {
            if ((c == 'w' || c == 'W')? is_word_byte(b) : isspace(b)) {
                fm_rl_set_add(set, (unsigned char) b);
            }
        }
        if (c == 'W' || c == 'S') {
            negate(set, true);
        }
    } else {
        /* Any other escaped byte stands for itself to glibc ("\." "\n"
         * "\{" alike). */
        fm_rl_set_add(set, (unsigned char) c);
    }
    return node;
}

static int read_alt(struct reader *r, unsigned depth);

/* One atom; its node, or -1.  *is_assert says it cannot be repeated. */
static int
read_atom(struct reader *r, unsigned depth, bool *is_assert)
{
    struct fm_rl_set *set = NULL;
    char c = *r->p;
    int node = -1;

    *is_assert = false;
    switch (c) {
        case '(':
            r->p++;
            node = read_alt(r, depth + 1);
            if (node < 0 || *r->p != ')') {
                return -1;
            }
            r->p++;
            return node;
        case '[':
            return read_bracket(r);
        case '\\':
            node = read_escape(r);
            *is_assert = (node >= 0 && r->tree->nodes[node].kind == FM_RL_ASSERT);
            return node;
        case '^':
        case '$':
            r->p++;
            *is_assert = true;
            return new_node(r, FM_RL_ASSERT, (c == '^')? FM_RL_LINE_START : FM_RL_LINE_END, 0);
        case '.':
            r->p++;
            node = new_bytes(r, &set);
            if (node >= 0) {
                /* Not the newline (REG_NEWLINE), not NUL (glibc's
                 * RE_DOT_NOT_NULL). */
                memset(set->bits, 0xff, sizeof(set->bits));
                set->bits[0] &= ~(((uint64_t) 1 << '\n') | 1);
            }
            return node;
        case '*':
        case '+':
        case '?':
        case '{':
        case ')':           /* unmatched: a literal to glibc, declined here */
            return -1;
        default:
            if (!is_plain_byte(c) && !is_high_byte(c)) {
                return -1;
            }
            r->p++;
            node = new_bytes(r, &set);
            if (node >= 0) {
                fm_rl_set_add(set, (unsigned char) c);
            }
            return node;
    }
}

/* A number of up to 5 digits, or -1 when there is none. */
static int
read_number(struct reader *r)
{
    int n = -1;

    while (isdigit((unsigned char) *r->p)) {
        n = ((n < 0)? 0 : n * 10) + (*r->p - '0');
        if (n > FM_RL_DUP_MAX) {
            return -2;
        }
        r->p++;
    }
    return n;
}

/* "{m}", "{m,}", "{m,n}", "{,n}" at r->p; false to decline. */
static bool
read_bound(struct reader *r, int *min, int *max)
{
    r->p++;
    *min = read_number(r);
    *max = *min;
    if (*r->p == ',') {
        r->p++;
        *max = read_number(r);
        if (*min == -1 && *max == -1) {
            *min = 0;                       /* "{,}" is "{0,}" to glibc */
        }
    } else if (*min == -1) {
        return false;
    }
    if (*min == -1) {
        *min = 0;
    }
    return *r->p++ == '}' && *min >= 0 && *max >= -1 && (*max == -1 || *max >= *min);
}

/* Whether \p node or a node under it is an assertion. */
static bool
has_assert(const struct fm_rl_tree *t, int node)
{
    const struct fm_rl_node *n = &t->nodes[node];

    switch (n->kind) {
        case FM_RL_ASSERT:
            return true;
        case FM_RL_CAT:
        case FM_RL_ALT:
            return has_assert(t, n->a) || has_assert(t, n->b);
        case FM_RL_REPEAT:
            return has_assert(t, n->a);
        default:
            return false;
    }
}

/* An atom and the repetition operators after it; its node, or -1. */
static int
read_piece(struct reader *r, unsigned depth)
{
    bool is_assert = false;
    int node = read_atom(r, depth, &is_assert);

    while (node >= 0 && strchr("*+?{", *r->p) != NULL && *r->p != '\0') {
        int min = (*r->p == '+')? 1 : 0;
        int max = (*r->p == '?')? 1 : -1;

        /* An anchor cannot repeat: "^*" is an error to regcomp(). */
        if (is_assert) {
            return -1;
        }
        if (*r->p == '{') {
            if (!read_bound(r, &min, &max)) {
                return -1;
            }
        } else {
            r->p++;
        }
        /* An anchor inside a repeated group: glibc answers some of these
         * wrongly ("(a|a$b)+$" matches "aab" to regexec(), which no reading
         * of POSIX allows: fuzz_regex found it), and a different answer
         * would be a verdict that changes with the path; such rare
         * patterns are left to regexec(), to keep one answer. */
        if (has_assert(r->tree, node)) {
            return -1;
        }
        node = new_node(r, FM_RL_REPEAT, node, 0);
        if (node >= 0) {
            r->tree->nodes[node].min = min;
            r->tree->nodes[node].max = max;
        }
    }
    return node;
}

/* Alternatives separated by "|", each a sequence of pieces (maybe none). */
static int
read_alt(struct reader *r, unsigned depth)
{
    int alt = -1;

    if (depth > FM_RL_MAX_DEPTH) {
        return -1;
    }
    for (;;) {
        int branch = new_node(r, FM_RL_EMPTY, 0, 0);

        while (branch >= 0 && *r->p != '\0' && *r->p != '|' && !(*r->p == ')' && depth > 0)) {
            int piece = read_piece(r, depth);

            branch = (piece < 0)? -1 : new_node(r, FM_RL_CAT, branch, piece);
        }
        if (branch < 0) {
            return -1;
        }
        alt = (alt < 0)? branch : new_node(r, FM_RL_ALT, alt, branch);
        if (alt < 0 || *r->p != '|') {
            return alt;
        }
        r->p++;
    }
}

bool
fm_rl_parse(const char *pattern, struct fm_rl_tree *tree)
{
    struct reader r = { .p = pattern, .tree = tree };

    memset(tree, 0, sizeof(*tree));
    tree->root = read_alt(&r, 0);
    if (tree->root < 0 || *r.p != '\0') {
        fm_rl_tree_free(tree);
        return false;
    }
    return true;
}

void
fm_rl_tree_free(struct fm_rl_tree *tree)
{
    free(tree->nodes);
    free(tree->sets);
    memset(tree, 0, sizeof(*tree));
    tree->root = -1;
}
