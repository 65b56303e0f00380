/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the PostgreSQL probe (postgres://[USER@]HOST[:PORT][/DB]
 * [?sslmode=require]), as HAProxy's pgsql-check: a StartupMessage as USER
 * (default postgres) for DB (default the role's), and the backend's answer.
 * An authentication request (the server wants a password: none is ever
 * sent) or ReadyForQuery is ok; an ErrorResponse refuses (complete), its
 * SQLSTATE in the detail: 57P03 starting up, 53300 too many clients, 3D000
 * no such database.  sslmode=require sends an SSLRequest first and goes on
 * over TLS (tls.c) after its 'S'; an 'N' refuses.  sslmode=prefer and
 * disable probe in plain text: a server that offers TLS takes a plain
 * startup unless pg_hba.conf says hostssl, which then refuses (28000).
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wire_conv.h"

#define PG_DEFAULT_USER "postgres"
/* A StartupMessage: user and database names up to NAMEDATALEN (64) bytes. */
#define PG_STARTUP_MAX 512

static ssize_t
pg_end(const char *buf, size_t len, const char *tag)
{
    struct fm_wire_reply reply;

    (void) tag;
    fm_pg_judge((const unsigned char *) buf, len, &reply);
    return fm_wire_end(&reply);
}

static enum fm_conv_judgement
pg_judge(const char *buf, size_t len)
{
    struct fm_wire_reply reply;

    fm_pg_judge((const unsigned char *) buf, len, &reply);
    return fm_wire_judgement(&reply);
}

static enum fm_conv_judgement
pg_after(const char *buf, size_t len)
{
    struct fm_wire_reply reply;

    fm_pg_judge_after((const unsigned char *) buf, len, &reply);
    return fm_wire_judgement(&reply);
}

static void
pg_describe(const char *buf, size_t len, char *out, size_t out_len)
{
    struct fm_wire_reply reply;

    fm_pg_judge((const unsigned char *) buf, len, &reply);
    fm_wire_describe(&reply, "SQLSTATE", buf, len, out, out_len);
}

/* The answer to an SSLRequest: one byte, or (from a server too old to know
 * the request) an ErrorResponse. */
static ssize_t
pg_ssl_end(const char *buf, size_t len, const char *tag)
{
    switch (fm_pg_ssl_answer((const unsigned char *) buf, len)) {
        case FM_PG_SSL_MORE:
            return 0;
        case FM_PG_SSL_YES:
        case FM_PG_SSL_NO:
            return 1;
        default:
            return pg_end(buf, len, tag);
    }
}

static enum fm_conv_judgement
pg_ssl_judge(const char *buf, size_t len)
{
    switch (fm_pg_ssl_answer((const unsigned char *) buf, len)) {
        case FM_PG_SSL_YES:
            return FM_CONV_OK;
        case FM_PG_SSL_NO:
            return FM_CONV_REFUSED;     /* sslmode=require, and no TLS */
        default:
            /* Only an error may answer an SSLRequest. */
            return (pg_judge(buf, len) == FM_CONV_REFUSED)? FM_CONV_REFUSED : FM_CONV_MALFORMED;
    }
}

static void
pg_ssl_describe(const char *buf, size_t len, char *out, size_t out_len)
{
    enum fm_pg_ssl_answer answer = fm_pg_ssl_answer((const unsigned char *) buf, len);

    if (answer == FM_PG_SSL_NO) {
        snprintf(out, out_len, "the server does not offer TLS (sslmode=require)");
    } else if (answer == FM_PG_SSL_YES) {
        snprintf(out, out_len, "TLS accepted");
    } else {
        pg_describe(buf, len, out, out_len);
    }
}

/* The user from the URI (its password is never needed: the probe stops at
 * the authentication request), the database from its path. */
static size_t
pg_startup_for(const struct fm_target *target, unsigned char *out, size_t out_len)
{
    char user[128] = PG_DEFAULT_USER;
    const char *db = (target->path != NULL && target->path[0] == '/')? target->path + 1 : NULL;

    if (target->userinfo != NULL && target->userinfo[0] != ':') {
        size_t n = strcspn(target->userinfo, ":");

        if (n >= sizeof(user)) {
            return 0;
        }
        memcpy(user, target->userinfo, n);
        user[n] = '\0';
    }
    return fm_pg_startup(out, out_len, user, db);
}

static int
pg_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct fm_conv_script *script = fm_conv_script_attach(target);
    const char *sslmode = fm_target_query(target, FM_QUERY_SSLMODE);
    unsigned char startup[PG_STARTUP_MAX];
    unsigned char ssl[FM_PG_SSL_REQUEST_LEN];
    size_t startup_len = 0;
    int rc = 0;

    (void) opts;
    if (script == NULL) {
        return ENOMEM;
    }
    startup_len = pg_startup_for(target, startup, sizeof(startup));
    if (startup_len == 0) {
        return E2BIG;
    }
    if (sslmode != NULL && strcasecmp(sslmode, "require") == 0) {
        /* TLS begun in the conversation: the engine makes its context. */
        target->starttls = true;
        fm_pg_ssl_request(ssl);
        rc = fm_conv_add(script, "SSLRequest", (const char *) ssl, sizeof(ssl), pg_ssl_end,
                         pg_ssl_judge, FM_CONV_STARTTLS);
        fm_conv_set_describe(script, pg_ssl_describe);
    }
    if (rc == 0) {
        script->detail_step = script->n;
        rc = fm_conv_add(script, "startup", (const char *) startup, startup_len, pg_end, pg_judge,
                         0);
        fm_conv_set_describe(script, pg_describe);
        fm_conv_set_after(script, pg_after);
    }
    explicit_bzero(startup, sizeof(startup));
    return (rc == 0)? 0 : ENOMEM;
}

const struct fm_probe_proto fm_probe_proto_postgres = {
    .name = "postgres",
    .prepare = pg_prepare,
    .on_ready = fm_conv_on_ready,
    .on_io = fm_conv_on_io,
    .timeout_note = fm_conv_timeout_note,
};
