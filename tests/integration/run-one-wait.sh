#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-one-wait.sh: one wait, not two (issue 31).  `faultmon run` waits on one
# epoll set: the probes' sockets and timers are entries of the loop's own
# set, not behind an epoll fd of the probe engine's (or of the resolver's)
# added to it, so each wake-up is one epoll_wait.  Traced with strace
# against a real nginx (a plain target, a TLS one, a host name): no epoll
# fd is ever added to another epoll set, every epoll_wait of the loop is on
# one set, and the calls per cycle stay within a small bound.  Under libqb's
# main loop every wake-up on a probe's socket was two calls, on two sets.

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
plan 7

if ! command -v strace >/dev/null; then
    for _ in 1 2 3 4 5 6 7; do skip "one wait" "no strace"; done
    tap_done
    exit 0
fi
ws_nginx_start || bail_out "nginx did not start"
export FAULTMON_STATE_DIR=$FM_TMP/state
CYCLES=6

# The loop's epoll system calls (every thread, none of children: it starts
# none with --no-pacemaker), with LeakSanitizer off in a sanitizer build: it
# cannot run under ptrace.
fm_timeout 40 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -qq -e trace=epoll_create,epoll_create1,epoll_ctl,epoll_wait,epoll_pwait,close \
    -o "$FM_TMP/loop.strace" "$FAULTMON" run one-wait --no-env --no-pacemaker --cycles $CYCLES \
    --param "Port_list=http://127.0.0.1:$WS_HTTP_PORT/health https://localhost:$WS_HTTPS_PORT/health" \
    --param Thorough_probe_interval=1 --param tls_verify=false >/dev/null 2>"$FM_TMP/loop.err"
rc=$?
is "$rc" 0 "$CYCLES cycles of a plain, a TLS and a named target, traced: exit 0"
[ "$rc" = 0 ] || diag_file "$FM_TMP/loop.err"

# nested FILE: the epoll_ctl(..., EPOLL_CTL_ADD, FD, ...) calls whose FD is,
# in the same process, an epoll fd (made by epoll_create* and not closed).
nested() {
    awk '
        match($0, /epoll_create1?\(.*\) += [0-9]+$/) { n = split($0, w, " "); ep[$1 " " w[n]] = 1; next }
        match($0, /close\([0-9]+\)/) { fd = substr($0, RSTART + 6, RLENGTH - 7); delete ep[$1 " " fd]; next }
        match($0, /epoll_ctl\([0-9]+, EPOLL_CTL_ADD, [0-9]+,/) {
            split(substr($0, RSTART + 10), a, /[(, ]+/)
            if (($1 " " a[3]) in ep) { print }
        }' "$1"
}
is "$(nested "$FM_TMP/loop.strace" | wc -l)" 0 "no epoll fd is added to another epoll set (no nested wait)"
nested "$FM_TMP/loop.strace" | head -3 | while read -r line; do diag "$line"; done

# The sets the loop waits on: one.
sets=$(grep -oE 'epoll_p?wait\([0-9]+,' "$FM_TMP/loop.strace" | sort -u | wc -l)
is "$sets" 1 "every epoll_wait is on one epoll set ($sets sets)"

# Calls per cycle: at its start, each connect and reply, the TLS
# handshake's round trips; a bound well under two calls a wake-up.
waits=$(grep -cE 'epoll_p?wait\(' "$FM_TMP/loop.strace")
ok_if "$([ "$waits" -ge "$CYCLES" ] && [ "$waits" -le $((CYCLES * 8)) ] && echo 0 || echo 1)" \
    "epoll_wait calls: $waits for $CYCLES cycles (at least one a cycle, at most 8 a cycle)"
# And no wait that returns nothing without sleeping (libqb's spin).
is "$(grep -cE 'epoll_p?wait\([0-9]+, \[\], [0-9]+, 0\) += 0$' "$FM_TMP/loop.strace")" 0 \
    "no empty epoll_wait(..., 0): the loop never polls without sleeping"

# 6-7: one plain target: a cycle is two wake-ups (its start, the reply: the
# request goes out with the connect), each one call; libqb's loop made
# four (a second call on the engine's set each time).  The first cycle is
# due at once, so it starts before the first wait (the timers are the
# wait's timeout, no timer fd to wake on): one call fewer.
fm_timeout 40 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -qq -e trace=epoll_wait,epoll_pwait -o "$FM_TMP/plain.strace" \
    "$FAULTMON" run one-wait-plain --no-env --no-pacemaker --cycles $CYCLES \
    --param "Port_list=http://127.0.0.1:$WS_HTTP_PORT/health" --param Thorough_probe_interval=1 \
    >/dev/null 2>"$FM_TMP/plain.err"
rc=$?
is "$rc" 0 "$CYCLES cycles of one plain target, traced: exit 0"
[ "$rc" = 0 ] || diag_file "$FM_TMP/plain.err"
waits=$(grep -cE 'epoll_p?wait\(' "$FM_TMP/plain.strace")
ok_if "$([ "$waits" -ge $((CYCLES * 2 - 1)) ] && [ "$waits" -le $((CYCLES * 2 + 2)) ] && echo 0 || echo 1)" \
    "one plain target: $waits epoll_wait calls for $CYCLES cycles (two a cycle, $((CYCLES * 2 - 1)) to $((CYCLES * 2 + 2)))"

tap_done
