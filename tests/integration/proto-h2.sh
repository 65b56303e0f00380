#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-h2.sh: h2c:// (HTTP/2 in clear, prior knowledge) and h2:// (HTTP/2
# over TLS, ALPN h2) against a real nghttpd (Debian's nghttp2-server, started
# here on free loopback ports, stopped on exit): judged as HTTP/1.1 replies
# are (the status set, --receive, --reverse, maintenance); a server that
# never answers, or a paused nghttpd, times out, partial; a server that does
# not speak HTTP/2 is malformed, partial; a TLS server that does not select
# ALPN h2 fails the handshake, complete.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

NGHTTPD=${NGHTTPD:-$(command -v nghttpd || echo /usr/sbin/nghttpd)}
if [ ! -x "$NGHTTPD" ]; then
    echo "1..0 # SKIP nghttpd is not installed (apt-get install nghttp2-server)"
    exit 0
fi
tap_watchdog 120
fm_require_faultmon
plan 36

dir=$FM_TMP/nghttpd
mkdir -p "$dir/www"
ws_make_cert "$dir" || bail_out "openssl failed"
echo 'faultmon h2 page: all good' >"$dir/www/index.html"

# nghttpd_start NAME ARGS...: nghttpd on a free port, in its own process
# group; NGHTTPD_PORT[NAME], NGHTTPD_PID[NAME].
declare -A NGHTTPD_PORT=() NGHTTPD_PID=()
nghttpd_start() {
    local name=$1 port
    shift
    port=$(fm_free_port) || return 1
    setsid "$NGHTTPD" --address=127.0.0.1 -d "$dir/www" "$port" "$@" \
        >"$dir/$name.log" 2>&1 </dev/null &
    NGHTTPD_PID[$name]=$!
    NGHTTPD_PORT[$name]=$port
    fm_cleanup_add "proto_kill_tree ${NGHTTPD_PID[$name]}"
    fm_wait_port 127.0.0.1 "$port" 5
}
nghttpd_start clear --no-tls || bail_out "nghttpd (h2c) did not start"
nghttpd_start tls "$dir/key.pem" "$dir/cert.pem" || bail_out "nghttpd (TLS) did not start"
fm_fault_server_start silent echo || bail_out "the fault server did not start"
h2c=h2c://127.0.0.1:${NGHTTPD_PORT[clear]}
h2=h2://localhost:${NGHTTPD_PORT[tls]}

PROTO_EXTRA=("targets.0.kind=h2" "targets.0.status=200")
proto_case "h2c: GET of a page: ok" 0 ok none ok fast -- "$h2c/index.html"
proto_detail_like "the detail is the status" '^HTTP 200$'
PROTO_EXTRA=("targets.0.status=404")
proto_case "h2c: a missing page: complete, status" 2 complete status status fast -- "$h2c/missing"
proto_case "h2c: --receive matching the body: ok" 0 ok none ok fast -- \
    --receive 'h2 page: all good$' "$h2c/index.html"
proto_case "h2c: --receive not matching: complete" 2 complete content content-mismatch fast -- \
    --receive 'down' "$h2c/index.html"
proto_case "h2c: --reverse with a match: complete" 2 complete content content-reverse fast -- \
    --receive 'all good' --reverse "$h2c/index.html"
proto_case "h2c: --maintenance-status 404: ok, maintenance" 0 ok none maintenance fast -- \
    --maintenance-status 404 "$h2c/missing"
proto_case "h2c: --maintenance-regex matching the body: ok, maintenance" 0 ok none maintenance \
    fast -- --maintenance-regex 'all good' "$h2c/index.html"
proto_case "h2c: HEAD (--method HEAD): ok" 0 ok none ok fast -- --method HEAD "$h2c/index.html"
proto_case "h2c: a server that never answers: partial at the deadline" 1 partial read \
    read-timeout deadline -- "h2c://127.0.0.1:${FS_PORT[silent]}/"
proto_case "h2c: a server that does not speak HTTP/2: malformed, partial" 1 partial read \
    read-malformed fast -- "h2c://127.0.0.1:${FS_PORT[echo]}/"

# h2:// over TLS, verified against the throwaway CA, or not.
proto_case "h2: GET over TLS, verified: ok" 0 ok none ok fast -- \
    --tls-ca-file "$dir/cert.pem" "$h2/index.html"
proto_case "h2: --receive over TLS: ok" 0 ok none ok fast -- \
    --tls-ca-file "$dir/cert.pem" --receive 'all good' "$h2/index.html"
proto_case "h2: a certificate that does not verify: complete, tls-verify" 2 complete tls \
    tls-verify fast -- --tls-verify "$h2/index.html"
proto_case "h2: h2:// to the cleartext server: complete, tls-failed" 2 complete tls tls-failed \
    fast -- "h2://127.0.0.1:${NGHTTPD_PORT[clear]}/"

# A TLS server that offers only HTTP/1.1 by ALPN.
port=$(fm_free_port) || bail_out "no free port"
setsid openssl s_server -quiet -accept "$port" -cert "$dir/cert.pem" -key "$dir/key.pem" \
    -alpn http/1.1 -www >"$dir/s_server.log" 2>&1 </dev/null &
spid=$!
fm_cleanup_add "proto_kill_tree $spid"
fm_wait_port 127.0.0.1 "$port" 5 || bail_out "openssl s_server did not start"
proto_case "h2: a server selecting ALPN http/1.1: complete, tls-failed" 2 complete tls \
    tls-failed fast -- "h2://127.0.0.1:$port/"
# OpenSSL's server refuses a client whose offer it cannot meet (RFC 7301 3.2).
proto_detail_like "the detail says ALPN failed" "no application protocol|not HTTP/2"

# The real server paused: the kernel still accepts, nobody answers.
kill -STOP "${NGHTTPD_PID[clear]}"
proto_case "h2c: SIGSTOPped nghttpd: partial at the deadline" 1 partial read read-timeout \
    deadline -- "$h2c/index.html"
kill -CONT "${NGHTTPD_PID[clear]}"
proto_kill_tree "${NGHTTPD_PID[clear]}"
proto_case "h2c: stopped nghttpd: connect refused, complete" 2 complete connect connect-failed \
    fast -- "$h2c/index.html"
tap_done
