/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the POP3 probe (pop3://, pop3s://, pop3://...?starttls): the
 * greeting, CAPA, with ?starttls STLS (RFC 2595) and CAPA again over TLS,
 * then QUIT.  Ok when every reply is +OK; a -ERR (a greeting that refuses,
 * a server that will not start TLS) says the service refuses: complete.
 */
#include <config.h>

#include <errno.h>

#include "conv.h"

static int
pop3_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct fm_conv_script *script = fm_conv_script_attach(target);
    int rc = 0;

    (void) opts;
    if (script == NULL) {
        return ENOMEM;
    }
    rc = fm_conv_add(script, "greeting", NULL, 0, fm_conv_end_line, fm_conv_judge_pop3,
                     FM_CONV_SIGNAL);
    fm_conv_set_after(script, fm_conv_after_pop3);
    if (rc == 0) {
        rc = fm_conv_add(script, "CAPA", "CAPA\r\n", 6, fm_conv_end_dotted, fm_conv_judge_pop3, 0);
        fm_conv_set_after(script, fm_conv_after_pop3);
    }
    if (rc == 0 && target->starttls) {
        rc = fm_conv_add(script, "STLS", "STLS\r\n", 6, fm_conv_end_line, fm_conv_judge_pop3,
                         FM_CONV_STARTTLS);
        if (rc == 0) {
            rc = fm_conv_add(script, "CAPA", "CAPA\r\n", 6, fm_conv_end_dotted, fm_conv_judge_pop3, 0);
            fm_conv_set_after(script, fm_conv_after_pop3);
        }
    }
    if (rc == 0) {
        rc = fm_conv_add(script, "QUIT", "QUIT\r\n", 6, NULL, NULL, FM_CONV_QUIT);
    }
    return (rc == 0)? 0 : ENOMEM;
}

const struct fm_probe_proto fm_probe_proto_pop3 = {
    .name = "pop3",
    .prepare = pop3_prepare,
    .on_ready = fm_conv_on_ready,
    .on_io = fm_conv_on_io,
    .timeout_note = fm_conv_timeout_note,
};
