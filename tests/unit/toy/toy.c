/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: a toy protocol for tests/unit/toy-protocol.sh (never built into
 * faultmon): toy://HOST:PORT is healthy when it connects.
 */
#include <config.h>

#include "probe_int.h"

static void
toy_on_ready(struct fm_conn *conn)
{
    fm_conn_finish(conn, FM_REASON_OK, 0, "toy connected");
}

const struct fm_probe_proto fm_probe_proto_toy = {
    .name = "toy",
    .on_ready = toy_on_ready,
};
