/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: grpc.health.v1.Health/Check by hand (src/probe/grpc_reply.c):
 * the request's bytes, and the verdict on replies, hostile ones among them
 * (framing that lies, protobuf cut short or of the wrong wire type, varints
 * that never end, statuses that are no numbers, controls in the message).
 */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <faultmon/grpc.h>

struct grpc_case {
    const char *name;
    const char *content_type;   /* NULL: none sent */
    const char *grpc_status;    /* NULL: none sent */
    const char *msg;
    size_t msg_len;
    enum fm_reason reason;
    const char *detail;         /* a part of the detail */
};

#define FRAME(len) "\0\0\0\0" len
#define CASE(n, ct, st, m, r, d) { n, ct, st, m, sizeof(m) - 1, r, d }
#define GRPC "application/grpc"

static const struct grpc_case cases[] = {
    CASE("SERVING", GRPC, "0", FRAME("\2") "\x08\x01", FM_REASON_OK, "SERVING"),
    CASE("NOT_SERVING", GRPC, "0", FRAME("\2") "\x08\x02", FM_REASON_REFUSED, "NOT_SERVING"),
    CASE("SERVICE_UNKNOWN", GRPC, "0", FRAME("\2") "\x08\x03", FM_REASON_STATUS, "SERVICE_UNKNOWN"),
    CASE("an empty response is UNKNOWN", GRPC, "0", FRAME("\0"), FM_REASON_REFUSED, "UNKNOWN"),
    CASE("a status of a newer server", GRPC, "0", FRAME("\2") "\x08\x09", FM_REASON_REFUSED,
         "ServingStatus 9"),
    CASE("unknown fields are skipped", GRPC, "0",
         FRAME("\x15") "\x12\x03" "abc" "\x19" "12345678" "\x25" "1234" "\x08\x01",
         FM_REASON_OK, "SERVING"),
    CASE("the last status wins (protobuf)", GRPC, "0", FRAME("\4") "\x08\x02\x08\x01",
         FM_REASON_OK, "SERVING"),
    CASE("+proto content type", GRPC "+proto", "0", FRAME("\2") "\x08\x01", FM_REASON_OK, ""),
    CASE("compressed", GRPC, "0", "\1\0\0\0\2\x08\x01", FM_REASON_READ_MALFORMED, "compressed"),
    CASE("bad flags", GRPC, "0", "\x80\0\0\0\2\x08\x01", FM_REASON_READ_MALFORMED, "flags"),
    CASE("length over the bytes", GRPC, "0", FRAME("\3") "\x08\x01", FM_REASON_READ_MALFORMED,
         "cut short"),
    CASE("length under the bytes", GRPC, "0", FRAME("\1") "\x08\x01", FM_REASON_READ_MALFORMED,
         "after"),
    CASE("length 4 GiB", GRPC, "0", "\0\xff\xff\xff\xff\x08\x01", FM_REASON_READ_MALFORMED, "cut"),
    CASE("header cut short", GRPC, "0", "\0\0\0", FM_REASON_READ_MALFORMED, "cut short"),
    CASE("no message", GRPC, "0", "", FM_REASON_READ_MALFORMED, "no message"),
    CASE("varint cut short", GRPC, "0", FRAME("\1") "\x08", FM_REASON_READ_MALFORMED, "enum"),
    CASE("varint of 11 bytes", GRPC, "0",
         FRAME("\x0c") "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
         FM_REASON_READ_MALFORMED, "enum"),
    CASE("varint over 64 bits", GRPC, "0",
         FRAME("\x0b") "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02",
         FM_REASON_READ_MALFORMED, "enum"),
    CASE("a group", GRPC, "0", FRAME("\2") "\x0b\x0c", FM_REASON_READ_MALFORMED, "protobuf"),
    CASE("field 0", GRPC, "0", FRAME("\2") "\x00\x01", FM_REASON_READ_MALFORMED, "protobuf"),
    CASE("status as a string", GRPC, "0", FRAME("\3") "\x0a\x01\x01", FM_REASON_READ_MALFORMED,
         "enum"),
    CASE("a string longer than the message", GRPC, "0",
         FRAME("\7") "\x12\xff\xff\xff\xff\xff\x01", FM_REASON_READ_MALFORMED, "protobuf"),
    CASE("fixed64 cut short", GRPC, "0", FRAME("\3") "\x19\0\0", FM_REASON_READ_MALFORMED,
         "protobuf"),
    CASE("no grpc-status", GRPC, NULL, FRAME("\2") "\x08\x01", FM_REASON_READ_MALFORMED,
         "no grpc-status"),
    CASE("grpc-status not a number", GRPC, "OK", FRAME("\2") "\x08\x01",
         FM_REASON_READ_MALFORMED, "not a status code"),
    CASE("grpc-status too long", GRPC, "0000", FRAME("\2") "\x08\x01",
         FM_REASON_READ_MALFORMED, "not a status code"),
    CASE("grpc-status empty", GRPC, "", FRAME("\2") "\x08\x01", FM_REASON_READ_MALFORMED,
         "not a status code"),
    CASE("UNIMPLEMENTED", GRPC, "12", "", FM_REASON_STATUS, "grpc-status 12 UNIMPLEMENTED"),
    CASE("NOT_FOUND: an unknown service", GRPC, "5", "", FM_REASON_STATUS, "unknown to the server"),
    CASE("a status without a name", GRPC, "99", "", FM_REASON_STATUS, "grpc-status 99 ?"),
    CASE("a failing status beats a SERVING message", GRPC, "14", FRAME("\2") "\x08\x01",
         FM_REASON_STATUS, "UNAVAILABLE"),
    CASE("text/html", "text/html", "0", FRAME("\2") "\x08\x01", FM_REASON_READ_MALFORMED,
         "'text/html'"),
    CASE("application/grpcx", GRPC "x", "0", FRAME("\2") "\x08\x01", FM_REASON_READ_MALFORMED,
         "not application/grpc"),
    CASE("no content type", NULL, "0", FRAME("\2") "\x08\x01", FM_REASON_READ_MALFORMED,
         "missing"),
};

static void
add(struct fm_grpc_reply *reply, const char *name, const char *value)
{
    fm_grpc_reply_header(reply, (const uint8_t *) name, strlen(name), (const uint8_t *) value,
                         strlen(value));
}

static void
test_cases(void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct grpc_case *c = &cases[i];
        struct fm_grpc_reply reply = { 0 };
        enum fm_reason reason = FM_REASON__COUNT;
        char detail[160] = "";

        add(&reply, ":status", "200");
        if (c->content_type != NULL) {
            add(&reply, "content-type", c->content_type);
        }
        reply.headers_done = true;
        fm_grpc_reply_data(&reply, (const uint8_t *) c->msg, c->msg_len);
        if (c->grpc_status != NULL) {
            add(&reply, "grpc-status", c->grpc_status);
        }
        print_message("case: %s\n", c->name);
        assert_true(fm_grpc_judge(&reply, true, "svc", &reason, detail, sizeof(detail)));
        assert_int_equal(reason, c->reason);
        assert_non_null(strstr(detail, c->detail));
    }
}

/* Nothing is judged before the trailers, unless the head already fails. */
static void
test_waits_for_trailers(void **state)
{
    struct fm_grpc_reply reply = { 0 };
    enum fm_reason reason = FM_REASON__COUNT;
    char detail[160];

    (void) state;
    add(&reply, ":status", "200");
    add(&reply, "content-type", GRPC);
    reply.headers_done = true;
    fm_grpc_reply_data(&reply, (const uint8_t *) FRAME("\2") "\x08\x01", 7);
    assert_false(fm_grpc_judge(&reply, false, "", &reason, detail, sizeof(detail)));
    add(&reply, ":status", "503");
    assert_true(fm_grpc_judge(&reply, false, "", &reason, detail, sizeof(detail)));
    assert_int_equal(reason, FM_REASON_STATUS);
    assert_non_null(strstr(detail, "HTTP status 503"));
    add(&reply, ":status", "2x0");
    assert_true(fm_grpc_judge(&reply, false, "", &reason, detail, sizeof(detail)));
    assert_int_equal(reason, FM_REASON_STATUS);
}

/* More than a HealthCheckResponse can be: malformed, and no overflow. */
static void
test_message_over(void **state)
{
    static uint8_t big[FM_GRPC_MSG_MAX + 100];
    struct fm_grpc_reply reply = { 0 };
    enum fm_reason reason = FM_REASON__COUNT;
    char detail[160];

    (void) state;
    add(&reply, ":status", "200");
    add(&reply, "content-type", GRPC);
    add(&reply, "grpc-status", "0");
    fm_grpc_reply_data(&reply, big, sizeof(big));
    fm_grpc_reply_data(&reply, big, sizeof(big));
    assert_int_equal(reply.msg_len, FM_GRPC_MSG_MAX);
    /* At once, not at the end of a stream that may never end. */
    assert_true(fm_grpc_judge(&reply, false, "", &reason, detail, sizeof(detail)));
    assert_int_equal(reason, FM_REASON_READ_MALFORMED);
}

/* A server's message and our service name are printable in the detail. */
static void
test_detail_printable(void **state)
{
    struct fm_grpc_reply reply = { 0 };
    enum fm_reason reason = FM_REASON__COUNT;
    char detail[160];

    (void) state;
    add(&reply, ":status", "200");
    add(&reply, "content-type", GRPC);
    add(&reply, "grpc-status", "13");
    add(&reply, "grpc-message", "\x1b[31mred\r\nX-Injected: 1");
    assert_true(fm_grpc_judge(&reply, true, "", &reason, detail, sizeof(detail)));
    for (const char *p = detail; *p != '\0'; p++) {
        assert_true(*p >= 0x20 && *p < 0x7f);
    }
    assert_non_null(strstr(detail, "INTERNAL"));
}

static void
test_request(void **state)
{
    uint8_t out[300];
    char service[201];

    (void) state;
    assert_int_equal(fm_grpc_health_request("", out, sizeof(out)), 5);
    assert_memory_equal(out, "\0\0\0\0\0", 5);
    assert_int_equal(fm_grpc_health_request("db", out, sizeof(out)), 9);
    assert_memory_equal(out, "\0\0\0\0\4\x0a\x02" "db", 9);
    memset(service, 'a', 200);
    service[200] = '\0';
    /* A length over 127 takes two varint bytes. */
    assert_int_equal(fm_grpc_health_request(service, out, sizeof(out)), 5 + 3 + 200);
    assert_memory_equal(out, "\0\0\0\0\xcb\x0a\xc8\x01", 8);
    assert_int_equal(fm_grpc_health_request(service, out, 100), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_waits_for_trailers),
        cmocka_unit_test(test_message_over),
        cmocka_unit_test(test_detail_printable),
        cmocka_unit_test(test_request),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
