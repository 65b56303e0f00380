/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: what heartbeat's monitor tests of both web agents
 * share (apache's level 10, nginx's levels 10 and 20): the test
 * configuration file (testconffile, test20conffile), and a test checked as
 * the probe helper will take it and handed to it (FAULTMON_OCF_TEST_*).
 * Which test a level runs is each server's (ocf_apache_level10.c,
 * ocf_nginx.c).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faultmon/probe_opts.h>
#include <faultmon/regex_guard.h>
#include <faultmon/target.h>
#include <faultmon/text.h>

#include "ocf_web.h"

/* Without the blanks around it, in place. */
void
fm_web_trim(char *s)
{
    size_t len = strlen(s);
    char *p = s;

    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r')) {
        s[--len] = '\0';
    }
    while (*p == ' ' || *p == '\t') {
        p++;
    }
    memmove(s, p, strlen(p) + 1);
}

/* heartbeat's testconffile (apache) and test20conffile (nginx): the same
 * format and the same reader in both agents. */
int
fm_web_read_testconf(const char *what, const char *file, const char *name, char *url, size_t url_len,
                     char *regex, size_t regex_len, char *user, size_t user_len, char *password,
                     size_t password_len)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    FILE *in = NULL;
    struct stat st;
    char line[4096];
    bool in_test = false;
    bool found = false;
    int line_no = 0;

    url[0] = regex[0] = user[0] = password[0] = '\0';
    if (fd < 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_INSTALLED, "%s '%s' cannot be read on this node: %s",
                           what, file, strerror(errno));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s '%s' is not a regular file", what, file);
    }
    in = fdopen(fd, "r");
    if (in == NULL) {
        close(fd);
        return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s '%s': %s", what, file, strerror(errno));
    }
    while (fgets(line, sizeof(line), in) != NULL) {
        char *value = NULL;

        line_no++;
        line[strcspn(line, "\n")] = '\0';
        fm_web_trim(line);
        value = line + strcspn(line, " \t");
        if (*value != '\0') {
            *value++ = '\0';
            fm_web_trim(value);
        }
        if (!in_test) {
            if (strcmp(line, "test") == 0 && (name == NULL || name[0] == '\0' || strcmp(value, name) == 0)) {
                in_test = true;
                found = true;
            }
            continue;
        }
        if (strcmp(line, "end") == 0) {
            break;
        } else if (strcmp(line, "url") == 0) {
            snprintf(url, url_len, "%s", value);
        } else if (strcmp(line, "match") == 0) {
            snprintf(regex, regex_len, "%s", value);
        } else if (strcmp(line, "user") == 0) {
            snprintf(user, user_len, "%s", value);
        } else if (strcmp(line, "password") == 0) {
            snprintf(password, password_len, "%s", value);
        } else if (strcmp(line, "client") == 0 || strcmp(line, "client_opts") == 0
                   || line[0] == '#' || line[0] == '\0') {
            continue;
        } else {
            fclose(in);
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s '%s' line %d: unknown keyword '%s'",
                               what, file, line_no, line);
        }
    }
    fclose(in);
    explicit_bzero(line, sizeof(line));
    if (!found) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s '%s' has no test%s%s", what, file,
                           (name != NULL && name[0] != '\0')? " named " : "",
                           (name != NULL)? name : "");
    }
    if (url[0] == '\0' || regex[0] == '\0') {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s '%s': the test needs url and match", what, file);
    }
    if ((user[0] == '\0') != (password[0] == '\0')) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s '%s': user and password go together", what, file);
    }
    return PCMK_OCF_OK;
}

/* The test's URL and regex, checked as the probe helper will take them;
 * \p folded receives the regex matched regardless of case. */
static int
check_test(const char *url_what, const char *regex_what, const char *full, const char *regex, char *folded,
           size_t folded_len)
{
    struct fm_target target;
    struct fm_probe_opts opts;
    char err[512];

    if (fm_target_parse(full, true, &target, err, sizeof(err)) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s: %s", url_what, err);
    }
    fm_target_clear(&target);
    if (fm_regex_check(regex, err, sizeof(err)) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s: invalid regex '%.64s%s': %s", regex_what, regex,
                           (strlen(regex) > 64)? "..." : "", err);
    }
    if (fm_ocf_regex_icase(regex, folded, folded_len) != 0) {
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "test regex '%s' is too long", regex);
    }
    fm_probe_opts_init(&opts);
    if (fm_probe_opts_set_receive(&opts, folded, err, sizeof(err)) != 0) {
        fm_probe_opts_clear(&opts);
        return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s: invalid regex '%s': %s", regex_what, regex, err);
    }
    fm_probe_opts_clear(&opts);
    return PCMK_OCF_OK;
}

/* FAULTMON_OCF_TEST_HEADER: HTTP Basic credentials, wiped after use. */
static void
export_basic_auth(const char *user, const char *password)
{
    char pair[1100];
    char b64[1600];
    char header[1700];

    snprintf(pair, sizeof(pair), "%s:%s", user, password);
    /* b64 holds FM_BASE64_SIZE(sizeof(pair)): this cannot fail. */
    (void) fm_base64_encode(pair, strlen(pair), b64, sizeof(b64));
    snprintf(header, sizeof(header), "Authorization: Basic %s", b64);
    setenv("FAULTMON_OCF_TEST_HEADER", header, 1);
    explicit_bzero(pair, sizeof(pair));
    explicit_bzero(b64, sizeof(b64));
    explicit_bzero(header, sizeof(header));
}

int
fm_web_test_export(const char *url_what, const char *regex_what, const char *full, const char *regex,
                   const char *user, const char *password, bool check_only)
{
    char folded[4096];
    int rc = check_test(url_what, regex_what, full, regex, folded, sizeof(folded));

    if (rc == PCMK_OCF_OK && !check_only) {
        setenv("FAULTMON_OCF_TEST_URL", full, 1);
        setenv("FAULTMON_OCF_TEST_REGEX", folded, 1);
        if (user != NULL && user[0] != '\0') {
            export_basic_auth(user, password);
        }
    }
    return rc;
}
