/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the SMTP probe (smtp://, smtps://, smtp://...?starttls): the
 * banner, EHLO, with ?starttls STARTTLS and EHLO again over TLS, then QUIT,
 * as HAProxy's smtpchk does (it stops at the EHLO reply).  Ok when the
 * banner and every reply is 2xx; a 4xx or 5xx (a 554 banner, a 421) says
 * the service refuses: complete.  A 421 that follows a good reply at once
 * refuses too.  After QUIT the probe waits for the 221 within the
 * deadline, then closes (RFC 5321 4.1.1.10): a close without one is still
 * ok, but a reset would be logged by the server as a lost connection.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conv.h"

/* "EHLO name\r\n": this host's name, as RFC 5321 4.1.1.1 asks. */
static int
smtp_ehlo(char *buf, size_t buf_len)
{
    char host[256] = "";

    if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0'
        || strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
           != strlen(host)) {
        snprintf(host, sizeof(host), "localhost");
    }
    return snprintf(buf, buf_len, "EHLO %s\r\n", host);
}

/* A step whose reply is 2xx, and after which only a 4xx or 5xx notice may
 * come at once (it refuses). */
static int
smtp_add(struct fm_conv_script *script, const char *what, const char *send, size_t send_len,
         unsigned flags)
{
    int rc = fm_conv_add(script, what, send, send_len, fm_conv_end_coded, fm_conv_judge_2xx,
                         flags);

    if (rc == 0) {
        fm_conv_set_after(script, fm_conv_after_coded);
    }
    return rc;
}

static int
smtp_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct fm_conv_script *script = fm_conv_script_attach(target);
    char ehlo[300];
    size_t ehlo_len = 0;
    int rc = 0;

    (void) opts;
    if (script == NULL) {
        return ENOMEM;
    }
    ehlo_len = (size_t) smtp_ehlo(ehlo, sizeof(ehlo));
    rc = smtp_add(script, "banner", NULL, 0, FM_CONV_SIGNAL);
    if (rc == 0) {
        rc = smtp_add(script, "EHLO", ehlo, ehlo_len, 0);
    }
    if (rc == 0 && target->starttls) {
        rc = smtp_add(script, "STARTTLS", "STARTTLS\r\n", 10, FM_CONV_STARTTLS);
        if (rc == 0) {
            rc = smtp_add(script, "EHLO", ehlo, ehlo_len, 0);
        }
    }
    if (rc == 0) {
        /* Its end function: the 221 is read before the close. */
        rc = fm_conv_add(script, "QUIT", "QUIT\r\n", 6, fm_conv_end_coded, NULL, FM_CONV_QUIT);
    }
    return (rc == 0)? 0 : ENOMEM;
}

const struct fm_probe_proto fm_probe_proto_smtp = {
    .name = "smtp",
    .prepare = smtp_prepare,
    .on_ready = fm_conv_on_ready,
    .on_io = fm_conv_on_io,
    .timeout_note = fm_conv_timeout_note,
    .on_deadline = fm_conv_on_deadline,
};
