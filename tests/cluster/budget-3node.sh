#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/budget-3node.sh: the node-level recovery budget on a real
# 3-node Pacemaker cluster with node-health-strategy=migrate-on-red
# (issue 15: "several resources failing on one node: the node is drained
# once, not N restarts").  Three groups, each an ocf:pacemaker:Dummy and an
# ocf:faultmon:guard of it (node_budget=2), prefer node1; the guards probe
# one thing of node1 (a Probe_command testing a file of node1's own /srv).
# When it fails for all three at once, the first recovery is a restart;
# the next, with one other recovery of the node in the window, is held and
# marks node1 #health-faultmon=red; Pacemaker moves every group off node1.
# Also: a guard of any resource class (here ocf:pacemaker:Dummy) in
# practice.
#
# Needs root, the packages of lib.sh, and the agents installed (make
# install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=360}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs
sc_skip_unless_agents
if [ ! -x "$FM_OCF_DIR/faultmon/guard" ] || [ ! -x "$FM_OCF_DIR/pacemaker/Dummy" ]; then
    echo "1..0 # SKIP ocf:faultmon:guard or ocf:pacemaker:Dummy is not installed"
    exit 0
fi

TPI=2

fm_plan 7

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_result 0 "3-node cluster formed in ${FM_LAST_MS} ms"

pcs1() { fm_node_exec node1 pcs "$@" </dev/null >/dev/null 2>&1; }
health() {
    fm_node_exec node1 cibadmin --query --scope status 2>/dev/null | python3 -c '
import sys, xml.etree.ElementTree as ET
for ns in ET.fromstring(sys.stdin.read()).iter("node_state"):
    for nv in ns.iter("nvpair"):
        if nv.get("name") == "#health-faultmon" and ns.get("uname") == sys.argv[1]:
            print(nv.get("value"))' "$1"
}

pcs1 property set node-health-strategy=migrate-on-red
st=$?
sc_budget_groups node1 "$TPI" 60 10 || st=1
on1() { [ "$(fm_resource_nodes d1-guard)" = node1 ] && [ "$(fm_resource_nodes d2-guard)" = node1 ] \
        && [ "$(fm_resource_nodes d3-guard)" = node1 ]; }
fm_poll 60 on1
fm_result $((st || $?)) "node-health-strategy=migrate-on-red; three groups of an ocf:pacemaker:Dummy and its guard (node_budget=2) run on node1"

fc0=$(( $(fm_failcount d1 node1) + $(fm_failcount d2 node1) + $(fm_failcount d3 node1) ))
t0=$(fm_now_ms)
: >"$(fm_node_dir node1)/root/srv/fail-all"
red() { [ "$(health node1)" = red ]; }
fm_poll 30 red
fm_result $? "all three fail at once: node1 is marked #health-faultmon=$(health node1) after $(fm_since_ms "$t0") ms"
off1() {
    local k n
    for k in 1 2 3; do
        n=$(fm_resource_nodes "d$k")
        [ -n "$n" ] && [ "$n" != node1 ] || return 1
    done
}
fm_poll 60 off1
st=$?
where=$(for k in 1 2 3; do printf 'g%s:%s ' "$k" "$(fm_resource_nodes "d$k")"; done)
fm_result "$st" "Pacemaker moves every group off node1 once ($where) after $(fm_since_ms "$t0") ms"
fm_timing "node budget: 3 resources fail on node1 -> all run elsewhere" "$(fm_since_ms "$t0")" "node_budget=2"
fc1=$(( $(fm_failcount d1 node1) + $(fm_failcount d2 node1) + $(fm_failcount d3 node1) ))
log=$(fm_node_dir node1)/root/var/log/pacemaker/pacemaker.log
restarts=$(grep -cE "faultmon.*: d[123]-guard: state [a-z-]+ -> [a-z-]+, restart asked" "$log")
held=$(grep -cE "faultmon.*: d[123]-guard: .*other resource.* of this node asked for recovery within 60 s, node_budget 2" "$log")
# node_budget - 1 = 1 restart before the mark; the restarted resource's
# guard may ask once more before Pacemaker has moved it: fewer than the
# three a restart each would be.
ok=$([ "$restarts" -lt 3 ] && [ "$held" -ge 1 ]; echo $?)
fm_result "$ok" "not N restarts: $restarts restart(s) asked on node1 (fewer than the 3 resources), $held recovery held by the budget (fail-counts $fc0 -> $fc1)"
grep -q "marking this node unhealthy (#health-faultmon=red)" "$log"
fm_result $? "the mark is logged: $(grep -o 'd[123]-guard: marking this node unhealthy.*' "$log" | head -n1)"

# The mark stays until the administrator clears it (documented).
rm -f "$(fm_node_dir node1)/root/srv/fail-all"
fm_node_exec node1 attrd_updater -n '#health-faultmon' -D -N node1 >/dev/null 2>&1
back() { [ -z "$(health node1)" ] && [ "$(fm_resource_nodes d1)" = node1 ]; }
fm_poll 60 back
fm_result $? "attrd_updater -D -n '#health-faultmon' -N node1 clears it: the groups may return (d1 on $(fm_resource_nodes d1))"

fm_timings_report
fm_done
