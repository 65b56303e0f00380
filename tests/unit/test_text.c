/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: the redaction of URI secrets and the escaping of messages
 * (src/util/text.c), base64 and the error-message helper, and that the target parser's messages and texts go through
 * them.
 */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/http.h>
#include <faultmon/probe_opts.h>
#include <faultmon/target.h>
#include <faultmon/target_exec.h>
#include <faultmon/text.h>

struct redact_case {
    const char *in;
    const char *out;
    bool cut;
};

static const struct redact_case redact_cases[] = {
    /* well-formed: the user name goes too (it may be a token) */
    { "invalid target 'http://bob:s3cr3t@192.0.2.1:99999/x': port",
      "invalid target 'http://***@192.0.2.1:99999/x': port", false },
    { "HTTPS://U:P@H/", "HTTPS://***@H/", false },
    /* the malformed forms of issue 8 */
    { "http://user:ab/cd@h/", "http://***@h/", false },
    { "http://user:p@ss@h/", "http://***@h/", false },
    { "http:/user:s3cret@h/", "http:/***@h/", false },
    /* and their relatives */
    { "http:user:s3cret@h/", "http:***@h/", false },
    { "user:s3cret@h/", "user:***@h/", false },
    { "http://user:p?ss@h/", "http://***@h/", false },
    { "http://user:p#ss@h/", "http://***@h/", false },
    { "http://user:p@ss:x@h/", "http://***@h/", false },
    { "http://user:x://y@h/", "http://***@h/", false },
    { "http://user:p=x:y@h/", "http://***@h/", false },
    { "http://user:pa ss@h/", "http://***@h/", false },
    { "'http://user:pa'ss@h/'", "'http://***@h/'", false },
    { "http://user:p\nq@h/", "http://***@h/", false },
    { "http:\\\\user:pw@h/", "http:\\\\***@h/", false },
    { "Monitor_Uri_List=http://user:pw@h/x", "Monitor_Uri_List=http://***@h/x", false },
    /* percent-encoded */
    { "http://user:p%40ss@h/", "http://***@h/", false },
    { "http://user:ab%2Fcd@h/", "http://***@h/", false },
    { "http://us%3Aer:pw@h/", "http://***@h/", false },
    { "http%3A%2F%2Fuser:pw@h/", "http%3A%2F%2Fuser:***@h/", false },
    /* userinfo without a password */
    { "http://token@h/", "http://***@h/", false },
    { "http://user:@h/", "http://***@h/", false },
    { "http://@h/", "http://@h/", false },
    /* several URIs in one message */
    { "a https://u:p@h/ and http://v:@h2/ and http://nopass@h3/ and http://h4:80/",
      "a https://***@h/ and http://***@h2/ and http://***@h3/ and http://h4:80/", false },
    { "'http://a:b@h1/' 'http://c:d@h2/'", "'http://***@h1/' 'http://***@h2/'", false },
    { "http://h1/ and http://c:d/e@h2/", "http://h1/ and http://***@h2/", false },
    { "apache(web:0) monitor: http://u:p@h/x failed: read/read-timeout",
      "apache(web:0) monitor: http://***@h/x failed: read/read-timeout", false },
    /* only white space sets URIs apart: a password may hold the rest */
    { "'http://a:b@h1/','http://c:d@h2/'", "'http://***@h2/'", false },
    { "http://user:a,b:c@h/", "http://***@h/", false },
    { "http://user:a'b:c@h/", "http://***@h/", false },
    { "http://user:a(b:c@h/", "http://***@h/", false },
    /* no secret */
    { "tcp://[::1]:5432 and http://127.0.0.1:8080/x?y=1", "tcp://[::1]:5432 and http://127.0.0.1:8080/x?y=1", false },
    { "reason: connect/connect-failed at 12:30:45", "reason: connect/connect-failed at 12:30:45", false },
    { "root@localhost: ok", "root@localhost: ok", false },
    { "status: user@h", "status: user@h", false },
    { "", "", false },
    /* a URI at the end of a cut text: its '@' may be gone */
    { "x http://user:s3cr", "x http://***", true },
    { "x http://user:p@s", "x http://***", true },
    { "x http://u:p@host/pat", "x http://***", true },
    { "bad: 'http://tok", "bad: 'http://***", true },
    { "x http://user:s3cr", "x http://user:s3cr", false },
    { "plain text: cut here", "plain text: cut here", true },
};

static void
test_redact_table(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(redact_cases) / sizeof(redact_cases[0]); i++) {
        const struct redact_case *c = &redact_cases[i];
        char out[256];
        size_t n = fm_text_redact(out, sizeof(out), c->in, strlen(c->in), c->cut);

        if (strcmp(out, c->out) != 0 || n != strlen(c->out)) {
            fail_msg("case %zu: '%s' gave '%s' (%zu), expected '%s'", i, c->in, out, n, c->out);
        }
        /* Redaction is idempotent: a message may pass through twice. */
        n = fm_text_redact(out, sizeof(out), c->out, strlen(c->out), c->cut);
        if (strcmp(out, c->out) != 0) {
            fail_msg("case %zu: '%s' again gave '%s'", i, c->out, out);
        }
    }
}

static void
test_redact_bounds(void **state)
{
    char tiny[22];
    char out[8];

    (void) state;
    /* A short password grows the text: it is cut, never overflowed, and the
     * length of the whole is returned. */
    assert_int_equal(fm_text_redact(tiny, sizeof(tiny), "x http://p@host/path", 20, false), 22);
    assert_string_equal(tiny, "x http://***@host/pat");
    assert_int_equal(fm_text_redact(NULL, 0, "http://u:p@h", 12, false), 12);
    assert_int_equal(fm_text_redact(out, 1, "http://u:p@h", 12, false), 12);
    assert_string_equal(out, "");
    /* in_len bounds the input: no NUL needed */
    assert_int_equal(fm_text_redact(out, sizeof(out), "u:p@hXXXX", 5, false), 7);
    assert_string_equal(out, "u:***@h");
}

struct escape_case {
    const char *in;
    size_t in_len;      /* 0: strlen */
    const char *out;
};

static const struct escape_case escape_cases[] = {
    { "plain, with a \\ backslash", 0, "plain, with a \\ backslash" },
    { "a\nb\r\tc", 0, "a\\x0ab\\x0d\\x09c" },
    { "del\x7f", 0, "del\\x7f" },
    { "nul\0after", 9, "nul\\x00after" },
    { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
    { "bad \xff byte", 0, "bad \\xff byte" },
    { "cut \xc3", 0, "cut \\xc3" },
    { "cut \xe2\x82", 0, "cut \\xe2\\x82" },
    { "lone \x80 continuation", 0, "lone \\x80 continuation" },
    { "overlong \xc0\xaf", 0, "overlong \\xc0\\xaf" },
    { "overlong \xe0\x80\xaf", 0, "overlong \\xe0\\x80\\xaf" },
    { "surrogate \xed\xa0\x80", 0, "surrogate \\xed\\xa0\\x80" },
    { "too big \xf4\x90\x80\x80", 0, "too big \\xf4\\x90\\x80\\x80" },
    { "c1 \xc2\x85 nel", 0, "c1 \\xc2\\x85 nel" },
    { "ls \xe2\x80\xa8 ps \xe2\x80\xa9", 0, "ls \\xe2\\x80\\xa8 ps \\xe2\\x80\\xa9" },
    { "rlo \xe2\x80\xae", 0, "rlo \\xe2\\x80\\xae" },
    { "isolate \xe2\x81\xa6", 0, "isolate \\xe2\\x81\\xa6" },
    { "nonchar \xef\xbf\xbf", 0, "nonchar \\xef\\xbf\\xbf" },
    { "ok \xef\xbf\xbd", 0, "ok \xef\xbf\xbd" },
};

static void
test_escape_table(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(escape_cases) / sizeof(escape_cases[0]); i++) {
        const struct escape_case *c = &escape_cases[i];
        size_t len = (c->in_len != 0)? c->in_len : strlen(c->in);
        char out[256];

        assert_true(fm_text_escape(out, sizeof(out), c->in, len));
        if (strcmp(out, c->out) != 0) {
            fail_msg("case %zu: gave '%s', expected '%s'", i, out, c->out);
        }
    }
}

static void
test_escape_bounds(void **state)
{
    char out[8];

    (void) state;
    /* Cut between whole characters and whole escapes only. */
    assert_false(fm_text_escape(out, 6, "ab\ncd", 5));
    assert_string_equal(out, "ab");
    assert_false(fm_text_escape(out, 3, "a\xc3\xa9", 3));
    assert_string_equal(out, "a");
    assert_true(fm_text_escape(out, 4, "a\xc3\xa9", 3));
    assert_string_equal(out, "a\xc3\xa9");
    assert_false(fm_text_escape(out, 1, "a", 1));
    assert_string_equal(out, "");
    assert_true(fm_text_escape(out, 0, "", 0));
}

static void
test_clean_in_place(void **state)
{
    char buf[64];
    char full[16];
    char small[24];

    (void) state;
    strcpy(buf, "http://u:p@h/\n\xff");
    fm_text_clean(buf, sizeof(buf));
    assert_string_equal(buf, "http://***@h/\\x0a\\xff");

    /* Not full: a URI without '@' is shown as it is. */
    strcpy(buf, "x http://user:s3cr");
    fm_text_clean(buf, sizeof(buf));
    assert_string_equal(buf, "x http://user:s3cr");

    /* Full to the last byte: it may have been cut in the password. */
    strcpy(full, "x http://u:s3cr");
    fm_text_clean(full, sizeof(full));
    assert_string_equal(full, "x http://***");

    /* A URI at the end of a truncated buffer, as snprintf() would leave it. */
    memcpy(small, "bad: http://user:secretpassword@h/", sizeof(small) - 1);
    small[sizeof(small) - 1] = '\0';
    fm_text_clean(small, sizeof(small));
    assert_string_equal(small, "bad: http://***");
}

static void
test_format(void **state)
{
    char buf[24];
    char big[128];

    (void) state;
    /* The whole text is redacted before it is cut. */
    fm_text_format(buf, sizeof(buf), "0123456789 http://u:%s@host/", "supersecret");
    assert_string_equal(buf, "0123456789 http://***@h");
    fm_text_format(buf, sizeof(buf), "%s http://u:%s@h/", "aaaaaaaaaaaaaaaaaaaa", "s3cret");
    assert_string_equal(buf, "aaaaaaaaaaaaaaaaaaaa ht");
    /* Redaction before escaping: a control character in the password is
     * hidden with it. */
    fm_text_format(big, sizeof(big), "res %s: 'http://u:%s@h/'", "r\n1", "p\x01w");
    assert_string_equal(big, "res r\\x0a1: 'http://***@h/'");
}

/* RFC 4648 section 10's test vectors, and bytes above 0x7f. */
struct base64_case {
    const char *in;
    size_t in_len;
    const char *out;
};

static const struct base64_case base64_cases[] = {
    { "", 0, "" },
    { "f", 1, "Zg==" },
    { "fo", 2, "Zm8=" },
    { "foo", 3, "Zm9v" },
    { "foob", 4, "Zm9vYg==" },
    { "fooba", 5, "Zm9vYmE=" },
    { "foobar", 6, "Zm9vYmFy" },
    { "user:p@ss", 9, "dXNlcjpwQHNz" },
    { "\xff\xfe\x00", 3, "//4A" },
};

static void
test_base64(void **state)
{
    char out[64];

    (void) state;
    for (size_t i = 0; i < sizeof(base64_cases) / sizeof(base64_cases[0]); i++) {
        const struct base64_case *c = &base64_cases[i];

        assert_int_equal(strlen(c->out) + 1, FM_BASE64_SIZE(c->in_len));
        assert_int_equal(fm_base64_encode(c->in, c->in_len, out, sizeof(out)), 0);
        assert_string_equal(out, c->out);
        /* Exactly big enough is enough. */
        memset(out, 'x', sizeof(out));
        assert_int_equal(fm_base64_encode(c->in, c->in_len, out, FM_BASE64_SIZE(c->in_len)), 0);
        assert_string_equal(out, c->out);
    }
    /* One byte short: nothing, never a prefix. */
    memset(out, 'x', sizeof(out));
    assert_int_equal(fm_base64_encode("foobar", 6, out, 8), ENOSPC);
    assert_string_equal(out, "");
    assert_int_equal(fm_base64_encode("f", 1, out, 0), ENOSPC);
    assert_int_equal(out[0], '\0');
    assert_int_equal(fm_base64_encode(NULL, 0, NULL, 0), ENOSPC);
    assert_int_equal(fm_base64_encode(NULL, 0, out, 1), 0);
    assert_string_equal(out, "");
}

static void
test_errf(void **state)
{
    char err[32];

    (void) state;
    assert_int_equal(fm_errf(err, sizeof(err), EINVAL, "bad '%s'", "x"), EINVAL);
    assert_string_equal(err, "bad 'x'");
    /* Redacted and escaped as fm_text_format() does, then cut. */
    assert_int_equal(fm_errf(err, sizeof(err), ERANGE, "'http://u:%s@h/'\n", "pw"), ERANGE);
    assert_string_equal(err, "'http://***@h/'\\x0a");
    assert_int_equal(fm_errf(err, 8, 0, "%s", "0123456789"), 0);
    assert_string_equal(err, "0123456");
    /* No buffer: only the code. */
    assert_int_equal(fm_errf(NULL, 0, ENOMEM, "%s", "x"), ENOMEM);
    assert_int_equal(fm_errf(err, 0, EIO, "%s", "x"), EIO);
}

/* What the target parser says about the malformed URIs: the redacted form
 * (positive control) and never the secret. */
struct target_case {
    const char *text;
    const char *secret;
    const char *shown;
};

static const struct target_case target_cases[] = {
    { "http://user:ab/cd@h/", "ab/cd", "http://***@h/" },
    { "http://user:p?ss@h/", "p?ss", "http://***@h/" },
    { "http://user:p#ss@h/", "p#ss", "http://***@h/" },
    { "http:/user:s3cret@h/", "s3cret", "http:/***@h/" },
    { "http:user:s3cret@h/", "s3cret", "http:***@h/" },
    { "ftp://user:s3cret@h/", "s3cret", "ftp://***@h/" },
    { "tcp://user:s3cret@h:80", "s3cret", "tcp://***@h:80" },
    { "http://user:s3cret@h:99999/", "s3cret", "http://***@h:99999/" },
    { "http://user:s3cret@bad_host!/", "s3cret", "http://***@bad_host!/" },
    { "http://user:s3cret@h/ x", "s3cret", "http://***@h/ x" },
    { "http://user:p@ss@h:0/", "p@ss", "http://***@h:0/" },
    { "http://tok3n@h/a b", "tok3n", "http://***@h/a b" },
};

static void
test_target_messages(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(target_cases) / sizeof(target_cases[0]); i++) {
        const struct target_case *c = &target_cases[i];
        struct fm_target t;
        char err[256];

        err[0] = '\0';
        assert_int_equal(fm_target_parse(c->text, true, &t, err, sizeof(err)), EINVAL);
        if (strstr(err, c->secret) != NULL || strstr(err, c->shown) == NULL) {
            fail_msg("case %zu: '%s' gave '%s'", i, c->text, err);
        }
    }
}

static void
test_target_texts(void **state)
{
    struct fm_target t;
    struct fm_probe_opts opts;
    char err[256];

    (void) state;
    fm_probe_opts_init(&opts);
    /* The last '@' ends the credentials, as in browsers. */
    assert_int_equal(fm_target_parse("http://user:p@ss@127.0.0.1/x", true, &t, err, sizeof(err)), 0);
    assert_string_equal(t.host, "127.0.0.1");
    assert_string_equal(t.text, "http://***@127.0.0.1/x");
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    /* base64("user:p@ss") */
    assert_non_null(strstr(t.request, "Authorization: Basic dXNlcjpwQHNz\r\n"));
    fm_target_clear(&t);

    /* Percent-encoded credentials are sent decoded. */
    assert_int_equal(fm_target_parse("http://user:ab%2Fcd%40@h/", true, &t, err, sizeof(err)), 0);
    assert_string_equal(t.text, "http://***@h/");
    assert_int_equal(fm_http_build_request(&t, &opts), 0);
    /* base64("user:ab/cd@") */
    assert_non_null(strstr(t.request, "Authorization: Basic dXNlcjphYi9jZEA=\r\n"));
    fm_target_clear(&t);

    /* A user name alone may be a token. */
    assert_int_equal(fm_target_parse("http://tok3n@h/", true, &t, err, sizeof(err)), 0);
    assert_string_equal(t.text, "http://***@h/");
    fm_target_clear(&t);

    /* An '@' in a path would hide the host in every message: refused, with
     * the way out in the message. */
    assert_int_equal(fm_target_parse("http://h/a@b", true, &t, err, sizeof(err)), EINVAL);
    assert_non_null(strstr(err, "%40"));
    fm_probe_opts_clear(&opts);
}

/* Issue 30, defect 8: a secret a server echoes back is hidden wherever it
 * shows, escaped or not, and its pieces where a line break or a cut split
 * it. */
struct secret_case {
    const char *in;
    const char *out;
};

static const struct secret_case secret_cases[] = {
    { "-ERR invalid password Qz7kWv4p for user", "-ERR invalid password *** for user" },
    { "redis: -Qz7kWv4p", "redis: -***" },
    { "twice: Qz7kWv4p Qz7kWv4p", "twice: *** ***" },
    { "escaped: Qz7k\\x20Wv4p", "escaped: ***" },                    /* the second secret */
    { "escaped: \\x51z7kWv4p", "escaped: ***" },
    { "split: Qz7k\\x0d\\x0aWv4p", "split: ***\\x0d\\x0a***" },
    { "first line: -ERR Qz7kW", "first line: -ERR ***" },             /* cut at its end */
    { "excerpt: \"Qz7kWv\"", "excerpt: \"***\"" },
    { "three lines: Qz7\\x0a7kWv\\x0a4p", "three lines: Qz7\\x0a***\\x0a4p" },
    { "\"7kWv4\" cut at both ends", "\"***\" cut at both ends" },
    { "Wv4p, the rest", "***, the rest" },                             /* its end first */
    { "short pieces stay: Qz7 and v4p", "short pieces stay: Qz7 and v4p" },
    { "not cut: Qz7kW and more", "not cut: Qz7kW and more" },
    { "sp ace: Qz7k Wv4p.", "sp ace: ***." },
    { "", "" },
};

static void
test_redact_secrets(void **state)
{
    const char *secrets[] = { "Qz7kWv4p", NULL, "", "Qz7k Wv4p" };
    char out[256];

    (void) state;
    for (size_t i = 0; i < sizeof(secret_cases) / sizeof(secret_cases[0]); i++) {
        const struct secret_case *c = &secret_cases[i];
        size_t n = fm_text_redact_secrets(out, sizeof(out), c->in, strlen(c->in), secrets, 4);

        print_message("# case %zu: '%s'\n", i, c->in);
        assert_string_equal(out, c->out);
        assert_int_equal(n, strlen(c->out));
    }
    /* a short buffer: cut, never a piece of the secret */
    assert_int_equal(fm_text_redact_secrets(out, 8, "ab Qz7kWv4p", 11, secrets, 1), 6);
    assert_string_equal(out, "ab ***");
    /* no secret: unchanged */
    assert_int_equal(fm_text_redact_secrets(out, sizeof(out), "x Qz7kWv4p", 10, NULL, 0), 10);
    assert_string_equal(out, "x Qz7kWv4p");
}

/* The secrets of a target: its password, the base64 an HTTP server gets,
 * and credential headers' values. */
static void
test_target_redact_reply(void **state)
{
    struct fm_target t;
    struct fm_probe_opts opts;
    char err[256];
    char text[160];

    (void) state;
    fm_probe_opts_init(&opts);
    assert_int_equal(fm_target_parse("redis://:Qz7k%20Wv4p@127.0.0.1:1", false, &t, err,
                                     sizeof(err)), 0);
    snprintf(text, sizeof(text), "AUTH: -ERR Qz7k Wv4p");
    fm_target_redact_reply(&t, &opts, text, sizeof(text));
    assert_string_equal(text, "AUTH: -ERR ***");
    fm_target_clear(&t);

    assert_int_equal(fm_target_parse("http://user:pw4secret@127.0.0.1:1/", false, &t, err,
                                     sizeof(err)), 0);
    /* base64("user:pw4secret") */
    snprintf(text, sizeof(text), "malformed reply: \"Basic dXNlcjpwdzRzZWNyZXQ=\" pw4secret");
    fm_target_redact_reply(&t, &opts, text, sizeof(text));
    assert_string_equal(text, "malformed reply: \"Basic ***\" ***");
    fm_target_clear(&t);

    assert_int_equal(fm_probe_opts_add_header(&opts, "X-Api-Key: k3y-v4lue", err, sizeof(err)), 0);
    assert_int_equal(fm_probe_opts_add_header(&opts, "Authorization: Bearer t0k3n-x", err,
                                              sizeof(err)), 0);
    assert_int_equal(fm_probe_opts_add_header(&opts, "X-Trace: public", err, sizeof(err)), 0);
    assert_int_equal(fm_target_parse("http://127.0.0.1:1/", false, &t, err, sizeof(err)), 0);
    snprintf(text, sizeof(text), "echo k3y-v4lue t0k3n-x public");
    fm_target_redact_reply(&t, &opts, text, sizeof(text));
    assert_string_equal(text, "echo *** *** public");
    fm_target_clear(&t);

    /* a lone user name is a role's to postgres: named; a password to redis */
    assert_int_equal(fm_target_parse("postgres://nobody@127.0.0.1:1/", false, &t, err,
                                     sizeof(err)), 0);
    snprintf(text, sizeof(text), "startup: role \"nobody\" does not exist");
    fm_target_redact_reply(&t, NULL, text, sizeof(text));
    assert_string_equal(text, "startup: role \"nobody\" does not exist");
    fm_target_clear(&t);
    assert_int_equal(fm_target_parse("redis://Qz7kWv4p@127.0.0.1:1", false, &t, err,
                                     sizeof(err)), 0);
    snprintf(text, sizeof(text), "AUTH: -ERR Qz7kWv4p");
    fm_target_redact_reply(&t, NULL, text, sizeof(text));
    assert_string_equal(text, "AUTH: -ERR ***");
    fm_target_clear(&t);

    /* an exec target's URI argument: its password as the program got it */
    assert_int_equal(fm_target_parse_exec("/bin/echo --url redis://:s3cr%20t@h:1", &t, err,
                                          sizeof(err)), 0);
    snprintf(text, sizeof(text), "cannot log in with s3cr%%20t");
    fm_target_redact_reply(&t, NULL, text, sizeof(text));
    assert_string_equal(text, "cannot log in with ***");
    fm_target_clear(&t);
    fm_probe_opts_clear(&opts);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redact_table),
        cmocka_unit_test(test_redact_secrets),
        cmocka_unit_test(test_target_redact_reply),
        cmocka_unit_test(test_redact_bounds),
        cmocka_unit_test(test_escape_table),
        cmocka_unit_test(test_escape_bounds),
        cmocka_unit_test(test_clean_in_place),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_errf),
        cmocka_unit_test(test_target_messages),
        cmocka_unit_test(test_target_texts),
    };

    return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
