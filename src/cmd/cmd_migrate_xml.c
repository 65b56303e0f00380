/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon migrate: reading the CIB, an agent's meta-data and crm_mon's XML
 * (cmd_migrate.h), with libxml2.  Never the network, never an entity.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xml_load.h"

#include "cmd_migrate.h"

#define XML_OPTS (XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

static bool
is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && fm_xml()->str_equal(n->name, BAD_CAST name);
}

/* Attribute \p name of \p n into \p out ("" when absent). */
static void
get_attr(xmlNode *n, const char *name, char *out, size_t out_len)
{
    xmlChar *v = fm_xml()->get_prop(n, BAD_CAST name);

    snprintf(out, out_len, "%s", (v != NULL)? (const char *) v : "");
    fm_xml()->free(v);
}

static bool
attr_is(xmlNode *n, const char *name, const char *want)
{
    char v[FM_MIGRATE_TEXT_MAX];

    get_attr(n, name, v, sizeof(v));
    return strcmp(v, want) == 0;
}

/* The first element named \p name at or under \p n, depth first. */
static xmlNode *
find_elem(xmlNode *n, const char *name, const char *id)
{
    for (; n != NULL; n = n->next) {
        xmlNode *got = NULL;

        if (is_elem(n, name) && (id == NULL || attr_is(n, "id", id))) {
            return n;
        }
        got = find_elem(n->children, name, id);
        if (got != NULL) {
            return got;
        }
    }
    return NULL;
}

static void
take_params(xmlNode *prim, struct fm_migrate_rsc *r)
{
    for (xmlNode *set = prim->children; set != NULL; set = set->next) {
        if (!is_elem(set, "instance_attributes")) {
            continue;
        }
        for (xmlNode *nv = set->children; nv != NULL; nv = nv->next) {
            if (is_elem(nv, "rule")) {
                r->param_rule = true;
            }
            if (!is_elem(nv, "nvpair") || r->n_params >= FM_MIGRATE_PARAMS_MAX) {
                continue;
            }
            get_attr(nv, "name", r->param[r->n_params], sizeof(r->param[0]));
            get_attr(nv, "value", r->value[r->n_params], sizeof(r->value[0]));
            r->n_params++;
        }
    }
}

/* resource-stickiness among the meta attributes of \p n, into \p out. */
static void
take_stickiness(xmlNode *n, char *out, size_t out_len)
{
    for (xmlNode *set = (n != NULL)? n->children : NULL; set != NULL; set = set->next) {
        if (!is_elem(set, "meta_attributes")) {
            continue;
        }
        for (xmlNode *nv = set->children; nv != NULL; nv = nv->next) {
            if (is_elem(nv, "nvpair") && attr_is(nv, "name", "resource-stickiness")) {
                get_attr(nv, "value", out, out_len);
                return;
            }
        }
    }
}

bool
fm_migrate_sticky(const char *value)
{
    char *end = NULL;
    long v = 0;

    if (strcmp(value, "INFINITY") == 0 || strcmp(value, "+INFINITY") == 0) {
        return true;
    }
    v = strtol(value, &end, 10);
    return end != value && *end == '\0' && v > 0;
}

static int
parse_cib_loaded(const char *xml, size_t len, const char *id, struct fm_migrate_rsc *r,
                 char *err, size_t err_len)
{
    xmlDoc *doc = fm_xml()->read_memory(xml, (int) len, "cib.xml", NULL, XML_OPTS);
    xmlNode *root = (doc != NULL)? fm_xml()->doc_get_root_element(doc) : NULL;
    xmlNode *resources = NULL;
    xmlNode *prim = NULL;

    memset(r, 0, sizeof(*r));
    if (root == NULL || !fm_xml()->str_equal(root->name, BAD_CAST "cib")) {
        snprintf(err, err_len, "the CIB cannot be read (%s)", (doc == NULL)? "not XML" : "no <cib> element");
        fm_xml()->free_doc(doc);
        return EINVAL;
    }
    resources = find_elem(root->children, "resources", NULL);
    prim = (resources != NULL)? find_elem(resources->children, "primitive", id) : NULL;
    if (prim == NULL) {
        fm_xml()->free_doc(doc);
        return ENOENT;
    }
    snprintf(r->id, sizeof(r->id), "%s", id);
    get_attr(prim, "class", r->cls, sizeof(r->cls));
    get_attr(prim, "provider", r->provider, sizeof(r->provider));
    get_attr(prim, "type", r->type, sizeof(r->type));
    for (xmlNode *p = prim->parent; p != NULL && p != resources; p = p->parent) {
        if (p->type == XML_ELEMENT_NODE) {
            /* The outermost wins: a group in a clone is a clone's case. */
            snprintf(r->parent, sizeof(r->parent), "%s", (const char *) p->name);
            get_attr(p, "id", r->parent_id, sizeof(r->parent_id));
        }
    }
    take_params(prim, r);
    take_stickiness(prim, r->stickiness, sizeof(r->stickiness));
    if (r->stickiness[0] == '\0' && prim->parent != resources) {
        take_stickiness(prim->parent, r->stickiness, sizeof(r->stickiness));
    }
    if (r->stickiness[0] == '\0') {
        take_stickiness(find_elem(root->children, "rsc_defaults", NULL), r->stickiness, sizeof(r->stickiness));
    }
    fm_xml()->free_doc(doc);
    return 0;
}

int
fm_migrate_parse_cib(const char *xml, size_t len, const char *id, struct fm_migrate_rsc *r,
                     char *err, size_t err_len)
{
    if (fm_xml_require(err, err_len) == NULL) {
        memset(r, 0, sizeof(*r));
        return EINVAL;
    }
    return parse_cib_loaded(xml, len, id, r, err, err_len);
}

static int
parse_meta_loaded(const char *xml, size_t len, char *names, size_t names_len)
{
    xmlDoc *doc = fm_xml()->read_memory(xml, (int) len, "meta-data.xml", NULL, XML_OPTS);
    xmlNode *root = (doc != NULL)? fm_xml()->doc_get_root_element(doc) : NULL;
    xmlNode *params = NULL;
    size_t used = 0;
    int n = 0;

    if (names_len < 1 || root == NULL || !fm_xml()->str_equal(root->name, BAD_CAST "resource-agent")) {
        fm_xml()->free_doc(doc);
        return -1;
    }
    params = find_elem(root->children, "parameters", NULL);
    for (xmlNode *p = (params != NULL)? params->children : NULL; p != NULL; p = p->next) {
        char name[FM_MIGRATE_TEXT_MAX];
        size_t l = 0;

        if (!is_elem(p, "parameter")) {
            continue;
        }
        get_attr(p, "name", name, sizeof(name));
        l = strlen(name);
        if (l == 0 || used + l + 2 > names_len) {
            continue;
        }
        memcpy(names + used, name, l + 1);
        used += l + 1;
        n++;
    }
    names[used] = '\0';
    fm_xml()->free_doc(doc);
    return n;
}

int
fm_migrate_parse_meta(const char *xml, size_t len, char *names, size_t names_len)
{
    if (fm_xml_require(NULL, 0) == NULL) {
        return -1;
    }
    return parse_meta_loaded(xml, len, names, names_len);
}

bool
fm_migrate_meta_has(const char *names, const char *name)
{
    for (const char *p = names; *p != '\0'; p += strlen(p) + 1) {
        if (strcmp(p, name) == 0) {
            return true;
        }
    }
    return false;
}

/* The slot of node \p node in m's history, added when new; -1 when full. */
static int
mon_node(struct fm_migrate_mon *m, const char *node)
{
    for (size_t i = 0; i < m->n_nodes; i++) {
        if (strcmp(m->hist_node[i], node) == 0) {
            return (int) i;
        }
    }
    if (m->n_nodes >= FM_MIGRATE_NODES_MAX) {
        return -1;
    }
    snprintf(m->hist_node[m->n_nodes], sizeof(m->hist_node[0]), "%s", node);
    m->last_call[m->n_nodes] = -1;
    m->start_call[m->n_nodes] = -1;
    m->monitor_call[m->n_nodes] = -1;
    m->failure_call[m->n_nodes] = -1;
    return (int) m->n_nodes++;
}

static long
call_of(xmlNode *n)
{
    char v[32];

    get_attr(n, "call", v, sizeof(v));
    return (v[0] != '\0')? strtol(v, NULL, 10) : -1;
}

static void
take_history(xmlNode *hist, const char *id, struct fm_migrate_mon *m)
{
    for (xmlNode *node = hist->children; node != NULL; node = node->next) {
        char name[FM_MIGRATE_TEXT_MAX];
        xmlNode *rh = NULL;
        int i = 0;

        if (!is_elem(node, "node")) {
            continue;
        }
        get_attr(node, "name", name, sizeof(name));
        rh = find_elem(node->children, "resource_history", id);
        if (rh == NULL || (i = mon_node(m, name)) < 0) {
            continue;
        }
        for (xmlNode *op = rh->children; op != NULL; op = op->next) {
            long call = call_of(op);
            char interval[32];

            if (!is_elem(op, "operation_history")) {
                continue;
            }
            get_attr(op, "interval", interval, sizeof(interval));
            if (call > m->last_call[i]) {
                m->last_call[i] = call;
            }
            if (!attr_is(op, "rc", "0")) {
                continue;
            }
            if (attr_is(op, "task", "start") && call > m->start_call[i]) {
                m->start_call[i] = call;
            } else if (attr_is(op, "task", "monitor") && interval[0] != '\0' && interval[0] != '0'
                       && call > m->monitor_call[i]) {
                m->monitor_call[i] = call;
            }
        }
    }
}

static void
take_failures(xmlNode *fails, const char *id, struct fm_migrate_mon *m)
{
    size_t id_len = strlen(id);

    for (xmlNode *f = fails->children; f != NULL; f = f->next) {
        char key[FM_MIGRATE_TEXT_MAX];
        char node[FM_MIGRATE_TEXT_MAX];
        char reason[FM_MIGRATE_TEXT_MAX];
        long call = call_of(f);
        int i = 0;

        if (!is_elem(f, "failure")) {
            continue;
        }
        get_attr(f, "op_key", key, sizeof(key));
        if (strncmp(key, id, id_len) != 0 || key[id_len] != '_') {
            continue;
        }
        get_attr(f, "node", node, sizeof(node));
        get_attr(f, "exitreason", reason, sizeof(reason));
        if ((i = mon_node(m, node)) < 0 || call <= m->failure_call[i]) {
            continue;
        }
        m->failure_call[i] = call;
        snprintf(m->failure, sizeof(m->failure), "%.80s on %.60s%s%.100s", key, node,
                 (reason[0] != '\0')? ": " : "", reason);
    }
}

static int
parse_mon_loaded(const char *xml, size_t len, const char *id, struct fm_migrate_mon *m)
{
    xmlDoc *doc = fm_xml()->read_memory(xml, (int) len, "crm_mon.xml", NULL, XML_OPTS);
    xmlNode *root = (doc != NULL)? fm_xml()->doc_get_root_element(doc) : NULL;
    xmlNode *res = NULL;

    memset(m, 0, sizeof(*m));
    if (root == NULL || (!fm_xml()->str_equal(root->name, BAD_CAST "pacemaker-result")
                         && !fm_xml()->str_equal(root->name, BAD_CAST "crm_mon"))) {
        fm_xml()->free_doc(doc);
        return EINVAL;
    }
    res = find_elem(root->children, "resources", NULL);
    res = (res != NULL)? find_elem(res->children, "resource", id) : NULL;
    if (res != NULL) {
        xmlNode *on = find_elem(res->children, "node", NULL);

        m->found = true;
        get_attr(res, "resource_agent", m->agent, sizeof(m->agent));
        get_attr(res, "role", m->role, sizeof(m->role));
        m->failed = attr_is(res, "failed", "true");
        if (on != NULL && attr_is(res, "active", "true")) {
            get_attr(on, "name", m->node, sizeof(m->node));
        }
    }
    for (xmlNode *n = root->children; n != NULL; n = n->next) {
        if (is_elem(n, "node_history")) {
            take_history(n, id, m);
        } else if (is_elem(n, "failures")) {
            take_failures(n, id, m);
        }
    }
    fm_xml()->free_doc(doc);
    return 0;
}

int
fm_migrate_parse_mon(const char *xml, size_t len, const char *id, struct fm_migrate_mon *m)
{
    if (fm_xml_require(NULL, 0) == NULL) {
        memset(m, 0, sizeof(*m));
        return EINVAL;
    }
    return parse_mon_loaded(xml, len, id, m);
}
