#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/guard-3node.sh: ocf:faultmon:guard on a real 3-node
# Pacemaker cluster (issue 13), guarding ocf:heartbeat:nginx from Debian's
# resource-agents.  The guard is put in a group after the resource, as its
# documentation says (`pcs resource create ... --group`); the crm shell's
# way, an order and a colocation, places a second guard.
#
#  validate: a guard whose resource is not in the CIB fails validate-all
#     with OCF_ERR_CONFIGURED (6) and says so.
#  500: /app answers 500 until nginx restarts: the guard asks, Pacemaker
#     restarts nginx in place (new pid, same node); faultmon counts the
#     restart (restarts_in_window 1); the guard itself never fails.
#  failover: /app answers 500 in every nginx of that node: with
#     Retry_count=1 the second restart exceeds it: nginx moves to another
#     node; its fail-count on the old node is INFINITY, and the old node's
#     faultmon state and the Pacemaker log name the rule (Retry_count).
#  heartbeat alone: before the guard exists, /app answering 500 for 15 s is
#     not seen by ocf:heartbeat:nginx's monitor (depth 0, every 10 s).
#  cleanup: `pcs resource cleanup web` clears that fail-count.
#  reload: `pcs resource update web-guard Retry_count=3` restarts only the
#     guard's loop (Pacemaker's reload of the guard, not a restart): nginx
#     keeps its pid, the new loop's next decision uses the new value.
#  disable/enable web: Pacemaker stops the guard first; the guard adds no
#     failure and no restart.
#  stop/delete: the guard disabled, then deleted, leaves nginx running with
#     the same pid, and leaves the constraints and node attributes as they
#     were before the guard existed.
#  crash: the node running the group crashes: both move to a live node.
#
# Needs root, the packages of lib.sh, nginx, and the agents installed (make
# install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=480}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs crm nginx
sc_skip_unless_agents
if [ ! -x "$FM_OCF_DIR/faultmon/guard" ] || [ ! -x "$FM_OCF_DIR/heartbeat/nginx" ]; then
    echo "1..0 # SKIP ocf:faultmon:guard or ocf:heartbeat:nginx is not installed"
    exit 0
fi

TPI=2                   # the guard's Thorough_probe_interval, seconds
GUARD_PARAMS="Monitor_Uri_List=http://127.0.0.1/app Thorough_probe_interval=$TPI Probe_timeout=1 Retry_count=1 Retry_interval=120"

fm_plan 21

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_result 0 "3-node cluster formed in ${FM_LAST_MS} ms; agents: $(readlink -f "$FM_OCF_DIR/faultmon/guard")"
sc_nginx_setup

pcs1() { fm_node_exec node1 pcs "$@" </dev/null >/dev/null 2>&1; }
# what a guard must leave as it found it: constraints, and faultmon's node
# attributes (every node's)
constraints() { fm_node_exec node1 cibadmin --query --scope constraints 2>/dev/null | tr -d '\n'; }
guard_attrs() {
    fm_node_exec node1 cibadmin --query --scope status 2>/dev/null |
        grep -o 'name="faultmon-[^"]*" value="[^"][^"]*"' | sort -u | tr '\n' ' '
}
log_of() { echo "$(fm_node_dir "$1")/root/var/log/pacemaker/pacemaker.log"; }
group_on() { fm_wait_resource web "$1" "${2:-30}" >/dev/null && fm_wait_resource web-guard "$1" "${2:-30}" >/dev/null; }
guard_failed() { fm_failures web-guard | awk -F'\t' '$5 != 190 && $5 != 0' | grep -q .; }

# -------------------------------------------------------------- set-up
pcs1 resource create web ocf:heartbeat:nginx configfile="$SC_NGINX_CONF" op monitor interval=10s --group wg
st=$?
X=$(fm_wait_resource web any 30)
fm_wait_serving "${X:-none}" /app 10
st=$((st || $?))
C0=$(constraints) A0=$(guard_attrs)
fm_result "$st" "pcs resource create web ocf:heartbeat:nginx --group wg: running on ${X:-nowhere}, serving /app"
[ -n "$X" ] || fm_bail "web did not start"

# ------------------------- ocf:heartbeat:nginx alone: a 500 goes unseen
# Its monitor (depth 0, every 10 s) checks nginx's process, not its answers.
SC_FC0=$(fm_failcount web "$X")
t0=$(sc_nginx_break "$X" keep)
sleep 15
code=$(fm_http "$X" /app) fc=$(fm_failcount web "$X")
sc_nginx_mend "$X"
fm_node_exec "$X" sh -c "kill -HUP \$(cat $SC_NGINX_PIDFILE)" 2>/dev/null
fm_wait_serving "$X" /app 10
ok=$([ "$code" = 500 ] && [ "$fc" = "$SC_FC0" ] && ! sc_has_failure web; echo $?)
fm_result "$ok" "heartbeat:nginx alone (monitor 10 s): /app answers $code for 15 s, Pacemaker sees nothing (fail-count $fc)"
fm_timing "heartbeat:nginx alone: /app 500 -> detected" "never" "15 s watched, monitor interval=10s"

# ------------------- ocf:heartbeat:nginx alone: killed, found at its monitor
# The row beside ocf:faultmon:nginx's (tests/cluster/nginx-3node.sh).
for k in 1 2; do
    p=$((RANDOM % 100)); sleep "$((p / 10)).$((p % 10))"
    pid0=$(sc_nginx_pid "$X") SC_FC0=$(fm_failcount web "$X")
    t0=$(fm_now_ms)
    fm_node_exec "$X" pkill -KILL -x nginx
    sc_measure web "$X" "$t0" 40 /app
    fm_result "$([ -n "$SC_RESTORED" ]; echo $?)" "heartbeat:nginx alone (monitor 10 s): kill $k of every nginx process: serving again on ${SC_ON:-?} after ${SC_RESTORED:-never} ms"
    fm_timing "heartbeat:nginx alone: kill -9 -> serving again #$k" "${SC_RESTORED:-0}" "monitor interval=10s"
    X=${SC_ON:-$X}
done

# ------------------------------------------------------------ validate
out=$(fm_node_exec "$X" env OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE=g0 OCF_RESKEY_resource=no-such-rsc \
    OCF_RESKEY_Port_list=80 "$FM_OCF_DIR/faultmon/guard" validate-all 2>&1)
rc=$?
[ "$rc" = 6 ] && [[ $out == *"resource 'no-such-rsc' is not in the CIB"* ]]
fm_result $? "validate-all: resource=no-such-rsc answers 6 (OCF_ERR_CONFIGURED): rc $rc, '${out##*reason:}'"

# shellcheck disable=SC2086   # GUARD_PARAMS is words
pcs1 resource create web-guard ocf:faultmon:guard resource=web $GUARD_PARAMS op monitor interval=10s --group wg
st=$?
group_on "$X"
st=$((st || $?))
warned=$(grep -c "web-guard is not in a group after web" "$(log_of "$X")")
fm_result $((st || warned)) "pcs resource create web-guard ocf:faultmon:guard resource=web --group wg: runs on $X beside web, no placement warning"

# ------------------------------------------- 500: restarted in place
pid0=$(sc_nginx_pid "$X") SC_FC0=$(fm_failcount web "$X")
t0=$(sc_nginx_break "$X")
sc_measure web "$X" "$t0" 40 /app
pid1=$(sc_nginx_pid "$X")
rs=$(sc_fm_field "$X" web-guard restarts_in_window)
ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = "$X" ] && [ "$pid1" != "$pid0" ] && [ "$pid1" != 0 ] && [ "$rs" = 1 ]; echo $?)
fm_result "$ok" "500: the guard restarts web in place on ${SC_ON:-?} (nginx pid $pid0 -> $pid1), restarts_in_window $rs, serving after ${SC_RESTORED:-never} ms"
fm_timing "guard: /app 500 -> detected (web's fail-count)" "${SC_DETECT:-0}" "Thorough_probe_interval=$TPI"
fm_timing "guard: /app 500 -> serving again (restart in place)" "${SC_RESTORED:-0}"
group_on "$X" 20
! guard_failed
fm_result $? "500: the guard itself has no failed operation (only 0 or 190): $(fm_failures web-guard | cut -f5 | tr '\n' ' ')"

# ---------------------------------------------- failover: Retry_count
SC_FC0=$(fm_failcount web "$X")
t0=$(sc_nginx_break "$X" keep)
Y=$(fm_wait_resource web "!$X" 60)
fm_wait_serving "${Y:-none}" /app 20
st=$?
moved_ms=$(fm_since_ms "$t0")
fc=$(fm_failcount web "$X")
reason=$(sc_status "$X" web-guard | sc_jget reason)
ok=$([ "$st" = 0 ] && [ -n "$Y" ] && [ "$fc" = INFINITY ] && [[ $reason == *"exceed Retry_count 1"* ]]; echo $?)
fm_result "$ok" "failover: web moves $X -> ${Y:-nowhere} after ${moved_ms} ms; fail-count on $X ${fc}; faultmon on $X: '$reason'"
fm_timing "guard: /app 500 on every start -> serving on another node" "$moved_ms" "Retry_count=1"
grep -q "web-guard: state .*failover asked.*Retry_count" "$(log_of "$X")"
fm_result $? "failover: $X's pacemaker.log has the decision: $(grep -o 'web-guard: state .*failover asked.*' "$(log_of "$X")" | tail -n1 | cut -c1-160)"
group_on "$Y" 30
fm_result $? "failover: web-guard follows web to $Y"

# ------------------------------------------------------------- cleanup
sc_nginx_mend "$X"
pcs1 resource cleanup web
fm_wait_idle 60
fc=$(fm_failcount web "$X")
fm_result "$([ "$fc" != INFINITY ]; echo $?)" "cleanup: pcs resource cleanup web clears the ban on $X (fail-count now $fc)"

# -------------------------------------------------------------- reload
Z=$(fm_wait_resource web any 30)
group_on "$Z" 30
pid0=$(sc_nginx_pid "$Z")
lp0=$(fm_node_exec "$Z" cat /run/faultmon/web-guard/pid 2>/dev/null)
pcs1 resource update web-guard Retry_count=3
st=$?
fm_wait_idle 60
pid1=$(sc_nginx_pid "$Z")
took=$(fm_node_exec "$Z" sh -c 'p=$(cat /run/faultmon/web-guard/pid 2>/dev/null) && tr "\0" "\n" <"/proc/$p/environ" | grep -cx OCF_RESKEY_Retry_count=3')
lp1=$(fm_node_exec "$Z" cat /run/faultmon/web-guard/pid 2>/dev/null)
reloaded=$(grep -ciE "reload operation for web-guard on $Z: ok|web-guard_reload_0.*ok" "$(log_of "$Z")")
stopped=$(grep -cE "stop operation for web-guard on $Z" "$(log_of "$Z")")
ok=$([ "$st" = 0 ] && [ "$pid0" = "$pid1" ] && [ "$pid1" != 0 ] && [ "$took" = 1 ] && [ "$lp1" != "$lp0" ] \
    && [ "$reloaded" -ge 1 ] && ! sc_has_failure web-guard reload; echo $?)
fm_result "$ok" "reload: pcs resource update web-guard Retry_count=3: Pacemaker reloads the guard ($reloaded reload, $stopped stop(s) on $Z in all), nginx keeps pid $pid0 (now $pid1), a new loop (pid ${lp0:-?} -> ${lp1:-?}) runs with Retry_count=3"
next=$(sc_status "$Z" web-guard | sc_jget next_failure)
[[ $next == *"Retry_count 3"* ]]
fm_result $? "reload: the next decision uses the new value: '$next'"

# ------------------------------- Pacemaker stops web: the guard adds nothing
rs0=$(sc_fm_field "$Z" web-guard restarts_in_window) SC_FC0=$(fm_failcount web "$Z")
pcs1 resource disable web
fm_wait_resource web none 30 >/dev/null
pcs1 resource enable web
group_on "$Z" 30 || Z=$(fm_wait_resource web any 30)
sleep $((TPI * 2))
rs1=$(sc_fm_field "$Z" web-guard restarts_in_window) fc=$(fm_failcount web "$Z")
ok=$([ "$fc" = "$SC_FC0" ] && [ "${rs1:-x}" = "${rs0:-0}" ] && ! guard_failed; echo $?)
fm_result "$ok" "pcs resource disable/enable web: the guard stops first and adds no failure (restarts_in_window ${rs0:-?} -> ${rs1:-?}, fail-count $SC_FC0 -> $fc)"

# ------------------------------------------------------ crash: both move
Z=$(fm_wait_resource web any 30)
fm_node_crash "$Z"
W=$(fm_wait_resource web "!$Z" 90)
group_on "${W:-none}" 60 && fm_wait_serving "${W:-none}" /app 20
fm_result $? "crash: $Z crashes; web and web-guard run on ${W:-nowhere} and serve"
fm_node_start "$Z" && fm_wait_cluster_ready 90
fm_result $? "crash: $Z rejoins"

# ---------------------------------------------------------- stop, delete
W=$(fm_wait_resource web any 30)
pid0=$(sc_nginx_pid "$W")
pcs1 resource disable web-guard
fm_wait_resource web-guard none 30 >/dev/null
fm_wait_idle 60
# the stop's deletes (the stay constraint, the reason) run detached: a moment
as_before() { C1=$(constraints) A1=$(guard_attrs); [ "$C1" = "$C0" ] && [ "$A1" = "$A0" ]; }
fm_poll 5 as_before
pid1=$(sc_nginx_pid "$W") C1=$(constraints) A1=$(guard_attrs)
ok=$([ "$pid0" = "$pid1" ] && [ "$pid1" != 0 ] && [ "$C1" = "$C0" ] && [ "$A1" = "$A0" ]; echo $?)
fm_result "$ok" "stop: web-guard disabled: nginx keeps pid $pid0 ($pid1), constraints as before the guard, faultmon attributes '${A1}' (before: '${A0}')"
pcs1 resource delete web-guard
fm_wait_idle 60
fm_poll 5 as_before
pid1=$(sc_nginx_pid "$W") C1=$(constraints) A1=$(guard_attrs)
ok=$([ "$pid0" = "$pid1" ] && [ "$C1" = "$C0" ] && [ "$A1" = "$A0" ] && fm_wait_resource web "$W" 5 >/dev/null; echo $?)
fm_result "$ok" "delete: web-guard deleted: web still on $W with pid $pid1, constraints and attributes as before"

# --------------------------------- crm: an order and a colocation instead
crm1() { fm_node_exec node1 crm configure "$@" </dev/null >/dev/null 2>&1; }
crm1 primitive web2-guard ocf:faultmon:guard params resource=web \
    Monitor_Uri_List=http://127.0.0.1/health Thorough_probe_interval=$TPI op monitor interval=10s \
    meta target-role=Stopped
st=$?
crm1 colocation web2-guard-with-web inf: web2-guard web && crm1 order web-then-web2-guard Mandatory: web web2-guard
st=$((st || $?))
fm_node_exec node1 crm resource start web2-guard </dev/null >/dev/null 2>&1
V=$(fm_wait_resource web any 30)
fm_wait_resource web2-guard "${V:-none}" 30 >/dev/null && ! grep -q "web2-guard is not in a group after web" "$(log_of "$V")"
fm_result $((st || $?)) "crm: a colocation and an order (crm configure colocation/order): web2-guard runs beside web on ${V:-nowhere}, no placement warning"

fm_timings_report
fm_done
