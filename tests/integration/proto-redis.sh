#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-redis.sh: redis:// against a real redis-server (started here on a
# free loopback port, nothing saved, stopped on exit) and the fault server:
# (AUTH,) PING answered +PONG is ok; an error reply (-NOAUTH, -WRONGPASS,
# -LOADING, -MASTERDOWN, -BUSY) is refused, complete; a paused server times
# out, partial; a stopped one refuses the connection, complete.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

REDIS_SERVER=${REDIS_SERVER:-$(command -v redis-server || echo /usr/bin/redis-server)}
if [ ! -x "$REDIS_SERVER" ]; then
    echo "1..0 # SKIP redis-server is not installed (apt-get install redis-server)"
    exit 0
fi
tap_watchdog 90
fm_require_faultmon
plan 38

# redis_start NAME [ARGS...]: a redis-server on a free port; its port in
# REDIS_PORT[NAME], its pid in REDIS_PID[NAME].
declare -A REDIS_PORT=() REDIS_PID=()
redis_start() {
    local name=$1 port dir
    shift
    port=$(fm_free_port) || return 1
    dir=$FM_TMP/redis-$name
    mkdir -p "$dir"
    "$REDIS_SERVER" --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
        --daemonize no --dir "$dir" --logfile "$dir/log" "$@" </dev/null >/dev/null 2>&1 &
    REDIS_PID[$name]=$!
    REDIS_PORT[$name]=$port
    fm_cleanup_add "proto_kill_tree ${REDIS_PID[$name]}"
    fm_wait_port 127.0.0.1 "$port" 5
}

redis_start open || bail_out "redis-server did not start"
redis_start auth --requirepass 's3cr/et' || bail_out "redis-server (requirepass) did not start"
fm_fault_server_start resp-LOADING resp-MASTERDOWN resp-BUSY silent echo greet-huge refuse ||
    bail_out "the fault server did not start"

open=redis://127.0.0.1:${REDIS_PORT[open]}
auth=127.0.0.1:${REDIS_PORT[auth]}

PROTO_EXTRA=("targets.0.kind=redis")
proto_case "PING answered +PONG: ok" 0 ok none ok fast -- "$open"
proto_detail_like "the detail is the reply" '^\+PONG$'
proto_case "AUTH with the right password, then PING: ok" 0 ok none ok fast -- \
    "redis://:s3cr%2Fet@$auth"
proto_case "no password where one is required: refused (-NOAUTH)" 2 complete status refused fast -- \
    "redis://$auth"
proto_detail_like "the detail is the error reply" '^PING: -NOAUTH'
proto_case "a wrong password: refused (-WRONGPASS)" 2 complete status refused fast -- \
    "redis://:wrong@$auth"
proto_detail_like "the detail names AUTH, never the password" '^AUTH: -WRONGPASS'
if grep -q wrong "$FM_OUT" "$FM_ERR"; then not_ok "the password is nowhere in the output"; else
    ok "the password is nowhere in the output"; fi

# --maintenance-regex on the PING reply, only of a conversation that passes.
# (The reply ends in CRLF: "$" would not match after PONG.)
proto_case "--maintenance-regex matching +PONG: ok, maintenance" 0 ok none maintenance fast -- \
    --maintenance-regex '^\+PONG' "$open"
proto_detail_like "maintenance: the detail names the PING reply" "^maintenance: the PING reply matches"
proto_case "--maintenance-regex after AUTH: ok, maintenance" 0 ok none maintenance fast -- \
    --maintenance-regex 'PONG' "redis://:s3cr%2Fet@$auth"
proto_case "--maintenance-regex without a match: ok" 0 ok none ok fast -- --maintenance-regex 'drain' "$open"
proto_case "--maintenance-regex matching a -LOADING reply: still refused" 2 complete status refused \
    fast -- --maintenance-regex 'LOADING' "redis://127.0.0.1:${FS_PORT[resp-LOADING]}"
for word in LOADING MASTERDOWN BUSY; do
    proto_case "-$word: refused" 2 complete status refused fast -- \
        "redis://127.0.0.1:${FS_PORT[resp-$word]}"
done
proto_case "silent: partial at the deadline" 1 partial read read-timeout deadline -- \
    "redis://127.0.0.1:${FS_PORT[silent]}"
proto_case "not Redis (echo): malformed, partial" 1 partial read read-malformed fast -- \
    "redis://127.0.0.1:${FS_PORT[echo]}"
proto_case "an endless reply: too large, partial" 1 partial read read-too-large fast -- \
    "redis://127.0.0.1:${FS_PORT[greet-huge]}"

# The real server paused: the kernel still accepts, nobody answers.
kill -STOP "${REDIS_PID[open]}"
proto_case "SIGSTOPped server: partial at the deadline" 1 partial read read-timeout deadline -- "$open"
proto_detail_like "the timeout names the step" 'waiting for the PING reply'
kill -CONT "${REDIS_PID[open]}"
proto_kill_tree "${REDIS_PID[open]}"
proto_case "stopped server: connect refused, complete" 2 complete connect connect-failed fast -- "$open"
tap_done
