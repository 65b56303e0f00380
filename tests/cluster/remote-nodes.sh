#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/remote-nodes.sh: ocf:faultmon:apache on Pacemaker Remote
# nodes (issue 15, scale): 3 cluster nodes and 4 pacemaker_remote nodes,
# each in namespaces of its own (lib.sh's fm_remote_start), web placed on the
# remote nodes only (a location rule on #kind), Retry_count=3.
#
#  kill: httpd killed twice on the remote node: restarted in place by the
#     agent's next monitor (a failed monitor, rc 1).  The loop's immediate
#     fail request goes through pacemaker-remoted to the controller of the
#     connection host, which refuses it (a remote node's requests run as an
#     unprivileged user): the loop logs the refusal and leaves the failure
#     to the monitor, which does not answer "under way".
#  500: /app answers 500: restart in place (the third), again by the
#     monitor; once more, the restarts spent: failover to another remote
#     node, the failure on the first with rc 4 and the reason.
#  attributes: the loop's faultmon-web-state of the remote node is in the
#     CIB, and `faultmon status --cluster` shows it, asked on a cluster node
#     and on a remote node.
#  monitor 60s: with the meta-data's default monitor (60 s) a kill on a
#     remote node is recovered by the monitor within 60 s (plus 10), and that
#     monitor warns once that recovery here waits for it and to set
#     op monitor interval=10s (the loop marked its refused request).
#  crash: the remote node running web crashes (SIGKILL of its namespaces).
#     Fencing is off in these clusters (stonith-enabled=false): Pacemaker
#     cannot know that web is gone, so web is not started elsewhere; the
#     administrator's `stonith_admin --confirm NODE` ("I made sure it is
#     down") then has it started on another remote node.
#
# Prints a results table and the timings (tests/cluster/remote-nodes-
# timings.txt); needs root, the packages of lib.sh, pacemaker-remoted
# (tests/install-deps.sh), and the agents installed (make install);
# otherwise "1..0 # SKIP".

# shellcheck disable=SC2317,SC2119,SC2034   # called through fm_poll; optional arguments; SC_FC0 is sc_measure's
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=420}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs apache2 python3 stonith_admin
fm_skip_unless_remote
sc_skip_unless_agents

: "${FM_RM_NODES:=4}"
: "${FM_RM_CRASH_WATCH:=30}"  # seconds to watch what Pacemaker does alone after a crash
TPI=2                   # Thorough_probe_interval, seconds
MON=10                  # monitor interval, seconds

fm_plan 15

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_result 0 "3-node cluster formed in ${FM_LAST_MS} ms"
fm_remote_start "$FM_RM_NODES" || fm_bail "the remote nodes did not come online"
remote_ms=$FM_LAST_MS
hosts=""
for r in $(fm_remote_nodes); do hosts="$hosts $r@$(fm_resource_nodes "$r" | head -n1)"; done
hosts=${hosts# }
n_remote=$(fm_crm_mon | fm__xpath "count(//nodes/node[@type='remote' and @online='true'])")
fm_result "$([ "$n_remote" = "$FM_RM_NODES" ]; echo $?)" \
    "$n_remote pacemaker_remote nodes online (of $FM_RM_NODES) in $remote_ms ms; connection@host: $hosts"
fm_timing "$FM_RM_NODES remote nodes started until online" "$remote_ms"

# shellcheck disable=SC2046   # one node per word
fm_apache_setup $(fm_remote_nodes)
# shellcheck disable=SC2046
sc_apache_extras $(fm_remote_nodes)

pcs1() { fm_node_exec node1 pcs "$@" </dev/null >/dev/null 2>&1; }
cib_create() { fm_node_exec node1 cibadmin --create -o "$1" -X "$2" >/dev/null 2>&1; }
random_sleep() { local p=$((RANDOM % ($1 * 10))); sleep "$((p / 10)).$((p % 10))"; }
is_remote() { fm_remote_nodes | grep -qx "$1"; }
# the latest failed operation of web on NODE: "task rc"
last_failure() { fm_failures web | awk -F'\t' -v n="$1" '$2 == n {print $3, $5}' | tail -n1; }
# failed_since NODE TASK RC T0: a failure of web's TASK on NODE with RC,
# recorded at or after T0 (ms; Pacemaker keeps seconds).  The loop's fail
# request is recorded as "asyncmon", the agent's monitor as "monitor".
failed_since() {
    local t s
    while IFS= read -r t; do
        s=$(date -d "$t" +%s 2>/dev/null) || continue
        [ "$s" -ge $(( $4 / 1000 )) ] && return 0
    done < <(fm_failures web | awk -F'\t' -v n="$1" -v k="$2" -v r="$3" '$2 == n && $3 == k && $5 == r {print $8}')
    return 1
}
# refusals NODE: the loop's log lines of refused fail requests on NODE
refusals() { grep -c "web: the controller.* refused the fail request" "$(fm_node_dir "$1")/root/var/log/pacemaker/pacemaker.log"; }

pcs1 resource create web ocf:faultmon:apache configfile="$FM_APACHE_CONF" \
    Monitor_Uri_List="http://127.0.0.1/app" Thorough_probe_interval=$TPI Probe_timeout=1 \
    Retry_count=3 Retry_interval=300 op monitor interval=${MON}s --disabled
st=$?
# Remote nodes only, and no probe of web on the cluster nodes (no Apache there).
sc_remote_only web remote1 100
st=$((st || $?))
cib_create constraints '<rsc_location id="web-prefers-remote2" rsc="web" node="remote2" score="50"/>'
st=$((st || $?))
pcs1 resource enable web
X=$(fm_wait_resource web remote1 40)
fm_wait_serving "${X:-none}" /app 10
st=$((st || $?))
H=$(fm_resource_nodes remote1 | head -n1)
fm_result "$st" "pcs resource create web ocf:faultmon:apache, remote nodes only (#kind ne remote: -INFINITY): running on ${X:-nowhere} (connection on ${H:-?}), serving /app"
[ -n "$X" ] || fm_bail "web did not start on remote1"

# ------------------------------- kill: restart in place, by the next monitor
for k in 1 2; do
    random_sleep "$TPI"
    pid0=$(sc_httpd_pid "$X") SC_FC0=$(fm_failcount web "$X")
    t0=$(fm_now_ms)
    fm_httpd_kill "$X"
    sc_measure web "$X" "$t0" $((MON * 3)) /app
    fm_wait_resource web "$X" 10 >/dev/null
    pid1=$(sc_httpd_pid "$X") rs=$(sc_fm_field "$X" web restarts_in_window)
    lf=$(last_failure "$X") by=none
    failed_since "$X" monitor 1 "$t0" && by=monitor
    failed_since "$X" asyncmon 1 "$t0" && by="$by+asyncmon"
    ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = "$X" ] && [ "$pid1" != "$pid0" ] && [ "$pid1" != 0 ] \
         && [ "$rs" = "$k" ] && [ "$by" = monitor ] && [ "$SC_RESTORED" -le $(( (MON + 5) * 1000 )) ] \
         && [ "$(refusals "$X")" -ge "$k" ]; echo $?)
    fm_result "$ok" "kill $k: httpd killed on $X: restart $rs in place (pid $pid0 -> $pid1) by the agent's monitor (failed since the kill: $by, want monitor; the loop's fail requests refused: $(refusals "$X")), serving after ${SC_RESTORED:-never} ms (at most $(( (MON + 5) * 1000 )))"
    fm_timing "remote node: httpd kill -9 -> serving again #$k" "${SC_RESTORED:-0}" "Thorough_probe_interval=$TPI, monitor ${MON}s"
    sc_row "kill $k on remote node $X" "restart in place (monitor)" "restart $rs on ${SC_ON:-?} (${lf:-no failure})" "$SC_DETECT" "$SC_RESTORED" "$ok"
done
l=$(grep -m1 "web: the controller.* refused the fail request" "$(fm_node_dir "$X")/root/var/log/pacemaker/pacemaker.log")
fm_diag "the loop on $X:" "${l:-no refusal logged}"
# What the connection host's controller did with the requests (evidence for
# the README: refused, or dropped as unroutable by an older faultmon).
for n in $(fm_nodes); do
    l=$(grep -E "(Ignoring|unknown|[Rr]elay|[Rr]out|permission).*($X|web)" \
        "$(fm_node_dir "$n")/root/var/log/pacemaker/pacemaker.log" 2>/dev/null | tail -n 2)
    [ -z "$l" ] || fm_diag "$n's pacemaker.log:" "$l"
done

# ---------------------------------------------- 500: restart, then failover
pid0=$(sc_httpd_pid "$X") SC_FC0=$(fm_failcount web "$X")
t0=$(sc_break_app "$X")
sc_measure web "$X" "$t0" $((MON * 4)) /app
fm_wait_resource web "$X" 10 >/dev/null
pid1=$(sc_httpd_pid "$X") rs=$(sc_fm_field "$X" web restarts_in_window) lf=$(last_failure "$X") by=none
failed_since "$X" monitor 1 "$t0" && by=monitor
failed_since "$X" asyncmon 1 "$t0" && by="$by+asyncmon"
ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = "$X" ] && [ "$pid1" != "$pid0" ] && [ "$rs" = 3 ] \
     && [ "$by" = monitor ]; echo $?)
fm_result "$ok" "500: /app answers 500 on $X: restart $rs of Retry_count 3 in place (pid $pid0 -> $pid1) by the agent's monitor (failed since: $by), /app 200 after ${SC_RESTORED:-never} ms"
fm_timing "remote node: /app 500 -> serving again (restart in place)" "${SC_RESTORED:-0}" "Thorough_probe_interval=$TPI"
sc_row "500 on remote node $X" "restart in place" "restart $rs on ${SC_ON:-?} (${lf:-no failure})" "$SC_DETECT" "$SC_RESTORED" "$ok"

dl=$(sc_decisions_logged "$X" web "$(fm_node_dir "$X")/root/var/log/pacemaker/pacemaker.log")
fm_result $? "log: every recovery faultmon decided on $X has its notice line in $X's own pacemaker.log (decided/logged: $dl)"

t0=$(sc_break_app "$X")
Y=$(fm_wait_resource web "!$X" $((MON * 4)))
fm_wait_serving "${Y:-none}" /app 20
st=$?
moved_ms=$(fm_since_ms "$t0")
# the monitor answers the failover decision (rc 4), or a start refuses it
rc=$(sc_failure_rc_any web "$X" start monitor) reason=$(sc_failure_reason_any web "$X" start monitor)
ok=$([ "$st" = 0 ] && [ -n "$Y" ] && is_remote "$Y" && [ "$rc" = 4 ] \
     && grep -qiE 'fail(ing)?.?over' <<<"$reason" && grep -q Retry_count <<<"$reason"; echo $?)
fm_result "$ok" "500 once more, Retry_count spent: on $X rc ${rc:-none} ('${reason:0:100}'), web on remote node ${Y:-nowhere}, serving after $moved_ms ms"
fm_timing "remote node: /app 500 -> serving on another remote node (Retry_count spent)" "$moved_ms"
sc_row "500, restarts spent, on $X" "failover to a remote node" "moved $X -> ${Y:-?} (rc ${rc:-?} on $X)" "-" "$moved_ms" "$ok"
[ -n "$Y" ] || fm_bail "web runs nowhere"

# ------------------------------------ node attributes of a remote node
cib_attr() {
    fm_node_exec node1 cibadmin --query --xpath \
        "//node_state[@uname='$1']/transient_attributes//nvpair[@name='faultmon-web-state']" 2>/dev/null |
        sed -n 's/.* value="\([^"]*\)".*/\1/p'
}
attr_up() { [ "$(cib_attr "$Y")" = up ]; }
fm_poll 20 attr_up
fm_result $? "attributes: the loop on $Y set faultmon-web-state=$(cib_attr "$Y") for $Y, in the CIB's status section (asked on node1)"
# web's view of NODE in `faultmon status --cluster --json`, asked on ASK
cluster_view() {
    sc_fm "$1" status --cluster --json 2>/dev/null | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    sys.exit(0)
for r in d.get("rows", []):
    if r.get("kind") == "resource" and r.get("name") == sys.argv[1]:
        print(r.get("views", {}).get(sys.argv[2], ""))' web "$2"
}
v_full=$(cluster_view node2 "$Y") v_remote=$(cluster_view remote3 "$Y")
ok=$([[ $v_full == up* ]] && [ "$v_remote" = "$v_full" ]; echo $?)
fm_result "$ok" "attributes: faultmon status --cluster shows web on $Y as '$v_full' asked on node2 (a cluster node) and as '$v_remote' asked on remote3 (a remote node)"

# ------------------------- the meta-data's 60 s monitor on a remote node
MON60=60
pcs1 resource update web op monitor interval=${MON60}s
fm_wait_resource web "$Y" 20 >/dev/null
fm_wait_serving "$Y" /app 20
# the agent's own warnings (pacemaker-remoted also logs its stderr)
warnings() {
    grep -c "apache(web)\[[0-9]*\]:.*WARNING: monitor: the controller refused the fault monitor's fail request.*every ${MON60} s; set op monitor interval=10s on web" \
        "$(fm_node_dir "$1")/root/var/log/pacemaker/pacemaker.log"
}
w0=$(warnings "$Y")
pid0=$(sc_httpd_pid "$Y") SC_FC0=$(fm_failcount web "$Y")
t0=$(fm_now_ms)
fm_httpd_kill "$Y"
sc_measure web "$Y" "$t0" $((MON60 + 15)) /app
fm_wait_resource web "$Y" 10 >/dev/null
pid1=$(sc_httpd_pid "$Y") by=none
failed_since "$Y" monitor 1 "$t0" && by=monitor
ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = "$Y" ] && [ "$pid1" != "$pid0" ] && [ "$by" = monitor ] \
     && [ "$SC_RESTORED" -le $(( (MON60 + 10) * 1000 )) ]; echo $?)
fm_result "$ok" "monitor ${MON60}s: httpd killed on $Y: restarted in place by the agent's monitor (failed since the kill: $by), serving after ${SC_RESTORED:-never} ms (at most $(( (MON60 + 10) * 1000 )))"
fm_timing "remote node, monitor ${MON60}s: httpd kill -9 -> serving again" "${SC_RESTORED:-0}"
sc_row "kill on remote node $Y, monitor ${MON60}s" "restart in place (monitor)" "restart on ${SC_ON:-?}" "$SC_DETECT" "$SC_RESTORED" "$ok"
sleep 2
w1=$(warnings "$Y")
fm_result "$([ $((w1 - w0)) = 1 ]; echo $?)" "monitor ${MON60}s: one warning on $Y that recovery waits for the monitor and to set op monitor interval=10s ($((w1 - w0)) logged)"
[ $((w1 - w0)) = 1 ] || fm_diag "the agent on $Y:" "$(grep -E 'apache\(web\)|refused' "$(fm_node_dir "$Y")/root/var/log/pacemaker/pacemaker.log" | tail -n 8)"
pcs1 resource update web op monitor interval=${MON}s

# ---------------------------------------------------- remote node crash
YH=$(fm_resource_nodes "$Y" | head -n1)
t0=$(fm_now_ms)
fm_node_crash "$Y"
gone="" Z="" zserve="" ystate="" wstate=""
web_state() {   # web's entry in crm_mon: role, failed, blocked, node
    fm_crm_mon | fm__xpath "concat(//resources//resource[@id='web']/@role,' failed=',//resources//resource[@id='web']/@failed,' blocked=',//resources//resource[@id='web']/@blocked,' on ',//resources//resource[@id='web']/node/@name)"
}
watch_poll() {
    if [ -z "$gone" ]; then
        ystate=$(fm_node_state "$Y")
        [ "$ystate" = online ] || gone=$(fm_since_ms "$t0")
    fi
    [ -n "$Z" ] || Z=$(fm_resource_nodes web | grep -vx "$Y" | head -n1)
    [ -n "$Z" ] && [ "$(fm_http_remote "$Z" /app)" = 200 ] && zserve=$(fm_since_ms "$t0")
    [ -n "$zserve" ]
}
fm_poll "$FM_RM_CRASH_WATCH" watch_poll
ystate=$(fm_node_state "$Y") wstate=$(web_state) lf=$(last_failure "$Y")
cstate=$(fm_resource_nodes "$Y" | tr '\n' ' ')
fm_diag "after the crash of $Y (connection on $YH): $Y is '$ystate' (not online after ${gone:-never} ms), web: '$wstate', latest failure of web on $Y: '${lf:-none}', connection $Y on '${cstate% }'"
# why, in the scheduler's words (the DC's log), and crm_mon's view
dc=$(fm_dc)
l=$(grep -E "pacemaker-schedulerd.*(warning|notice|error).*($Y|web)" \
    "$(fm_node_dir "${dc:-node1}")/root/var/log/pacemaker/pacemaker.log" 2>/dev/null | tail -n 6)
fm_diag "the DC ($dc) scheduler on $Y and web:" "${l:-nothing logged}"
fm_diag "$(fm_node_exec node1 crm_mon -1 -r 2>&1 | sed -n '/Node List/,$p')"
ok=$([ -n "$gone" ] && [ -z "$zserve" ]; echo $?)
fm_result "$ok" "crash of $Y, fencing off: $Y not online after ${gone:-never} ms, and web is not started elsewhere within ${FM_RM_CRASH_WATCH} s (Pacemaker cannot know it stopped): '$wstate'"
seen="web: $wstate"; [ -z "$zserve" ] || seen="moved to $Z after $zserve ms"
sc_row "crash of remote node $Y, fencing off" "web not recovered alone" "$seen" "$gone" "-" "$ok"

t1=$(fm_now_ms)
fm_node_exec node1 stonith_admin --confirm "$Y" >/dev/null 2>&1
st=$?
Z="" zserve=""
confirm_poll() {
    [ -n "$Z" ] || Z=$(fm_resource_nodes web | grep -vx "$Y" | head -n1)
    [ -n "$Z" ] && [ "$(fm_http_remote "$Z" /app)" = 200 ] && zserve=$(fm_since_ms "$t1")
    [ -n "$zserve" ]
}
fm_poll 60 confirm_poll
ok=$([ "$st" = 0 ] && [ -n "$zserve" ] && is_remote "$Z" && [ "$Z" != "$X" ]; echo $?)
fm_result "$ok" "crash of $Y: stonith_admin --confirm $Y: web started on remote node ${Z:-nowhere}, serving after ${zserve:-never} ms"
fm_timing "remote node crash, fencing off: stonith_admin --confirm -> serving on another remote node" "${zserve:-0}"
sc_row "crash of $Y, then stonith_admin --confirm" "web on another remote node" "moved $Y -> ${Z:-?}" "-" "$zserve" "$ok"

# ----------------------------------------------------------------- end
pids=$(for n in $(fm_nodes) $(fm_remote_nodes); do fm_node_pid "$n"; done)
fm_cluster_destroy
nothing_left() {
    local p
    ! ip netns list | grep -q "^${FM_NS_PREFIX}" || return 1
    for p in $pids; do ! fm__alive "$p" || return 1; done
}
fm_ok "teardown: no namespace and no node process left (cluster and remote nodes)" nothing_left

sc_report
fm_timings_report
fm_done
