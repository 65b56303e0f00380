/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the parser of `corosync-cfgtool -s` and observer_corosync's
 * rule (src/monitor/corosync_links.c), on outputs captured from a real
 * 3-node knet cluster of Debian 12's corosync 3.1.7
 * (tests/cluster/corosync-links.sh), on made-up two-link ones, and on
 * hostile ones: whatever is not understood is no verdict, never impaired.
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/corosync_links.h>

#define HEAD "Local node ID 1, transport knet\n"
#define LINK0 "LINK ID 0 udp\n\taddr\t= 192.168.234.11\n\tstatus:\n"
#define LINK1 "LINK ID 1 udp\n\taddr\t= 10.0.0.11\n\tstatus:\n"
#define NODE(id, status) "\t\tnodeid:          " #id ":\t" status "\n"

/* Captured: every node up; node3 crashed; node1's eth0 down. */
static const char all_up[] = HEAD LINK0 NODE(1, "localhost") NODE(2, "connected")
                             NODE(3, "connected");
static const char peer_crashed[] = HEAD LINK0 NODE(1, "localhost") NODE(2, "connected")
                                   NODE(3, "disconnected");
static const char own_link_down[] = HEAD LINK0 NODE(1, "localhost") NODE(2, "disconnected")
                                    NODE(3, "disconnected");
/* Captured on the machine without corosync running (exit status 1). */
static const char no_corosync[] = "Could not initialize corosync configuration API error 2\n";

/* Parse \p text, which must be understood, and apply the rule. */
static bool
impaired(const char *text, char *why, size_t why_len)
{
    struct fm_corosync_links links;
    char err[128] = "";

    if (fm_corosync_links_parse(text, &links, err, sizeof(err)) != 0) {
        fail_msg("not understood: %s", err);
    }
    return fm_corosync_links_impaired(&links, why, why_len);
}

/* \p text is not understood: \p expected is why. */
static void
assert_unknown(const char *text, const char *expected)
{
    struct fm_corosync_links links;
    char why[128] = "";

    assert_int_equal(fm_corosync_links_parse(text, &links, why, sizeof(why)), -1);
    assert_string_equal(why, expected);
}

static void
test_captured(void **state)
{
    struct fm_corosync_links links;
    char why[160] = "";

    (void) state;
    assert_int_equal(fm_corosync_links_parse(all_up, &links, why, sizeof(why)), 0);
    assert_int_equal(links.local_nodeid, 1);
    assert_int_equal(links.n_links, 1);
    assert_int_equal(links.link_id[0], 0);
    assert_int_equal(links.n_nodes, 3);
    assert_int_equal(links.nodeid[2], 3);
    assert_true(links.connected[0][1]);
    assert_true(links.connected[0][2]);
    assert_false(fm_corosync_links_impaired(&links, why, sizeof(why)));
    /* One peer crashed, the other still connected: the peer's fault. */
    assert_false(impaired(peer_crashed, why, sizeof(why)));
    assert_true(impaired(own_link_down, why, sizeof(why)));
    assert_string_equal(why, "corosync: no peer reachable on any link (2 peers, link 0)");
    assert_unknown(no_corosync, "not corosync 3's knet link status (line 1)");
}

/* Two links: one down to every peer while the other is up is this node's
 * link; one down to one peer only is that peer's. */
static void
test_two_links(void **state)
{
    char why[160] = "";

    (void) state;
    assert_false(impaired(HEAD LINK0 NODE(1, "localhost") NODE(2, "connected")
                          NODE(3, "connected") LINK1 NODE(1, "localhost")
                          NODE(2, "connected") NODE(3, "disconnected"), why, sizeof(why)));
    assert_true(impaired(HEAD LINK0 NODE(1, "localhost") NODE(2, "connected")
                         NODE(3, "connected") LINK1 NODE(1, "localhost")
                         NODE(2, "disconnected") NODE(3, "disconnected"), why, sizeof(why)));
    assert_string_equal(why, "corosync: link 1 down to every peer (2 peers, 2 connected on link 0)");
    /* The nodes in another order on the second link are the same nodes. */
    assert_true(impaired(HEAD LINK0 NODE(1, "localhost") NODE(2, "disconnected")
                         NODE(3, "disconnected") LINK1 NODE(3, "disconnected")
                         NODE(1, "localhost") NODE(2, "disconnected"), why, sizeof(why)));
    assert_string_equal(why, "corosync: no peer reachable on any link (2 peers, links 0, 1)");
}

/* Too few peers to blame this node: alone, or a two-node cluster whose
 * only peer may simply have crashed. */
static void
test_few_peers(void **state)
{
    char why[160] = "";

    (void) state;
    assert_false(impaired(HEAD LINK0 NODE(1, "localhost"), why, sizeof(why)));
    assert_false(impaired(HEAD LINK0 NODE(1, "localhost") NODE(2, "disconnected"), why,
                          sizeof(why)));
    /* This node need not be listed first, nor be node 1. */
    assert_true(impaired("Local node ID 7, transport knet\n" LINK0 NODE(5, "disconnected")
                         NODE(6, "disconnected") NODE(7, "localhost"), why, sizeof(why)));
}

static void
test_truncated(void **state)
{
    size_t len = strlen(own_link_down);
    char *cut = malloc(len + 1);

    (void) state;
    assert_non_null(cut);
    /* Every prefix that ends mid-line, or before a link's status, is no
     * verdict; those ending after a node's line are understood, and none
     * of them (one peer missing) is found impaired. */
    for (size_t n = 0; n < len; n++) {
        struct fm_corosync_links links;
        char why[128] = "";

        memcpy(cut, own_link_down, n);
        cut[n] = '\0';
        if (fm_corosync_links_parse(cut, &links, why, sizeof(why)) == 0) {
            assert_true(n > 0 && cut[n - 1] == '\n');
            assert_non_null(strstr(cut, "localhost"));
            assert_false(fm_corosync_links_impaired(&links, why, sizeof(why)));
        }
    }
    free(cut);
    assert_unknown("", "no output");
    assert_unknown(HEAD LINK0 "\t\tnodeid:          2:\tconn", "the output ends mid-line");
    assert_unknown(HEAD "LINK ID 0 udp\n\taddr\t= 192.168.234.11\n", "a link without status (line 3)");
}

static void
test_missing_fields(void **state)
{
    (void) state;
    assert_unknown(HEAD LINK0 NODE(1, "localhost") "\t\tnodeid:          2:\n",
                   "a nodeid line not understood (line 6)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") "\t\tnodeid:\tconnected\n",
                   "a nodeid line not understood (line 6)");
    assert_unknown(HEAD LINK0 NODE(2, "connected") NODE(3, "connected"),
                   "a link that does not list this node once (line 6)");
    assert_unknown(HEAD "\tstatus:\n" NODE(1, "localhost"), "a line not understood (line 2)");
    assert_unknown(HEAD NODE(1, "localhost"), "a nodeid line not understood (line 2)");
    assert_unknown(HEAD, "no link listed (line 1)");
    assert_unknown("Local node ID 1\n" LINK0 NODE(1, "localhost"),
                   "not corosync 3's knet link status (line 1)");
    assert_unknown("LINK ID 0 udp\n", "not corosync 3's knet link status (line 1)");
    assert_unknown(HEAD "LINK ID\n", "a LINK line not understood (line 2)");
}

/* Garbage, and what is almost the format. */
static void
test_hostile(void **state)
{
    (void) state;
    /* The old transports (udpu, udp) print rings, not peers. */
    assert_unknown("Local node ID 1, transport udpu\nRING ID 0\n\tid\t= 10.0.0.1\n"
                   "\tstatus\t= ring 0 active with no faults\n",
                   "not corosync 3's knet link status (line 1)");
    assert_unknown("\x01\x02garbage\n", "not corosync 3's knet link status (line 1)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") NODE(2, "Connected"),
                   "a node status not understood (line 6)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") NODE(2, "disconnected (flapping)"),
                   "a nodeid line not understood (line 6)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") "\t\tnodeid: -2:\tdisconnected\n",
                   "a nodeid line not understood (line 6)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") "\t\tnodeid: 0:\tdisconnected\n",
                   "a nodeid line not understood (line 6)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") "\t\tnodeid: 99999999999:\tdisconnected\n",
                   "a nodeid line not understood (line 6)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") NODE(2, "disconnected")
                   NODE(2, "connected"), "a node listed twice (line 7)");
    assert_unknown(HEAD LINK0 NODE(2, "localhost"), "localhost is not the local node ID (line 5)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") NODE(2, "connected") LINK0
                   NODE(1, "localhost"), "a link listed twice (line 7)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") NODE(2, "connected") LINK1
                   NODE(1, "localhost"), "a link that lists other nodes than the first (line 10)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") NODE(2, "connected") LINK1
                   NODE(1, "localhost") NODE(3, "connected"),
                   "a node not on the first link (line 11)");
    assert_unknown(HEAD "LINK ID 8 udp\n", "a LINK line not understood (line 2)");
    assert_unknown(HEAD LINK0 NODE(1, "localhost") "\t\tnodeid:          2:\tconnected extra\n",
                   "a nodeid line not understood (line 6)");
}

/* Huge: a line past the bound, too many nodes, too many links. */
static void
test_huge(void **state)
{
    size_t size = 64 * 1024;
    char *text = malloc(size);
    size_t used = 0;

    (void) state;
    assert_non_null(text);
    used = (size_t) snprintf(text, size, HEAD LINK0 "\t\tnodeid: 1:\t");
    memset(text + used, 'x', 300);
    snprintf(text + used + 300, size - used - 300, "\n");
    assert_unknown(text, "a line too long (line 5)");
    used = (size_t) snprintf(text, size, HEAD LINK0 NODE(1, "localhost"));
    for (unsigned id = 2; id <= FM_COROSYNC_NODES_MAX + 1; id++) {
        used += (size_t) snprintf(text + used, size - used, "\t\tnodeid: %u:\tconnected\n", id);
    }
    assert_unknown(text, "too many nodes (line 69)");
    used = (size_t) snprintf(text, size, HEAD);
    for (unsigned l = 0; l < FM_COROSYNC_LINKS_MAX; l++) {
        used += (size_t) snprintf(text + used, size - used, "LINK ID %u udp\n\tstatus:\n%s", l,
                                  NODE(1, "localhost"));
    }
    used += (size_t) snprintf(text + used, size - used, "LINK ID 7 udp\n");
    assert_unknown(text, "too many links (line 26)");
    free(text);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captured),
        cmocka_unit_test(test_two_links),
        cmocka_unit_test(test_few_peers),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_missing_fields),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_huge),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
