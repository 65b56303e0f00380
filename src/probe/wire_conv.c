/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: what the binary protocols' conversations share: a reply's
 * words for a detail (wire.h's code and text, escaped), in the form
 * conv.c asks for.
 */
#include <config.h>

#include "wire_conv.h"

#include <stdio.h>
#include <string.h>

#include <faultmon/text.h>

void
fm_wire_describe(const struct fm_wire_reply *reply, const char *code_label, const char *reply_bytes,
                 size_t len, char *out, size_t out_len)
{
    char text[FM_WIRE_TEXT_LEN * 4 + 1];
    char line[FM_WIRE_TEXT_LEN * 4 + 64];

    if (reply->verdict != FM_WIRE_OK && reply->verdict != FM_WIRE_REFUSED) {
        /* Not the protocol: show what came, as a line protocol would. */
        fm_conv_first_line(reply_bytes, len, out, out_len);
        return;
    }
    fm_text_escape(text, sizeof(text), reply->text, strlen(reply->text));
    if (reply->code[0] != '\0') {
        snprintf(line, sizeof(line), "%s %s%s%s", code_label, reply->code,
                 (text[0] != '\0')? " " : "", text);
    } else {
        snprintf(line, sizeof(line), "%s", text);
    }
    snprintf(out, out_len, "%s", line);
    fm_text_clean(out, out_len);
}

enum fm_conv_judgement
fm_wire_judgement(const struct fm_wire_reply *reply)
{
    switch (reply->verdict) {
        case FM_WIRE_OK:
            return FM_CONV_OK;
        case FM_WIRE_REFUSED:
            return FM_CONV_REFUSED;
        default:
            return FM_CONV_MALFORMED;
    }
}

ssize_t
fm_wire_end(const struct fm_wire_reply *reply)
{
    switch (reply->verdict) {
        case FM_WIRE_MORE:
            return 0;
        case FM_WIRE_MALFORMED:
            return -1;
        default:
            return (ssize_t) reply->used;
    }
}
