/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the IMAP probe (imap://, imaps://, imap://...?starttls): the
 * greeting, CAPABILITY, with ?starttls STARTTLS (RFC 3501 6.2.1) and
 * CAPABILITY again over TLS, then LOGOUT.  Ok on "* OK" (or "* PREAUTH")
 * and each command's tagged OK; "* BYE" or a tagged NO or BAD says the
 * service refuses: complete.
 */
#include <config.h>

#include <errno.h>

#include "conv.h"

static int
imap_add(struct fm_conv_script *script, const char *what, const char *tag, const char *cmd,
         size_t cmd_len, unsigned flags)
{
    int rc = fm_conv_add(script, what, cmd, cmd_len, fm_conv_end_tagged, fm_conv_judge_imap_tagged,
                         flags);

    if (rc == 0) {
        script->steps[script->n - 1].tag = tag;
        fm_conv_set_after(script, fm_conv_after_imap);
    }
    return rc;
}

static int
imap_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct fm_conv_script *script = fm_conv_script_attach(target);
    int rc = 0;

    (void) opts;
    if (script == NULL) {
        return ENOMEM;
    }
    rc = fm_conv_add(script, "greeting", NULL, 0, fm_conv_end_line, fm_conv_judge_imap_greeting,
                     FM_CONV_SIGNAL);
    fm_conv_set_after(script, fm_conv_after_imap);
    if (rc == 0) {
        rc = imap_add(script, "CAPABILITY", "a1", "a1 CAPABILITY\r\n", 15, 0);
    }
    if (rc == 0 && target->starttls) {
        rc = imap_add(script, "STARTTLS", "a2", "a2 STARTTLS\r\n", 13, FM_CONV_STARTTLS);
        if (rc == 0) {
            rc = imap_add(script, "CAPABILITY", "a3", "a3 CAPABILITY\r\n", 15, 0);
        }
    }
    if (rc == 0) {
        rc = fm_conv_add(script, "LOGOUT", "a9 LOGOUT\r\n", 11, NULL, NULL, FM_CONV_QUIT);
    }
    return (rc == 0)? 0 : ENOMEM;
}

const struct fm_probe_proto fm_probe_proto_imap = {
    .name = "imap",
    .prepare = imap_prepare,
    .on_ready = fm_conv_on_ready,
    .on_io = fm_conv_on_io,
    .timeout_note = fm_conv_timeout_note,
};
