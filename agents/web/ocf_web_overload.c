/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * overload_status_url=auto for the web agents (ocf_web_overload.h).
 *
 * The configuration readers already find the status page: Apache's last
 * <Location> with SetHandler server-status (ocf_apache_conf.c), nginx's
 * last location with stub_status (ocf_nginx_conf.c), each joined to the
 * base URL of the first Listen.  Without such a location they leave the
 * base URL alone (nginx) or with "/" (Apache): there is then nothing to
 * read, and validate-all says so, since "auto" asked for overload to be
 * told and it could not be.  The value goes to the loop as its parameter
 * (OCF_RESKEY_overload_status_url of this process), on every start,
 * validate-all and restart of the loop from the record, which keeps the
 * status URL the start found.
 */
#include <config.h>

#include "ocf_web_overload.h"

#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include <crm/common/results.h>

#include "ocf_common.h"

#define FM_WEB_OVERLOAD_URL_MAX 1100

int
fm_web_overload_url(bool apache, const char *status_url, const char *base_url)
{
    const char *given = fm_ocf_param("overload_status_url");
    size_t base_len = strlen(base_url);
    const char *path = status_url;
    char url[FM_WEB_OVERLOAD_URL_MAX];

    if (given == NULL || strcmp(given, "auto") != 0) {
        return PCMK_OCF_OK;
    }
    if (base_len > 0 && strncmp(status_url, base_url, base_len) == 0) {
        path = status_url + base_len;
    } else if (strncmp(status_url, "http://", 7) != 0 && strncmp(status_url, "https://", 8) != 0) {
        path = "";
    }
    if (path[0] == '\0' || strcmp(path, "/") == 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED,
                           "overload_status_url=auto: the configuration has no %s to read; "
                           "enable it or give overload_status_url",
                           apache? "<Location> with SetHandler server-status (mod_status)"
                                 : "location with stub_status");
    }
    if (snprintf(url, sizeof(url), "%s%s", status_url, (apache && strchr(path, '?') == NULL)? "?auto" : "")
        >= (int) sizeof(url)) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "overload_status_url=auto: the status URL %.64s... is too long",
                           status_url);
    }
    fm_ocf_param_set("overload_status_url", url);
    fm_ocf_log(LOG_INFO, "overload_status_url=auto: %s, from the configuration", url);
    return PCMK_OCF_OK;
}
