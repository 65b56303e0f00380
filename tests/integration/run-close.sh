#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-close.sh: how the loop ends a probe's connection once its reply is
# complete (src/probe/engine.c, conn_close() and conn_keep_socket()).  No
# TIME_WAIT is ever left on the loop's side (at 1000 targets a second that
# would hold 60 000 local ports): every connection is reset, a server's that
# closed first (nginx after an HTTP/1.0 reply) as well: answering its FIN
# with a plain close costs the loop more of the kernel's work (the FIN and
# its ACK; spread at 10 targets against HAProxy, QUICK=1 WINDOW=30 ROUNDS=2
# tests/bench/ab.sh: 0.88x with the plain close, 0.79x reset, 2026-12-06).
# After a healthy probe the reset is a disconnect (connect(AF_UNSPEC)) and
# the socket is kept for the next cycle's probe, not made anew; after a
# failure it is closed (SO_LINGER 0).  A kept socket never carries a verdict
# over: once its server is gone the next cycle fails.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 90
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 14

if ! command -v strace >/dev/null || ! command -v ss >/dev/null; then
    for _ in $(seq 1 14); do skip "the loop's close" "no strace or ss"; done
    tap_done
    exit 0
fi
ws_nginx_start || bail_out "nginx did not start"
fm_fault_server_start ok-hold reset-accept || bail_out "the fault server did not start"
export FAULTMON_STATE_DIR=$FM_TMP/state
# Each case counts on every probe of a healthy server passing (a timeout
# closes its socket instead of keeping it): a whole second each, under
# strace, on a loaded machine.
CYCLES=6

# traced NAME URL: CYCLES cycles of one target, its socket calls traced
# (LeakSanitizer off in a sanitizer build: it cannot run under ptrace).
traced() {
    fm_timeout 40 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -qq -e trace=socket,connect,setsockopt,close -o "$FM_TMP/$1.strace" \
        "$FAULTMON" run "close-$1" --no-env --no-pacemaker --cycles $CYCLES \
        --param "Port_list=$2" --param Thorough_probe_interval=1s --param Probe_timeout=900ms >/dev/null 2>"$FM_TMP/$1.err"
}

# time_wait PORT: TIME_WAIT sockets whose remote port is PORT: the client
# side of connections to that server (the server's own have PORT as theirs),
# the loop's and the harness's (its readiness checks): the loop adds none.
time_wait() {
    ss -Htan state time-wait "( dport = :$1 )" | wc -l
}

lingers() {
    grep -c 'SO_LINGER' "$1"
}
# disconnects FILE: connections reset by connect(AF_UNSPEC), the socket kept
disconnects() {
    grep -c 'connect([0-9]*, {sa_family=AF_UNSPEC' "$1"
}
# sockets FILE: TCP sockets made
sockets() {
    grep -c 'socket(AF_INET, SOCK_STREAM' "$1"
}
# unclosed FILE: TCP sockets made and never closed in the trace
unclosed() {
    awk '/socket\(AF_INET, SOCK_STREAM/ { fd = $NF; if (fd >= 0) open[fd] = 1 }
        /close\([0-9]+\)/ { fd = $0; sub(/.*close\(/, "", fd); sub(/\).*/, "", fd); delete open[fd] }
        END { n = 0; for (fd in open) n++; print n }' "$1"
}

# 1-3: nginx closes after its HTTP/1.0 reply.
before=$(time_wait "$WS_HTTP_PORT")
traced nginx "http://127.0.0.1:$WS_HTTP_PORT/health"
rc=$?
is "$rc" 0 "$CYCLES cycles against nginx, traced: exit 0"
[ "$rc" = 0 ] || diag_file "$FM_TMP/nginx.err"
after=$(time_wait "$WS_HTTP_PORT")
ok_if "$([ "$after" -le "$before" ] && echo 0 || echo 1)" \
    "nginx: no TIME_WAIT left on the loop's side ($before before its $CYCLES probes, $after after)"
is "$(disconnects "$FM_TMP/nginx.strace")" $CYCLES \
    "nginx closed first: every healthy probe reset all the same, by a disconnect ($CYCLES)"
is "$(sockets "$FM_TMP/nginx.strace")" 1 "nginx: one socket for the $CYCLES probes, kept between cycles"

# 4-6: a server that keeps the connection open after a complete reply.
before=$(time_wait "${FS_PORT[ok-hold]}")
traced hold "http://127.0.0.1:${FS_PORT[ok-hold]}/"
rc=$?
is "$rc" 0 "$CYCLES cycles against a server that holds the connection, traced: exit 0"
[ "$rc" = 0 ] || diag_file "$FM_TMP/hold.err"
after=$(time_wait "${FS_PORT[ok-hold]}")
ok_if "$([ "$after" -le "$before" ] && echo 0 || echo 1)" \
    "held open: no TIME_WAIT left on the loop's side ($before before its $CYCLES probes, $after after)"
is "$(disconnects "$FM_TMP/hold.strace")" $CYCLES "held open: every healthy probe reset by a disconnect ($CYCLES)"
is "$(sockets "$FM_TMP/hold.strace")" 1 "held open: one socket for the $CYCLES probes"

# 9-11: a server that resets each connection once accepted: a failure
# closes its socket, whatever state it was left in (SO_LINGER 0 first,
# unless the reset came before the connection was seen up); none kept.
traced failing "http://127.0.0.1:${FS_PORT[reset-accept]}/"
is "$(sockets "$FM_TMP/failing.strace")" $CYCLES "failing: a new socket for each of the $CYCLES probes"
is "$(disconnects "$FM_TMP/failing.strace")" 0 "failing: no socket kept after a failure"
is "$(unclosed "$FM_TMP/failing.strace")" 0 "failing: each of its sockets closed (none left open)"

# 12-14: the loop keeps nginx's socket between ok cycles; nginx stops: the
# next cycles on that socket are connect failures, never an ok carried over.
"$FAULTMON" run close-gone --no-env --no-pacemaker --param "Port_list=http://127.0.0.1:$WS_HTTP_PORT/health" \
    --param Thorough_probe_interval=300ms --param Probe_timeout=250ms >/dev/null 2>"$FM_TMP/gone.err" &
loop_pid=$!
# At exit only while it runs: the PID is cleared once it was reaped.
fm_cleanup_add '[ -n "$loop_pid" ] && kill -KILL "$loop_pid" 2>/dev/null'
# gone_field EXPR: one value of the loop's `faultmon status --json` resource
gone_field() {
    "$FAULTMON" status close-gone --json 2>/dev/null |
        "$PYTHON3" -c "import json,sys; r=json.load(sys.stdin)['resources'][0]; print($1)" 2>/dev/null
}
for _ in $(seq 1 100); do
    [ "$(gone_field "r['cycles'] >= 3 and r['targets'][0]['verdict']")" = ok ] && break
    sleep 0.1
done
is "$(gone_field "r['targets'][0]['verdict']")" ok "nginx up: the loop's probes are ok"
cycles_then=$(gone_field "r['cycles']")
ws_nginx_kill
for _ in $(seq 1 100); do
    c=$(gone_field "r['cycles']")
    [ -n "$c" ] && [ -n "$cycles_then" ] && [ "$c" -ge $((cycles_then + 3)) ] && break
    sleep 0.1
done
is "$(gone_field "r['targets'][0]['verdict'] + ' ' + r['targets'][0]['reason']")" "complete connect-failed" \
    "nginx stopped: the next cycles fail to connect, no ok carried over by the kept socket"
ok_if "$(kill -0 "$loop_pid" 2>/dev/null && echo 0 || echo 1)" "the loop still runs"
kill -TERM "$loop_pid" 2>/dev/null
wait "$loop_pid" 2>/dev/null
loop_pid=''

tap_done
