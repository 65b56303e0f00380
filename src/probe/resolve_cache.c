/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the resolver cache.  A host name is looked up at most once per
 * the time its answer may be kept, and that once serves every target that
 * names it, whatever their ports (the addresses are kept with port 0).
 *
 * How long an answer is kept:
 * - its least TTL, capped at FM_RESOLVE_MAX_TTL_S (300 s), so that a service
 *   moved by DNS is followed within five minutes even when its record says a
 *   day (nginx's resolver and HAProxy's "hold valid" bound it likewise);
 * - FM_RESOLVE_NO_TTL_S (10 s) when the answer has no TTL: c-ares reports 0
 *   for /etc/hosts answers, and a DNS TTL of 0 cannot be told apart from it.
 *   Ten seconds is a handful of cycles at the shortest intervals, so an edit
 *   of /etc/hosts is followed within seconds, while a loop probing every
 *   second reads the file once per ten cycles instead of every cycle.
 * - A failed lookup is not cached at all, neither as success nor as a
 *   negative answer: the next cycle asks again, so a name that comes back
 *   is seen at once; the cost of a failing name is one lookup per cycle,
 *   shared by its targets.
 *
 * Pure functions of the time given: tested with pretend times
 * (tests/unit/test_resolve_cache.c).
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probe_int.h"

struct fm_resolve_entry *
fm_resolve_cache_add(struct fm_resolve_cache *cache, const char *name)
{
    struct fm_resolve_entry *entry = NULL;

    for (size_t i = 0; i < cache->n; i++) {
        if (strcasecmp(cache->entries[i]->name, name) == 0) {   /* DNS names ignore case */
            return cache->entries[i];
        }
    }
    if (cache->n == cache->cap) {
        size_t cap = (cache->cap == 0)? 4 : 2 * cache->cap;
        struct fm_resolve_entry **grown = realloc(cache->entries, cap * sizeof(*grown));

        if (grown == NULL) {
            return NULL;
        }
        cache->entries = grown;
        cache->cap = cap;
    }
    /* Each entry is its own allocation: conns keep pointers to entries
     * while the array grows. */
    entry = calloc(1, sizeof(*entry));
    if (entry == NULL) {
        return NULL;
    }
    entry->name = strdup(name);
    if (entry->name == NULL) {
        free(entry);
        return NULL;
    }
    cache->entries[cache->n++] = entry;
    return entry;
}

bool
fm_resolve_cache_fresh(const struct fm_resolve_entry *entry, uint64_t now_us)
{
    return entry->n_addrs > 0 && now_us < entry->expires_us;
}

uint64_t
fm_resolve_keep_us(int ttl_s)
{
    if (ttl_s <= 0) {
        return (uint64_t) FM_RESOLVE_NO_TTL_S * 1000000u;
    }
    if (ttl_s > FM_RESOLVE_MAX_TTL_S) {
        ttl_s = FM_RESOLVE_MAX_TTL_S;
    }
    return (uint64_t) ttl_s * 1000000u;
}

void
fm_resolve_cache_fail(struct fm_resolve_entry *entry)
{
    free(entry->addrs);
    free(entry->addr_lens);
    entry->addrs = NULL;
    entry->addr_lens = NULL;
    entry->n_addrs = 0;
    entry->expires_us = 0;
}

int
fm_resolve_cache_store(struct fm_resolve_entry *entry, const struct sockaddr *const *addrs,
                       const socklen_t *lens, size_t n, int ttl_s, uint64_t now_us)
{
    fm_resolve_cache_fail(entry);
    if (n == 0) {
        return 0;
    }
    entry->addrs = calloc(n, sizeof(*entry->addrs));
    entry->addr_lens = calloc(n, sizeof(*entry->addr_lens));
    if (entry->addrs == NULL || entry->addr_lens == NULL) {
        fm_resolve_cache_fail(entry);
        return ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        socklen_t len = lens[i];

        if (len > sizeof(entry->addrs[0])) {
            len = sizeof(entry->addrs[0]);
        }
        memcpy(&entry->addrs[i], addrs[i], len);
        entry->addr_lens[i] = len;
    }
    entry->n_addrs = n;
    entry->expires_us = now_us + fm_resolve_keep_us(ttl_s);
    return 0;
}

void
fm_resolve_cache_clear(struct fm_resolve_cache *cache)
{
    for (size_t i = 0; i < cache->n; i++) {
        fm_resolve_cache_fail(cache->entries[i]);
        free(cache->entries[i]->name);
        free(cache->entries[i]);
    }
    free(cache->entries);
    memset(cache, 0, sizeof(*cache));
}
