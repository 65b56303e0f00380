#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/deps-alone.sh: Dependency_list with no other node's view
# (issue 29 item 3), on a real single-node cluster, then on a real 3-node
# cluster without the httpmon clone.  A failure of the service while a
# dependency is down from its node, with no node known where the dependency
# is up, cannot be helped by a restart in place or a blind failover.
#
#  1 node: the dependency (a port nothing listens on) down, /app 500: held
#     degraded, "down from all 1 nodes", no restart, no move; the dependency
#     back: the rules (a restart in place).
#  3 nodes, no clone: the dependency down, /app 500 on X: held on X, X's
#     view published as down; web moved to Y by the administrator, where
#     /app is 500 too: X's view deleted when its loop stops (with the
#     README's location rule a "down" left behind bans X for good), Y holds
#     at once (never "the others' views pending", which used to last two
#     cycles and 2 s of each new loop).
#
# Needs root, the packages of lib.sh, and the agents installed (make
# install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=480}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs apache2 python3
sc_skip_unless_agents

TPI=2
fm_plan 10

pcs1() { fm_node_exec node1 pcs "$@" </dev/null >/dev/null 2>&1; }
reason_of() { sc_status "$1" web | sc_jget reason; }
# views ATTR: "node=value ..." of a node attribute, from the CIB
views() {
    fm_node_exec node1 cibadmin --query --scope status 2>/dev/null | python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.read())
out = []
for ns in root.iter("node_state"):
    for nv in ns.iter("nvpair"):
        if nv.get("name") == sys.argv[1]:
            out.append("%s=%s" % (ns.get("uname"), nv.get("value")))
print(" ".join(sorted(out)))' "$1"
}
# held_no_recovery NODE FC0 WHAT: web stays on NODE, degraded with WHAT in
# the reason, its fail-count FC0, no restart counted, for 3 cycles and more
held_no_recovery() {
    local node=$1 fc0=$2 what=$3 fc on rs reason
    has_what() { reason_of "$node" | grep -qF "$what"; }
    fm_poll 20 has_what || return 1
    sleep $((TPI * 4))
    fc=$(fm_failcount web "$node") on=$(fm_resource_nodes web | tr '\n' ' ')
    rs=$(sc_fm_field "$node" web restarts_in_window)
    reason=$(reason_of "$node")
    fm_diag "on '$on', fail-count $fc0 -> $fc, restarts_in_window $rs: '$reason'"
    [ "$fc" = "$fc0" ] && [ "$on" = "$node " ] && [ "$rs" = 0 ] && [[ $reason == *"$what"*": holding"* ]]
}

# ---------------------------------------------------------- one node
fm_cluster_start 1 || fm_bail "1-node cluster did not form"
fm_apache_setup
sc_apache_extras
DEP_PORT=5433
DEP=tcp://127.0.0.1:$DEP_PORT
pcs1 resource create web ocf:faultmon:apache configfile="$FM_APACHE_CONF" \
    Monitor_Uri_List="http://127.0.0.1/app" Dependency_list="$DEP" \
    Thorough_probe_interval=$TPI Probe_timeout=1 Retry_count=1 Retry_interval=300 \
    op monitor interval=10s
fm_wait_resource web node1 30 >/dev/null && fm_wait_serving node1 /app 10
fm_result $? "1 node: web (ocf:faultmon:apache, Dependency_list=$DEP, Retry_count=1) serving"

fc0=$(fm_failcount web node1)
sc_break_app node1 >/dev/null
held_no_recovery node1 "$fc0" "dependency $DEP down from all 1 nodes, recovery cannot help"
fm_result $? "1 node, the dependency down, /app 500: held degraded on node1 ('down from all 1 nodes'), no restart, no failover"

ip netns exec "$(fm__ns node1)" python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
while True:
    c, _ = s.accept(); c.close()' "$DEP_PORT" >/dev/null 2>&1 &
dep1=$!
fm_at_exit "kill $dep1 2>/dev/null"
SC_FC0=$fc0
sc_measure web node1 "$(fm_now_ms)" 40 /app
rs=$(sc_fm_field node1 web restarts_in_window)
ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = node1 ] && [ "$rs" = 1 ]; echo $?)
fm_result "$ok" "1 node, the dependency back, /app still 500: the rules: restarted in place (restart $rs), serving after ${SC_RESTORED:-never} ms"
kill "$dep1" 2>/dev/null
fm_cluster_destroy

# ------------------------------------------------- three nodes, no clone
fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_result 0 "3-node cluster formed in ${FM_LAST_MS} ms"
fm_apache_setup
sc_apache_extras
DEP_ADDR=$FM_SUBNET.253
DEP_PORT=5432
DEP=tcp://$DEP_ADDR:$DEP_PORT
ATTR=faultmon-dep-tcp-$(echo "$DEP_ADDR" | tr . -)-$DEP_PORT
sc_dep_start "$DEP_ADDR" "$DEP_PORT"
pcs1 resource create web ocf:faultmon:apache configfile="$FM_APACHE_CONF" \
    Monitor_Uri_List="http://127.0.0.1/app" Dependency_list="$DEP" \
    Thorough_probe_interval=$TPI Probe_timeout=1 Retry_count=1 Retry_interval=300 \
    op monitor interval=10s
X=$(fm_wait_resource web any 30)
fm_wait_serving "${X:-none}" /app 10
fm_result $? "3 nodes, no httpmon clone: web on ${X:-nowhere}"
[ -n "$X" ] || fm_bail "web did not start"

sc_dep_stop
fc0=$(fm_failcount web "$X")
sc_break_app "$X" >/dev/null
held_no_recovery "$X" "$fc0" "dependency $DEP down from all 1 nodes, recovery cannot help"
fm_result $? "3 nodes, the dependency down, /app 500 on $X, no other node's view: held on $X, no restart, no failover"
v=$(views "$ATTR")
[ "$v" = "$X=down" ]
fm_result $? "$X publishes its view: '$v'"

Y=node2; [ "$X" = node2 ] && Y=node3
: > "$(fm_node_dir "$Y")/root/srv/www/fail-500"     # /app 500 on Y too
t0=$(fm_now_ms)
fm_node_exec node1 crm_resource --move -r web -N "$Y" >/dev/null 2>&1
fm_wait_resource web "$Y" 40 >/dev/null
st=$?
rm -f "$(fm_node_dir "$Y")/root/srv/www/fail-500"
gone() { [ "$(views "$ATTR")" = "$Y=down" ]; }
fm_poll 20 gone
fm_result $? "web moved to $Y by the administrator: $X's view deleted with its loop ('$(views "$ATTR")')"
held_y() { reason_of "$Y" | grep -qF "recovery cannot help: holding"; }
fm_poll 30 held_y
hy=$?
ok=$([ "$st" = 0 ] && [ "$hy" = 0 ] && [ "$(fm_failcount web "$Y")" = 0 ]; echo $?)
held_ms=$(fm_since_ms "$t0")
pending=$(sc_fm "$Y" status web 2>&1 | grep -c "views pending")
fm_diag "$Y: '$(reason_of "$Y")'"
ok=$([ "$ok" = 0 ] && [ "$pending" = 0 ]; echo $?)
fm_result "$ok" "$Y, /app 500 with the dependency down and $X's view gone: held at once ($held_ms ms after the move), never 'the others' views pending'"
fm_timing "dependency down, no other view: move -> held on the new node" "$held_ms" "Thorough_probe_interval=$TPI"

sc_dep_start "$DEP_ADDR" "$DEP_PORT"
v=""
up() { v=$(views "$ATTR"); [ "$v" = "$Y=up" ]; }
fm_poll 20 up
fm_result $? "the dependency back: $Y's view up, no node left 'down' ('$v')"
fm_node_exec node1 crm_resource --clear -r web >/dev/null 2>&1

fm_timings_report
fm_done
