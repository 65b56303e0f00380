/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the observer's loopback check (src/util/loopback.c) on this
 * machine's own loopback: a listener the kernel answers for, a check that
 * opens it when it is not open, one that finds nothing listening (refused),
 * and a backlog that never fills however many checks run.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <faultmon/loopback.h>

static void
test_check_passes(void **state)
{
    struct fm_loopback lb;

    (void) state;
    fm_loopback_init(&lb);
    assert_int_equal(lb.listen_fd, -1);
    /* Opened by the first check. */
    assert_int_equal(fm_loopback_check(&lb, 200), 0);
    assert_true(lb.listen_fd >= 0);
    assert_int_not_equal(lb.addr.sin_port, 0);
    /* Far more checks than the backlog holds: each connection is drained. */
    for (int i = 0; i < 64; i++) {
        assert_int_equal(fm_loopback_check(&lb, 200), 0);
    }
    fm_loopback_close(&lb);
    assert_int_equal(lb.listen_fd, -1);
}

/* A listener that stopped listening: its port refuses, and the check says so. */
static void
test_check_refused(void **state)
{
    struct fm_loopback lb;
    int udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    (void) state;
    fm_loopback_init(&lb);
    assert_int_equal(fm_loopback_open(&lb), 0);
    assert_true(udp >= 0);
    /* In its place a socket that listens to nothing, on the same address. */
    close(lb.listen_fd);
    lb.listen_fd = udp;
    assert_int_equal(fm_loopback_check(&lb, 200), ECONNREFUSED);
    fm_loopback_close(&lb);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_passes),
        cmocka_unit_test(test_check_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
