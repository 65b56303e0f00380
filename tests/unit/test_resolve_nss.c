/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: when a host name needs NSS too (src/probe/resolve_nss.c):
 * only when the hosts line of nsswitch.conf names a source other than
 * files and dns, which c-ares already reads.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "probe_int.h"

static void
test_hosts_lines(void **state)
{
    (void) state;
    assert_false(fm_nss_hosts_line_beyond_dns("hosts: files dns"));
    assert_false(fm_nss_hosts_line_beyond_dns("hosts:\tdns  files\n"));
    assert_false(fm_nss_hosts_line_beyond_dns("hosts: files [NOTFOUND=return] dns # mdns"));
    assert_false(fm_nss_hosts_line_beyond_dns("hosts:"));
    assert_false(fm_nss_hosts_line_beyond_dns("passwd: files ldap"));
    assert_true(fm_nss_hosts_line_beyond_dns("hosts: files mdns4_minimal [NOTFOUND=return] dns"));
    assert_true(fm_nss_hosts_line_beyond_dns("hosts: files dns myhostname"));
    assert_true(fm_nss_hosts_line_beyond_dns("  hosts: sss files"));
    assert_true(fm_nss_hosts_line_beyond_dns("hosts: files resolve [!UNAVAIL=return] dns"));
    assert_true(fm_nss_hosts_line_beyond_dns("hosts: filesx dns"));
    assert_false(fm_nss_hosts_line_beyond_dns("hosts: files [broken"));
}

static void
test_hosts_file(void **state)
{
    char path[] = "/tmp/faultmon-nss.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = NULL;

    (void) state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    fputs("# hosts: myhostname\npasswd: files systemd\nhosts: files myhostname\n"
          "hosts: files dns\n", f);
    fclose(f);
    assert_false(fm_nss_hosts_beyond_dns(path));   /* the last hosts line counts */
    f = fopen(path, "a");
    fputs("   hosts: files myhostname dns\n", f);
    fclose(f);
    assert_true(fm_nss_hosts_beyond_dns(path));
    unlink(path);
    assert_false(fm_nss_hosts_beyond_dns(path));   /* no file: glibc's default */
}

/* A real lookup through the thread: localhost is in every /etc/hosts. */
static void
test_lookup_thread(void **state)
{
    struct sockaddr_storage addrs[FM_NSS_MAX_ADDRS];
    socklen_t lens[FM_NSS_MAX_ADDRS];
    size_t n = 0;
    const char *why = NULL;
    int fd = -1;
    int rc = 0;

    (void) state;
    assert_int_equal(fm_nss_lookup_start("localhost", &fd), 0);
    do {
        usleep(1000);
        rc = fm_nss_lookup_finish(fd, addrs, lens, &n, &why);
    } while (rc == EAGAIN);
    assert_int_equal(rc, 0);
    assert_true(n >= 1);
    /* abandoned: the thread finds the reader gone and ends quietly */
    assert_int_equal(fm_nss_lookup_start("localhost", &fd), 0);
    close(fd);
    usleep(20000);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hosts_lines),
        cmocka_unit_test(test_hosts_file),
        cmocka_unit_test(test_lookup_thread),
    };

    return cmocka_run_group_tests_name("resolve_nss", tests, NULL, NULL);
}
