/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon migrate: what it reads from the CIB and from crm_mon
 * (src/cmd/cmd_migrate_xml.c, libxml2; pure functions of the XML text, so that
 * tests/unit/test_migrate.c checks them without a cluster).
 */
#ifndef FAULTMON_CMD_MIGRATE_H
#define FAULTMON_CMD_MIGRATE_H

#include <stdbool.h>
#include <stddef.h>

#define FM_MIGRATE_PARAMS_MAX 64
#define FM_MIGRATE_NODES_MAX 64
#define FM_MIGRATE_TEXT_MAX 256

/* One primitive of the CIB's configuration. */
struct fm_migrate_rsc {
    char id[FM_MIGRATE_TEXT_MAX];
    char cls[32];                   /* "ocf" */
    char provider[64];
    char type[64];
    char parent[32];                /* "", "group", "clone", "master", "bundle" */
    char parent_id[FM_MIGRATE_TEXT_MAX];
    bool param_rule;                /* instance attributes under a rule */
    char stickiness[32];            /* resource-stickiness: its own, else its
                                       parent's, else rsc_defaults'; "" none */
    size_t n_params;
    char param[FM_MIGRATE_PARAMS_MAX][FM_MIGRATE_TEXT_MAX];
    char value[FM_MIGRATE_PARAMS_MAX][FM_MIGRATE_TEXT_MAX];
};

/* What crm_mon --output-as=xml says of one resource. */
struct fm_migrate_mon {
    bool found;
    char agent[FM_MIGRATE_TEXT_MAX];    /* "ocf:faultmon:apache" */
    char role[32];
    char node[FM_MIGRATE_TEXT_MAX];     /* where it is active, "" nowhere */
    bool failed;
    size_t n_nodes;                     /* its operation history, by node */
    char hist_node[FM_MIGRATE_NODES_MAX][FM_MIGRATE_TEXT_MAX];
    long last_call[FM_MIGRATE_NODES_MAX];       /* the highest call id */
    long start_call[FM_MIGRATE_NODES_MAX];      /* of a start rc 0; -1 none */
    long monitor_call[FM_MIGRATE_NODES_MAX];    /* of a recurring monitor rc 0 */
    long failure_call[FM_MIGRATE_NODES_MAX];    /* of a failure listed; -1 none */
    char failure[FM_MIGRATE_TEXT_MAX];          /* the newest one, for the report */
};

/*!
 * \brief Find primitive \p id in a whole CIB (cibadmin -Q).
 * \return 0; ENOENT when there is none; EINVAL (\p err says why) when the
 *         text is not a CIB
 */
int fm_migrate_parse_cib(const char *xml, size_t len, const char *id, struct fm_migrate_rsc *r,
                         char *err, size_t err_len);

/*! \brief Whether a resource-stickiness value keeps a resource where it runs (above 0). */
bool fm_migrate_sticky(const char *value);

/*!
 * \brief The parameter names of an agent's meta-data, one after another in
 *        \p names (each NUL-terminated, the list ending in an empty one).
 * \return how many; -1 when the text is not meta-data
 */
int fm_migrate_parse_meta(const char *xml, size_t len, char *names, size_t names_len);

/*! \brief Whether \p name is among fm_migrate_parse_meta()'s \p names. */
bool fm_migrate_meta_has(const char *names, const char *name);

/*!
 * \brief Resource \p id in crm_mon --output-as=xml's reply.
 * \return 0; EINVAL when the text is not crm_mon's XML
 */
int fm_migrate_parse_mon(const char *xml, size_t len, const char *id, struct fm_migrate_mon *m);

#endif
