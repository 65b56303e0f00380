/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the readers of Apache's mod_status ?auto and nginx's
 * stub_status, and "every worker busy" (src/probe/overload_status.c), on
 * real pages and hostile ones.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/overload.h>

/* As Apache 2.4 (prefork, MaxRequestWorkers 4) writes it, trimmed. */
static const char apache_full[] =
    "localhost\n"
    "ServerVersion: Apache/2.4.62 (Debian)\n"
    "ServerMPM: prefork\n"
    "Total Accesses: 12\n"
    "BusyWorkers: 4\n"
    "IdleWorkers: 0\n"
    "Scoreboard: WWWW............................\n";

static const char apache_idle[] =
    "localhost\r\n"
    "BusyWorkers: 1\r\n"
    "IdleWorkers: 49\r\n"
    "Scoreboard: ____W___....\r\n";

static void
test_apache_pages(void **state)
{
    struct fm_overload_apache st;
    char why[FM_OVERLOAD_WHY_MAX] = "";

    (void) state;
    assert_int_equal(fm_overload_parse_apache(apache_full, strlen(apache_full), &st), 0);
    assert_int_equal(st.busy_workers, 4);
    assert_int_equal(st.idle_workers, 0);
    assert_int_equal(st.sb_busy, 4);
    assert_true(fm_overload_apache_full(&st, why, sizeof(why)));
    assert_string_equal(why, "all 4 workers busy");

    assert_int_equal(fm_overload_parse_apache(apache_idle, strlen(apache_idle), &st), 0);
    assert_int_equal(st.idle_workers, 49);
    assert_false(fm_overload_apache_full(&st, why, sizeof(why)));
    /* Not terminated: the reader stops at the length. */
    assert_int_equal(fm_overload_parse_apache(apache_full, strlen(apache_full) - 40, &st), 0);
    assert_false(st.have_scoreboard);
}

static void
test_apache_hostile(void **state)
{
    static const char *const bad[] = {
        "",
        "<html>It works!</html>",
        "BusyWorkers: 4\n",                                 /* no IdleWorkers */
        "BusyWorkers: 4\nIdleWorkers: -1\n",
        "BusyWorkers: 4\nIdleWorkers: 0x10\n",
        "BusyWorkers: 99999999999999999999\nIdleWorkers: 0\n",
        "BusyWorkers: 10000001\nIdleWorkers: 0\n",
        "BusyWorkers: 4\nBusyWorkers: 0\nIdleWorkers: 0\n",  /* twice: which? */
        "BusyWorkers: 4\nIdleWorkers: 0\nScoreboard: WW<script>\n",
        "BusyWorkers:\nIdleWorkers: 0\n",
    };
    static const char scoreboard_idle[] = "BusyWorkers: 4\nIdleWorkers: 0\nScoreboard: WW__\n";
    static const char nobody[] = "BusyWorkers: 0\nIdleWorkers: 0\n";
    static const char nul[] = "BusyWorkers: 4\nIdleWorkers: 0\nScoreboard: WW\0W\n";
    struct fm_overload_apache st;
    char why[FM_OVERLOAD_WHY_MAX] = "";

    (void) state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(fm_overload_parse_apache(bad[i], strlen(bad[i]), &st), EINVAL);
        assert_false(fm_overload_apache_full(&st, why, sizeof(why)));
    }
    assert_int_equal(fm_overload_parse_apache(nul, sizeof(nul) - 1, &st), EINVAL);
    /* Idle by the counts' word but not the scoreboard's: not full. */
    assert_int_equal(fm_overload_parse_apache(scoreboard_idle, strlen(scoreboard_idle), &st), 0);
    assert_false(fm_overload_apache_full(&st, why, sizeof(why)));
    /* Nobody busy is no overload. */
    assert_int_equal(fm_overload_parse_apache(nobody, strlen(nobody), &st), 0);
    assert_false(fm_overload_apache_full(&st, why, sizeof(why)));
}

static const char nginx_page[] =
    "Active connections: 8 \n"
    "server accepts handled requests\n"
    " 16630948 16630948 31070465 \n"
    "Reading: 0 Writing: 8 Waiting: 0 \n";

static void
test_nginx_pages(void **state)
{
    struct fm_overload_nginx st;
    char why[FM_OVERLOAD_WHY_MAX] = "";

    (void) state;
    assert_int_equal(fm_overload_parse_nginx(nginx_page, strlen(nginx_page), &st), 0);
    assert_int_equal(st.active, 8);
    assert_int_equal(st.writing, 8);
    assert_true(fm_overload_nginx_full(&st, 8, why, sizeof(why)));
    assert_string_equal(why, "all 8 connections busy (8 active)");
    assert_true(fm_overload_nginx_full(&st, 7, why, sizeof(why)));
    /* One connection still free: the probe would have had it. */
    assert_false(fm_overload_nginx_full(&st, 9, why, sizeof(why)));
    assert_false(fm_overload_nginx_full(&st, 10, why, sizeof(why)));
    assert_false(fm_overload_nginx_full(&st, 0, why, sizeof(why)));     /* unknown */
}

static void
test_nginx_hostile(void **state)
{
    static const char *const bad[] = {
        "",
        "Active connections: 8\n",
        "Reading: 0 Writing: 8 Waiting: 0\n",
        "Active connections: x\nReading: 0 Writing: 8 Waiting: 0\n",
        "Active connections: 8\nReading: 0 Writing: 8\n",
        "Active connections: 8\nReading: 0 Writing: 8 Waiting: 0 Extra: 1\n",
        "Active connections: 8\nActive connections: 1\nReading: 0 Writing: 8 Waiting: 0\n",
        "Active connections: 18446744073709551617\nReading: 0 Writing: 8 Waiting: 0\n",
        "Active connections: 8\nReading: 0 Writing: 8 Waiting: \n",
    };
    struct fm_overload_nginx st;

    (void) state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(fm_overload_parse_nginx(bad[i], strlen(bad[i]), &st), EINVAL);
        assert_int_equal(st.active, 0);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apache_pages),
        cmocka_unit_test(test_apache_hostile),
        cmocka_unit_test(test_nginx_pages),
        cmocka_unit_test(test_nginx_hostile),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
