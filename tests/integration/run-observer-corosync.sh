#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-observer-corosync.sh: observer_corosync on the real loop, with a
# stand-in corosync-cfgtool (FAULTMON_COROSYNC_CFGTOOL) that prints what
# this script puts in a file of its own: the outputs captured on a real
# 3-node cluster (tests/cluster/corosync-links.sh).  Every cycle fails (an
# exec check that exits 2).  Every peer disconnected: the recovery is held
# (degraded, one notice line with the evidence); the same without the
# option: a restart; one peer disconnected and one connected (a peer that
# crashed): a restart, nothing impaired; garbage: a restart, nothing
# impaired, and the unread output logged once, not each cycle; corosync
# not running (the tool's own words and status 1, as captured on this
# machine): a restart, nothing impaired.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 12

export FAULTMON_STATE_DIR=$FM_TMP/state
reply=$FM_TMP/cfgtool.out
export FAULTMON_COROSYNC_CFGTOOL=$FM_TMP/corosync-cfgtool
# shellcheck disable=SC2016 # $1 is the stand-in's own argument
printf '#!/bin/sh\n[ "$1" = -s ] || exit 64\nexec cat '"'%s'"'\n' "$reply" >"$FAULTMON_COROSYNC_CFGTOOL"
chmod 700 "$FAULTMON_COROSYNC_CFGTOOL"

# links STATUS2 STATUS3: corosync 3.1.7's -s as node1 prints it.
links() {
    printf 'Local node ID 1, transport knet\nLINK ID 0 udp\n\taddr\t= 192.168.234.11\n'
    printf '\tstatus:\n\t\tnodeid:          1:\tlocalhost\n'
    printf '\t\tnodeid:          2:\t%s\n\t\tnodeid:          3:\t%s\n' "$1" "$2"
}

# run_loop NAME COROSYNC: a loop whose every cycle fails; its log in
# $FM_TMP/NAME.err, its pid in $loop.
run_loop() {
    "$FAULTMON" run "$1" --no-env -v --no-pacemaker \
        --param "Probe_command=/bin/sh -c 'echo service down; exit 2'" \
        --param Thorough_probe_interval=1s --param Probe_timeout=400ms --param Retry_count=2 \
        --param "observer_corosync=$2" --param observer_hold=60s 2>"$FM_TMP/$1.err" &
    loop=$!
    fm_cleanup_add "kill -KILL $loop 2>/dev/null"
}
stop_loop() { kill -TERM "$loop"; wait "$loop" 2>/dev/null; }
# none_of NAME REGEX DESC: the loop's log has no line matching REGEX.
none_of() {
    if grep -Eq -- "$2" "$FM_TMP/$1.err"; then
        not_ok "$3"
        diag_file "$FM_TMP/$1.err"
    else
        ok "$3"
    fi
}

# This node cut off: held.
links disconnected disconnected >"$reply"
run_loop cut-on true
fm_wait_log "$FM_TMP/cut-on.err" 'recovery held' 10 "$loop"
ok_if $? "every peer disconnected, observer_corosync=true: the failed cycle holds the recovery"
like "$(grep -m1 'may be impaired' "$FM_TMP/cut-on.err")" \
    'cut-on: this node may be impaired: corosync: no peer reachable on any link \(2 peers, link 0\), observer_corosync' \
    "one notice line gives the evidence"
none_of cut-on 'action restart' "no restart is asked while this node is cut off"
stop_loop

# The same, observer_corosync=false (the default): the rules as ever.
run_loop cut-off false
fm_wait_log "$FM_TMP/cut-off.err" 'action restart' 10 "$loop"
ok_if $? "every peer disconnected, observer_corosync=false: a restart is asked"
stop_loop

# One peer crashed, the other connected: the peer's fault, not this node's.
links connected disconnected >"$reply"
run_loop peer-down true
fm_wait_log "$FM_TMP/peer-down.err" 'action restart' 10 "$loop"
ok_if $? "one peer disconnected, one connected: a restart is asked"
none_of peer-down 'may be impaired|no verdict' "a crashed peer marks nothing impaired"
stop_loop

# Garbage: no verdict, never impaired; said once however many cycles fail.
printf 'Local node ID 1, transport knet\nLINK ID 0 udp\n\tstatus:\n\t\tnodeid: 2: ?\n' >"$reply"
run_loop garbage true
fm_wait_log "$FM_TMP/garbage.err" 'action restart' 10 "$loop"
ok_if $? "an output not understood: a restart is asked"
none_of garbage 'may be impaired' "an output not understood marks nothing impaired"
# Three failed cycles: two restarts, then the failover (Retry_count 2).
fm_wait_log "$FM_TMP/garbage.err" 'action failover' 10 "$loop"
stop_loop
like "$(grep -m1 'no verdict' "$FM_TMP/garbage.err")" \
    'garbage: observer_corosync: no verdict from .*/corosync-cfgtool -s \(a node status not understood \(line 4\)\): not counted' \
    "the unread output is logged, with why"
n=$(grep -c 'no verdict' "$FM_TMP/garbage.err")
failed=$(grep -c 'cycle complete, state down' "$FM_TMP/garbage.err")
ok_if "$([ "$n" -eq 1 ] && [ "$failed" -ge 3 ]; echo $?)" \
    "logged once over $failed failed cycles (got $n lines)"

# corosync not running: the tool fails; no verdict.
printf '#!/bin/sh\necho "Could not initialize corosync configuration API error 2"\nexit 1\n' \
    >"$FAULTMON_COROSYNC_CFGTOOL"
run_loop no-corosync true
fm_wait_log "$FM_TMP/no-corosync.err" 'action restart' 10 "$loop"
ok_if $? "corosync not running: a restart is asked"
stop_loop
like "$(grep -m1 -E 'no verdict|may be impaired' "$FM_TMP/no-corosync.err")" \
    'no verdict from .* -s \(status 1: Could not initialize corosync configuration API error 2\): not counted' \
    "corosync not running is no verdict, logged with the tool's words"
tap_done
