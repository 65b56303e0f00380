/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the resolver cache (src/probe/resolve_cache.c), with
 * pretend times: how long an answer is kept (its TTL, the cap, the bound for
 * an answer without a TTL), that a failed lookup is never cached, and that
 * one entry serves every target of a name.
 */
#include <config.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probe_int.h"

#define S_US 1000000ull
#define T0_US (1000 * S_US)     /* a pretend monotonic "now" */

/* Store one IPv4 and one IPv6 address with this TTL at T0_US. */
static int
store_two(struct fm_resolve_entry *entry, int ttl_s)
{
    struct sockaddr_in in4;
    struct sockaddr_in6 in6;
    const struct sockaddr *addrs[2] = { (struct sockaddr *) &in4, (struct sockaddr *) &in6 };
    socklen_t lens[2] = { sizeof(in4), sizeof(in6) };

    memset(&in4, 0, sizeof(in4));
    memset(&in6, 0, sizeof(in6));
    in4.sin_family = AF_INET;
    inet_pton(AF_INET, "192.0.2.7", &in4.sin_addr);
    in6.sin6_family = AF_INET6;
    inet_pton(AF_INET6, "2001:db8::7", &in6.sin6_addr);
    return fm_resolve_cache_store(entry, addrs, lens, 2, ttl_s, T0_US);
}

static void
test_keep_times(void **state)
{
    (void) state;
    assert_int_equal(fm_resolve_keep_us(60), 60 * S_US);
    assert_int_equal(fm_resolve_keep_us(1), 1 * S_US);
    assert_int_equal(fm_resolve_keep_us(FM_RESOLVE_MAX_TTL_S), FM_RESOLVE_MAX_TTL_S * S_US);
    /* A day's TTL is capped. */
    assert_int_equal(fm_resolve_keep_us(86400), FM_RESOLVE_MAX_TTL_S * S_US);
    /* No TTL (0, as c-ares gives for /etc/hosts): the bounded time. */
    assert_int_equal(fm_resolve_keep_us(0), FM_RESOLVE_NO_TTL_S * S_US);
    assert_int_equal(fm_resolve_keep_us(-1), FM_RESOLVE_NO_TTL_S * S_US);
    assert_true(FM_RESOLVE_NO_TTL_S > 0 && FM_RESOLVE_NO_TTL_S <= FM_RESOLVE_MAX_TTL_S);
}

static void
test_fresh_until_ttl(void **state)
{
    struct fm_resolve_cache cache;
    struct fm_resolve_entry *e = NULL;

    (void) state;
    memset(&cache, 0, sizeof(cache));
    e = fm_resolve_cache_add(&cache, "www.example.com");
    assert_non_null(e);
    assert_false(fm_resolve_cache_fresh(e, T0_US));     /* nothing yet */
    assert_int_equal(store_two(e, 30), 0);
    assert_int_equal(e->n_addrs, 2);
    assert_int_equal(e->addrs[0].ss_family, AF_INET);
    assert_int_equal(e->addrs[1].ss_family, AF_INET6);
    assert_int_equal(e->addr_lens[1], sizeof(struct sockaddr_in6));
    assert_true(fm_resolve_cache_fresh(e, T0_US));
    assert_true(fm_resolve_cache_fresh(e, T0_US + 30 * S_US - 1));
    assert_false(fm_resolve_cache_fresh(e, T0_US + 30 * S_US));    /* expired exactly at TTL */
    fm_resolve_cache_clear(&cache);
}

static void
test_cap_and_no_ttl(void **state)
{
    struct fm_resolve_cache cache;
    struct fm_resolve_entry *e = NULL;

    (void) state;
    memset(&cache, 0, sizeof(cache));
    e = fm_resolve_cache_add(&cache, "capped.example");
    assert_int_equal(store_two(e, 7 * 86400), 0);
    assert_true(fm_resolve_cache_fresh(e, T0_US + FM_RESOLVE_MAX_TTL_S * S_US - 1));
    assert_false(fm_resolve_cache_fresh(e, T0_US + FM_RESOLVE_MAX_TTL_S * S_US));

    assert_int_equal(store_two(e, 0), 0);
    assert_true(fm_resolve_cache_fresh(e, T0_US + FM_RESOLVE_NO_TTL_S * S_US - 1));
    assert_false(fm_resolve_cache_fresh(e, T0_US + FM_RESOLVE_NO_TTL_S * S_US));
    fm_resolve_cache_clear(&cache);
}

static void
test_failure_not_cached(void **state)
{
    struct fm_resolve_cache cache;
    struct fm_resolve_entry *e = NULL;

    (void) state;
    memset(&cache, 0, sizeof(cache));
    e = fm_resolve_cache_add(&cache, "flaky.example");
    assert_int_equal(store_two(e, 300), 0);
    assert_true(fm_resolve_cache_fresh(e, T0_US + S_US));
    /* A later lookup fails: the old answer is dropped, nothing is fresh,
     * so the next cycle asks again (no negative caching either). */
    fm_resolve_cache_fail(e);
    assert_int_equal(e->n_addrs, 0);
    assert_null(e->addrs);
    assert_false(fm_resolve_cache_fresh(e, T0_US + S_US));
    assert_false(fm_resolve_cache_fresh(e, T0_US));
    /* An answer without any address is no success either. */
    assert_int_equal(fm_resolve_cache_store(e, NULL, NULL, 0, 300, T0_US), 0);
    assert_false(fm_resolve_cache_fresh(e, T0_US));
    fm_resolve_cache_clear(&cache);
}

static void
test_one_entry_per_name(void **state)
{
    struct fm_resolve_cache cache;
    struct fm_resolve_entry *first = NULL;
    char name[32];

    (void) state;
    memset(&cache, 0, sizeof(cache));
    first = fm_resolve_cache_add(&cache, "localhost");
    assert_int_equal(store_two(first, 60), 0);
    /* Enough names to grow the table: the first entry must not move. */
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof(name), "host%d.example", i);
        assert_non_null(fm_resolve_cache_add(&cache, name));
    }
    assert_ptr_equal(fm_resolve_cache_add(&cache, "localhost"), first);
    assert_ptr_equal(fm_resolve_cache_add(&cache, "LocalHost"), first);     /* case-insensitive */
    assert_int_equal(cache.n, 51);
    assert_true(fm_resolve_cache_fresh(first, T0_US));
    fm_resolve_cache_clear(&cache);
    assert_int_equal(cache.n, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keep_times),
        cmocka_unit_test(test_fresh_until_ttl),
        cmocka_unit_test(test_cap_and_no_ttl),
        cmocka_unit_test(test_failure_not_cached),
        cmocka_unit_test(test_one_entry_per_name),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
