/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: the replies of line protocols (src/probe/conv_parse.c),
 * which any server on a Port_list address chooses.  Properties: every end
 * function answers -1, 0 or a length within the input that ends at a line
 * feed, with no bare CR in it; what follows a reply (fm_conv_after_*()) is
 * judged one of three; a judgement is one of three; the detail line is one line, at most
 * its bound once escaped, and NUL-terminated; none reads past the input
 * (ASan, the input copied to a buffer of its own size).
 */
#include <config.h>

#include "fuzz_common.h"
#include "conv.h"

static void
check_end(fm_conv_end_fn end, const char *tag, const char *buf, size_t len)
{
    ssize_t n = end(buf, len, tag);

    FM_FUZZ_CHECK(n >= -1 && n <= (ssize_t) len, "end %zd of %zu bytes", n, len);
    FM_FUZZ_CHECK(n <= 0 || buf[n - 1] == '\n', "a reply ends with its line feed");
    /* A bare CR ends no line and is in no reply (protocol-replies.md). */
    for (ssize_t i = 0; i + 1 < n; i++) {
        FM_FUZZ_CHECK(buf[i] != '\r' || buf[i + 1] == '\n', "a bare CR at %zd of a reply", i);
    }
}

static void
check_judge(enum fm_conv_judgement (*judge)(const char *, size_t), const char *buf, size_t len)
{
    enum fm_conv_judgement j = judge(buf, len);

    FM_FUZZ_CHECK(j == FM_CONV_OK || j == FM_CONV_REFUSED || j == FM_CONV_MALFORMED, "judgement %d",
                  (int) j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size > 0? size : 1);
    char line[FM_CONV_DETAIL_LINE * 4 + 1];

    if (buf == NULL) {
        return 0;
    }
    if (size > 0) {
        memcpy(buf, data, size);
    }
    check_end(fm_conv_end_line, NULL, buf, size);
    check_end(fm_conv_end_coded, NULL, buf, size);
    check_end(fm_conv_end_tagged, "a1", buf, size);
    check_end(fm_conv_end_dotted, NULL, buf, size);
    check_end(fm_conv_end_crlf, NULL, buf, size);
    check_judge(fm_conv_after_coded, buf, size);
    check_judge(fm_conv_after_pop3, buf, size);
    check_judge(fm_conv_after_redis, buf, size);
    check_judge(fm_conv_after_imap, buf, size);
    check_judge(fm_conv_judge_2xx, buf, size);
    check_judge(fm_conv_judge_pop3, buf, size);
    check_judge(fm_conv_judge_imap_greeting, buf, size);
    check_judge(fm_conv_judge_imap_tagged, buf, size);
    (void) fm_conv_reply_code(buf, size);
    fm_conv_first_line(buf, size, line, sizeof(line));
    FM_FUZZ_CHECK(strlen(line) < sizeof(line), "the detail is NUL-terminated");
    FM_FUZZ_CHECK(strchr(line, '\n') == NULL && strchr(line, '\r') == NULL, "one line: %s", line);
    free(buf);
    return 0;
}
