/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: what ocf:faultmon:nginx reads from an nginx configuration:
 * the listen directives of http{} servers (the default Port_list) through
 * include globs relative to the configuration's directory, ssl, the default
 * *:80, pid, the stub_status location; and hostile files (include loops,
 * nesting, FIFOs, /dev/zero, unbalanced braces, overlong tokens, huge and
 * random files) refused with one line, never a crash or a hang.
 */
#include <config.h>

#define _XOPEN_SOURCE_EXTENDED 1
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

#include "ocf_conf_chain.h"
#include "ocf_nginx.h"

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
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) st;
    (void) flag;
    (void) ftw;
    return remove(path);
}

static int
setup(void **state)
{
    char tmpl[] = "/tmp/faultmon-test-nginx-conf.XXXXXX";
    char path[PATH_MAX + 64];

    (void) state;
    if (mkdtemp(tmpl) == NULL) {
        return -1;
    }
    snprintf(dir, sizeof(dir), "%s", tmpl);
    snprintf(path, sizeof(path), "%s/conf.d", dir);
    return mkdir(path, 0755);
}

static int
teardown(void **state)
{
    (void) state;
    /* The test's own temp dir, symbolic links not followed. */
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int
read_conf(const char *name, struct fm_web_conf *conf, char *err, size_t err_len)
{
    char path[PATH_MAX + 64];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return fm_nginx_conf_read(path, "/prefix", conf, err, err_len);
}

static void
read_fails(const char *name, int rc, const char *words)
{
    struct fm_web_conf conf;
    char err[512] = "";

    assert_int_equal(read_conf(name, &conf, err, sizeof(err)), rc);
    assert_non_null(strstr(err, words));
    assert_null(strchr(err, '\n'));
}

static void
test_layout(void **state)
{
    struct fm_web_conf conf;
    char err[512] = "";
    char list[1024];
    char pid[256];

    (void) state;
    write_file("nginx.conf",
               "user www-data;\npid run/nginx.pid;\nevents { worker_connections 8; }\n"
               "stream { server { listen 7000; } }\n"
               "http {\n  include conf.d/*.conf;\n"
               "  server { listen 8080 default_server; listen [::]:8082 ipv6only=on;\n"
               "    location /nginx_status { stub_status on; }\n"
               "    location = /other { return 200 \"{;}\"; } # a comment { ;\n  }\n"
               "  server { server_name nolisten; }\n"
               "}\n");
    write_file("conf.d/a.conf", "server { listen \"127.0.0.1:8081\"; listen 8443 ssl; listen unix:/x.sock; }\n");
    write_file("conf.d/b.conf", "server { listen 127.0.0.1:9443; ssl on; listen 127.0.0.1:9444; }\n");
    assert_int_equal(read_conf("nginx.conf", &conf, err, sizeof(err)), 0);
    assert_int_equal(conf.n_files, 3);
    fm_web_conf_port_list(&conf, false, list, sizeof(list));
    assert_string_equal(list, "127.0.0.1:8081 https://127.0.0.1:8443/ https://127.0.0.1:9443/ "
                        "https://127.0.0.1:9444/ 127.0.0.1:8080 [::1]:8082 127.0.0.1:80");
    assert_string_equal(conf.status_location, "/nginx_status");
    assert_true(fm_web_conf_pid_file(&conf, pid, sizeof(pid)));
    assert_string_equal(pid, "/prefix/run/nginx.pid");
}

/* heartbeat finds "stub_status on" only; nginx's bare form is not taken. */
static void
test_stub_status_forms(void **state)
{
    struct fm_web_conf conf;
    char err[512] = "";

    (void) state;
    write_file("s.conf", "http { server { listen 1; location /a { stub_status; } } }\n");
    assert_int_equal(read_conf("s.conf", &conf, err, sizeof(err)), 0);
    assert_string_equal(conf.status_location, "");
    assert_string_equal(conf.pid_file, "");
}

static void
test_syntax_errors(void **state)
{
    char big[6000];

    (void) state;
    write_file("open.conf", "http { server { listen 1; }\n");
    read_fails("open.conf", EINVAL, "open.conf:1 is not closed");
    write_file("close.conf", "}\n");
    read_fails("close.conf", EINVAL, "unexpected '}'");
    write_file("quote.conf", "pid \"x;\n");
    read_fails("quote.conf", EINVAL, "unterminated string");
    write_file("semi.conf", "http { server { listen 1 } }\n");
    read_fails("semi.conf", EINVAL, "semi.conf:1: a directive of 2 words (the first 6 bytes) without ';' before '}'");
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    write_file("long.conf", big);
    read_fails("long.conf", EINVAL, "a word longer than");
    read_fails("missing.conf", ENOENT, "cannot read");
}

static void
test_include_loops(void **state)
{
    char path[PATH_MAX + 64];
    char text[128];

    (void) state;
    write_file("self.conf", "include self.conf;\n");
    read_fails("self.conf", ELOOP, "include loop");
    write_file("la.conf", "include lb.conf;\n");
    write_file("lb.conf", "include la.conf;\n");
    read_fails("la.conf", ELOOP, "include loop");
    /* Through a symbolic link: the same file by identity. */
    snprintf(path, sizeof(path), "%s/link.conf", dir);
    assert_int_equal(symlink("lc.conf", path), 0);
    write_file("lc.conf", "include link.conf;\n");
    read_fails("lc.conf", ELOOP, "include loop");
    /* 20 files deep, each including the next. */
    for (int i = 0; i < 20; i++) {
        snprintf(path, sizeof(path), "d%d.conf", i);
        snprintf(text, sizeof(text), "include d%d.conf;\n", i + 1);
        write_file(path, text);
    }
    write_file("d20.conf", "\n");
    read_fails("d0.conf", ELOOP, "nested more than 16 deep");
}

static void
test_special_files(void **state)
{
    char path[PATH_MAX + 64];

    (void) state;
    snprintf(path, sizeof(path), "%s/fifo.conf", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    write_file("with-fifo.conf", "include fifo.conf;\n");
    read_fails("with-fifo.conf", EINVAL, "not a regular file");
    snprintf(path, sizeof(path), "%s/zero.conf", dir);
    assert_int_equal(symlink("/dev/zero", path), 0);
    read_fails("zero.conf", EINVAL, "not a regular file");
    write_file("with-dir.conf", "include conf.d;\n");
    read_fails("with-dir.conf", EINVAL, "not a regular file");
}

/* A file over 4 MiB is refused; random bytes end in a verdict, not a crash. */
static void
test_huge_and_random(void **state)
{
    struct fm_web_conf conf;
    char err[512] = "";
    char path[PATH_MAX + 64];
    FILE *out = NULL;

    (void) state;
    snprintf(path, sizeof(path), "%s/huge.conf", dir);
    out = fopen(path, "w");
    assert_non_null(out);
    for (int i = 0; i < 5 * 1024 * 1024 / 16; i++) {
        fputs("# comment line.\n", out);
    }
    fclose(out);
    read_fails("huge.conf", EINVAL, "larger than");
    srand(42);
    for (int round = 0; round < 200; round++) {
        snprintf(path, sizeof(path), "%s/random.conf", dir);
        out = fopen(path, "w");
        assert_non_null(out);
        for (int i = 0; i < 2000; i++) {
            static const char alphabet[] = "{};\"'\\# \n\tlisten include pid server http ssl:[]0123456789";

            fputc(((rand() & 3) == 0)? rand() & 0xff : alphabet[rand() % (sizeof(alphabet) - 1)], out);
        }
        fclose(out);
        (void) read_conf("random.conf", &conf, err, sizeof(err));
        assert_true(conf.n_listen <= FM_WEB_MAX_LISTEN);
    }
}

/* The agent reads as root, also through a symlink: a file that is not
 * nginx syntax (a shadow file) shows its name, a line and a length in the
 * reason, never a word of it (issue 30, item 9). */
static void
test_no_content_in_reasons(void **state)
{
    static const char *const shadows[] = {
        "root:$6$SALTsecret:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
        "root:$6$SALTsecret:19000 }\n",
        "root:$6$SALTsecret {\n",
        "\"root:$6$SALTsecret\" x",
    };
    char path[PATH_MAX + 64];

    (void) state;
    snprintf(path, sizeof(path), "%s/shadow.link", dir);
    assert_int_equal(symlink("shadow", path), 0);
    write_file("inc-shadow.conf", "http { include shadow; }\n");
    write_file("inc-link.conf", "include shadow.link;\n");
    for (size_t i = 0; i < sizeof(shadows) / sizeof(shadows[0]); i++) {
        const char *mains[] = { "inc-shadow.conf", "inc-link.conf", "shadow" };

        write_file("shadow", shadows[i]);
        for (size_t m = 0; m < 3; m++) {
            struct fm_web_conf conf;
            char err[512] = "";

            assert_int_equal(read_conf(mains[m], &conf, err, sizeof(err)), EINVAL);
            if (strstr(err, "SALT") != NULL || strstr(err, "root") != NULL || strstr(err, "daemon") != NULL) {
                fail_msg("shadow %zu via %s: the reason quotes the file: %s", i, mains[m], err);
            }
            assert_non_null(strstr(err, "shadow"));
        }
    }
}

/* Eight symlinks to their own directory under a glob seven levels deep:
 * glob(3) listed all 8^7 paths (9.5 s, 131 MB) before the reader saw one;
 * the walk is bounded as it runs (issue 30, item 10). */
static void
test_glob_symlink_loop(void **state)
{
    char path[PATH_MAX + 64];

    (void) state;
    snprintf(path, sizeof(path), "%s/sl", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof(path), "%s/sl/l%d", dir, i);
        assert_int_equal(symlink(".", path), 0);
    }
    write_file("sl/x.conf", "\n");
    write_file("glob.conf", "include sl/*/*/*/*/*/*/*/*.conf;\n");
    write_file("none.conf", "include sl/*/*/*/*/*/*/*/none.conf;\n");
    /* Bounded by what the reader counts (the reasons say which bound); the
     * alarm only turns a hang into a failure (a wall-time bound would be a
     * timed test: the old reader took 9.5 s, this one milliseconds). */
    alarm(10);
    read_fails("glob.conf", ELOOP, "more than 2048 matches");
    read_fails("none.conf", ELOOP, "more than 100000 directory entries read");
    alarm(0);
}

/* The read's time is the action's (fm_conf_set_time_budget_ms()): past it,
 * the read ends with ETIMEDOUT and one line, however much is left. */
static void
test_time_budget(void **state)
{
    (void) state;
    write_file("t0.conf", "include t1.conf;\n");
    write_file("t1.conf", "\n");
    fm_conf_set_time_budget_ms(0);
    read_fails("t0.conf", ETIMEDOUT, "reading the configuration took more than 0 ms");
    fm_conf_set_time_budget_ms(FM_CONF_DEFAULT_BUDGET_MS);
    {
        struct fm_web_conf conf;
        char err[512] = "";

        assert_int_equal(read_conf("t0.conf", &conf, err, sizeof(err)), 0);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_stub_status_forms),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_include_loops),
        cmocka_unit_test(test_special_files),
        cmocka_unit_test(test_huge_and_random),
        cmocka_unit_test(test_no_content_in_reasons),
        cmocka_unit_test(test_glob_symlink_loop),
        cmocka_unit_test(test_time_budget),
    };

    return cmocka_run_group_tests_name("ocf_nginx_conf", tests, setup, teardown);
}
