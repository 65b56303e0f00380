#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-close.sh: how the loop closes a probe's connection once its reply is
# complete (src/probe/engine.c, conn_close()).  No TIME_WAIT is ever left
# on the loop's side (at 1000 targets a second that would hold 60 000 local
# ports): every probe's connection is reset (SO_LINGER 0), a server's that
# closed first (nginx after an HTTP/1.0 reply) as well: answering its FIN
# with a plain close saves the setsockopt but costs the loop more of the
# kernel's work (the FIN and its ACK; spread at 10 targets against HAProxy,
# QUICK=1 WINDOW=30 ROUNDS=2 tests/bench/ab.sh: 0.88x with the plain close,
# 0.79x reset, 2026-12-06), and a server that keeps the connection open.

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
plan 6

if ! command -v strace >/dev/null || ! command -v ss >/dev/null; then
    for _ in 1 2 3 4 5 6; do skip "the loop's close" "no strace or ss"; done
    tap_done
    exit 0
fi
ws_nginx_start || bail_out "nginx did not start"
fm_fault_server_start ok-hold || bail_out "the fault server did not start"
export FAULTMON_STATE_DIR=$FM_TMP/state
CYCLES=10

# traced NAME URL: CYCLES cycles of one target, its setsockopt calls traced
# (LeakSanitizer off in a sanitizer build: it cannot run under ptrace).
traced() {
    fm_timeout 40 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -qq -e trace=setsockopt -o "$FM_TMP/$1.strace" \
        "$FAULTMON" run "close-$1" --no-env --no-pacemaker --cycles $CYCLES \
        --param "Port_list=$2" --param Thorough_probe_interval=500ms --param Probe_timeout=400ms >/dev/null 2>"$FM_TMP/$1.err"
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

# 1-3: nginx closes after its HTTP/1.0 reply.
before=$(time_wait "$WS_HTTP_PORT")
traced nginx "http://127.0.0.1:$WS_HTTP_PORT/health"
rc=$?
is "$rc" 0 "$CYCLES cycles against nginx, traced: exit 0"
[ "$rc" = 0 ] || diag_file "$FM_TMP/nginx.err"
after=$(time_wait "$WS_HTTP_PORT")
ok_if "$([ "$after" -le "$before" ] && echo 0 || echo 1)" \
    "nginx: no TIME_WAIT left on the loop's side ($before before its $CYCLES probes, $after after)"
n=$(lingers "$FM_TMP/nginx.strace")
is "$n" $CYCLES "nginx closed first: every probe reset with SO_LINGER 0 all the same ($CYCLES)"

# 4-6: a server that keeps the connection open after a complete reply.
before=$(time_wait "${FS_PORT[ok-hold]}")
traced hold "http://127.0.0.1:${FS_PORT[ok-hold]}/"
rc=$?
is "$rc" 0 "$CYCLES cycles against a server that holds the connection, traced: exit 0"
[ "$rc" = 0 ] || diag_file "$FM_TMP/hold.err"
after=$(time_wait "${FS_PORT[ok-hold]}")
ok_if "$([ "$after" -le "$before" ] && echo 0 || echo 1)" \
    "held open: no TIME_WAIT left on the loop's side ($before before its $CYCLES probes, $after after)"
is "$(lingers "$FM_TMP/hold.strace")" $CYCLES "held open: every probe reset with SO_LINGER 0 ($CYCLES)"

tap_done
