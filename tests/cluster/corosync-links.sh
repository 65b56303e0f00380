#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/corosync-links.sh: what `corosync-cfgtool -s` and `-n`
# print on a real 3-node knet cluster (Debian 12, corosync 3.1), for the
# fixtures of tests/unit/test_corosync_links.c and for checking that
# observer_corosync's parser reads the live outputs as the rule expects:
#  - every node up: every peer connected (not impaired);
#  - node3 crashed: node1 sees node2 connected and node3 disconnected (a
#    peer that is simply down: not impaired);
#  - node1's eth0 down: node1 sees every peer disconnected (impaired).
# In each, a `faultmon run` with observer_corosync=true in node1, whose
# every cycle fails, asks for a restart or, cut off, holds the recovery,
# reading the real corosync-cfgtool.  The outputs are printed as "# " lines and written to
# $FM_TOP_BUILDDIR/tests/cluster/corosync-links-outputs.txt.  Takes about
# 30 s.  Not in the suite's list (FM_CLUSTER_TESTS): run it by hand.

[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

fm_skip_unless_runnable corosync-cfgtool
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${FAULTMON:-}" ] && [ -x "$top/build/src/faultmon" ]; then FAULTMON=$top/build/src/faultmon; fi
FAULTMON=${FAULTMON:-${FM_TOP_BUILDDIR:-.}/src/faultmon}
[ -x "$FAULTMON" ] || fm_bail "no faultmon at $FAULTMON (run make, or set FAULTMON)"
out=${FM_TOP_BUILDDIR:-.}/tests/cluster/corosync-links-outputs.txt
mkdir -p "$(dirname "$out")"
: >"$out"

fm_plan 6

# capture LABEL: corosync-cfgtool -s and -n of node1, into $out
capture() {
    local opt
    for opt in -s -n; do
        {
            echo "=== $1: corosync-cfgtool $opt (exit status follows the output)"
            fm_node_exec node1 corosync-cfgtool "$opt" 2>&1
            echo "=== rc $?"
        } >>"$out"
    done
}
# status_of NODEID: node1's status word of that peer on link 0
status_of() {
    fm_node_exec node1 corosync-cfgtool -s 2>/dev/null \
        | awk -v id="$1" '$1 == "nodeid:" && $2 == id":" { print $3; exit }'
}

# loop LABEL: node1's verdict on a failed cycle, from 3 s of a loop there
# ("held" or "restart"); its log appended to $out.
loop_verdict() {
    local log
    log=$(mktemp "${TMPDIR:-/tmp}/faultmon-corosync-links.XXXXXX") || return 1
    fm_node_exec node1 env FAULTMON_STATE_DIR="$log.state" timeout 3 "$FAULTMON" run obs \
        --no-env -v --no-pacemaker --param "Probe_command=/bin/sh -c 'exit 2'" \
        --param Thorough_probe_interval=1s --param observer_corosync=true 2>"$log"
    { echo "=== $1: faultmon run, observer_corosync=true"; cat "$log"; } >>"$out"
    if grep -q 'recovery held' "$log"; then echo held
    elif grep -q 'action restart' "$log"; then echo restart
    fi
    rm -rf "$log" "$log.state"
}

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
capture "every node up"
fm_ok "node1 sees node2 connected while every node is up" \
    test "$(status_of 2)" = connected

v=$(loop_verdict "every node up")
fm_ok "every node up: the loop asks for a restart (got ${v:-nothing})" test "$v" = restart

fm_node_crash node3
fm_wait_node_state node3 offline 30
sleep 2
capture "node3 crashed"
fm_ok "node1 sees node3 disconnected once node3 crashed" \
    test "$(status_of 3)" = disconnected

v=$(loop_verdict "node3 crashed")
fm_ok "node3 crashed: node1's loop asks for a restart (got ${v:-nothing})" test "$v" = restart

fm_node_exec node1 ip link set eth0 down
gone() { [ "$(status_of 2)" = disconnected ]; }
fm_poll 20 gone
sleep 1
capture "node1 eth0 down"
fm_ok "node1 sees node2 disconnected once its own eth0 is down" gone
v=$(loop_verdict "node1 eth0 down")
fm_ok "node1's eth0 down: its loop holds the recovery (got ${v:-nothing})" test "$v" = held

sed 's/^/# /' "$out"
fm_done
