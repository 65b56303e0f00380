#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/deps-3node.sh: Dependency_list on a real 3-node Pacemaker
# cluster (issue 15).  The dependency is a TCP service on the hub's network
# (an address of its own, SUBNET.253), which every node reaches; a clone of
# ocf:faultmon:httpmon with the same Dependency_list publishes every node's
# view (faultmon-dep-KEY); ocf:faultmon:apache's /app fails when the test
# breaks it (500 until httpd restarts).
#
#  views: every node publishes up.
#  everywhere: the dependency stops, then /app breaks: no restart, no move,
#     the state degraded with "down from all 3 nodes"; once the dependency
#     is back, the rules: a restart in place.
#  here only: the dependency unreachable from the node running web only (a
#     blackhole route in that node), then /app breaks: web fails over at
#     once, with restarts left (Retry_count=2, 1 used), to a node that sees
#     the dependency up.
#
# Needs root, the packages of lib.sh, and the agents installed (make
# install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=420}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs apache2 python3
sc_skip_unless_agents

TPI=2
DEP_ADDR=$FM_SUBNET.253
DEP_PORT=5432
DEP=tcp://$DEP_ADDR:$DEP_PORT
ATTR=faultmon-dep-tcp-$(echo "$DEP_ADDR" | tr . -)-$DEP_PORT

fm_plan 10

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_result 0 "3-node cluster formed in ${FM_LAST_MS} ms"
fm_apache_setup
sc_apache_extras

pcs1() { fm_node_exec node1 pcs "$@" </dev/null >/dev/null 2>&1; }
# views: "node=value ..." of the dependency's attribute, from the CIB
views() {
    fm_node_exec node1 cibadmin --query --scope status 2>/dev/null | python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.read())
out = []
for ns in root.iter("node_state"):
    for nv in ns.iter("nvpair"):
        if nv.get("name") == sys.argv[1]:
            out.append("%s=%s" % (ns.get("uname"), nv.get("value")))
print(" ".join(sorted(out)))' "$ATTR"
}
views_are() { local want=$1; vw() { [ "$(views)" = "$want" ]; }; fm_poll "${2:-30}" vw; }

sc_dep_start "$DEP_ADDR" "$DEP_PORT"

# ------------------------------------------------------------- views
pcs1 resource create deps ocf:faultmon:httpmon Dependency_list="$DEP" name=faultmon-deps \
    Thorough_probe_interval=$TPI Probe_timeout=1 op monitor interval=10s clone
st=$?
pcs1 resource create web ocf:faultmon:apache configfile="$FM_APACHE_CONF" \
    Monitor_Uri_List="http://127.0.0.1/app" Dependency_list="$DEP" \
    Thorough_probe_interval=$TPI Probe_timeout=1 Retry_count=2 Retry_interval=300 \
    op monitor interval=10s
st=$((st || $?))
X=$(fm_wait_resource web any 30)
fm_wait_serving "${X:-none}" /app 10
st=$((st || $?))
fm_result "$st" "a cloned httpmon with Dependency_list=$DEP, and web (ocf:faultmon:apache) with the same: web on ${X:-nowhere}"
[ -n "$X" ] || fm_bail "web did not start"
views_are "node1=up node2=up node3=up" 30
fm_result $? "every node publishes its view: $(views)"

# --------------------------------------- down everywhere: hold, no move
SC_FC0=$(fm_failcount web "$X")
sc_dep_stop
views_are "node1=down node2=down node3=down" 20
fm_result $? "the dependency stops: every node's view goes down: $(views)"
t0=$(sc_break_app "$X")
reason_has() { sc_status "$X" web | sc_jget reason | grep -q "$1"; }
has_all() { reason_has "down from all 3 nodes"; }
fm_poll 20 has_all
st=$?
sleep $((TPI * 3))
fc=$(fm_failcount web "$X") on=$(fm_resource_nodes web | tr '\n' ' ')
reason=$(sc_status "$X" web | sc_jget reason)
ok=$([ "$st" = 0 ] && [ "$fc" = "$SC_FC0" ] && [ "$on" = "$X " ] && [ "$(sc_fm_field "$X" web restarts_in_window)" = 0 ]; echo $?)
fm_result "$ok" "down from all nodes, /app 500: web stays on $X, no restart (fail-count $SC_FC0 -> $fc): '$reason'"

# measured from the dependency's return: the loop restarts web as soon as
# it sees the dependency up, before the views reach the CIB (dampened)
SC_FC0=$(fm_failcount web "$X")
t0=$(fm_now_ms)
sc_dep_start "$DEP_ADDR" "$DEP_PORT"
views_are "node1=up node2=up node3=up" 20
sc_measure web "$X" "$t0" 40 /app
rs=$(sc_fm_field "$X" web restarts_in_window)
ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = "$X" ] && [ "$rs" = 1 ]; echo $?)
fm_result "$ok" "the dependency back, /app still 500: the rules: restarted in place on ${SC_ON:-?} (restart $rs), serving after ${SC_RESTORED:-never} ms"

# ----------------------------------- down from this node only: failover
fm_node_exec "$X" ip route add blackhole "$DEP_ADDR/32"
want=""
for n in node1 node2 node3; do
    if [ "$n" = "$X" ]; then want="$want $n=down"; else want="$want $n=up"; fi
done
views_are "${want# }" 20
fm_result $? "the dependency unreachable from $X only: $(views)"
other=node2; [ "$X" = node2 ] && other=node3
row=$(sc_fm "$other" status --cluster 2>&1 | grep '^dependency' | tr -s ' ' | sed 's/ *$//')
want_row="dependency ${ATTR#faultmon-dep-}"
for n in node1 node2 node3; do
    if [ "$n" = "$X" ]; then want_row="$want_row down"; else want_row="$want_row up"; fi
done
is_row() { [ "$row" = "$want_row" ]; }
is_row
fm_result $? "faultmon status --cluster on $other shows every node's view: '$row'"
t0=$(sc_break_app "$X")
Y=$(fm_wait_resource web "!$X" 60)
fm_wait_serving "${Y:-none}" /app 20
st=$?
moved_ms=$(fm_since_ms "$t0")
reason=$(sc_status "$X" web | sc_jget reason)
ok=$([ "$st" = 0 ] && [ -n "$Y" ] && [[ $reason == *"failing over at once (dependency $DEP down from this node only"* ]]; echo $?)
fm_result "$ok" "down from $X only, /app 500, Retry_count=2 with 1 used: web fails over at once to ${Y:-nowhere} in ${moved_ms} ms: '$reason'"
fm_timing "dependency down from the node only: /app 500 -> serving on another node" "$moved_ms" "Thorough_probe_interval=$TPI"
fm_node_exec "$X" ip route del blackhole "$DEP_ADDR/32"
views_are "node1=up node2=up node3=up" 20
fm_result $? "the route back: every node's view up again: $(views)"

fm_timings_report
fm_done
