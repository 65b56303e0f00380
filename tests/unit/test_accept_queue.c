/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the kernel's view of a listening port (src/probe/accept_queue.c):
 * the judgement "overloaded, not hung" on made-up looks, and the netlink
 * reader on a real loopback listener of the test's own that does not
 * accept (a stopped server's queue) and then accepts one.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <faultmon/accept_queue.h>

static const uint32_t client_a[4] = { 0x0100007f, 0, 0, 0 };

/* A look with \p queued connections waiting (clients 1..queued) and
 * \p accepted held (clients 1001..). */
static void
look(struct fm_accept_queue *q, uint32_t queued, uint32_t first_waiting, uint32_t accepted)
{
    struct fm_accept_queue_sock s = { .state = TCP_LISTEN, .local_port = 80, .rqueue = queued,
                                      .wqueue = 64, .remote_addr = client_a };

    memset(q, 0, sizeof(*q));
    fm_accept_queue_add(q, 80, &s);
    s.state = TCP_ESTABLISHED;
    for (uint32_t i = 0; i < queued; i++) {
        s.remote_port = (uint16_t) (first_waiting + i);
        fm_accept_queue_add(q, 80, &s);
    }
    s.inode = 4242;
    for (uint32_t i = 0; i < accepted; i++) {
        s.remote_port = (uint16_t) (1001 + i);
        fm_accept_queue_add(q, 80, &s);
    }
}

static void
test_judgement(void **state)
{
    struct fm_accept_queue before;
    struct fm_accept_queue after;
    struct fm_accept_queue_sock other = { .state = TCP_LISTEN, .local_port = 81, .rqueue = 9,
                                          .remote_addr = client_a };
    char why[160] = "";

    (void) state;
    /* Stopped: the same connections wait at both looks. */
    look(&before, 3, 1, 4);
    look(&after, 3, 1, 4);
    assert_false(fm_accept_queue_overloaded(&before, &after, 4, why, sizeof(why)));
    /* Busy: still waiting at the second look, but the first ones were taken. */
    look(&after, 3, 3, 4);
    fm_accept_queue_add(&after, 80, &(struct fm_accept_queue_sock) {
        .state = TCP_TIME_WAIT, .local_port = 80, .remote_port = 1, .remote_addr = client_a });
    assert_true(fm_accept_queue_overloaded(&before, &after, 0, why, sizeof(why)));
    assert_string_equal(why, "3 connections waiting in the accept queue (backlog 64), accepted slowly");
    /* A waiting one accepted since (an inode now) is progress too. */
    look(&after, 2, 2, 4);
    fm_accept_queue_add(&after, 80, &(struct fm_accept_queue_sock) {
        .state = TCP_ESTABLISHED, .local_port = 80, .remote_port = 1, .remote_addr = client_a, .inode = 7 });
    assert_true(fm_accept_queue_overloaded(&before, &after, 0, why, sizeof(why)));
    /* Closed by the client while waiting (close-wait, no inode): not progress. */
    look(&after, 3, 2, 4);
    fm_accept_queue_add(&after, 80, &(struct fm_accept_queue_sock) {
        .state = TCP_CLOSE_WAIT, .local_port = 80, .remote_port = 1, .remote_addr = client_a });
    assert_false(fm_accept_queue_overloaded(&before, &after, 0, why, sizeof(why)));
    /* nginx full: it accepts (empty queue) and holds every connection. */
    look(&before, 0, 1, 6);
    look(&after, 0, 1, 6);
    assert_true(fm_accept_queue_overloaded(&before, &after, 6, why, sizeof(why)));
    assert_string_equal(why, "all 6 connections busy (6 open, accept queue empty)");
    assert_false(fm_accept_queue_overloaded(&before, &after, 7, why, sizeof(why)));
    assert_false(fm_accept_queue_overloaded(&before, &after, 0, why, sizeof(why)));  /* unknown */
    /* Accepting and not full: a server that answers nothing for another reason. */
    look(&after, 0, 1, 2);
    assert_false(fm_accept_queue_overloaded(&before, &after, 6, why, sizeof(why)));
    /* No listener on the port (another port's is not it): no evidence. */
    memset(&after, 0, sizeof(after));
    fm_accept_queue_add(&after, 80, &other);
    assert_false(after.listening);
    assert_false(fm_accept_queue_overloaded(&before, &after, 1, why, sizeof(why)));
}

static int
connect_to(uint16_t port)
{
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *) &sin, sizeof(sin)), 0);
    return fd;
}

static void
test_kernel(void **state)
{
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(sin);
    struct fm_accept_queue before;
    struct fm_accept_queue after;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    int clients[3];
    int afd = -1;
    char why[160] = "";
    uint16_t port = 0;

    (void) state;
    assert_true(lfd >= 0);
    assert_int_equal(bind(lfd, (struct sockaddr *) &sin, sizeof(sin)), 0);
    assert_int_equal(listen(lfd, 4), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *) &sin, &len), 0);
    port = ntohs(sin.sin_port);
    for (size_t i = 0; i < 3; i++) {
        clients[i] = connect_to(port);
    }
    if (fm_accept_queue_read(port, &before) != 0) {
        skip();     /* no NETLINK_SOCK_DIAG here (a sandbox) */
    }
    assert_true(before.listening);
    assert_int_equal(before.queued, 3);
    assert_int_equal(before.backlog, 4);
    assert_int_equal(before.n_waiting, 3);
    assert_int_equal(before.accepted, 0);
    /* Not accepting: a stopped server. */
    assert_int_equal(fm_accept_queue_read(port, &after), 0);
    assert_false(fm_accept_queue_overloaded(&before, &after, 0, why, sizeof(why)));
    /* One accepted, two still waiting: busy. */
    afd = accept(lfd, NULL, NULL);
    assert_true(afd >= 0);
    assert_int_equal(fm_accept_queue_read(port, &after), 0);
    assert_int_equal(after.queued, 2);
    assert_int_equal(after.accepted, 1);
    assert_true(fm_accept_queue_overloaded(&before, &after, 0, why, sizeof(why)));
    assert_string_equal(why, "2 connections waiting in the accept queue (backlog 4), accepted slowly");
    close(afd);
    for (size_t i = 0; i < 3; i++) {
        close(clients[i]);
    }
    close(lfd);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judgement),
        cmocka_unit_test(test_kernel),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
