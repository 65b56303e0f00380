/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the actions of ocf:faultmon:httpmon, a monitor-only
 * agent that publishes the fault monitor's verdict as node attributes
 * (like ocf:pacemaker:ping) instead of asking Pacemaker for recovery.
 */
#include <config.h>

#include "ocf_httpmon.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <faultmon/attrd.h>
#include <faultmon/parse.h>
#include <faultmon/state.h>
#include <faultmon/target.h>

#define DEFAULT_NAME "faultmon-httpmon"
#define DEFAULT_DAMPEN "5s"
#define HEALTH_PREFIX "#health-"

struct httpmon {
    struct fm_ocf *ocf;
    const char *name;
    const char *dampen;
    long multiplier;
    const char *health;             /* NULL: none */
};

static int
httpmon_params(struct httpmon *h)
{
    const char *mult = fm_ocf_param("multiplier");
    uint64_t ms = 0;

    h->name = fm_ocf_param_or("name", DEFAULT_NAME);
    h->dampen = fm_ocf_param_or("dampen", DEFAULT_DAMPEN);
    h->health = fm_ocf_param_or("health_attribute", NULL);
    h->multiplier = 1;
    if (!h->ocf->have_state_dir) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "OCF_RESOURCE_INSTANCE '%s' is not a usable resource name",
                           (h->ocf->resource != NULL)? h->ocf->resource : "");
    }
    for (const char *p = h->name; *p != '\0'; p++) {
        if ((unsigned char) *p < 0x21 || *p == 0x7f) {
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid name '%s': no blanks or control characters",
                               h->name);
        }
    }
    if (fm_parse_duration_ms(h->dampen, &ms) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid dampen '%s': expected a duration such as 5s",
                           h->dampen);
    }
    if (mult != NULL && mult[0] != '\0') {
        int64_t v = 0;

        if (fm_parse_i64(mult, 1, 1000000, FM_PARSE_DEFAULT, &v) != 0) {
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "invalid multiplier '%s': expected 1-1000000", mult);
        }
        h->multiplier = (long) v;
    }
    if (h->health != NULL) {
        if (strncmp(h->health, HEALTH_PREFIX, strlen(HEALTH_PREFIX)) != 0
            || h->health[strlen(HEALTH_PREFIX)] == '\0' || strpbrk(h->health, " \t\r\n") != NULL) {
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                               "invalid health_attribute '%s': expected a name starting with '" HEALTH_PREFIX "'",
                               h->health);
        }
    }
    return PCMK_OCF_OK;
}

static int
httpmon_validate(struct httpmon *h)
{
    int rc = httpmon_params(h);

    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_validate_loop_params(h->ocf, NULL);
    }
    if (rc == PCMK_OCF_OK && access(fm_ocf_faultmon_path(), X_OK) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "the faultmon program %s is missing", fm_ocf_faultmon_path());
    }
    if (rc == PCMK_OCF_OK && access(fm_ocf_attrd_updater_path(), X_OK) != 0) {
        rc = fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "%s is missing (Debian: pacemaker-cli-utils)",
                         fm_ocf_attrd_updater_path());
    }
    return rc;
}

/* attrd_updater, never a shell; a cluster that is not there is a warning. */
static void
attrd(const struct httpmon *h, const char *name, const char *value)
{
    char out[512];
    uint64_t left_ms = fm_ocf_left_ms(h->ocf);
    int status = fm_attrd_update(fm_ocf_attrd_updater_path(), name, value, h->dampen,
                                 (left_ms > 5000)? 5000 : left_ms, out, sizeof(out));

    if (status != 0) {
        fm_ocf_log(LOG_WARNING, "attrd_updater could not %s %s (status %d): %s",
                   (value != NULL)? "set" : "delete", name, status, out);
    }
}

/* The verdict of a state: down once the engine found the service unhealthy,
 * until rise successes (or, held, until resumed); degraded in the engine's
 * degraded and flapping states.  The loop runs with --kind=httpmon: it asks
 * nobody for recovery, and its state speaks of "unhealthy", not restarts. */
static void
publish_verdict(const struct httpmon *h, bool down, bool degraded)
{
    char value[32];

    snprintf(value, sizeof(value), "%ld", down? 0L : h->multiplier);
    attrd(h, h->name, value);
    if (h->health != NULL) {
        attrd(h, h->health, down? "red" : degraded? "yellow" : "green");
    }
}

static void
publish(const struct httpmon *h, const struct fm_run_state *st)
{
    publish_verdict(h, st->decide.down != 0 || st->decide.held != 0,
                    st->state == FM_STATE_DEGRADED || st->state == FM_STATE_FLAPPING);
}

/*
 * A state the reader refuses is no verdict either way (it may be the loop's
 * own file that the reader refuses at every cycle): the attributes come from
 * a fresh probe of the targets, as the apache agent's monitor answers then,
 * never left at the last verdict.  A complete failure is down, a partial one
 * degraded.  The monitor answers 190 with the reason: crm_mon shows it, and
 * Pacemaker does not recover an observer for it.
 */
static int
publish_fresh(struct httpmon *h, const char *why)
{
    uint64_t probe_timeout_ms = 0;
    int rc = PCMK_OCF_OK;

    fm_ocf_log(LOG_WARNING, "%s; no verdict from it: probing afresh", why);
    rc = fm_ocf_validate_loop_params(h->ocf, &probe_timeout_ms);
    if (rc == PCMK_OCF_OK) {
        rc = fm_ocf_fresh_probe(h->ocf, probe_timeout_ms);
    }
    if (rc == PCMK_OCF_OK || rc == PCMK_OCF_DEGRADED || rc == PCMK_OCF_UNKNOWN_ERROR) {
        publish_verdict(h, rc == PCMK_OCF_UNKNOWN_ERROR, rc == PCMK_OCF_DEGRADED);
    }
    return fm_ocf_fail(PCMK_OCF_DEGRADED, "no verdict from the fault monitor's state (%s): published from "
                       "a fresh probe: %s", why, (rc == PCMK_OCF_OK)? "ok" : (rc == PCMK_OCF_DEGRADED)?
                       "partial failure" : (rc == PCMK_OCF_UNKNOWN_ERROR)? "complete failure" : "none");
}

static int
httpmon_start(struct httpmon *h)
{
    struct fm_ocf_record rec;
    struct fm_run_state *st = NULL;
    char err[512];
    int rc = PCMK_OCF_OK;

    fm_ocf_policy_clear(h->ocf);
    rc = httpmon_validate(h);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    if (fm_state_loop_pid(h->ocf->state_dir) != 0) {
        fm_ocf_log(LOG_INFO, "already running");
        if (fm_state_read(h->ocf->state_dir, st, err, sizeof(err)) == 0) {
            publish(h, st);
        }
    } else {
        rc = fm_state_dir_create(h->ocf->state_dir);
        if (rc != 0) {
            free(st);
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot create %s: %s", h->ocf->state_dir,
                               strerror(rc));
        }
        memset(&rec, 0, sizeof(rec));
        fm_ocf_record_set(&rec, "agent", "httpmon");
        fm_ocf_record_set(&rec, "name", h->name);
        fm_ocf_record_set(&rec, "health_attribute", (h->health != NULL)? h->health : "");
        rc = fm_ocf_record_write(h->ocf->state_dir, &rec);
        if (rc != 0) {
            free(st);
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "cannot write %s/agent: %s", h->ocf->state_dir,
                               strerror(rc));
        }
        rc = fm_ocf_loop_start(h->ocf, "--kind=" FM_KIND_HTTPMON, st);
        if (rc == PCMK_OCF_OK) {
            publish(h, st);
        } else {
            fm_ocf_record_remove(h->ocf->state_dir);
        }
    }
    free(st);
    return rc;
}

static int
httpmon_stop(struct httpmon *h)
{
    struct fm_ocf_record rec;
    int rc = httpmon_params(h);

    if (rc != PCMK_OCF_OK && !h->ocf->have_state_dir) {
        return rc;
    }
    if (!fm_ocf_loop_stop(h->ocf, 2000)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor does not stop");
    }
    if (fm_ocf_record_read(h->ocf->state_dir, &rec) == 0) {
        const char *name = fm_ocf_record_get(&rec, "name");
        const char *health = fm_ocf_record_get(&rec, "health_attribute");

        if (access(fm_ocf_attrd_updater_path(), X_OK) == 0) {
            attrd(h, (name != NULL && name[0] != '\0')? name : h->name, NULL);
            if (health != NULL && health[0] != '\0') {
                attrd(h, health, NULL);
            }
        }
        fm_ocf_record_remove(h->ocf->state_dir);
    }
    fm_ocf_stop_attributes(h->ocf);
    return PCMK_OCF_OK;
}

static int
httpmon_monitor(struct httpmon *h)
{
    struct fm_ocf_record rec;
    struct fm_run_state *st = NULL;
    char err[512];
    int rc = PCMK_OCF_OK;

    if (!h->ocf->have_state_dir) {
        return httpmon_params(h);
    }
    if (fm_ocf_record_read(h->ocf->state_dir, &rec) != 0) {
        return PCMK_OCF_NOT_RUNNING;
    }
    rc = httpmon_params(h);
    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
    }
    if (fm_state_loop_pid(h->ocf->state_dir) == 0) {
        fm_ocf_log(LOG_WARNING, "the fault monitor is not running; restarting it");
        rc = fm_ocf_loop_start(h->ocf, "--kind=" FM_KIND_HTTPMON, st);
        if (rc != PCMK_OCF_OK) {
            free(st);
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the fault monitor died and could not be restarted");
        }
    } else {
        rc = fm_ocf_loop_state_read(h->ocf, st, err, sizeof(err));
        if (rc != 0) {
            free(st);
            /* ENOENT: its first cycle is under way. */
            return (rc == ENOENT)? PCMK_OCF_OK : publish_fresh(h, err);
        }
    }
    publish(h, st);
    free(st);
    return PCMK_OCF_OK;
}

/*
 * reload (Pacemaker's, for parameters without unique="1"): the loop is
 * restarted with the new parameters and keeps its history; the attributes
 * stay published throughout (deleting them would move what follows them),
 * except those whose name changed, which go.
 */
static int
httpmon_reload(struct httpmon *h)
{
    struct fm_ocf_record rec;
    struct httpmon fresh;
    const char *old = NULL;
    int rc = httpmon_validate(h);

    if (rc != PCMK_OCF_OK) {
        return rc;
    }
    if (fm_ocf_record_read(h->ocf->state_dir, &rec) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_RUNNING, "not started here: nothing to reload");
    }
    if (!fm_ocf_loop_stop(h->ocf, 2000)) {
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "reload: the fault monitor does not stop");
    }
    old = fm_ocf_record_get(&rec, "name");
    if (old != NULL && old[0] != '\0' && strcmp(old, h->name) != 0) {
        attrd(h, old, NULL);
    }
    old = fm_ocf_record_get(&rec, "health_attribute");
    if (old != NULL && old[0] != '\0' && (h->health == NULL || strcmp(old, h->health) != 0)) {
        attrd(h, old, NULL);
    }
    fm_ocf_log(LOG_NOTICE, "reload: restarting the fault monitor with the new parameters");
    memset(&fresh, 0, sizeof(fresh));
    fresh.ocf = h->ocf;
    return httpmon_start(&fresh);
}

int
fm_ocf_httpmon_main(struct fm_ocf *ocf)
{
    struct httpmon h;

    memset(&h, 0, sizeof(h));
    h.ocf = ocf;
    if (strcmp(ocf->action, "start") == 0) {
        return httpmon_start(&h);
    }
    if (strcmp(ocf->action, "stop") == 0) {
        return httpmon_stop(&h);
    }
    if (strcmp(ocf->action, "monitor") == 0) {
        return httpmon_monitor(&h);
    }
    if (strcmp(ocf->action, "validate-all") == 0) {
        return httpmon_validate(&h);
    }
    if (strcmp(ocf->action, "reload") == 0) {
        return httpmon_reload(&h);
    }
    return PCMK_OCF_UNIMPLEMENT_FEATURE;
}
