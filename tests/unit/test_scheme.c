/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the table of schemes and query keys (src/core/scheme.c).
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/scheme.h>

static void
test_every_row(void **state)
{
    (void) state;
    for (unsigned i = 0; i < FM_SCHEME__COUNT; i++) {
        const struct fm_scheme_info *info = fm_scheme_get((enum fm_scheme) i);

        print_message("# %s\n", info->name);
        assert_int_equal(info->scheme, i);
        assert_true((unsigned) info->kind < FM_PROBE__COUNT);
        assert_string_not_equal(fm_probe_kind_name(info->kind), "invalid");
        assert_ptr_equal(fm_scheme_find(info->name, strlen(info->name)), info);
        /* Every target may pin its family, except HTTP's, whose query is
         * the server's. */
        assert_true((info->parts & (FM_URI_HTTP | FM_URI_NONE)) != 0
                    || (info->keys & FM_QUERY_BIT(FM_QUERY_FAMILY)) != 0);
        /* STARTTLS only on a plain scheme, and then through the key. */
        assert_false(info->starttls && info->tls);
        assert_int_equal(info->starttls, (info->keys & FM_QUERY_BIT(FM_QUERY_STARTTLS)) != 0);
        assert_false(info->default_port == 0 && (info->parts & FM_URI_NO_PORT) != 0
                     && info->tls);
        assert_non_null(strstr(fm_scheme_names(), info->name));
    }
    for (unsigned k = 0; k < FM_QUERY__COUNT; k++) {
        const struct fm_query_key_info *key = fm_query_key_get((enum fm_query_key) k);

        assert_int_equal(fm_query_key_find(key->name, strlen(key->name)), k);
        assert_true(key->type != FM_QUERY_CHOICE || key->choices != NULL);
    }
}

static void
test_lookups(void **state)
{
    (void) state;
    assert_ptr_equal(fm_scheme_find("SMTP", 4), fm_scheme_get(FM_SCHEME_SMTP));
    assert_null(fm_scheme_find("smtpx", 5));
    assert_null(fm_scheme_find("smt", 3));
    assert_int_equal(fm_query_key_find("family", 6), FM_QUERY_FAMILY);
    assert_int_equal(fm_query_key_find("Family", 6), FM_QUERY__COUNT);
    assert_int_equal(fm_query_key_find("fam", 3), FM_QUERY__COUNT);
    assert_null(fm_query_key_get(FM_QUERY__COUNT));
}

static void
test_values(void **state)
{
    char why[160];

    (void) state;
    assert_int_equal(fm_query_value_check(FM_QUERY_FAMILY, "inet", why, sizeof(why)), 0);
    assert_int_equal(fm_query_value_check(FM_QUERY_FAMILY, "INET6", why, sizeof(why)), 0);
    assert_int_equal(fm_query_value_check(FM_QUERY_FAMILY, "inet4", why, sizeof(why)), EINVAL);
    assert_non_null(strstr(why, "inet|inet6"));
    assert_int_equal(fm_query_value_check(FM_QUERY_FAMILY, "", why, sizeof(why)), EINVAL);
    assert_int_equal(fm_query_value_check(FM_QUERY_STARTTLS, "", why, sizeof(why)), 0);
    assert_int_equal(fm_query_value_check(FM_QUERY_STARTTLS, "yes", why, sizeof(why)), 0);
    assert_int_equal(fm_query_value_check(FM_QUERY_STARTTLS, "no", why, sizeof(why)), EINVAL);
    assert_int_equal(fm_query_value_check(FM_QUERY_ANSWER, "^10\\.", why, sizeof(why)), 0);
    assert_int_equal(fm_query_value_check(FM_QUERY_ANSWER, "(", why, sizeof(why)), EINVAL);
    /* The regex guard stands before regcomp(). */
    assert_int_equal(fm_query_value_check(FM_QUERY_ANSWER, "a{1000}{1000}", why, sizeof(why)), EINVAL);
    assert_int_equal(fm_query_value_check(FM_QUERY__COUNT, "x", why, sizeof(why)), EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row),
        cmocka_unit_test(test_lookups),
        cmocka_unit_test(test_values),
    };

    return cmocka_run_group_tests_name("scheme", tests, NULL, NULL);
}
