#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/remote-faults.sh: the judgements across the cluster (issue
# 15) with the service on Pacemaker Remote nodes: 3 cluster nodes and 2
# remote nodes (lib.sh's fm_remote_start), web (ocf:faultmon:apache, with a
# Dependency_list) placed on the remote nodes only, a cloned
# ocf:faultmon:httpmon publishing every node's view of the dependency (a
# TCP service on the hub's network, SUBNET.253), Retry_count=2.  On a remote
# node the loop's immediate fail request is refused (tests/cluster/
# remote-nodes.sh), so what the loop decides reaches Pacemaker through the
# agent's monitor (every 10 s here).
#
#  everywhere: the dependency stops, then /app breaks: no restart, no move,
#     web degraded "down from all N nodes" (the remote nodes' views count);
#     once it is back, the rules: a restart in place.
#  here only: the dependency unreachable from the remote node running web
#     only (a blackhole route there), then /app breaks: web fails over with
#     a restart left, to the other remote node, whose view is up.
#  budget: three groups of an ocf:pacemaker:Dummy and its ocf:faultmon:guard
#     (node_budget=2) on one remote node, node-health-strategy=
#     migrate-on-red; all three fail at once: not three restarts, the remote
#     node marked #health-faultmon=red, every group moved off it once.
#
#  pressure: the remote node running web under CPU pressure (stress-ng in
#     its cgroup v2), and the service slowed (every reply at 1 kbit/s): the
#     recovery held for observer_hold (20 s), nothing restarted meanwhile,
#     then a restart decided by the rules and made at the next monitor.
#
# Needs root, the packages of lib.sh, pacemaker-remoted (tests/install-
# deps.sh), and the agents installed (make install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317,SC2034   # called through fm_poll; SC_FC0 is sc_measure's
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=480}"
# every node in a cgroup v2 of its own, for the pressure scenario, where
# the machine has one with pressure files (PSI)
FM_RF_CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$FM_RF_CG" ] && [ -r "$FM_RF_CG/cpu.pressure" ]; then
    # shellcheck disable=SC2034  # read by lib.sh
    FM_NODE_CGROUPS=1
else
    FM_RF_CG=""
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs apache2 python3
fm_skip_unless_remote
sc_skip_unless_agents
if [ ! -x "$FM_OCF_DIR/faultmon/guard" ] || [ ! -x "$FM_OCF_DIR/pacemaker/Dummy" ]; then
    echo "1..0 # SKIP ocf:faultmon:guard or ocf:pacemaker:Dummy is not installed"
    exit 0
fi

TPI=2                   # Thorough_probe_interval, seconds
MON=10                  # monitor interval, seconds
DEP_ADDR=$FM_SUBNET.253
DEP_PORT=5432
DEP=tcp://$DEP_ADDR:$DEP_PORT
ATTR=faultmon-dep-tcp-$(echo "$DEP_ADDR" | tr . -)-$DEP_PORT

fm_plan 16

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_remote_start 2 || fm_bail "the remote nodes did not come online"
fm_result 0 "3 cluster nodes and 2 remote nodes ($(fm_remote_nodes | paste -sd' ' -)) online"
# shellcheck disable=SC2046   # one node per word
fm_apache_setup $(fm_remote_nodes)
# shellcheck disable=SC2046
sc_apache_extras $(fm_remote_nodes)

pcs1() { fm_node_exec node1 pcs "$@" </dev/null >/dev/null 2>&1; }
is_remote() { fm_remote_nodes | grep -qx "$1"; }
# NAME's value for every node in the CIB's status section: "node=value ..."
attr_views() {
    fm_node_exec node1 cibadmin --query --scope status 2>/dev/null | python3 -c '
import sys, xml.etree.ElementTree as ET
out = []
for ns in ET.fromstring(sys.stdin.read()).iter("node_state"):
    for nv in ns.iter("nvpair"):
        if nv.get("name") == sys.argv[1]:
            out.append("%s=%s" % (ns.get("uname"), nv.get("value")))
print(" ".join(sorted(out)))' "$1"
}
views() { attr_views "$ATTR"; }
# every node's view is WANT (up or down), but NODE's, which is ODD
views_all() {
    local want=$1 node=${2:-} odd=${3:-} n s=""
    for n in $(fm_nodes) $(fm_remote_nodes); do
        if [ "$n" = "$node" ]; then s="$s $n=$odd"; else s="$s $n=$want"; fi
    done
    # sorted as views() sorts
    echo "${s# }" | tr ' ' '\n' | sort | paste -sd' ' -
}
views_are() { local w; w=$(views_all "$@"); vw() { [ "$(views)" = "$w" ]; }; fm_poll 30 vw; }
# the latest failed operation of web on NODE: "task rc"
last_failure() { fm_failures web | awk -F'\t' -v n="$1" '$2 == n {print $3, $5}' | tail -n1; }

sc_dep_start "$DEP_ADDR" "$DEP_PORT"

# ------------------------------------------------------------- set up
pcs1 resource create deps ocf:faultmon:httpmon Dependency_list="$DEP" name=faultmon-deps \
    Thorough_probe_interval=$TPI Probe_timeout=1 op monitor interval=${MON}s clone
st=$?
pcs1 resource create web ocf:faultmon:apache configfile="$FM_APACHE_CONF" \
    Monitor_Uri_List="http://127.0.0.1/app" Dependency_list="$DEP" \
    Thorough_probe_interval=$TPI Probe_timeout=1 Retry_count=2 Retry_interval=300 \
    op monitor interval=${MON}s --disabled
st=$((st || $?))
sc_remote_only web remote1
st=$((st || $?))
pcs1 resource enable web
X=$(fm_wait_resource web remote1 40)
fm_wait_serving "${X:-none}" /app 10
st=$((st || $?))
views_are up
st=$((st || $?))
fm_result "$st" "web on remote nodes only, running on ${X:-nowhere}; the cloned httpmon's view of $DEP from every node: $(views)"
[ -n "$X" ] || fm_bail "web did not start on remote1"
OTHER=remote2

# --------------------------------------- down everywhere: hold, no move
SC_FC0=$(fm_failcount web "$X")
pid0=$(sc_httpd_pid "$X")
sc_dep_stop
views_are down
fm_result $? "the dependency stops: every node's view goes down, the remote nodes' too: $(views)"
sc_break_app "$X" >/dev/null
n_all=$(( $(fm_nodes | wc -l) + $(fm_remote_nodes | wc -l) ))
has_all() { sc_status "$X" web | sc_jget reason | grep -q "down from all $n_all nodes"; }
fm_poll 20 has_all
st=$?
sleep $((MON + TPI))     # a monitor of web runs in this time
fc=$(fm_failcount web "$X") on=$(fm_resource_nodes web | tr '\n' ' ')
reason=$(sc_status "$X" web | sc_jget reason)
ok=$([ "$st" = 0 ] && [ "$fc" = "$SC_FC0" ] && [ "$on" = "$X " ] && [ "$(sc_httpd_pid "$X")" = "$pid0" ] \
     && [ "$(sc_fm_field "$X" web restarts_in_window)" = 0 ]; echo $?)
fm_result "$ok" "down from all nodes, /app 500 on remote node $X: web stays there, httpd not restarted, fail-count $SC_FC0 -> $fc, a monitor later: '$reason'"
sc_row "dependency down from all nodes, /app 500 on remote node $X" "no restart, no move" "on ${on% }, fail-count $fc" "-" "-" "$ok"

# The fail-count and the clock before the dependency comes back: the loop
# may decide, and the next monitor report, the restart while the views are
# still being polled, which a fail-count read after would already include.
SC_FC0=$(fm_failcount web "$X")
t0=$(fm_now_ms)
sc_dep_start "$DEP_ADDR" "$DEP_PORT"
views_are up
sc_measure web "$X" "$t0" $((MON * 4)) /app
rs=$(sc_fm_field "$X" web restarts_in_window)
ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = "$X" ] && [ "$rs" = 1 ]; echo $?)
fm_result "$ok" "the dependency back, /app still 500: the rules: restarted in place on ${SC_ON:-?} (restart $rs, by the monitor: $(last_failure "$X")), serving after ${SC_RESTORED:-never} ms"
fm_timing "remote node: dependency back, /app 500 -> restarted in place" "${SC_RESTORED:-0}" "monitor ${MON}s"
sc_row "the dependency back, /app still 500 on $X" "restart in place" "restart $rs on ${SC_ON:-?}" "$SC_DETECT" "$SC_RESTORED" "$ok"

# ----------------------------------- down from this node only: failover
fm_node_exec "$X" ip route add blackhole "$DEP_ADDR/32"
views_are up "$X" down
fm_result $? "the dependency unreachable from remote node $X only: $(views)"
t0=$(sc_break_app "$X")
Y=$(fm_wait_resource web "!$X" $((MON * 4)))
fm_wait_serving "${Y:-none}" /app 20
st=$?
moved_ms=$(fm_since_ms "$t0")
reason=$(sc_status "$X" web | sc_jget reason)
ok=$([ "$st" = 0 ] && [ "$Y" = "$OTHER" ] && [[ $reason == *"failing over at once (dependency $DEP down from this node only"* ]] \
     && [ "$moved_ms" -le $(( (MON + 15) * 1000 )) ]; echo $?)
fm_result "$ok" "down from $X only, /app 500, a restart left: web fails over at once to ${Y:-nowhere} (by the monitor: $(last_failure "$X")) in ${moved_ms} ms (at most $(( (MON + 15) * 1000 ))): '$reason'"
fm_timing "remote node: dependency down from the node only, /app 500 -> serving on the other remote node" "$moved_ms" "monitor ${MON}s"
sc_row "dependency down from remote node $X only, /app 500" "failover to the other remote node" "moved $X -> ${Y:-?}" "-" "$moved_ms" "$ok"
t_web=$(fm_now_ms)     # web's recovery on $X: in its budget for node_budget_window
fm_node_exec "$X" ip route del blackhole "$DEP_ADDR/32"
views_are up
fm_result $? "the route back: every node's view up again: $(views)"

# ------------------------------------------- the node budget on a remote node
B=$X        # web has left it
WIN=20      # node_budget_window, s
health() { attr_views '#health-faultmon' | tr ' ' '\n' | sed -n "s/^$1=//p"; }
pcs1 property set node-health-strategy=migrate-on-red
st=$?
sc_budget_groups "$B" "$TPI" "$WIN" "$MON" || st=1
onb() { local k; for k in 1 2 3; do [ "$(fm_resource_nodes "d$k-guard")" = "$B" ] || return 1; done; }
fm_poll 60 onb
fm_result $((st || $?)) "node-health-strategy=migrate-on-red; three groups of an ocf:pacemaker:Dummy and its guard (node_budget=2) run on remote node $B"

# web's recovery on $B out of the window first: the three alone count
w=$(( (WIN + 1) * 1000 - $(fm_since_ms "$t_web") ))
[ "$w" -le 0 ] || sleep "$((w / 1000)).$(printf '%03d' $((w % 1000)))"
t0=$(fm_now_ms)
: >"$(fm_node_dir "$B")/root/srv/fail-all"
red() { [ "$(health "$B")" = red ]; }
fm_poll $((MON * 3)) red
fm_result $? "all three fail at once on $B: the remote node is marked #health-faultmon=$(health "$B") after $(fm_since_ms "$t0") ms"
offb() {
    local k n
    for k in 1 2 3; do
        n=$(fm_resource_nodes "d$k")
        [ -n "$n" ] && [ "$n" != "$B" ] || return 1
    done
}
fm_poll $((MON * 6)) offb
st=$?
moved_ms=$(fm_since_ms "$t0")
where=$(for k in 1 2 3; do printf 'g%s:%s ' "$k" "$(fm_resource_nodes "d$k")"; done)
fm_result "$st" "Pacemaker moves every group off remote node $B once (${where% }) after $moved_ms ms"
fm_timing "remote node: node budget, 3 resources fail -> all run elsewhere" "$moved_ms" "node_budget=2, monitor ${MON}s"
log=$(fm_node_dir "$B")/root/var/log/pacemaker/pacemaker.log
restarts=$(grep -cE "faultmon.*: d[123]-guard: state [a-z-]+ -> [a-z-]+, restart asked" "$log")
held=$(grep -cE "faultmon.*: d[123]-guard: .*other resource.* of this node asked for recovery within $WIN s, node_budget 2" "$log")
# node_budget - 1 = 1 restart before the mark (2 if two decided in the same
# instant), then held: fewer than the three a restart each would be.
ok=$([ "$st" = 0 ] && [ "$restarts" -ge 1 ] && [ "$restarts" -lt 3 ] && [ "$held" -ge 1 ]; echo $?)
fm_result "$ok" "not N restarts: $restarts restart(s) asked on $B (at least 1, fewer than the 3 resources), $held recovery held by the budget"
sc_row "3 resources fail at once on remote node $B (node_budget=2)" "the node drained once" "${where% }; $restarts restart(s) asked" "-" "$moved_ms" "$ok"
rm -f "$(fm_node_dir "$B")/root/srv/fail-all"

# ---------------------------------------- pressure on a remote node
Y=$(fm_resource_nodes web | head -n1)
HOLD=20 LIMIT=40
CG=""
[ -n "$FM_RF_CG" ] && CG=$(fm_node_cgroup "${Y:-none}")
if [ -n "$CG" ] && is_remote "$Y" && command -v stress-ng >/dev/null && command -v tc >/dev/null; then
    LOG=$(fm_node_dir "$Y")/root/var/log/pacemaker/pacemaker.log
    pid_r=$(fm_node_exec "$Y" pgrep -f "faultmon run web\$" | head -n1)
    pcs1 resource update web observer_pressure=$LIMIT observer_hold=${HOLD}s
    st=$?
    # reloaded: a new loop with the new values, httpd as it was
    reloaded() { local p; p=$(fm_node_exec "$Y" pgrep -f "faultmon run web\$" | head -n1); [ -n "$p" ] && [ "$p" != "$pid_r" ]; }
    fm_poll 30 reloaded
    st=$((st || $?))
    fm_wait_serving "$Y" /app 10
    st=$((st || $?))
    psi10() { sed -n 's/^some avg10=\([0-9]*\).*/\1/p' "$1/cpu.pressure" 2>/dev/null; }
    pressed() { local v; v=$(psi10 "$CG"); [ "${v:-0}" -ge $((LIMIT + 10)) ]; }
    fm_node_exec_cg "$Y" nice -n 19 stress-ng --cpu "$(( 2 * $(nproc) ))" --timeout 120s --quiet >/dev/null 2>&1 &
    fm_poll 40 pressed
    st=$((st || $?))
    fm_result "$st" "pcs resource update web observer_pressure=$LIMIT observer_hold=${HOLD}s (reloaded), stress-ng in remote node $Y's cgroup: its cpu.pressure some avg10 $(psi10 "$CG") %"
    httpd0=$(sc_httpd_pid "$Y") fc0=$(fm_failcount web "$Y")
    t0=$(fm_now_ms)
    sc_slow_on "$Y" 1kbit
    held() { sc_fm_field "$Y" web reason | grep -q "this node is impaired (cpu pressure [0-9.]*% over 10 s, observer_pressure $LIMIT%): recovery held"; }
    fm_poll 30 held
    st=$?
    d_held=$(fm_since_ms "$t0") t_held=$(fm_now_ms)
    fm_result "$st" "slow service on remote node $Y under pressure: the recovery is held after $d_held ms: '$(sc_fm_field "$Y" web reason)'"
    fm_timing "remote node: slow service under CPU pressure -> recovery held" "$d_held" "observer_pressure=$LIMIT"
    sleep $((HOLD / 2))
    ok=$([ "$(sc_httpd_pid "$Y")" = "$httpd0" ] && [ "$(fm_failcount web "$Y")" = "$fc0" ] \
         && [ "$(sc_fm_field "$Y" web state)" = degraded ] \
         && grep -qE "faultmon.*: web: this node may be impaired: cpu pressure" "$LOG"; echo $?)
    fm_result "$ok" "$((HOLD / 2)) s into the hold: httpd not restarted (pid $(sc_httpd_pid "$Y")), fail-count $(fm_failcount web "$Y"), state $(sc_fm_field "$Y" web state), the evidence in $Y's pacemaker.log"
    asked() { grep -qE "faultmon.*: web: state [a-z-]+ -> [a-z-]+, restart asked" "$LOG"; }
    fm_poll $((HOLD + 20)) asked
    st=$?
    d_act=$(fm_since_ms "$t_held")
    fm_node_exec "$Y" pkill -x stress-ng >/dev/null 2>&1
    # The service stays slow until it is restarted: on a remote node the
    # decision waits for the next monitor, and a service that answers again
    # before it is up again for the loop too (nothing to restart then).
    restarted() { local p; p=$(sc_httpd_pid "$Y"); [ "$p" != "$httpd0" ] && [ "$p" != 0 ]; }
    fm_poll $((MON + 10)) restarted
    st=$((st || $?))
    d_done=$(fm_since_ms "$t_held")
    sc_slow_off "$Y"
    lo=$((HOLD * 1000 - 2 * TPI * 1000)) hi=$((HOLD * 1000 + 4 * TPI * 1000))
    ok=$([ "$st" = 0 ] && [ "$d_act" -ge "$lo" ] && [ "$d_act" -le "$hi" ]; echo $?)
    fm_result "$ok" "after observer_hold the rules: restart decided $d_act ms after the first held recovery (expected $lo-$hi), httpd restarted by the next monitor ($(last_failure "$Y")) $d_done ms after it (pid $httpd0 -> $(sc_httpd_pid "$Y"))"
    fm_timing "remote node: first held recovery -> restart decided (observer_hold ${HOLD}s)" "$d_act"
    sc_row "slow service on remote node $Y under CPU pressure" "held ${HOLD}s, then restart" "held after $d_held ms, restart decided after $d_act" "$d_held" "$d_done" "$ok"
else
    why="no cgroup v2 with PSI, stress-ng or tc, or web not on a remote node (${Y:-nowhere})"
    fm_skip "pressure on a remote node: stress-ng in its cgroup" "$why"
    fm_skip "pressure on a remote node: the recovery held" "$why"
    fm_skip "pressure on a remote node: nothing restarted meanwhile" "$why"
    fm_skip "pressure on a remote node: the rules after observer_hold" "$why"
fi

sc_report
fm_timings_report
fm_done
