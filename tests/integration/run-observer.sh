#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-observer.sh: the observer as a suspect, on the real loop.  A loop
# stopped with SIGSTOP (as a starved or frozen node is) whose next cycle
# therefore starts late, and fails, holds the recovery back: recorded,
# degraded, with the evidence in the reason and in one notice line; a cycle
# on time afterwards acts as ever.  The probe is an exec check of a file this
# script creates, so that the failure comes exactly while the loop is
# stopped; the lateness is the kernel's, not a pretend clock's.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 8

export FAULTMON_STATE_DIR=$FM_TMP/state
fail_file=$FM_TMP/service-is-down
runs=$FM_TMP/check-runs
check="/bin/sh -c 'echo run >> $runs; test ! -e $fail_file || { echo service down; exit 2; }'"
log=$FM_TMP/loop.err

"$FAULTMON" run obs --no-env -v --no-pacemaker --param "Probe_command=$check" \
    --param Thorough_probe_interval=1s --param Probe_timeout=400ms --param Retry_count=2 \
    --param observer_late=1500ms --param observer_hold=60s 2>"$log" &
loop=$!
fm_cleanup_add "kill -KILL $loop 2>/dev/null"

# wait_log REGEX SECONDS: until the loop's log has a line matching REGEX.
wait_log() { fm_wait_log "$log" "$1" "$2" "$loop"; }

wait_log 'monitoring 1 target' 10
ok_if $? "the loop started"

# Frozen for 3 s right after a healthy cycle (its check has just run): its
# next cycle starts about 2 s late, and fails.
n=0
for _ in $(seq 1 100); do
    n=$(wc -l <"$runs" 2>/dev/null || echo 0)
    [ "$n" -ge 2 ] && break
    sleep 0.05
done
for _ in $(seq 1 100); do
    [ "$(wc -l <"$runs")" -gt "$n" ] && break
    sleep 0.01
done
sleep 0.1
kill -STOP "$loop"
touch "$fail_file"
sleep 3
kill -CONT "$loop"

wait_log 'recovery held' 5
ok_if $? "the late, failed cycle holds the recovery back"
like "$(grep -m1 'may be impaired' "$log")" \
    'obs: this node may be impaired: its probe cycle started [0-9]+ ms late, observer_late 1500 ms' \
    "one notice line gives the evidence"
held=$(grep -m1 'recovery held' "$log")
like "$held" 'state degraded, action degraded' "the held cycle is degraded, no restart"
# The state written while held (its weight recorded) reads back: the
# agents have their verdict throughout the hold.
is "$(grep -c 'will read as no verdict' "$log")" 0 "the state written during the hold is one the reader takes"
if grep -m1 -B100 'recovery held' "$log" | grep -q 'asking for\|restart asked\|action restart'; then
    not_ok "no restart was asked before or by the held cycle"
    diag_file "$log"
else
    ok "no restart was asked before or by the held cycle"
fi

# The cycles after it are on time: the rules apply, the failure recorded
# while held makes the next one a restart at once.
wait_log 'action restart' 5
ok_if $? "the next failed cycle, on time, asks for a restart"
kill -TERM "$loop"
wait "$loop"
is "$?" 0 "the loop exits 0 on SIGTERM"
tap_done
