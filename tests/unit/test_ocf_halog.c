/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the agents' lines in Pacemaker's log file
 * (agents/ocf/ocf_halog.c), in the form resource-agents' ocf_log writes them
 * (the expected lines are ocf-shellfuncs' own output, with its date and pid),
 * at a pretend time, and where they may be written.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "ocf_common.h"
#include "ocf_tmpdir.h"

static const char *const files[] = { "log", "debug", "link", "fifo", "missing", NULL };

static int
group_setup(void **state)
{
    (void) state;
    /* As the executor runs agents: stdin is not a terminal. */
    if (freopen("/dev/null", "r", stdin) == NULL) {
        return -1;
    }
    return ocf_tmpdir_make("test_ocf_halog");
}

static int
group_teardown(void **state)
{
    (void) state;
    return ocf_tmpdir_remove(files);
}

static const char *
tmp_path(const char *name)
{
    static char path[4][512];
    static int next = 0;

    next = (next + 1) % 4;
    snprintf(path[next], sizeof(path[next]), "%s/%s", ocf_tmpdir, name);
    return path[next];
}

/* The file's text ("" when it cannot be read). */
static const char *
slurp(const char *path)
{
    static char text[4096];
    FILE *in = fopen(path, "r");
    size_t n = 0;

    text[0] = '\0';
    if (in != NULL) {
        n = fread(text, 1, sizeof(text) - 1, in);
        text[n] = '\0';
        fclose(in);
    }
    return text;
}

static void
make_empty(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    assert_true(fd >= 0);
    close(fd);
}

/* Dec 1, 20:05:09: a one-digit day shows what the shell does to HA_DATEFMT. */
static struct tm
pretend_time(void)
{
    struct tm tm;

    memset(&tm, 0, sizeof(tm));
    tm.tm_year = 2026 - 1900;
    tm.tm_mon = 11;
    tm.tm_mday = 1;
    tm.tm_hour = 20;
    tm.tm_min = 5;
    tm.tm_sec = 9;
    return tm;
}

/* ha_log's HA_LOGFILE line and its HA_DEBUGLOG line, byte for byte as
 * ocf-shellfuncs (resource-agents 4.x) writes them:
 *   Dec 01 20:06:19  sh(web)[28543]:    INFO: hello there
 *   sh(web)[28543]:<TAB>Dec 01 20:06:19 INFO: hello there */
static void
test_line_format(void **state)
{
    struct tm tm = pretend_time();
    char line[512];

    (void) state;
    fm_ocf_halog_line(line, sizeof(line), &tm, NULL, "apache(web)[42]", LOG_INFO, "monitor: ok", false);
    assert_string_equal(line, "Dec 01 20:05:09  apache(web)[42]:    INFO: monitor: ok\n");
    fm_ocf_halog_line(line, sizeof(line), &tm, NULL, "apache(web)[42]", LOG_ERR, "start: bad", true);
    assert_string_equal(line, "apache(web)[42]:\tDec 01 20:05:09 ERROR: start: bad\n");
    fm_ocf_halog_line(line, sizeof(line), &tm, "", "apache[42]", LOG_WARNING, "w", false);
    assert_string_equal(line, "Dec 01 20:05:09  apache[42]:    WARNING: w\n");
    fm_ocf_halog_line(line, sizeof(line), &tm, NULL, "t", LOG_DEBUG, "d", true);
    assert_string_equal(line, "t:\tDec 01 20:05:09 DEBUG: d\n");
}

/* HA_DATEFMT goes through the shell unquoted: its words joined by one
 * space, glued to the tag when it does not end in a blank. */
static void
test_datefmt_words(void **state)
{
    struct tm tm = pretend_time();
    char line[512];

    (void) state;
    fm_ocf_halog_line(line, sizeof(line), &tm, "%b %e  %T ", "t", LOG_NOTICE, "m", false);
    assert_string_equal(line, "Dec 1 20:05:09  t:    NOTICE: m\n");
    fm_ocf_halog_line(line, sizeof(line), &tm, "%F %T", "t", LOG_CRIT, "m", false);
    assert_string_equal(line, "2026-12-01 20:05:09 t:    CRIT: m\n");
    fm_ocf_halog_line(line, sizeof(line), &tm, "%F %T", "t", LOG_INFO, "m", true);
    assert_string_equal(line, "t:\t2026-12-01 20:05:09INFO: m\n");
}

static void
test_words(void **state)
{
    (void) state;
    assert_string_equal(fm_ocf_halog_word(LOG_ERR), "ERROR");
    assert_string_equal(fm_ocf_halog_word(LOG_WARNING), "WARNING");
    assert_string_equal(fm_ocf_halog_word(LOG_NOTICE), "NOTICE");
    assert_string_equal(fm_ocf_halog_word(LOG_INFO), "INFO");
    assert_string_equal(fm_ocf_halog_word(LOG_DEBUG), "DEBUG");
}

/* Appended to a regular file, through a symlink as `>>` does; never
 * created, never a FIFO (which would block) or a relative path. */
static void
test_append_where(void **state)
{
    const char *log = tmp_path("log");

    (void) state;
    make_empty(log);
    assert_int_equal(fm_ocf_halog_append(log, "one\n"), 0);
    assert_int_equal(fm_ocf_halog_append(log, "two\n"), 0);
    assert_string_equal(slurp(log), "one\ntwo\n");

    unlink(tmp_path("link"));
    assert_int_equal(symlink(log, tmp_path("link")), 0);
    assert_int_equal(fm_ocf_halog_append(tmp_path("link"), "three\n"), 0);
    assert_string_equal(slurp(log), "one\ntwo\nthree\n");

    assert_int_equal(fm_ocf_halog_append(tmp_path("missing"), "x\n"), ENOENT);
    assert_int_equal(access(tmp_path("missing"), F_OK), -1);
    unlink(tmp_path("fifo"));
    assert_int_equal(mkfifo(tmp_path("fifo"), 0600), 0);
    /* No reader: ENXIO at once (with one: EINVAL after the open). */
    assert_int_not_equal(fm_ocf_halog_append(tmp_path("fifo"), "x\n"), 0);
    assert_int_equal(fm_ocf_halog_append("relative.log", "x\n"), EINVAL);
    assert_int_equal(fm_ocf_halog_append("/dev/null", "x\n"), EINVAL);
    assert_int_not_equal(fm_ocf_halog_append(ocf_tmpdir, "x\n"), 0);
}

/* Where ocf_log would write: HA_LOGFILE, else PCMK_logfile; HA_DEBUGLOG
 * when another file, in its own form; debug lines only with HA_debug. */
static void
test_env(void **state)
{
    const char *log = tmp_path("log");
    const char *debug = tmp_path("debug");
    char tag[64];

    (void) state;
    unsetenv("HA_LOGTAG");
    unsetenv("HA_DATEFMT");
    unsetenv("HA_debug");
    unsetenv("HA_DEBUGLOG");
    unsetenv("PCMK_logfile");
    make_empty(log);
    make_empty(debug);
    snprintf(tag, sizeof(tag), "  apache(web)[%ld]:    INFO: monitor: ok\n", (long) getpid());

    setenv("HA_LOGFILE", log, 1);
    fm_ocf_halog(LOG_INFO, "apache", "web", "monitor: ok");
    assert_non_null(strstr(slurp(log), tag));
    fm_ocf_halog(LOG_DEBUG, "apache", "web", "not without HA_debug");
    assert_null(strstr(slurp(log), "HA_debug"));

    setenv("HA_DEBUGLOG", debug, 1);
    setenv("HA_debug", "1", 1);
    fm_ocf_halog(LOG_DEBUG, "apache", "web", "a debug line");
    assert_null(strstr(slurp(log), "a debug line"));
    assert_non_null(strstr(slurp(debug), ":\t"));
    assert_non_null(strstr(slurp(debug), " DEBUG: a debug line\n"));
    fm_ocf_halog(LOG_WARNING, "apache", "web", "both");
    assert_non_null(strstr(slurp(log), ":    WARNING: both\n"));
    assert_non_null(strstr(slurp(debug), " WARNING: both\n"));
    setenv("HA_debug", "0", 1);
    fm_ocf_halog(LOG_DEBUG, "apache", "web", "HA_debug=0");
    assert_null(strstr(slurp(debug), "HA_debug=0"));
    unsetenv("HA_DEBUGLOG");
    unsetenv("HA_debug");

    /* Pacemaker sets both; PCMK_logfile alone still counts. */
    make_empty(log);
    unsetenv("HA_LOGFILE");
    setenv("PCMK_logfile", log, 1);
    setenv("HA_LOGTAG", "custom-tag", 1);
    fm_ocf_halog(LOG_ERR, "apache", NULL, "fallback");
    assert_non_null(strstr(slurp(log), "  custom-tag:    ERROR: fallback\n"));
    unsetenv("HA_LOGTAG");
    fm_ocf_halog(LOG_ERR, "httpmon", NULL, "no resource");
    snprintf(tag, sizeof(tag), "  httpmon[%ld]:    ERROR: no resource\n", (long) getpid());
    assert_non_null(strstr(slurp(log), tag));
    unsetenv("PCMK_logfile");
    setenv("HA_logfile", log, 1);
    fm_ocf_halog(LOG_ERR, "httpmon", NULL, "compat spelling");
    assert_non_null(strstr(slurp(log), ":    ERROR: compat spelling\n"));
    unsetenv("HA_logfile");
}

/* A degraded service, a recovery under way, a hold: warnings in the
 * cluster's log, not errors; a failure an error; not running information. */
static void
test_fail_levels(void **state)
{
    const char *log = tmp_path("log");

    (void) state;
    unsetenv("HA_DEBUGLOG");
    unsetenv("HA_debug");
    unsetenv("PCMK_logfile");
    make_empty(log);
    setenv("HA_LOGFILE", log, 1);
    assert_int_equal(fm_ocf_fail(PCMK_OCF_DEGRADED, "restart asked, under way"), PCMK_OCF_DEGRADED);
    assert_non_null(strstr(slurp(log), ":    WARNING: -: restart asked, under way\n"));
    assert_int_equal(fm_ocf_hold(PCMK_OCF_INSUFFICIENT_PRIV, "held for manual resume"),
                     PCMK_OCF_INSUFFICIENT_PRIV);
    assert_non_null(strstr(slurp(log), ":    WARNING: -: held for manual resume\n"));
    assert_int_equal(fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "the loop died"), PCMK_OCF_UNKNOWN_ERROR);
    assert_non_null(strstr(slurp(log), ":    ERROR: -: the loop died\n"));
    assert_int_equal(fm_ocf_fail(PCMK_OCF_NOT_RUNNING, "stopped"), PCMK_OCF_NOT_RUNNING);
    assert_non_null(strstr(slurp(log), ":    INFO: -: stopped\n"));
    unsetenv("HA_LOGFILE");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_format),
        cmocka_unit_test(test_datefmt_words),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_append_where),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_fail_levels),
    };

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
