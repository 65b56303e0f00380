/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: this node's corosync links, from `corosync-cfgtool -s`
 * (faultmon/corosync_links.h).
 *
 * Why this rule (observer_corosync).  corosync's view is one snapshot,
 * taken on a failed cycle only, and it cannot tell a crashed peer from a
 * lost link: both print "disconnected".  What it can tell is a fault that
 * every peer shows at once.  Every peer disconnected on every link while
 * peers are configured is this node cut off (its NIC, its cable, its
 * switch port, a firewall on it): its probes of remote targets are likely
 * to fail for its sake.  One link down to every peer while a peer is
 * connected on another is this node's own link down (the peers are
 * alive, and they did not all lose that link together); a flapping link
 * is caught so whenever the snapshot finds it down (knet's own flapping
 * counters are not printed by the tool).  A link down for some peers
 * while others are connected on it proves nothing against this node: it
 * is what one crashed peer looks like, so it is not evidence.  Nor is a
 * single peer: with two nodes, "my only peer is disconnected" is also the
 * peer's crash, which must never hold this node's recovery.
 */
#include <config.h>

#include <faultmon/corosync_links.h>

#include <stdio.h>
#include <string.h>

/* The longest line understood, and the most words on one. */
#define LINE_MAX_BYTES 256
#define WORDS_MAX 8

enum where { AT_HEAD, AT_LINKS, IN_LINK, IN_STATUS };

struct parse {
    struct fm_corosync_links *links;
    enum where where;
    unsigned listed;                    /* nodes listed on the current link */
    unsigned locals;                    /* its "localhost" entries */
    bool seen[FM_COROSYNC_NODES_MAX];   /* which of the first link's it listed */
    char *why;
    size_t why_len;
};

static int
refuse(struct parse *p, const char *what, unsigned line_no)
{
    snprintf(p->why, p->why_len, "%s (line %u)", what, line_no);
    return -1;
}

/* Split \p line (copied into \p buf) at blanks. \return the words, or -1
 * when the line is too long or has too many. */
static int
split_words(const char *line, size_t len, char *buf, char *words[WORDS_MAX])
{
    int n = 0;
    char *save = NULL;

    if (len >= LINE_MAX_BYTES) {
        return -1;
    }
    memcpy(buf, line, len);
    buf[len] = '\0';
    for (char *w = strtok_r(buf, " \t\r", &save); w != NULL; w = strtok_r(NULL, " \t\r", &save)) {
        if (n == WORDS_MAX) {
            return -1;
        }
        words[n++] = w;
    }
    return n;
}

/* A decimal number, digits only (no sign, no blank), up to \p max, ending
 * at \p end (a NUL or the one character allowed after it). */
static bool
parse_number(const char *s, char end, uint32_t max, uint32_t *value)
{
    uint64_t v = 0;
    const char *c = s;

    for (; *c >= '0' && *c <= '9'; c++) {
        v = v * 10u + (uint64_t) (*c - '0');
        if (v > max) {
            return false;
        }
    }
    if (c == s || *c != end || (end != '\0' && c[1] != '\0')) {
        return false;
    }
    *value = (uint32_t) v;
    return true;
}

static int
node_index(const struct fm_corosync_links *links, uint32_t nodeid)
{
    for (unsigned i = 0; i < links->n_nodes; i++) {
        if (links->nodeid[i] == nodeid) {
            return (int) i;
        }
    }
    return -1;
}

/* A link's list is over: it must list this node once, and the same nodes
 * as the first link. */
static int
end_link(struct parse *p, unsigned line_no)
{
    struct fm_corosync_links *links = p->links;

    if (p->where == IN_LINK) {
        return refuse(p, "a link without status", line_no);
    }
    if (p->where != IN_STATUS) {
        return 0;
    }
    if (p->locals != 1) {
        return refuse(p, "a link that does not list this node once", line_no);
    }
    if (links->n_links > 1 && p->listed != links->n_nodes) {
        return refuse(p, "a link that lists other nodes than the first", line_no);
    }
    return 0;
}

static int
on_link(struct parse *p, char *words[], int n, unsigned line_no)
{
    struct fm_corosync_links *links = p->links;
    uint32_t id = 0;

    if (end_link(p, line_no) != 0) {
        return -1;
    }
    if ((n != 3 && n != 4) || strcmp(words[1], "ID") != 0
        || !parse_number(words[2], '\0', FM_COROSYNC_LINKS_MAX - 1, &id)) {
        return refuse(p, "a LINK line not understood", line_no);
    }
    if (links->n_links == FM_COROSYNC_LINKS_MAX) {
        return refuse(p, "too many links", line_no);
    }
    for (unsigned l = 0; l < links->n_links; l++) {
        if (links->link_id[l] == id) {
            return refuse(p, "a link listed twice", line_no);
        }
    }
    links->link_id[links->n_links++] = id;
    memset(p->seen, 0, sizeof(p->seen));
    p->listed = 0;
    p->locals = 0;
    p->where = IN_LINK;
    return 0;
}

/* "nodeid: N: localhost|connected|disconnected", within a link's status. */
static int
on_node(struct parse *p, char *words[], int n, unsigned line_no)
{
    struct fm_corosync_links *links = p->links;
    unsigned l = links->n_links - 1;
    uint32_t id = 0;
    int i = 0;

    if (p->where != IN_STATUS || n != 3 || !parse_number(words[1], ':', UINT32_MAX, &id)
        || id == 0) {
        return refuse(p, "a nodeid line not understood", line_no);
    }
    if (strcmp(words[2], "localhost") == 0) {
        if (id != links->local_nodeid) {
            return refuse(p, "localhost is not the local node ID", line_no);
        }
        p->locals++;
    } else if (strcmp(words[2], "connected") != 0 && strcmp(words[2], "disconnected") != 0) {
        return refuse(p, "a node status not understood", line_no);
    }
    i = node_index(links, id);
    if (l == 0 && i < 0) {
        if (links->n_nodes == FM_COROSYNC_NODES_MAX) {
            return refuse(p, "too many nodes", line_no);
        }
        i = (int) links->n_nodes;
        links->nodeid[links->n_nodes++] = id;
    }
    if (i < 0 || p->seen[i]) {
        return refuse(p, (i < 0)? "a node not on the first link" : "a node listed twice", line_no);
    }
    p->seen[i] = true;
    p->listed++;
    links->connected[l][i] = (strcmp(words[2], "connected") == 0);
    return 0;
}

static int
on_line(struct parse *p, char *words[], int n, unsigned line_no)
{
    if (p->where == AT_HEAD) {
        /* "Local node ID 1, transport knet": only knet lists the peers. */
        if (n != 6 || strcmp(words[0], "Local") != 0 || strcmp(words[1], "node") != 0
            || strcmp(words[2], "ID") != 0 || strcmp(words[4], "transport") != 0
            || !parse_number(words[3], ',', UINT32_MAX, &p->links->local_nodeid)
            || p->links->local_nodeid == 0 || strcmp(words[5], "knet") != 0) {
            return refuse(p, "not corosync 3's knet link status", line_no);
        }
        p->where = AT_LINKS;
        return 0;
    }
    if (strcmp(words[0], "LINK") == 0) {
        return on_link(p, words, n, line_no);
    }
    if (strcmp(words[0], "nodeid:") == 0) {
        return on_node(p, words, n, line_no);
    }
    if (p->where == IN_LINK && n == 3 && strcmp(words[0], "addr") == 0
        && strcmp(words[1], "=") == 0) {
        return 0;
    }
    if (p->where == IN_LINK && n == 1 && strcmp(words[0], "status:") == 0) {
        p->where = IN_STATUS;
        return 0;
    }
    return refuse(p, "a line not understood", line_no);
}

int
fm_corosync_links_parse(const char *text, struct fm_corosync_links *links, char *why,
                        size_t why_len)
{
    struct parse p = { .links = links, .where = AT_HEAD, .why = why, .why_len = why_len };
    unsigned line_no = 0;
    size_t len = strlen(text);

    memset(links, 0, sizeof(*links));
    if (len == 0 || text[len - 1] != '\n') {
        /* Cut short: the last node listed may be half a word, or missing. */
        snprintf(why, why_len, "%s", (len == 0)? "no output" : "the output ends mid-line");
        return -1;
    }
    for (const char *line = text; *line != '\0'; ) {
        const char *nl = strchr(line, '\n');
        char buf[LINE_MAX_BYTES];
        char *words[WORDS_MAX];
        int n = split_words(line, (size_t) (nl - line), buf, words);

        line_no++;
        if (n < 0) {
            return refuse(&p, "a line too long", line_no);
        }
        if (n > 0 && on_line(&p, words, n, line_no) != 0) {
            return -1;
        }
        line = nl + 1;
    }
    if (end_link(&p, line_no) != 0) {
        return -1;
    }
    if (links->n_links == 0) {
        return refuse(&p, "no link listed", line_no);
    }
    return 0;
}

/* "link 0" or "links 0, 1" */
static void
format_links(const struct fm_corosync_links *links, char *buf, size_t len)
{
    size_t used = (size_t) snprintf(buf, len, "link%s", (links->n_links > 1)? "s" : "");

    for (unsigned l = 0; l < links->n_links && used < len; l++) {
        used += (size_t) snprintf(buf + used, len - used, "%s %u", (l > 0)? "," : "",
                                  links->link_id[l]);
    }
}

bool
fm_corosync_links_impaired(const struct fm_corosync_links *links, char *why, size_t why_len)
{
    unsigned peers = (links->n_nodes > 0)? links->n_nodes - 1 : 0;
    unsigned up[FM_COROSYNC_LINKS_MAX] = { 0 };
    int some_up = -1;
    char names[64];

    if (peers < 2) {
        return false;
    }
    for (unsigned l = 0; l < links->n_links; l++) {
        for (unsigned i = 0; i < links->n_nodes; i++) {
            if (links->nodeid[i] != links->local_nodeid && links->connected[l][i]) {
                up[l]++;
            }
        }
        if (up[l] > 0 && some_up < 0) {
            some_up = (int) l;
        }
    }
    if (some_up < 0) {
        format_links(links, names, sizeof(names));
        snprintf(why, why_len, "corosync: no peer reachable on any link (%u peers, %s)", peers,
                 names);
        return true;
    }
    for (unsigned l = 0; l < links->n_links; l++) {
        if (up[l] == 0) {
            snprintf(why, why_len, "corosync: link %u down to every peer (%u peers, %u connected "
                     "on link %u)", links->link_id[l], peers, up[some_up],
                     links->link_id[some_up]);
            return true;
        }
    }
    return false;
}
