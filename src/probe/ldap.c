/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the LDAP probe (ldap://HOST[:PORT], ldaps://, ldap://...?starttls),
 * as HAProxy's ldap-check: an anonymous simple bind (LDAPv3), then an
 * unbind; with ?rootdse, a base search of the root DSE instead (RFC 4512
 * 5.1), which a directory that refuses anonymous binds (Active Directory,
 * slapd's "disallow bind_anon") still answers.  resultCode 0 is ok; any
 * other refuses (complete) with the code and its name: 48
 * inappropriateAuthentication where anonymous binds are disallowed, 51
 * busy, 52 unavailable, 53 unwillingToPerform.  ?starttls sends the
 * StartTLS extended operation first and binds or searches over TLS (tls.c).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>

#include "wire_conv.h"

/* Message ids: StartTLS, then the bind, then the unbind. */
#define LDAP_ID_STARTTLS 1u
#define LDAP_ID_BIND 2u          /* or the root DSE search */
#define LDAP_ID_UNBIND 3u
#define LDAP_REQUEST_MAX 64

static void
ldap_judge_reply(const char *buf, size_t len, bool starttls, struct fm_wire_reply *reply)
{
    fm_ldap_judge((const unsigned char *) buf, len, starttls? LDAP_ID_STARTTLS : LDAP_ID_BIND,
                  starttls? FM_LDAP_EXTENDED_RESPONSE : FM_LDAP_BIND_RESPONSE, reply);
}

static void
ldap_judge_search(const char *buf, size_t len, struct fm_wire_reply *reply)
{
    fm_ldap_judge((const unsigned char *) buf, len, LDAP_ID_BIND, FM_LDAP_SEARCH_DONE, reply);
}

static ssize_t
ldap_search_end(const char *buf, size_t len, const char *tag)
{
    struct fm_wire_reply reply;

    (void) tag;
    ldap_judge_search(buf, len, &reply);
    return fm_wire_end(&reply);
}

static enum fm_conv_judgement
ldap_search_judge(const char *buf, size_t len)
{
    struct fm_wire_reply reply;

    ldap_judge_search(buf, len, &reply);
    return fm_wire_judgement(&reply);
}

static void
ldap_search_describe(const char *buf, size_t len, char *out, size_t out_len)
{
    struct fm_wire_reply reply;

    ldap_judge_search(buf, len, &reply);
    fm_wire_describe(&reply, "resultCode", buf, len, out, out_len);
}

static ssize_t
ldap_bind_end(const char *buf, size_t len, const char *tag)
{
    struct fm_wire_reply reply;

    (void) tag;
    ldap_judge_reply(buf, len, false, &reply);
    return fm_wire_end(&reply);
}

static enum fm_conv_judgement
ldap_bind_judge(const char *buf, size_t len)
{
    struct fm_wire_reply reply;

    ldap_judge_reply(buf, len, false, &reply);
    return fm_wire_judgement(&reply);
}

static void
ldap_bind_describe(const char *buf, size_t len, char *out, size_t out_len)
{
    struct fm_wire_reply reply;

    ldap_judge_reply(buf, len, false, &reply);
    fm_wire_describe(&reply, "resultCode", buf, len, out, out_len);
}

static ssize_t
ldap_tls_end(const char *buf, size_t len, const char *tag)
{
    struct fm_wire_reply reply;

    (void) tag;
    ldap_judge_reply(buf, len, true, &reply);
    return fm_wire_end(&reply);
}

static enum fm_conv_judgement
ldap_tls_judge(const char *buf, size_t len)
{
    struct fm_wire_reply reply;

    ldap_judge_reply(buf, len, true, &reply);
    return fm_wire_judgement(&reply);
}

static void
ldap_tls_describe(const char *buf, size_t len, char *out, size_t out_len)
{
    struct fm_wire_reply reply;

    ldap_judge_reply(buf, len, true, &reply);
    fm_wire_describe(&reply, "resultCode", buf, len, out, out_len);
}

static enum fm_conv_judgement
ldap_after(const char *buf, size_t len)
{
    struct fm_wire_reply reply;

    fm_ldap_judge_after((const unsigned char *) buf, len, &reply);
    return fm_wire_judgement(&reply);
}

static int
ldap_prepare(struct fm_target *target, const struct fm_probe_opts *opts)
{
    struct fm_conv_script *script = fm_conv_script_attach(target);
    unsigned char req[LDAP_REQUEST_MAX];
    size_t n = 0;
    int rc = 0;

    (void) opts;
    if (script == NULL) {
        return ENOMEM;
    }
    if (target->starttls) {
        n = fm_ldap_starttls_request(req, sizeof(req), LDAP_ID_STARTTLS);
        rc = fm_conv_add(script, "StartTLS", (const char *) req, n, ldap_tls_end, ldap_tls_judge,
                         FM_CONV_STARTTLS);
        fm_conv_set_describe(script, ldap_tls_describe);
        fm_conv_set_after(script, ldap_after);
    }
    if (rc == 0 && fm_target_query(target, FM_QUERY_ROOTDSE) != NULL) {
        n = fm_ldap_rootdse_request(req, sizeof(req), LDAP_ID_BIND);
        script->detail_step = script->n;
        rc = fm_conv_add(script, "root DSE search", (const char *) req, n, ldap_search_end,
                         ldap_search_judge, 0);
        fm_conv_set_describe(script, ldap_search_describe);
        fm_conv_set_after(script, ldap_after);
    } else if (rc == 0) {
        n = fm_ldap_bind_request(req, sizeof(req), LDAP_ID_BIND);
        script->detail_step = script->n;
        rc = fm_conv_add(script, "bind", (const char *) req, n, ldap_bind_end, ldap_bind_judge, 0);
        fm_conv_set_describe(script, ldap_bind_describe);
        fm_conv_set_after(script, ldap_after);
    }
    if (rc == 0) {
        n = fm_ldap_unbind_request(req, sizeof(req), LDAP_ID_UNBIND);
        rc = fm_conv_add(script, "unbind", (const char *) req, n, NULL, NULL, FM_CONV_QUIT);
    }
    return (rc == 0)? 0 : ENOMEM;
}

const struct fm_probe_proto fm_probe_proto_ldap = {
    .name = "ldap",
    .prepare = ldap_prepare,
    .on_ready = fm_conv_on_ready,
    .on_io = fm_conv_on_io,
    .timeout_note = fm_conv_timeout_note,
};
