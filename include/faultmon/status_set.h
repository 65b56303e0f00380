/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: sets of HTTP status codes (src/core/status_set.c), as
 * expect_status and maintenance_status give them: "200-399,401,5xx".
 */
#ifndef FAULTMON_STATUS_SET_H
#define FAULTMON_STATUS_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Status codes 0..999 as a bitmap: "200-399,401" and the like. */
struct fm_status_set {
    uint8_t bits[125];
};

/*! \brief Parse "200-399,401,5xx"-style lists. \return 0 or EINVAL */
int fm_status_set_parse(struct fm_status_set *set, const char *text,
                        char *err, size_t err_len);
bool fm_status_set_has(const struct fm_status_set *set, int status);

#endif
