#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/smoke.sh: proves the cluster harness (tests/cluster/lib.sh)
# with Pacemaker's stock agents, and measures the ocf:heartbeat:apache
# baseline that faultmon is compared with (issue 5, scenario 10).
#
#  - a single-node cluster on loopback forms; ocf:heartbeat:Dummy created
#    with `pcs resource create` starts;
#  - a 3-node cluster forms; ocf:heartbeat:apache created with
#    `crm configure primitive` (monitor interval 10 s) starts and serves;
#  - httpd killed (SIGKILL, FM_SMOKE_KILLS times, each at a random moment of
#    the monitor period): Pacemaker restarts it on the same node; time from
#    the kill to the failure being recorded and to httpd serving again;
#  - the node running it crashes: it moves to another node (time);
#  - the crashed node boots again and rejoins (time); a clean stop of the
#    node running it moves it too (time);
#  - teardown leaves no namespace and no process behind.
# Prints a table of timings at the end and writes it to
# $FM_TOP_BUILDDIR/tests/cluster/smoke-timings.txt (FM_TOP_BUILDDIR: the current directory
# when unset).
#
# Needs root and the Debian packages listed in lib.sh; otherwise it reports
# "1..0 # SKIP".  Takes about a minute.

[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

fm_skip_unless_runnable pcs crm apache2
: "${FM_SMOKE_KILLS:=3}"
MON=10          # monitor interval of the apache resource, seconds

fm_plan $((15 + FM_SMOKE_KILLS))

# ---------------------------------------------------------- one node, pcs
fm_cluster_start 1 || fm_bail "single-node cluster did not form"
fm_result 0 "single-node cluster on loopback formed in ${FM_LAST_MS} ms"
fm_timing "1 node: start to online+DC+idle" "$FM_LAST_MS"

t0=$(fm_now_ms)
fm_node_exec node1 pcs resource create dummy ocf:heartbeat:Dummy op monitor interval=${MON}s >/dev/null
st=$?
on=$(fm_wait_resource dummy node1 30)
fm_result $(( st || $? )) "pcs resource create ocf:heartbeat:Dummy: started on ${on:-nowhere}"
fm_timing "1 node: pcs resource create Dummy to started" "$(fm_since_ms "$t0")"

no_failure() { [ "$(fm_failcount "$1" "$2")" = 0 ] && [ -z "$(fm_failures "$1")" ]; }
fm_ok "fail-count of the Dummy is 0 and no failed operation" no_failure dummy node1

fm_cluster_destroy
no_netns_left() { ! ip netns list | grep -q "^${FM_NS_PREFIX}"; }
fm_ok "single-node cluster torn down: no namespace of this run left" no_netns_left

# ---------------------------------------------------- three nodes, apache
fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_result 0 "3-node cluster in namespaces formed in ${FM_LAST_MS} ms ($(fm_nodes | tr '\n' ' '))"
fm_timing "3 nodes: start to online+DC+idle" "$FM_LAST_MS"

fm_apache_setup
t0=$(fm_now_ms)
fm_node_exec node1 crm configure primitive web ocf:heartbeat:apache \
    params configfile="$FM_APACHE_CONF" statusurl="$FM_APACHE_STATUSURL" \
    op monitor interval=${MON}s timeout=20s op start timeout=40s op stop timeout=60s \
    </dev/null >/dev/null 2>&1
st=$?
web=$(fm_wait_resource web any 30)
fm_result $(( st || $? )) "crm configure primitive ocf:heartbeat:apache: started on ${web:-nowhere}"
[ -n "$web" ] || fm_bail "apache did not start"
fm_wait_serving "$web" /health 10
fm_result $? "it serves: GET http://$(fm_node_addr "$web")/health from the hub is 200"
fm_timing "3 nodes: crm configure primitive apache to serving" "$(fm_since_ms "$t0")"
others=$(for n in $(fm_nodes); do [ "$n" = "$web" ] || echo "$n"; done)
none_serves() { local n; for n in "$@"; do [ "$(fm_http_remote "$n" /health)" = 000 ] || return 1; done; }
fm_ok "no other node serves ($(echo $others) refuse connections)" none_serves $others

# kill httpd, FM_SMOKE_KILLS times: restart in place
# shellcheck disable=SC2034
restored_all=() detect_all=()
for k in $(seq 1 "$FM_SMOKE_KILLS"); do
    fc0=$(fm_failcount web "$web")
    # a random moment of the monitor period: what a real fault gets
    phase=$((RANDOM % (MON * 10)))      # tenths of a second
    sleep "$((phase / 10)).$((phase % 10))"
    t0=$(fm_now_ms)
    fm_httpd_kill "$web"
    detected="" restored="" on=""
    kill_poll() {
        [ -n "$detected" ] || { [ "$(fm_failcount web "$web")" -gt "$fc0" ] && detected=$(fm_since_ms "$t0"); }
        [ -n "$detected" ] && [ "$(fm_http_remote "$web" /health)" = 200 ] && restored=$(fm_since_ms "$t0")
        [ -n "$restored" ]
    }
    fm_poll $((MON * 3)) kill_poll
    # the start result reaches the CIB a moment after httpd serves
    on=$(fm_wait_resource web "$web" 10)
    fm_result "$([ -n "$restored" ] && [ "$on" = "$web" ]; echo $?)" \
        "httpd killed ($k/$FM_SMOKE_KILLS): restarted on the same node ($on), fail-count $fc0 -> $(fm_failcount web "$web"), serving after ${restored:-(never)} ms, killed after a random wait of $((phase / 10)).$((phase % 10)) s"
    fm_timing "heartbeat:apache kill $k: to failure recorded (monitor ${MON}s)" "${detected:--}"
    fm_timing "heartbeat:apache kill $k: to serving again (monitor ${MON}s)" "${restored:--}"
    restored_all+=("${restored:-0}") detect_all+=("${detected:-0}")
done
if [ "$FM_SMOKE_KILLS" -gt 0 ]; then
    sum=0 max=0 min=999999
    for v in "${restored_all[@]}"; do sum=$((sum + v)); ((v > max)) && max=$v; ((v < min)) && min=$v; done
    fm_timing "heartbeat:apache kill to serving: min/avg/max" "$((sum / FM_SMOKE_KILLS))" \
        "min $min, max $max over $FM_SMOKE_KILLS kills"
fi

line=$(fm_failures web | tail -n1)
IFS=$'\t' read -r f_rsc f_node f_task f_interval f_rc _ <<<"$line"
fm_result "$([ "$f_node $f_task $f_interval $f_rc" = "$web monitor $((MON * 1000)) 7" ]; echo $?)" \
    "the failure is recorded: $f_rsc $f_task $f_interval ms on $f_node, rc $f_rc (want monitor on $web, rc 7)"
fm_diag "last failure: $(tr '\t' '|' <<<"$line")"

# ---------------------------------------------------------- node crash
crashed=$web
was_dc=no; [ "$(fm_dc)" = "$crashed" ] && was_dc=yes
t0=$(fm_now_ms)
fm_node_crash "$crashed"
gone="" web="" moved="" serving=""
crash_poll() {
    [ -n "$gone" ] || { [ "$(fm_node_state "$crashed")" = offline ] && gone=$(fm_since_ms "$t0"); }
    [ -n "$web" ] || { web=$(fm_resource_nodes web | grep -vx "$crashed" | head -n1); [ -n "$web" ] && moved=$(fm_since_ms "$t0"); }
    [ -n "$web" ] && [ "$(fm_http_remote "$web" /health)" = 200 ] && serving=$(fm_since_ms "$t0")
    [ -n "$gone" ] && [ -n "$serving" ]
}
fm_poll 30 crash_poll
fm_result "$([ -n "$serving" ]; echo $?)" \
    "node $crashed (DC: $was_dc) crashed: web moved to ${web:-nowhere}, serving after ${serving:-(never)} ms"
fm_timing "node crash: to node seen offline (token ${FM_TOKEN} ms)" "${gone:--}" "crashed node was DC: $was_dc"
fm_timing "node crash: to started elsewhere" "${moved:--}"
fm_timing "node crash: to serving elsewhere" "${serving:--}"
fm_result "$([ -n "$gone" ]; echo $?)" "the crashed node is offline for the others"

t0=$(fm_now_ms)
fm_node_start "$crashed" && fm_wait_cluster_ready 60
fm_result $? "crashed node $crashed booted again and rejoined in $(fm_since_ms "$t0") ms"
fm_timing "node restart: boot to rejoined (online, DC idle)" "$(fm_since_ms "$t0")"
runs_on() { [ "$(fm_resource_nodes "$1")" = "$2" ]; }
fm_ok "web stayed on $web" runs_on web "$web"

# --------------------------------------------------------- clean stop
stopped=$web
t0=$(fm_now_ms)
moved_to=""
fm_node_stop "$stopped" &
stopper=$!
moved_to=$(fm_wait_resource web "!$stopped" 60)
fm_wait_serving "${moved_to:-none}" /health 10
st=$?
serving=$(fm_since_ms "$t0")
wait "$stopper"
stop_st=$?
fm_result $(( st || stop_st || ${#moved_to} == 0 )) \
    "clean stop of $stopped: web moved to ${moved_to:-nowhere} (serving after $serving ms), node stopped in $(fm_since_ms "$t0") ms"
fm_timing "node clean stop: to serving elsewhere" "$serving"
fm_timing "node clean stop: to node down" "$(fm_since_ms "$t0")"

# ----------------------------------------------------------- teardown
pids=$(for n in $(fm_nodes); do fm_node_pid "$n"; done)
t0=$(fm_now_ms)
fm_cluster_destroy
fm_timing "teardown of the 3-node cluster" "$(fm_since_ms "$t0")"
nothing_left() {
    local p
    ! ip netns list | grep -q "^${FM_NS_PREFIX}" || return 1
    for p in $pids; do ! fm__alive "$p" || return 1; done
    ! pgrep -f "$FM_RUN" >/dev/null
}
fm_ok "teardown: no namespace and no node process left" nothing_left

fm_timings_report      # to $FM_TOP_BUILDDIR (or .)/tests/cluster/smoke-timings.txt
fm_done
