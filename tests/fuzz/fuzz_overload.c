/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the status pages that tell overload from a hang
 * (src/probe/overload_status.c): Apache's mod_status ?auto and nginx's
 * stub_status, as a server (or anything at its URL) may send them.
 *
 * Input: the first byte picks the capacity of the nginx judgement (0-255;
 * 0: unknown), the rest is the page's body, not terminated; both readers
 * see it.
 *
 * Properties:
 *  - the readers end, neither crash nor read past the body (ASan);
 *  - a page read holds no count above FM_OVERLOAD_MAX_COUNT; a page not
 *    read leaves nothing behind that a judgement could take for overload;
 *  - "full" comes with a terminated one-line reason that starts "all ",
 *    and only for a page with no idle worker (Apache) or with its active
 *    connections, its own among them, filling a known capacity (nginx).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <faultmon/overload.h>

#include "fuzz_common.h"

static void
check_why(const char *why, size_t len)
{
    FM_FUZZ_CHECK(memchr(why, '\0', len) != NULL, "reason not terminated");
    FM_FUZZ_CHECK(strncmp(why, "all ", 4) == 0, "reason '%s'", why);
    fm_fuzz_check_message(why, len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fm_overload_apache ap;
    struct fm_overload_nginx ng;
    char why[FM_OVERLOAD_WHY_MAX];
    const char *body = NULL;
    uint64_t capacity = 0;
    size_t len = 0;

    if (size < 1) {
        return 0;
    }
    capacity = data[0];
    len = size - 1;
    /* A copy of exactly the body's size, so that ASan sees a read past it. */
    body = malloc(len > 0? len : 1);
    if (body == NULL) {
        abort();
    }
    memcpy((char *) body, data + 1, len);
    memset(why, 'x', sizeof(why));
    if (fm_overload_parse_apache(body, len, &ap) == 0) {
        FM_FUZZ_CHECK(ap.busy_workers <= FM_OVERLOAD_MAX_COUNT && ap.idle_workers <= FM_OVERLOAD_MAX_COUNT,
                      "counts %u %u", (unsigned) ap.busy_workers, (unsigned) ap.idle_workers);
        if (fm_overload_apache_full(&ap, why, sizeof(why))) {
            check_why(why, sizeof(why));
            FM_FUZZ_CHECK(ap.idle_workers == 0 && ap.sb_idle == 0, "full with idle workers");
        }
    } else {
        FM_FUZZ_CHECK(!fm_overload_apache_full(&ap, why, sizeof(why)), "an unread page is full");
    }
    memset(why, 'x', sizeof(why));
    if (fm_overload_parse_nginx(body, len, &ng) == 0) {
        FM_FUZZ_CHECK(ng.active <= FM_OVERLOAD_MAX_COUNT, "active %u", (unsigned) ng.active);
        if (fm_overload_nginx_full(&ng, capacity, why, sizeof(why))) {
            check_why(why, sizeof(why));
            FM_FUZZ_CHECK(capacity > 0 && (uint64_t) ng.active >= capacity, "full below capacity");
        }
    } else {
        FM_FUZZ_CHECK(!fm_overload_nginx_full(&ng, capacity, why, sizeof(why)), "an unread page is full");
    }
    free((char *) body);
    return 0;
}
