/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: overload is not a hang (src/decide/overload.c).  A failed
 * cycle while the server's status page says every worker is busy is shown,
 * not weighed, for at most overload_grace; without that evidence (a
 * stopped server answers no status page) the rules as ever.
 */
#include <config.h>

#include "decide_fixture.h"

#define BUSY "all 4 workers busy"

static const struct tcase cases[] = {
    {
        "overloaded: a failure while every worker is busy is degraded, not weighed, no restart",
        { { "Retry_count", "1" } },
        {
            { S(0), PART, .overloaded = BUSY, .act = DEGR, .st = DEGRADED, .w = X(0), .r = X(0),
              .ocf = X(190),
              .reason = "all 4 workers busy: overloaded, not restarting (300 s of overload_grace left)" },
            { S(10), COMP, .overloaded = BUSY, .act = DEGR, .w = X(0), .r = X(0),
              .reason = "290 s of overload_grace left" },
            { S(20), OK, .act = NONE, .st = UP, .w = X(0) },
        },
    },
    {
        "no status page answer (a stopped server): the rules, a restart",
        { { "Retry_count", "1" } },
        {
            { S(0), COMP, .act = RESTART, .r = X(1) },
        },
    },
    {
        "overloaded beyond overload_grace: the rules resume",
        { { "overload_grace", "60s" }, { "Retry_count", "1" } },
        {
            { S(0), COMP, .overloaded = BUSY, .act = DEGR, .w = X(0) },
            { S(30), COMP, .overloaded = BUSY, .act = DEGR, .w = X(0), .reason = "30 s of" },
            /* A failed cycle without the evidence is weighed, but does not
             * start the grace afresh. */
            { S(40), PART, .act = DEGR, .w = X(50) },
            { S(60), PART, .overloaded = BUSY, .act = RESTART, .r = X(1) },
        },
    },
    {
        "a success ends the overload episode: the next one has its whole grace",
        { { "overload_grace", "60s" }, { "Retry_count", "1" } },
        {
            { S(0), COMP, .overloaded = BUSY, .act = DEGR, .w = X(0) },
            { S(50), OK, .act = NONE, .st = UP },
            { S(100), COMP, .overloaded = BUSY, .act = DEGR, .w = X(0), .reason = "60 s of" },
        },
    },
    {
        "overload_grace=0: the judgement is off",
        { { "overload_grace", "0" }, { "Retry_count", "1" } },
        {
            { S(0), COMP, .overloaded = BUSY, .act = RESTART, .r = X(1) },
        },
    },
};

int
main(void)
{
    struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0])];
    size_t n = decide_fixture_case_tests(cases, sizeof(cases) / sizeof(cases[0]), tests);

    return _cmocka_run_group_tests("decide_overload", tests, n, NULL, NULL);
}
