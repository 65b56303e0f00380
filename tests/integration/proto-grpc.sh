#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-grpc.sh: grpc:// (h2c) and grpcs:// (TLS, ALPN h2), the standard
# grpc.health.v1.Health/Check, against a real gRPC server written with
# Debian's python3-grpcio (tests/grpc_health_server.py, started here on free
# loopback ports): SERVING is ok; NOT_SERVING, SERVICE_UNKNOWN, an unknown
# service (NOT_FOUND), a server without the Health service (UNIMPLEMENTED)
# and another grpc-status are complete, with the status's name; a slow
# answer, a reset stream and a reply that is not gRPC (nghttpd serving a
# file at the method's path, a response that is not protobuf) are partial.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

# Debian's python3-grpcio is for Debian's python3, which may not be the
# first python3 on the PATH.
GRPC_PYTHON=${GRPC_PYTHON:-}
if [ -z "$GRPC_PYTHON" ]; then
    for py in "$PYTHON3" python3 /usr/bin/python3; do
        if "$py" -c 'import grpc' 2>/dev/null; then
            GRPC_PYTHON=$py
            break
        fi
    done
fi
NGHTTPD=${NGHTTPD:-$(command -v nghttpd || echo /usr/sbin/nghttpd)}
if [ -z "$GRPC_PYTHON" ] || [ ! -x "$NGHTTPD" ]; then
    echo "1..0 # SKIP python3-grpcio or nghttpd is missing (apt-get install python3-grpcio nghttp2-server)"
    exit 0
fi
tap_watchdog 120
fm_require_faultmon
plan 38

dir=$FM_TMP/grpc
mkdir -p "$dir/www/grpc.health.v1.Health"
ws_make_cert "$dir" || bail_out "openssl failed"
printf 'not a gRPC reply' >"$dir/www/grpc.health.v1.Health/Check"

# grpc_start NAME ARGS...: the gRPC server on a free port, GRPC_PORT[NAME].
declare -A GRPC_PORT=()
grpc_start() {
    local name=$1 pid portfile=$dir/$1.port
    shift
    "$GRPC_PYTHON" "$FM_TESTS_DIR/grpc_health_server.py" --port-file "$portfile" "$@" \
        >"$dir/$name.log" 2>&1 </dev/null &
    pid=$!
    fm_cleanup_add "proto_kill_tree $pid"
    for _ in $(seq 1 100); do
        [ -s "$portfile" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    [ -s "$portfile" ] || { diag_file "$dir/$name.log"; return 1; }
    GRPC_PORT[$name]=$(cat "$portfile")
}
grpc_start health || bail_out "the gRPC server did not start"
grpc_start tls --cert "$dir/cert.pem" --key "$dir/key.pem" || bail_out "the gRPC server (TLS) did not start"
grpc_start bare --no-health || bail_out "the gRPC server without Health did not start"
grpc_start reset --reset || bail_out "the resetting server did not start"
port=$(fm_free_port) || bail_out "no free port"
setsid "$NGHTTPD" --address=127.0.0.1 --no-tls -d "$dir/www" "$port" >"$dir/nghttpd.log" 2>&1 </dev/null &
fm_cleanup_add "proto_kill_tree $!"
fm_wait_port 127.0.0.1 "$port" 5 || bail_out "nghttpd did not start"
grpc=grpc://127.0.0.1:${GRPC_PORT[health]}

PROTO_EXTRA=("targets.0.kind=grpc")
proto_case "the server's overall health (empty service): SERVING, ok" 0 ok none ok fast -- "$grpc"
proto_detail_like "the detail says SERVING" '^gRPC health: SERVING$'
proto_case "a service SERVING: ok" 0 ok none ok fast -- "$grpc/serving"
proto_case "NOT_SERVING: complete" 2 complete status refused fast -- "$grpc/down"
proto_detail_like "the detail names the service and NOT_SERVING" "'down': NOT_SERVING"
proto_case "SERVICE_UNKNOWN: complete, status" 2 complete status status fast -- "$grpc/svc-unknown"
proto_detail_like "the detail says SERVICE_UNKNOWN" "SERVICE_UNKNOWN"
proto_case "a service the server does not know (NOT_FOUND): complete" 2 complete status status \
    fast -- "$grpc/nosuch"
proto_detail_like "the detail says the service is unknown" "service 'nosuch' unknown to the server"
proto_case "grpc-status 14 in a trailers-only reply: complete" 2 complete status status fast -- \
    "$grpc/unavailable"
proto_detail_like "the detail names UNAVAILABLE and its message" "^grpc-status 14 UNAVAILABLE: draining"
proto_case "no Health service: complete, UNIMPLEMENTED" 2 complete status status fast -- \
    "grpc://127.0.0.1:${GRPC_PORT[bare]}/"
proto_detail_like "the detail names UNIMPLEMENTED" "UNIMPLEMENTED"
proto_case "the server cancels the call: complete" 2 complete status status fast -- "$grpc/cancel"
proto_case "a slow answer: partial at the deadline" 1 partial read read-timeout deadline -- \
    "$grpc/slow"
proto_case "a response that is not protobuf: malformed, partial" 1 partial read read-malformed \
    fast -- "$grpc/bad-proto"
proto_case "a stream reset (RST_STREAM): partial" 1 partial read read-failed fast -- \
    "grpc://127.0.0.1:${GRPC_PORT[reset]}/"
proto_detail_like "the detail names the reset's code" "REFUSED_STREAM"
proto_case "not gRPC (nghttpd serves a file): malformed, partial" 1 partial read read-malformed \
    fast -- "grpc://127.0.0.1:$port/"
proto_detail_like "the detail names the content type" "content-type .*not application/grpc"
proto_case "grpcs: SERVING over TLS, verified: ok" 0 ok none ok fast -- \
    --tls-ca-file "$dir/cert.pem" "grpcs://localhost:${GRPC_PORT[tls]}/serving"
proto_case "grpcs: NOT_SERVING over TLS: complete" 2 complete status refused fast -- \
    "grpcs://127.0.0.1:${GRPC_PORT[tls]}/down"
proto_case "grpc:// to the TLS server: it hangs up, partial" 1 partial read read-failed fast -- \
    "grpc://127.0.0.1:${GRPC_PORT[tls]}/"
tap_done
