/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon status --cluster: every node's view of every faultmon resource
 * and dependency, from the node attributes the loops publish
 * (faultmon-RESOURCE-state and -weight, faultmon-dep-KEY, #health-faultmon),
 * as the CIB's status section holds them (cibadmin --query --scope status,
 * read with libxml2).  Read only: it asks the cluster, never the state
 * files, so it answers the same on every node.
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include <faultmon/commands.h>
#include <faultmon/deps.h>
#include <faultmon/json.h>
#include <faultmon/spawn.h>
#include <faultmon/text.h>

#include "xml_load.h"

#define CLUSTER_MAX_NODES 64
#define CLUSTER_MAX_ROWS 256
#define CLUSTER_VALUE_MAX 48
/* A status section of a few hundred resources' operation history. */
#define CLUSTER_CIB_MAX_BYTES (16 * 1024 * 1024)
#define CLUSTER_CIB_TIMEOUT_MS 10000
#define STATUS_UNKNOWN 4

enum row_kind { ROW_RESOURCE, ROW_DEPENDENCY, ROW_HEALTH };

struct row {
    enum row_kind kind;
    char name[128];
    char value[CLUSTER_MAX_NODES][CLUSTER_VALUE_MAX];   /* "" where no view */
};

struct cluster {
    size_t n_nodes;
    char node[CLUSTER_MAX_NODES][128];
    size_t n_rows;
    struct row *rows;
};

static struct row *
row_for(struct cluster *c, enum row_kind kind, const char *name)
{
    for (size_t i = 0; i < c->n_rows; i++) {
        if (c->rows[i].kind == kind && strcmp(c->rows[i].name, name) == 0) {
            return &c->rows[i];
        }
    }
    if (c->n_rows >= CLUSTER_MAX_ROWS || strlen(name) >= sizeof(c->rows[0].name)) {
        return NULL;
    }
    memset(&c->rows[c->n_rows], 0, sizeof(c->rows[0]));
    c->rows[c->n_rows].kind = kind;
    snprintf(c->rows[c->n_rows].name, sizeof(c->rows[0].name), "%s", name);
    return &c->rows[c->n_rows++];
}

static void take_shown_attr(struct cluster *c, size_t n, const char *name, const char *value);

/*
 * \p len bytes of \p in (the whole when negative) as every message shows
 * text (fm_text_format(): redacted, one line of valid UTF-8, control and
 * bidirectional characters escaped).  The CIB's node names and attribute
 * values are anyone's who may set a node attribute: raw, a newline, a CR,
 * a C1 CSI (U+009B) or a bidi override (U+202E) forged lines of the table.
 */
static void
shown(char *out, size_t out_len, const char *in, int len)
{
    fm_text_format(out, out_len, "%.*s", (len < 0)? (int) strlen(in) : len, in);
}

/* One attribute of node \p n: the rows it belongs to.  A resource's state
 * and weight make one cell, "state (weight)". */
static void
take_attr(struct cluster *c, size_t n, const char *raw_name, const char *raw_value)
{
    char name[256];
    char value[CLUSTER_VALUE_MAX * 4];

    if (raw_value == NULL || raw_value[0] == '\0') {
        return;                     /* deleted */
    }
    shown(name, sizeof(name), raw_name, -1);
    shown(value, sizeof(value), raw_value, -1);
    take_shown_attr(c, n, name, value);
}

static void
take_shown_attr(struct cluster *c, size_t n, const char *name, const char *value)
{
    static const char state_sfx[] = "-state";
    static const char weight_sfx[] = "-weight";
    size_t len = strlen(name);
    char res[128];
    struct row *r = NULL;

    if (strcmp(name, "#health-faultmon") == 0) {
        r = row_for(c, ROW_HEALTH, name);
    } else if (strncmp(name, FM_DEPS_ATTR_PREFIX, strlen(FM_DEPS_ATTR_PREFIX)) == 0) {
        r = row_for(c, ROW_DEPENDENCY, name + strlen(FM_DEPS_ATTR_PREFIX));
    } else if (strncmp(name, "faultmon-", 9) == 0 && len > 9 + strlen(state_sfx)
               && strcmp(name + len - strlen(state_sfx), state_sfx) == 0) {
        snprintf(res, sizeof(res), "%.*s", (int) (len - 9 - strlen(state_sfx)), name + 9);
        r = row_for(c, ROW_RESOURCE, res);
        if (r != NULL) {
            char weight[16] = "";
            char *paren = strchr(r->value[n], ' ');

            if (paren != NULL) {
                snprintf(weight, sizeof(weight), "%s", paren);
            }
            char state[25];

            fm_text_escape(state, sizeof(state), value, strlen(value));
            snprintf(r->value[n], sizeof(r->value[n]), "%s%s", state, weight);
        }
        return;
    } else if (strncmp(name, "faultmon-", 9) == 0 && len > 9 + strlen(weight_sfx)
               && strcmp(name + len - strlen(weight_sfx), weight_sfx) == 0) {
        snprintf(res, sizeof(res), "%.*s", (int) (len - 9 - strlen(weight_sfx)), name + 9);
        r = row_for(c, ROW_RESOURCE, res);
        if (r != NULL) {
            char state[32];
            char weight[13];

            snprintf(state, sizeof(state), "%.*s", (int) strcspn(r->value[n], " "), r->value[n]);
            fm_text_escape(weight, sizeof(weight), value, strlen(value));
            snprintf(r->value[n], sizeof(r->value[n]), "%s (%s)", (state[0] != '\0')? state : "?", weight);
        }
        return;
    } else {
        return;
    }
    if (r != NULL) {
        fm_text_escape(r->value[n], sizeof(r->value[n]), value, strlen(value));
    }
}

/* Every nvpair under the node_state's transient_attributes. */
static void
take_node(struct cluster *c, size_t n, xmlNode *node_state)
{
    for (xmlNode *ta = node_state->children; ta != NULL; ta = ta->next) {
        if (ta->type != XML_ELEMENT_NODE || !fm_xml()->str_equal(ta->name, BAD_CAST "transient_attributes")) {
            continue;
        }
        for (xmlNode *ia = ta->children; ia != NULL; ia = ia->next) {
            for (xmlNode *nv = (ia->type == XML_ELEMENT_NODE)? ia->children : NULL; nv != NULL; nv = nv->next) {
                xmlChar *name = NULL;
                xmlChar *value = NULL;

                if (nv->type != XML_ELEMENT_NODE || !fm_xml()->str_equal(nv->name, BAD_CAST "nvpair")) {
                    continue;
                }
                name = fm_xml()->get_prop(nv, BAD_CAST "name");
                value = fm_xml()->get_prop(nv, BAD_CAST "value");
                if (name != NULL) {
                    take_attr(c, n, (const char *) name, (const char *) value);
                }
                fm_xml()->free(name);
                fm_xml()->free(value);
            }
        }
    }
}

/* \return 0, or EINVAL with \p err: the reply is not a status section */
static int
parse_status_loaded(struct cluster *c, const char *xml, size_t len, char *err, size_t err_len)
{
    xmlDoc *doc = fm_xml()->read_memory(xml, (int) len, "status.xml", NULL,
                                        XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlNode *root = (doc != NULL)? fm_xml()->doc_get_root_element(doc) : NULL;

    if (root == NULL || !fm_xml()->str_equal(root->name, BAD_CAST "status")) {
        snprintf(err, err_len, "the CIB's status section cannot be read (%s)",
                 (doc == NULL)? "not XML" : "no <status> element");
        fm_xml()->free_doc(doc);
        return EINVAL;
    }
    for (xmlNode *ns = root->children; ns != NULL; ns = ns->next) {
        xmlChar *uname = NULL;

        if (ns->type != XML_ELEMENT_NODE || !fm_xml()->str_equal(ns->name, BAD_CAST "node_state")) {
            continue;
        }
        uname = fm_xml()->get_prop(ns, BAD_CAST "uname");
        if (uname != NULL && c->n_nodes < CLUSTER_MAX_NODES) {
            shown(c->node[c->n_nodes], sizeof(c->node[0]), (const char *) uname, -1);
            take_node(c, c->n_nodes++, ns);
        }
        fm_xml()->free(uname);
    }
    fm_xml()->free_doc(doc);
    return 0;
}

/* \return 0, or EINVAL with \p err: libxml2 cannot be loaded */
static int
parse_status(struct cluster *c, const char *xml, size_t len, char *err, size_t err_len)
{
    if (fm_xml_require(err, err_len) == NULL) {
        return EINVAL;
    }
    return parse_status_loaded(c, xml, len, err, err_len);
}

/* The nodes in the order of their names (the CIB's is the order they
 * joined in), so that a column is where an operator looks for it. */
static void
node_order(const struct cluster *c, size_t order[CLUSTER_MAX_NODES])
{
    for (size_t i = 0; i < c->n_nodes; i++) {
        size_t j = i;

        while (j > 0 && strcmp(c->node[order[j - 1]], c->node[i]) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

static void
print_text(const struct cluster *c)
{
    size_t order[CLUSTER_MAX_NODES];

    static const char *const kinds[] = { "resource", "dependency", "node" };

    node_order(c, order);
    printf("%-10s %-32s", "", "");
    for (size_t k = 0; k < c->n_nodes; k++) {
        printf(" %-16s", c->node[order[k]]);
    }
    printf("\n");
    for (size_t i = 0; i < c->n_rows; i++) {
        const struct row *r = &c->rows[i];

        printf("%-10s %-32s", kinds[r->kind], r->name);
        for (size_t k = 0; k < c->n_nodes; k++) {
            const char *v = r->value[order[k]];

            printf(" %-16s", (v[0] != '\0')? v : "-");
        }
        printf("\n");
    }
    if (c->n_rows == 0) {
        printf("(no faultmon attribute on any of the %zu node(s))\n", c->n_nodes);
    }
}

static void
print_json(const struct cluster *c)
{
    static const char *const kinds[] = { "resource", "dependency", "node" };
    size_t order[CLUSTER_MAX_NODES];

    node_order(c, order);
    printf("{\"nodes\":[");
    for (size_t k = 0; k < c->n_nodes; k++) {
        printf("%s", (k > 0)? "," : "");
        fm_json_string(stdout, c->node[order[k]]);
    }
    printf("],\"rows\":[");
    for (size_t i = 0; i < c->n_rows; i++) {
        printf("%s{\"kind\":\"%s\",\"name\":", (i > 0)? "," : "", kinds[c->rows[i].kind]);
        fm_json_string(stdout, c->rows[i].name);
        printf(",\"views\":{");
        for (size_t k = 0, shown = 0; k < c->n_nodes; k++) {
            size_t n = order[k];

            if (c->rows[i].value[n][0] != '\0') {
                printf("%s", (shown++ > 0)? "," : "");
                fm_json_string(stdout, c->node[n]);
                putchar(':');
                fm_json_string(stdout, c->rows[i].value[n]);
            }
        }
        printf("}}");
    }
    printf("]}\n");
}

int
fm_cmd_status_cluster(bool json)
{
    char tool[4096];
    char *argv[5];
    char err[256] = "";
    char *out = malloc(CLUSTER_CIB_MAX_BYTES);
    struct cluster c;
    size_t size = 0;
    int status = 0;

    memset(&c, 0, sizeof(c));
    c.rows = calloc(CLUSTER_MAX_ROWS, sizeof(*c.rows));
    if (out == NULL || c.rows == NULL) {
        free(out);
        free(c.rows);
        fprintf(stderr, "faultmon status: out of memory\n");
        return STATUS_UNKNOWN;
    }
    argv[0] = (char *) fm_cli_pcmk_tool("cibadmin", "FAULTMON_CIBADMIN", tool, sizeof(tool));
    argv[1] = (char *) "--query";
    argv[2] = (char *) "--scope";
    argv[3] = (char *) "status";
    argv[4] = NULL;
    status = fm_spawn_run(argv, CLUSTER_CIB_TIMEOUT_MS, out, CLUSTER_CIB_MAX_BYTES, &size);
    if (status != 0 || size >= CLUSTER_CIB_MAX_BYTES) {
        shown(err, sizeof(err), out, (int) strcspn(out, "\n"));
        fprintf(stderr, "faultmon status: cannot read the cluster's status (%s: %s)\n", argv[0],
                (status != 0)? err : "more than 16 MiB");
        status = STATUS_UNKNOWN;
    } else if (parse_status(&c, out, size, err, sizeof(err)) != 0) {
        fprintf(stderr, "faultmon status: %s\n", err);
        status = STATUS_UNKNOWN;
    } else if (json) {
        print_json(&c);
    } else {
        print_text(&c);
    }
    free(out);
    free(c.rows);
    return status;
}
