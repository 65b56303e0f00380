/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: what Pacemaker does not pass to an agent and the
 * CIB says: a meta attribute of the resource (migration-threshold) and its
 * recurring monitor operation, read with cibadmin.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ocf_common.h"

/* The resource's id without a clone instance suffix (web:0 -> web). */
static void
primitive_id(const struct fm_ocf *ocf, char *buf, size_t buf_len)
{
    snprintf(buf, buf_len, "%s", (ocf->resource != NULL)? ocf->resource : "");
    buf[strcspn(buf, ":")] = '\0';
}

/*
 * 10, 10s, 500ms, 2m, 2min, 1h: Pacemaker's usual spellings, read from the
 * CIB's XML (the value runs up to its closing quote).  Not util's
 * fm_parse_duration_ms(), which takes faultmon's own parameters: this one
 * reads what Pacemaker accepts, whose syntax is looser ("2min", "1h")
 * and not ours to narrow.  0 for what it does not know.
 */
static uint64_t
parse_pcmk_ms(const char *text)
{
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);

    if (end == text) {
        return 0;
    }
    if (*end == '\0' || *end == '"' || (end[0] == 's' && (end[1] == '"' || end[1] == '\0'))) {
        return v * 1000u;
    }
    if (strncmp(end, "ms", 2) == 0) {
        return v;
    }
    if (strncmp(end, "min", 3) == 0 || (end[0] == 'm' && (end[1] == '"' || end[1] == '\0'))) {
        return v * 60000u;
    }
    if (end[0] == 'h') {
        return v * 3600000u;
    }
    return 0;
}

static uint64_t
xml_attr_ms(const char *elem, const char *end, const char *name)
{
    char key[32];
    const char *p = NULL;

    snprintf(key, sizeof(key), " %s=\"", name);
    p = strstr(elem, key);
    if (p == NULL || p > end) {
        return 0;
    }
    return parse_pcmk_ms(p + strlen(key));
}

/* cibadmin --query --xpath XPATH into out, and its exit status (0 found,
 * 105 no such object, 102 no cluster; -1 missing or timed out); cibadmin
 * lives beside attrd_updater (pacemaker-cli-utils). */
static int
cib_query_status(const char *xpath, char *out, size_t out_len)
{
    char dir[FM_OCF_PATH_MAX];
    char cibadmin[FM_OCF_PATH_MAX + 16];
    char *argv[5];
    const char *slash = NULL;

    snprintf(dir, sizeof(dir), "%s", fm_ocf_attrd_updater_path());
    slash = strrchr(dir, '/');
    snprintf(cibadmin, sizeof(cibadmin), "%.*s/cibadmin", (int) (slash - dir), dir);
    argv[0] = cibadmin;
    argv[1] = (char *) "--query";
    argv[2] = (char *) "--xpath";
    argv[3] = (char *) xpath;
    argv[4] = NULL;
    out[0] = '\0';
    if (access(cibadmin, X_OK) != 0) {
        return -1;
    }
    return fm_ocf_run(argv, out, out_len, NULL, 5000);
}

/*
 * The constraint the loop writes before a restart it asks for, which keeps
 * the restart on its node (src/run/stay.c: faultmon-stay-RSC, expiring by
 * a date rule), deleted by a stop that is not that restart's: a resource
 * disabled, deleted, moved or failed over leaves no faultmon constraint in
 * the CIB.  Not deleted by the loop once the restart is done: with
 * resource-stickiness 0, a constraint removed is a transition that may move
 * the resource it kept (tests/cluster/restart-inplace-3node.sh).
 */
/* cibadmin run with its argument vector, in the detached process: what it
 * says is not read (105: no constraint, the common case). */
static void
run_cibadmin(void *arg)
{
    char out[512];

    (void) fm_ocf_run(arg, out, sizeof(out), NULL, 2000);
}

void
fm_ocf_stay_clear(const struct fm_ocf *ocf, const char *rsc_id)
{
    struct fm_run_state *st = calloc(1, sizeof(*st));
    const char *node = getenv("OCF_RESKEY_CRM_meta_on_node");
    char err[256];
    char id[FM_RESOURCE_NAME_MAX];
    char xml[FM_RESOURCE_NAME_MAX + 64];
    char dir[FM_OCF_PATH_MAX];
    char cibadmin[FM_OCF_PATH_MAX + 16];
    char *argv[7];
    const char *slash = NULL;
    bool restarting = false;

    if (st != NULL && ocf->have_state_dir && fm_state_read(ocf->state_dir, st, err, sizeof(err)) == 0) {
        restarting = (st->pending == FM_ACTION_RESTART);
    }
    free(st);
    if (restarting || node == NULL || node[0] == '\0') {
        return;                     /* the restart's own stop, or no cluster */
    }
    if (rsc_id != NULL) {
        snprintf(id, sizeof(id), "%s", rsc_id);
    } else {
        primitive_id(ocf, id, sizeof(id));
    }
    if (id[0] == '\0' || id[strcspn(id, "&<>\"' ")] != '\0') {
        return;
    }
    snprintf(xml, sizeof(xml), "<rsc_location id=\"faultmon-stay-%s\"/>", id);
    snprintf(dir, sizeof(dir), "%s", fm_ocf_attrd_updater_path());
    slash = strrchr(dir, '/');
    snprintf(cibadmin, sizeof(cibadmin), "%.*s/cibadmin", (slash != NULL)? (int) (slash - dir) : 0, dir);
    if (access(cibadmin, X_OK) != 0) {
        return;
    }
    argv[0] = cibadmin;
    argv[1] = (char *) "--delete";
    argv[2] = (char *) "--scope";
    argv[3] = (char *) "constraints";
    argv[4] = (char *) "--xml-text";
    argv[5] = xml;
    argv[6] = NULL;
    /* Not waited for: with the CIB frozen, the stop waited out the
     * 2 s on the way to a failover (tests/cluster/frozen-daemons.sh).  The
     * constraint goes all the same, once the CIB answers, within its
     * bound; 105: there was none (the common case), nothing to say. */
    fm_ocf_detached(run_cibadmin, argv);
}

static bool
cib_query(const char *xpath, char *out, size_t out_len)
{
    return cib_query_status(xpath, out, out_len) == 0;
}

bool
fm_ocf_meta_attr(const struct fm_ocf *ocf, const char *name, char *buf, size_t buf_len)
{
    char id[FM_RESOURCE_NAME_MAX];
    char xpath[512];
    char out[4096];
    const char *p = NULL;

    primitive_id(ocf, id, sizeof(id));
    snprintf(xpath, sizeof(xpath), "//primitive[@id='%s']/meta_attributes/nvpair[@name='%s']", id, name);
    if (!cib_query(xpath, out, sizeof(out))) {
        snprintf(xpath, sizeof(xpath), "//rsc_defaults/meta_attributes/nvpair[@name='%s']", name);
        if (!cib_query(xpath, out, sizeof(out))) {
            return false;
        }
    }
    p = strstr(out, " value=\"");
    if (p == NULL) {
        return false;
    }
    p += 8;
    snprintf(buf, buf_len, "%.*s", (int) strcspn(p, "\""), p);
    return true;
}

bool
fm_ocf_monitor_op(const struct fm_ocf *ocf, uint64_t *interval_ms, uint64_t *timeout_ms)
{
    char xpath[256];
    char id[FM_RESOURCE_NAME_MAX];
    char *out = calloc(1, 65536);
    const char *p = NULL;
    bool found = false;

    *interval_ms = 0;
    *timeout_ms = 0;
    if (out == NULL || ocf->resource == NULL) {
        free(out);
        return false;
    }
    primitive_id(ocf, id, sizeof(id));
    snprintf(xpath, sizeof(xpath), "//primitive[@id='%s']/operations/op[@name='monitor']", id);
    if (!cib_query(xpath, out, 65536)) {
        free(out);
        return false;
    }
    /* Each <op .../>: the shortest interval, and that op's timeout. */
    for (p = strstr(out, "<op "); p != NULL; p = strstr(p + 4, "<op ")) {
        const char *end = strchr(p, '>');
        uint64_t iv = 0;

        if (end == NULL) {
            break;
        }
        iv = xml_attr_ms(p, end, "interval");
        if (iv > 0 && (!found || iv < *interval_ms)) {
            *interval_ms = iv;
            *timeout_ms = xml_attr_ms(p, end, "timeout");
            found = true;
        }
    }
    free(out);
    return found;
}

/* An attribute of the first element of \p xml, up to that element's '>'. */
static void
first_tag_attr(const char *xml, const char *name, char *buf, size_t buf_len)
{
    const char *end = strchr(xml, '>');
    char key[32];

    snprintf(key, sizeof(key), " %s=\"", name);
    /* No '>': no element, no attribute. */
    fm_ocf_text_value(xml, (end != NULL)? end : xml, key, "\">", buf, buf_len);
}

int
fm_ocf_cib_primitive(const char *id, struct fm_ocf_cib_rsc *rsc)
{
    char xpath[FM_RESOURCE_NAME_MAX * 2 + 128];
    char *out = calloc(1, 65536);
    const char *tag = NULL;
    int status = 0;
    int rc = 0;

    memset(rsc, 0, sizeof(*rsc));
    if (out == NULL) {
        return ENOMEM;
    }
    /* The caller checked that id is an XML ID: no quote can end the literal. */
    snprintf(xpath, sizeof(xpath), "//resources//primitive[@id='%s']", id);
    status = cib_query_status(xpath, out, 65536);
    if (status == 105) {
        snprintf(xpath, sizeof(xpath), "//resources//*[@id='%s']", id);
        rc = (cib_query_status(xpath, out, 65536) == 0)? EISDIR : ENOENT;
        /* The element's name: "<group id=...". */
        if (rc == EISDIR && out[0] == '<') {
            snprintf(rsc->kind, sizeof(rsc->kind), "%.*s", (int) strcspn(out + 1, " />"), out + 1);
        }
    } else if (status != 0 || (tag = strstr(out, "<primitive ")) == NULL) {
        rc = ENOTCONN;
    } else {
        first_tag_attr(tag, "class", rsc->standard, sizeof(rsc->standard));
        first_tag_attr(tag, "provider", rsc->provider, sizeof(rsc->provider));
        first_tag_attr(tag, "type", rsc->type, sizeof(rsc->type));
        snprintf(xpath, sizeof(xpath),
                 "//clone//primitive[@id='%s'] | //bundle//primitive[@id='%s'] | //master//primitive[@id='%s']",
                 id, id, id);
        rsc->cloned = (cib_query_status(xpath, out, 65536) == 0);
        rc = (rsc->standard[0] != '\0' && rsc->type[0] != '\0')? 0 : ENOTCONN;
    }
    free(out);
    return rc;
}

bool
fm_ocf_cib_guard_placed(const char *guarded, const char *guard)
{
    char xpath[FM_RESOURCE_NAME_MAX * 4 + 160];
    char out[4096];
    bool ordered = false;
    bool colocated = false;

    /* A group whose members are the two, the guarded one first. */
    snprintf(xpath, sizeof(xpath), "//group[primitive[@id='%s']/following-sibling::primitive[@id='%s']]",
             guarded, guard);
    if (cib_query(xpath, out, sizeof(out))) {
        return true;
    }
    snprintf(xpath, sizeof(xpath), "//rsc_order[@first='%s'][@then='%s']", guarded, guard);
    ordered = cib_query(xpath, out, sizeof(out));
    snprintf(xpath, sizeof(xpath), "//rsc_colocation[@rsc='%s'][@with-rsc='%s']", guard, guarded);
    colocated = cib_query(xpath, out, sizeof(out));
    return ordered && colocated;
}
