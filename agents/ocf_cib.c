/*
 * faultmon OCF agents: what Pacemaker does not pass to an agent and the
 * CIB says: a meta attribute of the resource (migration-threshold) and its
 * recurring monitor operation, read with cibadmin.
 */
#include <config.h>

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

/* cibadmin --query --xpath XPATH into out; cibadmin lives beside
 * attrd_updater (pacemaker-cli-utils). */
static bool
cib_query(const char *xpath, char *out, size_t out_len)
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
    return access(cibadmin, X_OK) == 0 && fm_ocf_run(argv, out, out_len, NULL, 5000) == 0;
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
