/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: what ocf:faultmon:apache reads from an Apache configuration:
 * Listen (the default Port_list) through Include and IncludeOptional, with
 * IfModule, IfDefine and Define; PidFile; the server-status location; and
 * include loops, however they are disguised, refused at once.
 */
#include <config.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "ocf_apache.h"
#include "ocf_conf_chain.h"

static char dir[PATH_MAX];

static void
write_file(const char *name, const char *text)
{
    char path[PATH_MAX + 64];
    FILE *out = NULL;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    out = fopen(path, "w");
    assert_non_null(out);
    fputs(text, out);
    fclose(out);
}

static int
setup(void **state)
{
    char tmpl[] = "/tmp/faultmon-test-conf.XXXXXX";
    char path[PATH_MAX + 64];

    (void) state;
    if (mkdtemp(tmpl) == NULL) {
        return -1;
    }
    snprintf(dir, sizeof(dir), "%s", tmpl);
    snprintf(path, sizeof(path), "%s/mods-enabled", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/sites", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/sites/nested", dir);
    mkdir(path, 0755);
    return 0;
}

static int
teardown(void **state)
{
    char cmd[PATH_MAX + 16];

    (void) state;
    /* The test's own temp dir: remove it file by file. */
    const char *files[] = { "apache2.conf", "ports.conf", "mods-enabled/status.load",
                            "mods-enabled/status.conf", "mods-enabled/ssl.load",
                            "sites/a.conf", "sites/nested/b.conf", NULL };
    for (size_t i = 0; files[i] != NULL; i++) {
        snprintf(cmd, sizeof(cmd), "%s/%s", dir, files[i]);
        unlink(cmd);
    }
    snprintf(cmd, sizeof(cmd), "%s/sites/nested", dir);
    rmdir(cmd);
    snprintf(cmd, sizeof(cmd), "%s/sites", dir);
    rmdir(cmd);
    snprintf(cmd, sizeof(cmd), "%s/mods-enabled", dir);
    rmdir(cmd);
    rmdir(dir);
    return 0;
}

static void
read_conf(struct fm_web_conf *conf, char *const *defines, size_t n_defines)
{
    char path[PATH_MAX + 64];
    char err[256] = "";

    snprintf(path, sizeof(path), "%s/apache2.conf", dir);
    assert_int_equal(fm_apache_conf_read(path, defines, n_defines, conf, err, sizeof(err)), 0);
}

/* Debian's layout: ports.conf with an IfModule for ssl, modules loaded by
 * an IncludeOptional glob, ServerRoot defaulting to the file's directory. */
static void
test_debian_layout(void **state)
{
    struct fm_web_conf *conf = calloc(1, sizeof(*conf));
    char list[512];
    char pid[PATH_MAX];
    char want[PATH_MAX + 64];
    char *defines[] = { (char *) "STATUS" };

    (void) state;
    setenv("FM_TEST_PIDDIR", "/run/fmtest", 1);
    write_file("apache2.conf",
               "# comment\n"
               "PidFile ${FM_TEST_PIDDIR}/apache2.pid\n"
               "IncludeOptional mods-enabled/*.load\n"
               "IncludeOptional mods-enabled/*.conf\n"
               "Include ports.conf\n"
               "IncludeOptional sites/\n"
               "IncludeOptional no-such-dir/*.conf\n");
    write_file("ports.conf",
               "Listen 80\n"
               "<IfModule ssl_module>\n"
               "\tListen 443\n"
               "</IfModule>\n"
               "<IfModule mod_gnutls.c>\n"
               "\tListen 8443\n"
               "</IfModule>\n");
    write_file("mods-enabled/status.load", "LoadModule status_module /x/mod_status.so\n");
    write_file("mods-enabled/status.conf",
               "<IfModule mod_status.c>\n"
               "  <Location \"/server-status\">\n"
               "    SetHandler server-status\n"
               "  </Location>\n"
               "</IfModule>\n");
    write_file("sites/a.conf", "<IfDefine STATUS>\nListen 127.0.0.1:8080\n</IfDefine>\n"
                               "<IfDefine !STATUS>\nListen 9999\n</IfDefine>\n");
    write_file("sites/nested/b.conf", "Define BPORT 8081\nListen [::1]:${BPORT}\nListen 0.0.0.0:80\n");

    read_conf(conf, defines, 1);
    fm_web_conf_port_list(conf, false, list, sizeof(list));
    assert_string_equal(list, "127.0.0.1:80 127.0.0.1:8080 [::1]:8081");
    assert_true(fm_web_conf_pid_file(conf, pid, sizeof(pid)));
    assert_string_equal(pid, "/run/fmtest/apache2.pid");
    assert_string_equal(conf->status_location, "/server-status");
    fm_web_conf_base_url(conf, false, 80, want, sizeof(want));
    assert_string_equal(want, "http://127.0.0.1:80");
    fm_web_conf_port_list(conf, true, list, sizeof(list));
    assert_string_equal(list, "[::1]:80 127.0.0.1:8080 [::1]:8081");

    /* With ssl loaded, 443 is probed as https (a handshake, Sun step 4). */
    write_file("mods-enabled/ssl.load", "LoadModule ssl_module /x/mod_ssl.so\n");
    read_conf(conf, NULL, 0);
    fm_web_conf_port_list(conf, false, list, sizeof(list));
    assert_string_equal(list, "127.0.0.1:80 https://127.0.0.1:443/ 127.0.0.1:9999 [::1]:8081");
    free(conf);
}

static void
test_forms(void **state)
{
    struct fm_web_conf *conf = calloc(1, sizeof(*conf));
    char list[512];
    char pid[PATH_MAX];
    char want[PATH_MAX + 512];

    (void) state;
    snprintf(want, sizeof(want), "ServerRoot \"%s\"\n"
             "PidFile logs/httpd.pid\n"
             "Listen 192.0.2.10:8443 https\n"
             "Listen [2001:db8::1]:80\n"
             "Listen 127.0.0.1:8000 http\n"
             "Listen \\\n  7000\n"
             "Listen not-a-port\n"
             "<IfModule !ssl_module>\nListen 6000\n</IfModule>\n", dir);
    write_file("apache2.conf", want);
    read_conf(conf, NULL, 0);
    fm_web_conf_port_list(conf, false, list, sizeof(list));
    assert_string_equal(list, "https://192.0.2.10:8443/ [2001:db8::1]:80 127.0.0.1:8000 127.0.0.1:7000 "
                              "127.0.0.1:6000");
    assert_true(fm_web_conf_pid_file(conf, pid, sizeof(pid)));
    snprintf(want, sizeof(want), "%s/logs/httpd.pid", dir);
    assert_string_equal(pid, want);
    assert_string_equal(conf->status_location, "");

    write_file("apache2.conf", "ServerName x\n");
    read_conf(conf, NULL, 0);
    assert_false(fm_web_conf_pid_file(conf, pid, sizeof(pid)));
    fm_web_conf_port_list(conf, false, list, sizeof(list));
    assert_string_equal(list, "");
    fm_web_conf_base_url(conf, false, 8088, want, sizeof(want));
    assert_string_equal(want, "http://127.0.0.1:8088");
    free(conf);
}

static void
test_errors(void **state)
{
    struct fm_web_conf *conf = calloc(1, sizeof(*conf));
    char err[256] = "";
    char path[PATH_MAX + 64];

    (void) state;
    snprintf(path, sizeof(path), "%s/no-such.conf", dir);
    assert_int_equal(fm_apache_conf_read(path, NULL, 0, conf, err, sizeof(err)), ENOENT);
    assert_non_null(strstr(err, "no-such.conf"));
    /* A file that includes itself ends, with an error, instead of looping. */
    write_file("apache2.conf", "Include apache2.conf\n");
    snprintf(path, sizeof(path), "%s/apache2.conf", dir);
    assert_int_equal(fm_apache_conf_read(path, NULL, 0, conf, err, sizeof(err)), ELOOP);
    free(conf);
}

static int
remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void) st;
    (void) type;
    (void) ftw;
    return remove(path);
}

static void
make_dir(const char *name)
{
    char path[2 * PATH_MAX + 64];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(mkdir(path, 0755), 0);
}

static void
make_link(const char *target, const char *name)
{
    char path[2 * PATH_MAX + 64];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(symlink(target, path), 0);
}

/* Read apache2.conf: it must fail with ELOOP, within 1 s, saying what. */
static void
read_loops(const char *err_part)
{
    struct fm_web_conf *conf = calloc(1, sizeof(*conf));
    char err[512] = "";
    char path[PATH_MAX + 64];

    assert_non_null(conf);
    snprintf(path, sizeof(path), "%s/apache2.conf", dir);
    /* Watchdog: an unbounded walk must fail the test, not hang it.  The
     * bound is what the reader counts (the reason names it), not the wall
     * time, which a loaded machine stretches. */
    alarm(10);
    assert_int_equal(fm_apache_conf_read(path, NULL, 0, conf, err, sizeof(err)), ELOOP);
    alarm(0);
    if (strstr(err, err_part) == NULL) {
        fail_msg("error '%s' does not say '%s'", err, err_part);
    }
    free(conf);
}

static void
remove_tree(const char *name)
{
    char path[PATH_MAX + 64];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A directory of symlinks to "." doubles the paths at each level: without
 * loop detection the reader took exponential time. */
static void
test_directory_symlink_loop(void **state)
{
    (void) state;
    make_dir("loop");
    make_link(".", "loop/a");
    make_link(".", "loop/b");
    write_file("apache2.conf", "IncludeOptional loop/\n");
    read_loops("loop/a: include loop");
    make_link("..", "loop/c");
    write_file("loop/x.conf", "Listen 8080\n");
    write_file("apache2.conf", "Include loop/*\n");
    read_loops("include loop");
    remove_tree("loop");
}

/* Two files that include each other, by different names. */
static void
test_file_loop(void **state)
{
    (void) state;
    make_dir("pair");
    write_file("pair/one.conf", "Include pair/two.conf\n");
    write_file("pair/two.conf", "Include pair/alias.conf\n");
    make_link("one.conf", "pair/alias.conf");
    write_file("apache2.conf", "Include pair/one.conf\n");
    read_loops("pair/alias.conf: include loop (it is ");
    remove_tree("pair");
}

/* Real directories nested deeper than the bound, and a tree of symlinks that
 * branches tenfold at each level without looping. */
static void
test_depth_and_breadth(void **state)
{
    char name[PATH_MAX];
    size_t len = 0;

    (void) state;
    len = (size_t) snprintf(name, sizeof(name), "deep");
    make_dir(name);
    for (int i = 0; i < 20; i++) {
        len += (size_t) snprintf(name + len, sizeof(name) - len, "/d");
        make_dir(name);
    }
    snprintf(name + len, sizeof(name) - len, "/x.conf");
    write_file(name, "Listen 8080\n");
    write_file("apache2.conf", "Include deep/\n");
    read_loops("nested more than");
    remove_tree("deep");

    make_dir("fan");
    for (int level = 0; level < 8; level++) {
        snprintf(name, sizeof(name), "fan/t%d", level);
        make_dir(name);
        for (int i = 0; i < 10 && level < 7; i++) {
            char link[PATH_MAX + 32];
            char target[32];

            snprintf(link, sizeof(link), "fan/t%d/n%d", level, i);
            snprintf(target, sizeof(target), "../t%d", level + 1);
            make_link(target, link);
        }
    }
    write_file("apache2.conf", "Include fan/t0/\n");
    read_loops("more than 2048");
    remove_tree("fan");
}

/* Read apache2.conf: it must fail with \p rc, saying what (the alarm turns
 * a hang into a failure; the bound itself is counted, not timed). */
static void
read_fails(int rc, const char *err_part)
{
    struct fm_web_conf *conf = calloc(1, sizeof(*conf));
    char err[512] = "";
    char path[PATH_MAX + 64];

    assert_non_null(conf);
    snprintf(path, sizeof(path), "%s/apache2.conf", dir);
    alarm(10);
    assert_int_equal(fm_apache_conf_read(path, NULL, 0, conf, err, sizeof(err)), rc);
    alarm(0);
    if (strstr(err, err_part) == NULL) {
        fail_msg("error '%s' does not say '%s'", err, err_part);
    }
    free(conf);
}

/* Eight symlinks to their own directory under a glob seven levels deep:
 * glob(3) listed all 8^7 paths (18 s, 136 MB) before the reader saw one;
 * the walk is bounded as it runs (issue 30, item 10). */
static void
test_glob_symlink_loop(void **state)
{
    (void) state;
    make_dir("sl");
    for (int i = 0; i < 8; i++) {
        char link[32];

        snprintf(link, sizeof(link), "sl/l%d", i);
        make_link(".", link);
    }
    write_file("sl/x.conf", "Listen 8080\n");
    write_file("apache2.conf", "Include sl/*/*/*/*/*/*/*/*.conf\n");
    read_fails(ELOOP, "more than 2048 matches");
    /* Nothing matches: the entries read are the bound. */
    write_file("apache2.conf", "IncludeOptional sl/*/*/*/*/*/*/*/none.conf\n");
    read_fails(ELOOP, "more than 100000 directory entries read");
    write_file("apache2.conf", "IncludeOptional sl/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/x.conf\n");
    read_fails(ELOOP, "more than 16 wildcard levels");
    remove_tree("sl");
}

/* The agent reads as root: a file that is not Apache syntax (a shadow
 * file, included or linked) shows nothing of its content (item 9). */
static void
test_no_content_in_reasons(void **state)
{
    struct fm_web_conf *conf = calloc(1, sizeof(*conf));
    char err[512] = "";
    char path[PATH_MAX + 64];

    (void) state;
    assert_non_null(conf);
    make_dir("sec");
    write_file("sec/shadow", "root:$6$SALTsecret:19000:0:99999:7:::\n<IfModule $6$SALTsecret\n");
    make_link("shadow", "sec/link.conf");
    write_file("apache2.conf", "Include sec/shadow\nInclude sec/link.conf\nInclude sec/*.conf\n");
    snprintf(path, sizeof(path), "%s/apache2.conf", dir);
    (void) fm_apache_conf_read(path, NULL, 0, conf, err, sizeof(err));
    assert_null(strstr(err, "SALT"));
    assert_null(strstr(err, "root:"));
    remove_tree("sec");
    free(conf);
}

/* httpd -t and nginx -t quote the word they refuse: it shows as a length;
 * the path of an existing file still shows (item 9). */
static void
test_hide_quoted(void **state)
{
    char text[PATH_MAX + 128];
    char want[PATH_MAX + 128];

    (void) state;
    snprintf(text, sizeof(text), "AH00526: Syntax error on line 1 of /x/shadow: Invalid command "
             "'root:$6$SALT:19000:0:99999:7:::', perhaps misspelled");
    fm_conf_hide_quoted(text, sizeof(text));
    assert_string_equal(text, "AH00526: Syntax error on line 1 of /x/shadow: Invalid command "
                        "'<31 bytes>', perhaps misspelled");
    snprintf(text, sizeof(text), "[emerg] unknown directive \"root:$6$SALT\" in %s/apache2.conf:1", dir);
    fm_conf_hide_quoted(text, sizeof(text));
    snprintf(want, sizeof(want), "[emerg] unknown directive \"<12 bytes>\" in %s/apache2.conf:1", dir);
    assert_string_equal(text, want);
    snprintf(text, sizeof(text), "open() \"%s/apache2.conf\" failed, 'unterminated", dir);
    fm_conf_hide_quoted(text, sizeof(text));
    snprintf(want, sizeof(want), "open() \"%s/apache2.conf\" failed, 'unterminated", dir);
    assert_string_equal(text, want);
    snprintf(text, 8, "'abcdef");
    fm_conf_hide_quoted(text, 8);
    assert_string_equal(text, "'abcdef");
    snprintf(text, 12, "x 'a' 'bcd'");
    fm_conf_hide_quoted(text, 12);
    assert_string_equal(text, "x '<1 bytes");
}

/* httpd reads regular files only ("not a regular file"): an Include of a
 * FIFO blocked the reader for ever in open(), and one of /dev/zero (a line
 * that never ends) grew it until memory ran out. */
static void
test_special_files(void **state)
{
    char path[PATH_MAX + 64];

    (void) state;
    snprintf(path, sizeof(path), "%s/fifo.conf", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    write_file("apache2.conf", "Include fifo.conf\n");
    read_fails(EINVAL, "fifo.conf: not a regular file");
    write_file("apache2.conf", "IncludeOptional fifo*.conf\n");
    read_fails(EINVAL, "fifo.conf: not a regular file");
    unlink(path);
    write_file("apache2.conf", "Include /dev/zero\n");
    read_fails(EINVAL, "/dev/zero: not a regular file");
    snprintf(path, sizeof(path), "%s/apache2.conf", dir);
    unlink(path);
    make_link("/dev/zero", "apache2.conf");
    read_fails(EINVAL, "not a regular file");
    unlink(path);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_debian_layout),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_directory_symlink_loop),
        cmocka_unit_test(test_file_loop),
        cmocka_unit_test(test_depth_and_breadth),
        cmocka_unit_test(test_special_files),
        cmocka_unit_test(test_glob_symlink_loop),
        cmocka_unit_test(test_no_content_in_reasons),
        cmocka_unit_test(test_hide_quoted),
    };

    return cmocka_run_group_tests_name("ocf_apache_conf", tests, setup, teardown);
}
