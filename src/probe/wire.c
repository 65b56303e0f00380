/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what the pure codecs of the binary protocols share (wire.h).
 */
#include <config.h>

#include "wire.h"

#include <string.h>

void
fm_wire_reply_init(struct fm_wire_reply *reply)
{
    memset(reply, 0, sizeof(*reply));
    reply->verdict = FM_WIRE_MORE;
}

void
fm_wire_copy_text(char *out, size_t out_len, const unsigned char *in, size_t len)
{
    const unsigned char *nul = memchr(in, '\0', len);
    size_t n = (nul != NULL)? (size_t) (nul - in) : len;

    if (out_len == 0) {
        return;
    }
    if (n >= out_len) {
        n = out_len - 1;
    }
    memcpy(out, in, n);
    out[n] = '\0';
}
