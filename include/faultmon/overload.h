/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: is a slow server overloaded or hung?  The readers of the two
 * status pages that say it (libfmprobe, libc only, no I/O): Apache's
 * mod_status in its machine form (`?auto`) and nginx's stub_status, and
 * the judgement "every worker is busy" made from either.
 *
 * The readers take the bytes of a reply body as they came: not
 * terminated, of any length, possibly hostile.  A page they cannot read
 * is no evidence of overload (the normal rules judge the cycle), never a
 * crash.
 */
#ifndef FAULTMON_OVERLOAD_H
#define FAULTMON_OVERLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A count above this is not believed (a hostile page, not a server). */
#define FM_OVERLOAD_MAX_COUNT UINT32_C(10000000)

/* Apache's mod_status ?auto: the fields that say how busy the workers are. */
struct fm_overload_apache {
    bool have_busy;
    bool have_idle;
    uint32_t busy_workers;      /* BusyWorkers */
    uint32_t idle_workers;      /* IdleWorkers */
    bool have_scoreboard;
    uint32_t sb_idle;           /* '_': waiting for a connection */
    uint32_t sb_open;           /* '.': a slot with no worker */
    uint32_t sb_busy;           /* any other letter: serving */
};

/* nginx's stub_status. */
struct fm_overload_nginx {
    uint32_t active;            /* "Active connections" (the status request's own included) */
    uint32_t reading;
    uint32_t writing;
    uint32_t waiting;
};

#define FM_OVERLOAD_WHY_MAX 128

/*!
 * \brief Read a mod_status `?auto` page.
 * \return 0; EINVAL when it has neither BusyWorkers nor IdleWorkers (not
 *         such a page) or a field is malformed or above FM_OVERLOAD_MAX_COUNT
 */
int fm_overload_parse_apache(const char *body, size_t len, struct fm_overload_apache *out);

/*!
 * \brief Read a stub_status page ("Active connections: N" and the
 *        "Reading: R Writing: W Waiting: X" line).
 * \return 0, or EINVAL when a line is missing or malformed
 */
int fm_overload_parse_nginx(const char *body, size_t len, struct fm_overload_nginx *out);

/*!
 * \brief Whether every Apache worker is busy: none idle, by the counts
 *        and, when it is there, by the scoreboard.
 * \param[out] why  on true, "all 150 workers busy"
 */
bool fm_overload_apache_full(const struct fm_overload_apache *st, char *why, size_t why_len);

/*!
 * \brief Whether nginx has no connection left: the active connections,
 *        its status request's own among them, fill \p capacity (the
 *        client connections it can hold: worker_processes x
 *        (worker_connections - listening sockets - 1)).
 * \param[in]  capacity  0: unknown, never full
 * \param[out] why       on true, "all 512 connections busy"
 */
bool fm_overload_nginx_full(const struct fm_overload_nginx *st, uint64_t capacity, char *why,
                            size_t why_len);

#endif
