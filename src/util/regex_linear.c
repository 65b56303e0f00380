/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a search in linear time for the plainest receive patterns
 * (see regex_linear.h).
 *
 * The pattern is a sequence of items, each a set of bytes that may be
 * optional and may repeat; the automaton's state i means "item i is next",
 * state n "matched".  A search keeps the set of live states as bits, adds
 * the start state before every byte (a match may start anywhere) and stops
 * at the first byte that reaches the last state.
 */
#include <config.h>

#include <faultmon/regex_linear.h>

#include <string.h>

/* ERE metacharacters: literal only when escaped. */
static const char ere_meta[] = ".[]()*+?{}|^$\\";

static void
set_add(uint64_t set[2], unsigned char c)
{
    set[c >> 6] |= (uint64_t) 1 << (c & 63);
}

static bool
set_has(const uint64_t set[2], unsigned char c)
{
    return c < 128 && (set[c >> 6] & ((uint64_t) 1 << (c & 63))) != 0;
}

static bool
is_print_ascii(char c)
{
    return c >= 0x20 && c <= 0x7e;
}

/*
 * A bracket list of plain members, "[Hh]" and the like; returns the text
 * after its "]", or NULL for anything else: a negation ("[^"), a "]" or "-"
 * member (their place decides what they mean), a range, "[:", "[." or
 * "[=", a backslash (literal in POSIX lists, not in every engine), a byte
 * outside printable ASCII.
 */
static const char *
parse_list(const char *p, uint64_t set[2])
{
    p++;                            /* the '[' */
    if (*p == '^' || *p == ']') {
        return NULL;
    }
    for (; *p != ']'; p++) {
        if (!is_print_ascii(*p) || *p == '[' || *p == '-' || *p == '\\') {
            return NULL;
        }
        set_add(set, (unsigned char) *p);
    }
    return p + 1;
}

/* The byte a set holds when it holds only one (memchr() finds it), or -1. */
static int
single_byte(const uint64_t set[2])
{
    if (__builtin_popcountll(set[0]) + __builtin_popcountll(set[1]) != 1) {
        return -1;
    }
    return (set[0] != 0)? __builtin_ctzll(set[0]) : 64 + __builtin_ctzll(set[1]);
}

/* One atom at \p p into \p item; returns the text after it, or NULL. */
static const char *
parse_atom(const char *p, struct fm_regex_linear_item *item)
{
    memset(item, 0, sizeof(*item));
    if (*p == '[') {
        return parse_list(p, item->set);
    }
    if (*p == '\\') {
        /* Only an escaped metacharacter is a plain literal: glibc gives
         * "\w", "\<", "\1" and the like other meanings. */
        if (p[1] == '\0' || strchr(ere_meta, p[1]) == NULL) {
            return NULL;
        }
        set_add(item->set, (unsigned char) p[1]);
        return p + 2;
    }
    /* "]" and "}" alone are literals to glibc, but not to every reader. */
    if (!is_print_ascii(*p) || strchr(ere_meta, *p) != NULL) {
        return NULL;
    }
    set_add(item->set, (unsigned char) *p);
    return p + 1;
}

bool
fm_regex_linear_compile(const char *pattern, struct fm_regex_linear *prog)
{
    const char *p = pattern;

    memset(prog, 0, sizeof(*prog));
    while (*p != '\0') {
        struct fm_regex_linear_item *item = NULL;

        if (prog->n_items == FM_REGEX_LINEAR_MAX_ITEMS) {
            return false;
        }
        item = &prog->items[prog->n_items];
        p = parse_atom(p, item);
        if (p == NULL) {
            return false;
        }
        if (*p == '*' || *p == '+' || *p == '?') {
            item->optional = (*p != '+');
            item->repeat = (*p != '?');
            p++;
            /* Stacked operators ("a**", "a+?") are left to regcomp(). */
            if (*p == '*' || *p == '+' || *p == '?') {
                return false;
            }
        }
        prog->n_items++;
    }
    prog->first_byte = (prog->n_items > 0)? single_byte(prog->items[0].set) : -1;
    return true;
}

/* The states reached from \p live without input: past optional items.
 * Edges without input only go forward, so one ascending pass is enough. */
static uint64_t
closure(const struct fm_regex_linear *prog, uint64_t live)
{
    for (size_t i = 0; i < prog->n_items; i++) {
        if ((live & ((uint64_t) 1 << i)) != 0 && prog->items[i].optional) {
            live |= (uint64_t) 1 << (i + 1);
        }
    }
    return live;
}

/* The live states after byte \p c. */
static uint64_t
step(const struct fm_regex_linear *prog, uint64_t live, unsigned char c)
{
    uint64_t next = 0;

    for (size_t i = 0; i < prog->n_items; i++) {
        const struct fm_regex_linear_item *item = &prog->items[i];

        if ((live & ((uint64_t) 1 << i)) != 0 && set_has(item->set, c)) {
            next |= (uint64_t) 1 << (i + 1);
            if (item->repeat) {
                next |= (uint64_t) 1 << i;
            }
        }
    }
    return next;
}

bool
fm_regex_linear_search(const struct fm_regex_linear *prog, const char *data, size_t len)
{
    const unsigned char *s = (const unsigned char *) data;
    uint64_t accept = (uint64_t) 1 << prog->n_items;
    uint64_t start = closure(prog, 1);
    uint64_t live = start;
    size_t i = 0;

    if ((live & accept) != 0) {
        return true;                /* the empty string matches */
    }
    while (i < len) {
        /* Only the start state live, and the first item needed: skip to a
         * byte that can begin a match. */
        if (live == start && !prog->items[0].optional) {
            if (prog->first_byte >= 0) {
                const unsigned char *at = memchr(s + i, prog->first_byte, len - i);

                i = (at != NULL)? (size_t) (at - s) : len;
            }
            while (i < len && !set_has(prog->items[0].set, s[i])) {
                i++;
            }
            if (i == len) {
                break;
            }
        }
        live = closure(prog, step(prog, live, s[i]) | 1);
        if ((live & accept) != 0) {
            return true;
        }
        i++;
    }
    return false;
}
