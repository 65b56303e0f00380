#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-timer.sh: the loop's own timers (src/run/timer.c on the event loop's
# timer list, include/faultmon/ev.h): each epoll_wait is bounded by the
# nearest timer, in milliseconds rounded up, so the loop wakes for its next
# cycle and for a burst cycle's deadline on time, never early, in one
# wake-up, and sets no timer fd to do so.  libqb's timers slept whole
# milliseconds rounded down and then polled without sleeping until due,
# which strace shows as empty epoll_wait(..., 0) calls before each cycle;
# the loop must make none.  A spread loop starts its sweep with its first
# target, so a cycle of one target is two wake-ups: its start and the reply.
FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 9

export FAULTMON_STATE_DIR=$FM_TMP/state
fm_fault_server_start ok silent || bail_out "the fault server did not start"
OK=http://127.0.0.1:${FS_PORT[ok]}/
SILENT=http://127.0.0.1:${FS_PORT[silent]}/
TIMEFORMAT='%R'

# traced SECS CMD...: CMD under strace (system calls of every thread), with
# LeakSanitizer off in a sanitizer build: it cannot run under ptrace, and
# would end the traced program with its own exit status.
traced() {
    local secs=$1 out=$2
    shift 2
    fm_timeout "$secs" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -qq -e trace=epoll_wait,timerfd_settime -o "$out" "$@"
}

# spins FILE: polls that returned nothing without waiting (libqb's spin).
spins() {
    grep -cE 'epoll_wait\([0-9]+, \[\], [0-9]+, 0\) += 0$' "$1"
}

# wakes FILE: waits that slept (no bound, or a timer's) and returned, with
# an event or at the timer: the positive control of every count here.  No
# spin in a trace without them proves nothing (a trace that missed the
# loop): each case wants the wake-ups its cycles must make.
wakes() {
    grep -cE 'epoll_wait\([0-9]+, \[.*\], [0-9]+, (-1|[1-9][0-9]*)\) += [0-9]+$' "$1"
}

# 1-3: four cycles of a healthy target, one a second, traced.
if command -v strace >/dev/null; then
    { time traced 20 "$FM_TMP/ok.strace" "$FAULTMON" run timer-ok \
        --no-env --no-pacemaker --cycles 4 --param "Port_list=$OK" --param Thorough_probe_interval=1 \
        --param Probe_timeout=1 >/dev/null 2>"$FM_TMP/ok.err"; } 2>"$FM_TMP/ok.time"
    rc=$?
    is "$rc" 0 "four cycles, traced: exit 0"
    spins=$(spins "$FM_TMP/ok.strace")
    waits=$(grep -c 'epoll_wait(' "$FM_TMP/ok.strace")
    wakes=$(wakes "$FM_TMP/ok.strace")
    is "$spins/$([ "$wakes" -ge 4 ] && echo woke)" "0/woke" \
        "no empty epoll_wait(..., 0) before a cycle: the loop sleeps until it is due ($wakes blocking wake-ups, at least 4; $waits epoll_wait calls in all)"
    wall=$(cat "$FM_TMP/ok.time")
    ok_if "$(awk -v w="$wall" 'BEGIN { print (w >= 3.0 && w < 4.5)? 0 : 1 }')" \
        "the cycles come an interval apart, none early: 4 cycles in $wall s (3.0 to 4.5)"
    [ "$rc" = 0 ] || diag_file "$FM_TMP/ok.err"
else
    skip "four cycles, traced: exit 0" "no strace"
    skip "no empty epoll_wait before a cycle" "no strace"
    skip "the cycles come an interval apart" "no strace"
fi

# 4-6: a burst cycle's deadline: a server that accepts and never answers is
# cut off at Probe_timeout, woken by the same timer.
if command -v strace >/dev/null; then
    { time traced 20 "$FM_TMP/silent.strace" "$FAULTMON" run timer-silent \
        --no-env --no-pacemaker --cycles 1 --param "Port_list=$SILENT" --param Probe_timeout=1 \
        >/dev/null 2>"$FM_TMP/silent.err"; } 2>"$FM_TMP/silent.time"
    is "$?" 0 "a silent server, one cycle: exit 0"
    wall=$(cat "$FM_TMP/silent.time")
    ok_if "$(awk -v w="$wall" 'BEGIN { print (w >= 1.0 && w < 1.8)? 0 : 1 }')" \
        "the cycle ends at its deadline: $wall s for Probe_timeout 1 s (1.0 to 1.8)"
    wakes=$(wakes "$FM_TMP/silent.strace")
    is "$(spins "$FM_TMP/silent.strace")/$([ "$wakes" -ge 1 ] && echo woke)" "0/woke" \
        "no empty epoll_wait(..., 0) before the deadline ($wakes blocking wake-ups, at least 1: the deadline's)"
else
    skip "a silent server, one cycle: exit 0" "no strace"
    skip "the cycle ends at its deadline" "no strace"
    skip "no empty epoll_wait before the deadline" "no strace"
fi

# 7-8: spread mode, one target: the loop sleeps twice a cycle (waits that
# slept and returned), not three times (a wake-up at the
# cycle's start only to wait for the first target's jitter).
if command -v strace >/dev/null; then
    traced 20 "$FM_TMP/spread.strace" "$FAULTMON" run timer-spread \
        --no-env --no-pacemaker --cycles 4 --param "Port_list=$OK" --param Thorough_probe_interval=1 \
        --param Probe_timeout=1 --param spread=true >/dev/null 2>"$FM_TMP/spread.err"
    is "$?" 0 "spread, four cycles of one target, traced: exit 0"
    wakes=$(wakes "$FM_TMP/spread.strace")
    ok_if "$([ "$wakes" -ge 4 ] && [ "$wakes" -le 9 ] && echo 0 || echo 1)" \
        "spread: two wake-ups a cycle, the start and the reply ($wakes for 4 cycles: at least 4, one a cycle, at most 9)"
else
    skip "spread, four cycles of one target, traced: exit 0" "no strace"
    skip "spread: two wake-ups a cycle" "no strace"
fi

# 9: no timer fd is set for a cycle: the next cycle and the deadlines are
# the wait's own timeout (two timerfd_settime a cycle before, one more a
# probe in spread mode).  The traces of 1-8 together: 9 cycles.
if command -v strace >/dev/null; then
    sets=$(cat "$FM_TMP/ok.strace" "$FM_TMP/silent.strace" "$FM_TMP/spread.strace" | grep -c 'timerfd_settime(')
    is "$sets" 0 "no timerfd_settime in 9 cycles, burst and spread (the waits' timeouts are the timers)"
else
    skip "no timerfd_settime in 9 cycles" "no strace"
fi

tap_done
