/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the value of a key in what a program answers: an
 * attribute of the CIB's XML (ocf_cib.c), an option in `nginx -V`'s
 * configure arguments (ocf_nginx_params.c).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "ocf_common.h"

void
fm_ocf_text_value(const char *text, const char *limit, const char *key, const char *stop, char *buf,
                  size_t buf_len)
{
    const char *p = strstr(text, key);

    buf[0] = '\0';
    if (p == NULL || (limit != NULL && p >= limit)) {
        return;
    }
    p += strlen(key);
    snprintf(buf, buf_len, "%.*s", (int) strcspn(p, stop), p);
}
