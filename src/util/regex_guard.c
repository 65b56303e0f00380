/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: refuse regular expressions that would exhaust regcomp().
 *
 * A small recursive-descent reading of POSIX ERE that estimates how many
 * nodes glibc builds: an atom is one node; "x*" and "x?" add one; "x+" is
 * compiled as "xx*", so it doubles its operand; "x{m,n}" makes n copies.
 * Nodes that may be skipped (under "?", "*", the copies beyond m of
 * "{m,n}", and all of what can match nothing, like "()" or "^") are
 * counted apart as well: glibc keeps for
 * each the set of nodes it can reach without input, which grows with their
 * square ("a{0,16000}" takes 2 GB and seconds with its 16000 nodes).  And
 * so are loops over what can match nothing ("()*", "(a*)+"): with an anchor
 * their cost doubles with each copy ("^$()*{20}" takes 12 s).  And so are
 * choices between two ways of matching nothing ("()?", "(a*|)", "(^|$)",
 * "(){0,n}"): after an anchor, glibc copies the nodes behind each such
 * choice once per way through it, so their cost grows with about the cube
 * of their number ("^()?{80}" takes 50 MB, "^(()|()){80}" 200 MB).
 * Estimates saturate just above the limit, so no arithmetic overflows.
 */
#include <config.h>

#include <faultmon/regex_guard.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct guard {
    const char *p;
    const char *why;        /* set on refusal */
    char detail[96];
};

/* Size and how deeply repetitions nest within one sub-expression. */
struct cost {
    size_t nodes;
    size_t optional;        /* of them, the nodes that may be skipped */
    size_t empty_loops;     /* "*", "+" or "{m,}" on what can match nothing */
    size_t empty_choices;   /* choices between two ways of matching nothing */
    bool nullable;          /* can match the empty string */
    unsigned repeat_depth;
};

static size_t
sat_add(size_t a, size_t b)
{
    return (a + b > FM_REGEX_MAX_NODES)? FM_REGEX_MAX_NODES + 1 : a + b;
}

static size_t
sat_mul(size_t a, size_t b)
{
    if (a != 0 && b > (FM_REGEX_MAX_NODES + 1) / a) {
        return FM_REGEX_MAX_NODES + 1;
    }
    return sat_add(a * b, 0);
}

static bool
refuse(struct guard *g, const char *why, const char *fmt, ...)
{
    va_list ap;

    g->why = why;
    va_start(ap, fmt);
    vsnprintf(g->detail, sizeof(g->detail), fmt, ap);
    va_end(ap);
    return false;
}

/* A bracket expression: "[", then "^" and "]" as the first member, then up
 * to the closing "]", where "[:name:]", "[=c=]" and "[.c.]" are members. */
static void
skip_bracket(struct guard *g)
{
    const char *p = g->p + 1;

    if (*p == '^') {
        p++;
    }
    if (*p == ']') {
        p++;
    }
    while (*p != '\0' && *p != ']') {
        if (p[0] == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
            char close[3] = { p[1], ']', '\0' };
            const char *end = strstr(p + 2, close);

            if (end == NULL) {
                break;
            }
            p = end + 2;
        } else {
            p++;
        }
    }
    /* Unterminated: regcomp() rejects it. */
    g->p = (*p == ']')? p + 1 : p;
}

/* "{m}", "{m,}", "{m,n}" or "{,n}": the number of copies it makes, or false
 * when it is no bound (then regcomp() decides). */
/* A digit of a bound, which glibc also takes escaped ("{1\\000}" is
 * "{1000}" to it); -1 when there is none. */
static int
bound_digit(const char **p)
{
    const char *q = (**p == '\\')? *p + 1 : *p;

    if (!isdigit((unsigned char) *q)) {
        return -1;
    }
    *p = q + 1;
    return *q - '0';
}

static bool
read_bound(struct guard *g, size_t *copies, size_t *optional_copies, bool *open_ended)
{
    const char *p = g->p + 1;
    size_t min = 0;
    size_t max = 0;
    bool have_min = false;
    bool have_max = false;
    bool comma = false;

    for (int digit = bound_digit(&p); digit >= 0; digit = bound_digit(&p)) {
        min = (min > 100000)? min : min * 10 + (size_t) digit;
        have_min = true;
    }
    *open_ended = false;
    if (*p == ',' || (p[0] == '\\' && p[1] == ',')) {
        comma = true;
        p += (*p == ',')? 1 : 2;
        for (int digit = bound_digit(&p); digit >= 0; digit = bound_digit(&p)) {
            max = (max > 100000)? max : max * 10 + (size_t) digit;
            have_max = true;
        }
        *open_ended = !have_max;
    } else {
        max = min;
        have_max = have_min;
    }
    /* "{,}" is "{0,}" to glibc (fuzz_regex: ",*{,}{1000}" ran for minutes
     * while this guard took it for no bound at all). */
    if (*p != '}' || (!have_min && !have_max && !comma)) {
        return false;
    }
    g->p = p + 1;
    *copies = *open_ended? min + 1 : max;
    *optional_copies = *open_ended? 1 : (max > min)? max - min : 0;
    /* "x{0}" matches the empty string, like "x?" (fuzz_regex:
     * "(a{0}|aa)+{400}" took regcomp() over a second while this guard took
     * the group for one that cannot match nothing). */
    if (*copies == 0) {
        *copies = 1;
        *optional_copies = 1;
    }
    return true;
}

static bool parse_alt(struct guard *g, unsigned depth, struct cost *out);

static bool
check_cost(struct guard *g, const struct cost *c)
{
    if (c->optional > FM_REGEX_MAX_OPTIONAL_NODES) {
        return refuse(g, "too large once expanded", "its repetitions expand to more than %d "
                      "optional nodes", FM_REGEX_MAX_OPTIONAL_NODES);
    }
    if (c->empty_loops > FM_REGEX_MAX_EMPTY_LOOPS) {
        return refuse(g, "too many loops over nothing", "more than %d repetitions of what can "
                      "match the empty string", FM_REGEX_MAX_EMPTY_LOOPS);
    }
    if (c->empty_choices > FM_REGEX_MAX_EMPTY_CHOICES) {
        return refuse(g, "too many ways to match nothing", "more than %d choices between "
                      "alternatives that can all match the empty string", FM_REGEX_MAX_EMPTY_CHOICES);
    }
    return true;
}

static bool
parse_atom(struct guard *g, unsigned depth, struct cost *out)
{
    *out = (struct cost) { .nodes = 1 };
    switch (*g->p) {
        case '(':
            if (depth + 1 > FM_REGEX_MAX_GROUP_DEPTH) {
                return refuse(g, "groups nested too deeply", "more than %d levels of parentheses",
                              FM_REGEX_MAX_GROUP_DEPTH);
            }
            g->p++;
            if (!parse_alt(g, depth + 1, out)) {
                return false;
            }
            if (*g->p == ')') {
                g->p++;
            }
            out->nodes = sat_add(out->nodes, 1);
            return true;
        case '[':
            skip_bracket(g);
            return true;
        case '^':
        case '$':
            out->nullable = true;
            g->p++;
            return true;
        case '\\':
            out->nullable = (g->p[1] != '\0' && strchr("bB<>`'", g->p[1]) != NULL);
            if (g->p[1] >= '1' && g->p[1] <= '9') {
                return refuse(g, "back-reference", "\\%c is a back-reference, which is not POSIX "
                              "extended syntax and can take exponential time to match", g->p[1]);
            }
            g->p += (g->p[1] != '\0')? 2 : 1;
            return true;
        default:
            g->p++;
            return true;
    }
}

/* An atom and the repetition operators that follow it. */
static bool
parse_piece(struct guard *g, unsigned depth, struct cost *out)
{
    unsigned ops = 0;

    if (!parse_atom(g, depth, out)) {
        return false;
    }
    for (;;) {
        size_t copies = 0;
        size_t optional_copies = 0;
        bool open_ended = false;
        char op = *g->p;

        if (op == '*' || op == '?') {
            g->p++;
            out->nodes = sat_add(out->nodes, 1);
            out->optional = out->nodes;
            out->empty_loops = sat_add(out->empty_loops, (op == '*' && out->nullable)? 1 : 0);
            /* "x?" over what can match nothing: skip x, or match it empty */
            out->empty_choices = sat_add(out->empty_choices, (op == '?' && out->nullable)? 1 : 0);
            out->nullable = true;
        } else if (op == '+') {
            g->p++;
            out->nodes = sat_add(sat_mul(out->nodes, 2), 1);
            out->empty_loops = sat_add(sat_mul(out->empty_loops, 2), out->nullable? 1 : 0);
            out->empty_choices = sat_mul(out->empty_choices, 2);
        } else if (op == '{' && read_bound(g, &copies, &optional_copies, &open_ended)) {
            out->optional = sat_add(sat_mul(out->optional, copies), sat_mul(out->nodes, optional_copies));
            out->nodes = sat_add(sat_mul(out->nodes, copies), open_ended? 1 : 0);
            out->empty_loops = sat_add(sat_mul(out->empty_loops, copies),
                                       (open_ended && out->nullable)? 1 : 0);
            out->empty_choices = sat_add(sat_mul(out->empty_choices, copies),
                                         out->nullable? optional_copies : 0);
            out->nullable = out->nullable || copies == optional_copies;     /* {0,n} */
        } else {
            break;
        }
        if (++ops > FM_REGEX_MAX_STACKED_OPS) {
            return refuse(g, "stacked repetition operators", "more than %d repetition operators in a row",
                          FM_REGEX_MAX_STACKED_OPS);
        }
        if (ops == 1) {
            out->repeat_depth++;
            if (out->repeat_depth > FM_REGEX_MAX_REPEAT_DEPTH) {
                return refuse(g, "repetitions nested too deeply",
                              "repeated groups nested more than %d deep", FM_REGEX_MAX_REPEAT_DEPTH);
            }
        }
    }
    /* What can match nothing can be passed without input, whether or not an
     * operator makes it optional: its nodes are epsilon nodes to glibc, and
     * a run of them costs the square of its length as much as skippable
     * nodes do ("(){3331}" took 178 MB). */
    if (out->nullable && out->optional < out->nodes) {
        out->optional = out->nodes;
    }
    if (out->nodes > FM_REGEX_MAX_NODES) {
        return refuse(g, "too large once expanded", "its repetitions expand to more than %d nodes",
                      FM_REGEX_MAX_NODES);
    }
    return check_cost(g, out);
}

static bool
parse_alt(struct guard *g, unsigned depth, struct cost *out)
{
    bool branch_nullable = true;
    size_t nullable_branches = 0;

    *out = (struct cost) { .nodes = 0 };
    while (*g->p != '\0' && !(*g->p == ')' && depth > 0)) {
        struct cost piece;

        if (*g->p == '|') {
            g->p++;
            out->nodes = sat_add(out->nodes, 1);
            out->nullable = out->nullable || branch_nullable;
            nullable_branches += branch_nullable? 1 : 0;
            branch_nullable = true;
            continue;
        }
        /* An unmatched ")" at the top level is an atom to glibc, which
         * repeats it like any other: ")" then "{0,16665}" takes 2 GB. */
        if (!parse_piece(g, depth, &piece)) {
            return false;
        }
        out->nodes = sat_add(out->nodes, piece.nodes);
        out->optional = sat_add(out->optional, piece.optional);
        out->empty_loops = sat_add(out->empty_loops, piece.empty_loops);
        out->empty_choices = sat_add(out->empty_choices, piece.empty_choices);
        branch_nullable = branch_nullable && piece.nullable;
        if (piece.repeat_depth > out->repeat_depth) {
            out->repeat_depth = piece.repeat_depth;
        }
        if (out->nodes > FM_REGEX_MAX_NODES) {
            return refuse(g, "too large once expanded", "its repetitions expand to more than %d nodes",
                          FM_REGEX_MAX_NODES);
        }
        if (!check_cost(g, out)) {
            return false;
        }
    }
    out->nullable = out->nullable || branch_nullable;
    nullable_branches += branch_nullable? 1 : 0;
    /* "(()|a*|)": every nullable branch beyond the first is one more way to
     * match nothing */
    if (nullable_branches > 1) {
        out->empty_choices = sat_add(out->empty_choices, nullable_branches - 1);
    }
    return check_cost(g, out);
}

int
fm_regex_check(const char *regex, char *err, size_t err_len)
{
    struct guard g;
    struct cost total;
    size_t len = strnlen(regex, FM_REGEX_MAX_BYTES + 1);

    memset(&g, 0, sizeof(g));
    g.p = regex;
    if (len > FM_REGEX_MAX_BYTES) {
        refuse(&g, "too long", "longer than %d bytes", FM_REGEX_MAX_BYTES);
    } else {
        parse_alt(&g, 0, &total);
    }
    if (g.why == NULL) {
        return 0;
    }
    if (err != NULL && err_len > 0) {
        snprintf(err, err_len, "pattern refused (%s): %s", g.why, g.detail);
    }
    return EINVAL;
}
