/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the MySQL/MariaDB probe (mysql://HOST[:PORT]): the server's
 * first packet, as HAProxy's mysql-check without a user.  A protocol 10
 * greeting is ok (its server version is the detail); an error packet
 * refuses (complete) with its number: 1040 too many connections, 1129 host
 * blocked.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>

#include "wire_conv.h"

static ssize_t
mysql_end(const char *buf, size_t len, const char *tag)
{
    struct fm_wire_reply reply;

    (void) tag;
    fm_mysql_judge_greeting((const unsigned char *) buf, len, &reply);
    return fm_wire_end(&reply);
}

static enum fm_conv_judgement
mysql_judge(const char *buf, size_t len)
{
    struct fm_wire_reply reply;

    fm_mysql_judge_greeting((const unsigned char *) buf, len, &reply);
    return fm_wire_judgement(&reply);
}

static void
mysql_describe(const char *buf, size_t len, char *out, size_t out_len)
{
    struct fm_wire_reply reply;

    fm_mysql_judge_greeting((const unsigned char *) buf, len, &reply);
    if (reply.verdict == FM_WIRE_MALFORMED) {
        fm_mysql_judge_after((const unsigned char *) buf, len, &reply);     /* what followed */
    }
    fm_wire_describe(&reply, "error", buf, len, out, out_len);
}

static enum fm_conv_judgement
mysql_after(const char *buf, size_t len)
{
    struct fm_wire_reply reply;

    fm_mysql_judge_after((const unsigned char *) buf, len, &reply);
    return fm_wire_judgement(&reply);
}

static int
mysql_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct fm_conv_script *script = fm_conv_script_attach(target);

    (void) opts;
    if (script == NULL) {
        return ENOMEM;
    }
    if (fm_conv_add(script, "greeting", NULL, 0, mysql_end, mysql_judge, 0) != 0) {
        return ENOMEM;
    }
    fm_conv_set_describe(script, mysql_describe);
    fm_conv_set_after(script, mysql_after);
    return 0;
}

const struct fm_probe_proto fm_probe_proto_mysql = {
    .name = "mysql",
    .prepare = mysql_prepare,
    .on_ready = fm_conv_on_ready,
    .on_io = fm_conv_on_io,
    .timeout_note = fm_conv_timeout_note,
};
