#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-observer-loopback.sh: observer_loopback on the real loop, in network
# namespaces this script creates.  A fresh namespace's lo is down, so a
# probe of 127.0.0.1 fails there for the node's sake, not the service's:
# with observer_loopback the loop's own listener fails too, and the
# recovery is held (degraded, one notice line with the evidence); without
# it, the same failure asks for a restart; with lo up and nothing serving
# the target, the listener answers and the restart is asked as ever.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
    echo "1..0 # SKIP needs root and ip(8) for network namespaces"
    exit 0
fi
tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 6

export FAULTMON_STATE_DIR=$FM_TMP/state
ns=fmobslo$$
ip netns add "$ns" || bail_out "cannot create network namespace $ns"
fm_cleanup_add "ip netns delete $ns"

# run_loop NAME LOOPBACK: a loop in the namespace probing 127.0.0.1:9 (where
# nothing listens); its log in $FM_TMP/NAME.err, its pid in $loop.
run_loop() {
    ip netns exec "$ns" "$FAULTMON" run "$1" --no-env -v --no-pacemaker --param Port_list=127.0.0.1:9 \
        --param Thorough_probe_interval=1s --param Probe_timeout=400ms --param Retry_count=2 \
        --param "observer_loopback=$2" --param observer_hold=60s 2>"$FM_TMP/$1.err" &
    loop=$!
    fm_cleanup_add "kill -KILL $loop 2>/dev/null"
}
stop_loop() { kill -TERM "$loop"; wait "$loop" 2>/dev/null; }

# lo down, observer_loopback=true: held.
run_loop down-on true
fm_wait_log "$FM_TMP/down-on.err" 'recovery held' 10 "$loop"
ok_if $? "lo down, observer_loopback=true: the failed cycle holds the recovery"
like "$(grep -m1 'may be impaired' "$FM_TMP/down-on.err")" \
    'down-on: this node may be impaired: a connection to its own listener on 127.0.0.1 failed \(Network is unreachable\), observer_loopback' \
    "one notice line gives the evidence"
if grep -q 'action restart' "$FM_TMP/down-on.err"; then
    not_ok "no restart is asked while the loopback fails"
    diag_file "$FM_TMP/down-on.err"
else
    ok "no restart is asked while the loopback fails"
fi
stop_loop

# lo down, observer_loopback=false (the default): the rules as ever.
run_loop down-off false
fm_wait_log "$FM_TMP/down-off.err" 'action restart' 10 "$loop"
ok_if $? "lo down, observer_loopback=false: a restart is asked"
stop_loop

# lo up, nothing on port 9: the listener answers, the failure is the service's.
ip netns exec "$ns" ip link set lo up
run_loop up-on true
fm_wait_log "$FM_TMP/up-on.err" 'action restart' 10 "$loop"
ok_if $? "lo up, observer_loopback=true, the target refused: a restart is asked"
if grep -q 'may be impaired' "$FM_TMP/up-on.err"; then
    not_ok "the healthy loopback marks nothing impaired"
    diag_file "$FM_TMP/up-on.err"
else
    ok "the healthy loopback marks nothing impaired"
fi
stop_loop
tap_done
