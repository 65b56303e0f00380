/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the FTP probe (ftp://, ftp://...?starttls): the greeting, with
 * ?starttls AUTH TLS (RFC 4217) and FEAT over TLS, then QUIT.  Ok when the
 * greeting is 220 (any 2xx) and every reply 2xx; a 421 (too many users) or
 * a 5xx says the service refuses: complete.
 */
#include <config.h>

#include <errno.h>

#include "conv.h"

static int
ftp_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct fm_conv_script *script = fm_conv_script_attach(target);
    int rc = 0;

    (void) opts;
    if (script == NULL) {
        return ENOMEM;
    }
    rc = fm_conv_add(script, "greeting", NULL, 0, fm_conv_end_coded, fm_conv_judge_2xx,
                     FM_CONV_SIGNAL);
    fm_conv_set_after(script, fm_conv_after_coded);
    if (rc == 0 && target->starttls) {
        rc = fm_conv_add(script, "AUTH TLS", "AUTH TLS\r\n", 10, fm_conv_end_coded,
                         fm_conv_judge_2xx, FM_CONV_STARTTLS);
        fm_conv_set_after(script, fm_conv_after_coded);
        if (rc == 0) {
            rc = fm_conv_add(script, "FEAT", "FEAT\r\n", 6, fm_conv_end_coded, fm_conv_judge_2xx, 0);
            fm_conv_set_after(script, fm_conv_after_coded);
        }
    }
    if (rc == 0) {
        rc = fm_conv_add(script, "QUIT", "QUIT\r\n", 6, NULL, NULL, FM_CONV_QUIT);
    }
    return (rc == 0)? 0 : ENOMEM;
}

const struct fm_probe_proto fm_probe_proto_ftp = {
    .name = "ftp",
    .prepare = ftp_prepare,
    .on_ready = fm_conv_on_ready,
    .on_io = fm_conv_on_io,
    .timeout_note = fm_conv_timeout_note,
};
