/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the Redis probe (redis://[[USER]:PASSWORD@]HOST[:PORT]): AUTH
 * when the URI has credentials, then PING, as HAProxy's redis-check does;
 * ok on +PONG.  An error reply (-LOADING while the dataset loads,
 * -MASTERDOWN, -BUSY with a script running, -NOAUTH, -WRONGPASS) says the
 * service refuses: complete, with the reply as the detail.  Commands go as
 * RESP arrays, so that a password is sent as it is, whatever its bytes.
 * A reply is one CRLF-ended line; anything the server sends at once after
 * it was not asked for (an error refuses, other bytes are malformed).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"

static enum fm_conv_judgement
redis_judge(const char *reply, size_t len, const char *want)
{
    size_t want_len = strlen(want);

    /* fm_conv_end_crlf() ended the line with CRLF: the whole line is the
     * status, as redis-cli reads it ("+PONG\rGARBAGE" is none). */
    if (len > 0 && reply[0] == '-') {
        return FM_CONV_REFUSED;
    }
    if (len == want_len + 2 && memcmp(reply, want, want_len) == 0) {
        return FM_CONV_OK;
    }
    return FM_CONV_MALFORMED;
}

static enum fm_conv_judgement
redis_judge_pong(const char *reply, size_t len)
{
    return redis_judge(reply, len, "+PONG");
}

static enum fm_conv_judgement
redis_judge_ok(const char *reply, size_t len)
{
    return redis_judge(reply, len, "+OK");
}

/* Append one RESP bulk string to the command being built. */
static void
redis_put_bulk(FILE *out, const char *text, size_t len)
{
    fprintf(out, "$%zu\r\n", len);
    fwrite(text, 1, len, out);
    fputs("\r\n", out);
}

/* AUTH [USER] PASSWORD from the URI's "USER:PASSWORD" (":PASSWORD", or a
 * lone PASSWORD, for the default user). */
static int
redis_add_auth(struct fm_conv_script *script, const char *userinfo)
{
    const char *colon = strchr(userinfo, ':');
    bool with_user = (colon != NULL && colon != userinfo);
    const char *password = (colon != NULL)? colon + 1 : userinfo;
    char *cmd = NULL;
    size_t cmd_len = 0;
    FILE *out = open_memstream(&cmd, &cmd_len);
    int rc = 0;

    if (out == NULL) {
        return ENOMEM;
    }
    fprintf(out, "*%d\r\n", with_user? 3 : 2);
    redis_put_bulk(out, "AUTH", 4);
    if (with_user) {
        redis_put_bulk(out, userinfo, (size_t) (colon - userinfo));
    }
    redis_put_bulk(out, password, strlen(password));
    if (fclose(out) != 0) {
        rc = ENOMEM;
    }
    if (rc == 0) {
        rc = fm_conv_add(script, "AUTH", cmd, cmd_len, fm_conv_end_crlf, redis_judge_ok, 0);
        fm_conv_set_after(script, fm_conv_after_redis);
    }
    if (cmd != NULL) {
        explicit_bzero(cmd, cmd_len);
    }
    free(cmd);
    return rc;
}

static int
redis_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    static const char ping[] = "*1\r\n$4\r\nPING\r\n";
    struct fm_conv_script *script = fm_conv_script_attach(target);
    int rc = 0;

    (void) opts;
    if (script == NULL) {
        return ENOMEM;
    }
    if (target->userinfo != NULL) {
        rc = redis_add_auth(script, target->userinfo);
    }
    if (rc == 0) {
        script->detail_step = script->n;
        rc = fm_conv_add(script, "PING", ping, sizeof(ping) - 1, fm_conv_end_crlf, redis_judge_pong,
                         FM_CONV_SIGNAL);
        fm_conv_set_after(script, fm_conv_after_redis);
    }
    return (rc == 0)? 0 : ENOMEM;
}

const struct fm_probe_proto fm_probe_proto_redis = {
    .name = "redis",
    .prepare = redis_prepare,
    .on_ready = fm_conv_on_ready,
    .on_io = fm_conv_on_io,
    .timeout_note = fm_conv_timeout_note,
};
