/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: ocf:faultmon:apache's OCF_CHECK_LEVEL=10 test, as
 * ocf:heartbeat:apache defines it (testurl and testregex10, or a test of
 * testconffile), checked and handed to the probe helper.
 */
#include <config.h>

#include "ocf_apache.h"

#include <stdio.h>
#include <string.h>

#include "ocf_web.h"

/* The test in the resource's parameters: testurl and testregex10. */
static int
testurl_params(char *url, size_t url_len, char *regex, size_t regex_len)
{
    /* Cut, a URL would name another page and a regex match more. */
    if (strlen(fm_ocf_param("testurl")) >= url_len
        || (fm_web_param_set("testregex10") && strlen(fm_ocf_param("testregex10")) >= regex_len)) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testurl or testregex10 is longer than %zu bytes",
                           url_len - 1);
    }
    snprintf(url, url_len, "%s", fm_ocf_param("testurl"));
    fm_web_trim(url);
    if (url[0] == '\0') {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testurl '%s' is empty", fm_ocf_param("testurl"));
    }
    if (!fm_web_param_set("testregex10")) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "testurl '%s' needs testregex10", url);
    }
    snprintf(regex, regex_len, "%s", fm_ocf_param("testregex10"));
    return PCMK_OCF_OK;
}

int
fm_apache_level10_prepare(const struct fm_ocf *ocf, const char *base_url, const char *status_url,
                          bool check_only)
{
    const char *conffile = fm_ocf_param("testconffile");
    char url[FM_WEB_URL_MAX] = "";
    char regex[FM_WEB_URL_MAX] = "";
    char user[512] = "";
    char password[512] = "";
    char full[2 * FM_WEB_URL_MAX];     /* base URL and testurl */
    int rc = PCMK_OCF_OK;

    (void) ocf;
    (void) status_url;
    if (conffile != NULL && conffile[0] != '\0') {
        rc = fm_web_read_testconf("testconffile", conffile, fm_ocf_param("testname"), url, sizeof(url), regex,
                                  sizeof(regex), user, sizeof(user), password, sizeof(password));
    } else if (fm_ocf_param("testurl") != NULL) {
        rc = testurl_params(url, sizeof(url), regex, sizeof(regex));
    } else {
        return PCMK_OCF_OK;
    }
    if (rc == PCMK_OCF_OK) {
        fm_web_absolute_url(base_url, url, full, sizeof(full));
        bool in_file = (conffile != NULL && conffile[0] != '\0');

        rc = fm_web_test_export(in_file? "testconffile url" : "testurl",
                                in_file? "testconffile match" : "testregex10", full, regex, user, password,
                                check_only);
    }
    explicit_bzero(password, sizeof(password));
    return rc;
}
