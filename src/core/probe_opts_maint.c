/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: service-signalled maintenance (libfmcore, libc only).
 *
 * A service can ask to be drained while it still answers: a status chosen
 * for it (HAProxy's disable-on-404), a header (Envoy's x-envoy-degraded), or
 * a string in the reply (F5's receive-disable string).  Such a reply is
 * judged FM_REASON_MAINTENANCE: no failure, no weight, the state degraded
 * (OCF 190), so that an administrator can drain a node from the application
 * side without the cluster restarting anything.  (maintenance_regex is set
 * in probe_opts.c, where every regex setter shares one helper.)
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/probe_opts.h>
#include <faultmon/status_set.h>
#include <faultmon/target.h>
#include <faultmon/text.h>

/* The first server error (5xx) in \p set, or 0 when it has none. */
static int
first_server_error(const struct fm_status_set *set)
{
    for (int status = 500; status <= 599; status++) {
        if (fm_status_set_has(set, status)) {
            return status;
        }
    }
    return 0;
}

int
fm_probe_opts_set_maintenance_status(struct fm_probe_opts *opts, const char *list,
                                     char *err, size_t err_len)
{
    struct fm_status_set set;
    int rc = fm_status_set_parse(&set, list, err, err_len);
    int server_error = 0;

    if (rc != 0) {
        return rc;
    }
    /* maintenance_status is checked before expect_status: a 5xx in it
     * would turn a real outage's 503 into maintenance, degraded and never
     * recovered.  A service that drains says so with a status it chose
     * (404), a header or a string, never with a server error. */
    server_error = first_server_error(&set);
    if (server_error != 0) {
        char code[8];

        snprintf(code, sizeof(code), "%d", server_error);
        if (strcmp(code, list) == 0) {
            return fm_errf(err, err_len, EINVAL,
                           "%d is a server error; a 5xx never signals maintenance (it is a failure)",
                           server_error);
        }
        return fm_errf(err, err_len, EINVAL,
                       "%d (in '%s') is a server error; a 5xx never signals maintenance (it is a failure)",
                       server_error, list);
    }
    opts->maintenance_status = set;
    opts->have_maintenance_status = true;
    return 0;
}

int
fm_probe_opts_set_maintenance_header(struct fm_probe_opts *opts, const char *name,
                                     char *err, size_t err_len)
{
    size_t len = strlen(name);
    char *copy = NULL;

    /* A field name is a token (RFC 9110 section 5.1). */
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char) name[i];

        if (!isalnum(ch) && strchr("!#$%&'*+-.^_`|~", ch) == NULL) {
            return fm_errf(err, err_len, EINVAL,
                           "invalid header name '%s': letters, digits and !#$%%&'*+-.^_`|~ only",
                           name);
        }
    }
    if (len == 0 || len > 128) {
        return fm_errf(err, err_len, EINVAL, "invalid header name '%s': 1 to 128 characters", name);
    }
    copy = strdup(name);
    if (copy == NULL) {
        return ENOMEM;
    }
    free(opts->maintenance_header);
    opts->maintenance_header = copy;
    return 0;
}

void
fm_probe_opts_clear_maintenance(struct fm_probe_opts *opts)
{
    if (opts->have_maintenance_regex) {
        regfree(&opts->maintenance_regex);
    }
    free(opts->maintenance_text);
    free(opts->maintenance_header);
    fm_regex_linear_free(&opts->maintenance_linear);
    opts->have_maintenance_regex = false;
    opts->have_maintenance_linear = false;
    opts->maintenance_text = NULL;
    opts->maintenance_header = NULL;
    opts->have_maintenance_status = false;
}
