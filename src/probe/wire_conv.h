/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the binary protocols' codecs (wire.h) in conv.c's terms (not
 * installed).
 */
#ifndef FAULTMON_PROBE_WIRE_CONV_H
#define FAULTMON_PROBE_WIRE_CONV_H

#include <sys/types.h>

#include "conv.h"
#include "wire.h"

/*!
 * \brief A judged reply as a detail: "LABEL CODE words" for a code
 *        ("SQLSTATE 53300 sorry, too many clients already"), the words alone
 *        without one, the reply's first line when it is not the protocol's.
 */
void fm_wire_describe(const struct fm_wire_reply *reply, const char *code_label,
                      const char *reply_bytes, size_t len, char *out, size_t out_len);

/*! \brief A codec's verdict as conv.c's judgement. */
enum fm_conv_judgement fm_wire_judgement(const struct fm_wire_reply *reply);

/*! \brief A codec's verdict as conv.c's end of reply (fm_conv_end_fn):
 *         0 read on, -1 not the protocol, else the bytes judged. */
ssize_t fm_wire_end(const struct fm_wire_reply *reply);

#endif
