/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the gRPC health reply (src/probe/grpc_reply.c):
 * header fields and trailers as HTTP/2 hands them over, the 5-byte framed
 * HealthCheckResponse, and the verdict fm_grpc_judge() gives.
 *
 * Input: one option byte (bit 0: the stream ended; bit 1: the head is
 * complete; bits 2-4: the :status sent), then three lines: the
 * content-type, the grpc-status and the grpc-message (an empty line sends
 * none but the message), then the message bytes.
 *
 * Properties:
 *  - no read or write outside the buffers (ASan), at most FM_GRPC_MSG_MAX
 *    message bytes kept;
 *  - ok only for a whole reply: the stream ended, :status 200, a gRPC
 *    content type, grpc-status 0 and a message whose status decodes to
 *    SERVING (never a false "ok" from bytes that merely look like it);
 *  - the verdict does not depend on how the message was cut into DATA
 *    frames;
 *  - the detail is one line of printable ASCII.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <faultmon/grpc.h>

#include "fuzz_common.h"

static const char *const fuzz_statuses[] = { "200", "200", "200", "503", "404", "20", "2000", "abc" };

static void
header(struct fm_grpc_reply *reply, const char *name, const char *value)
{
    fm_grpc_reply_header(reply, (const uint8_t *) name, strlen(name), (const uint8_t *) value,
                         strlen(value));
}

/* The reply of the input, its message cut at \p cut. */
static void
build(struct fm_grpc_reply *reply, uint8_t opts, const char *ct, const char *st, const char *msg,
      const uint8_t *data, size_t len, size_t cut)
{
    memset(reply, 0, sizeof(*reply));
    header(reply, ":status", fuzz_statuses[(opts >> 2) & 7]);
    if (ct[0] != '\0') {
        header(reply, "content-type", ct);
    }
    reply->headers_done = (opts & 2) != 0;
    fm_grpc_reply_data(reply, data, cut);
    fm_grpc_reply_data(reply, data + cut, len - cut);
    if (st[0] != '\0') {
        header(reply, "grpc-status", st);
    }
    header(reply, "grpc-message", msg);
}

static void
check_detail(const char *detail, size_t size)
{
    size_t len = strnlen(detail, size);

    FM_FUZZ_CHECK(len < size, "detail not NUL-terminated");
    for (size_t i = 0; i < len; i++) {
        FM_FUZZ_CHECK(detail[i] >= 0x20 && detail[i] < 0x7f, "byte 0x%02x in the detail",
                      (unsigned char) detail[i]);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fm_fuzz_input in;
    struct fm_grpc_reply whole;
    struct fm_grpc_reply cut;
    uint8_t opts = 0;
    char *ct = NULL;
    char *st = NULL;
    char *msg = NULL;
    enum fm_reason r1 = FM_REASON__COUNT;
    enum fm_reason r2 = FM_REASON__COUNT;
    char d1[160] = "";
    char d2[160] = "";
    bool j1 = false;
    bool j2 = false;
    bool complete = false;

    fm_fuzz_input_init(&in, data, size);
    opts = fm_fuzz_byte(&in);
    complete = (opts & 1) != 0;
    ct = fm_fuzz_line(&in);
    st = fm_fuzz_line(&in);
    msg = fm_fuzz_line(&in);
    ct = (ct != NULL)? ct : strdup("");
    st = (st != NULL)? st : strdup("");
    msg = (msg != NULL)? msg : strdup("");

    build(&whole, opts, ct, st, msg, in.data + in.pos, fm_fuzz_left(&in), 0);
    build(&cut, opts, ct, st, msg, in.data + in.pos, fm_fuzz_left(&in), fm_fuzz_left(&in) / 2);
    FM_FUZZ_CHECK(whole.msg_len <= FM_GRPC_MSG_MAX, "message kept beyond its cap");
    j1 = fm_grpc_judge(&whole, complete, msg, &r1, d1, sizeof(d1));
    j2 = fm_grpc_judge(&cut, complete, msg, &r2, d2, sizeof(d2));
    FM_FUZZ_CHECK(j1 == j2 && (!j1 || (r1 == r2 && strcmp(d1, d2) == 0)),
                  "the verdict depends on the DATA frames' cut");
    if (j1) {
        check_detail(d1, sizeof(d1));
    }
    if (j1 && r1 == FM_REASON_OK) {
        uint64_t status = 0;
        const char *why = NULL;

        FM_FUZZ_CHECK(complete, "ok before the stream ended");
        FM_FUZZ_CHECK(whole.http_status == 200 && whole.content_type_grpc, "ok without a gRPC head");
        FM_FUZZ_CHECK(strtoul(whole.grpc_status, NULL, 10) == 0 && whole.have_grpc_status,
                      "ok with grpc-status '%s'", whole.grpc_status);
        FM_FUZZ_CHECK(!whole.msg_over && fm_grpc_health_status(whole.msg, whole.msg_len, &status,
                                                               &why) == 0 && status == 1,
                      "ok without SERVING");
    }
    free(ct);
    free(st);
    free(msg);
    return 0;
}
