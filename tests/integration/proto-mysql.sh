#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-mysql.sh: `faultmon probe mysql://` against a real MariaDB
# (mariadb-install-db + mariadbd as an ordinary process on a free loopback
# port): ok (the protocol 10 greeting, its version as detail), every
# connection used up (complete: error 1040 as the reason), paused with
# SIGSTOP (partial, at the deadline), stopped (complete).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/lib/dbservers.sh
. "$FM_TEST_LIB/dbservers.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"

tap_watchdog 120
fm_require_faultmon
# max_connections cannot go below 10; one more is kept for a SUPER user.
if ! srv_mariadb_start --max-connections=10; then
    skip_all "MariaDB did not start"
fi
plan 14

my=mysql://127.0.0.1:$SRV_MY_PORT
proto_case "the greeting: ok, the version as detail" 0 ok none ok fast -- "$my"
proto_detail_like 'the greeting: ok, the version as detail: detail' '^5\.5\.5-.*MariaDB'

# Every connection taken (10, and the one kept for SUPER): the server sends
# an error packet instead of a greeting.
if srv_hold raw "$SRV_MY_PORT" 11 60; then
    proto_case "too many connections: refused, error 1040" 2 complete status refused fast -- "$my"
    proto_detail_like 'too many connections: refused, error 1040: detail' '^greeting: error 1040 Too many connections$'
    kill "$SRV_HOLD_PID" 2>/dev/null
    wait "$SRV_HOLD_PID" 2>/dev/null
else
    for _ in 1 2 3; do
        not_ok "too many connections: could not take every connection"
    done
fi
sleep 0.3
proto_case "connections free again: ok" 0 ok none ok fast -- "$my"
proto_detail_like 'connections free again: ok: detail' 'MariaDB'

kill -STOP "$SRV_MY_PID"
proto_case "paused (SIGSTOP): partial at the deadline" 1 partial read read-timeout deadline -- "$my"
proto_detail_like 'paused (SIGSTOP): partial at the deadline: detail' 'greeting'
kill -CONT "$SRV_MY_PID"

srv_stop "$SRV_MY_PID"
proto_case "stopped: complete" 2 complete connect connect-failed fast -- "$my"
tap_done
