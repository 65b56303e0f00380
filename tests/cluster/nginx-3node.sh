#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/nginx-3node.sh: ocf:faultmon:nginx on a real 3-node Pacemaker
# cluster (issue 13), the scenarios of the apache agent: nginx killed
# (every process, SIGKILL: restarted in place, at once, by the loop's watch
# of nginx's master), stopped with SIGSTOP (accepts, never answers: degraded,
# then a restart), /app answering 500 (restart), Retry_count=0 (the start
# that follows is refused: it moves), manual_resume (held off the node until
# `faultmon resume`).  Each asserts what Pacemaker did and what faultmon
# decided; the kill timings go to the README's table.
#
# Needs root, the packages of lib.sh, nginx, and the agents installed (make
# install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=480}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs nginx
sc_skip_unless_agents
if [ ! -x "$FM_OCF_DIR/faultmon/nginx" ]; then
    echo "1..0 # SKIP ocf:faultmon:nginx is not installed"
    exit 0
fi

: "${FM_SC_KILLS:=4}"
TPI=2

fm_plan $((10 + FM_SC_KILLS))

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_result 0 "3-node cluster formed in ${FM_LAST_MS} ms"
sc_nginx_setup

pcs1() { fm_node_exec node1 pcs "$@" </dev/null >/dev/null 2>&1; }
nginx_kill() { fm_node_exec "$1" pkill "-${2:-KILL}" -x nginx; }
random_sleep() { local p=$((RANDOM % ($1 * 10))); sleep "$((p / 10)).$((p % 10))"; }

pcs1 resource create web ocf:faultmon:nginx configfile="$SC_NGINX_CONF" \
    Monitor_Uri_List="http://127.0.0.1/app" Thorough_probe_interval=$TPI Probe_timeout=1 \
    Retry_count=$((FM_SC_KILLS + 4)) Retry_interval=300 op monitor interval=10s
st=$?
X=$(fm_wait_resource web any 30)
fm_wait_serving "${X:-none}" /app 10
fm_result $((st || $?)) "pcs resource create web ocf:faultmon:nginx: running on ${X:-nowhere}, serving /app"
[ -n "$X" ] || fm_bail "web did not start"

# ------------------------------------------- kill -9: restart in place
sum=0 max=0 n_ok=0
for k in $(seq 1 "$FM_SC_KILLS"); do
    random_sleep "$TPI"
    pid0=$(sc_nginx_pid "$X") SC_FC0=$(fm_failcount web "$X")
    t0=$(fm_now_ms)
    nginx_kill "$X"
    sc_measure web "$X" "$t0" 30 /app
    pid1=$(sc_nginx_pid "$X")
    ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = "$X" ] && [ "$pid1" != "$pid0" ] && [ "$pid1" != 0 ] \
         && [ "$SC_RESTORED" -le 3000 ]; echo $?)
    fm_result "$ok" "kill $k: every nginx process SIGKILLed: restarted on ${SC_ON:-?} (pid $pid0 -> $pid1), serving after ${SC_RESTORED:-never} ms (at most 3000)"
    fm_timing "nginx: kill -9 -> serving again (ocf:faultmon:nginx) #$k" "${SC_RESTORED:-0}" "Thorough_probe_interval=$TPI"
    if [ -n "$SC_RESTORED" ]; then
        sum=$((sum + SC_RESTORED))
        [ "$SC_RESTORED" -gt "$max" ] && max=$SC_RESTORED
        [ "$SC_RESTORED" -le 1000 ] && n_ok=$((n_ok + 1))
    fi
done
fm_diag "kill -9 -> serving: average $((sum / FM_SC_KILLS)) ms, at most $max ms, $n_ok of $FM_SC_KILLS within 1 s"

# ------------------------------------------ SIGSTOP: degraded, restart
pid0=$(sc_nginx_pid "$X") SC_FC0=$(fm_failcount web "$X")
t0=$(fm_now_ms)
nginx_kill "$X" STOP
SC_DETECT_HOOK='at_detect=$(sc_status "$X" web)'
sc_measure web "$X" "$t0" 40 /app
SC_DETECT_HOOK=
pid1=$(sc_nginx_pid "$X")
ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = "$X" ] && [ "$pid1" != "$pid0" ] \
     && sc_status "$X" web | grep -q '"verdict":"partial","latency_us":[0-9]*,"action":"restart"'; echo $?)
fm_result "$ok" "SIGSTOP: partial failures (no answer) restart nginx in place on ${SC_ON:-?} (pid $pid0 -> $pid1), serving after ${SC_RESTORED:-never} ms"
fm_node_exec "$X" pgrep -x nginx >/dev/null && ! fm_node_exec "$X" sh -c 'grep -l "^State:.*T (stopped)" /proc/$(pgrep -d" /status /proc/" -x nginx)/status' >/dev/null 2>&1
fm_result $? "SIGSTOP: no stopped nginx process is left behind"

# ----------------------------------------------------- 500: restart
pid0=$(sc_nginx_pid "$X") SC_FC0=$(fm_failcount web "$X")
t0=$(sc_nginx_break "$X")
sc_measure web "$X" "$t0" 40 /app
pid1=$(sc_nginx_pid "$X")
ok=$([ -n "$SC_RESTORED" ] && [ "$SC_ON" = "$X" ] && [ "$pid1" != "$pid0" ]; echo $?)
fm_result "$ok" "500: /app answers 500 until nginx restarts: restarted on ${SC_ON:-?} (pid $pid0 -> $pid1), /app 200 after ${SC_RESTORED:-never} ms"
dl=$(sc_decisions_logged "$X" web "$(fm_node_dir "$X")/root/var/log/pacemaker/pacemaker.log")
fm_result $? "log: every recovery faultmon decided has its notice line in $X's pacemaker.log (decided/logged: $dl)"

# -------------------------------------- failover: Retry_count=0, moves
pcs1 resource update web Retry_count=0
fm_wait_idle 60
t0=$(fm_now_ms)
nginx_kill "$X"
Y=$(fm_wait_resource web "!$X" 60)
fm_wait_serving "${Y:-none}" /app 20
st=$?
moved_ms=$(fm_since_ms "$t0")
reason=$(fm_exit_reason web "$X")
ok=$([ "$st" = 0 ] && [ -n "$Y" ] && [[ $reason == *"failing over"* ]]; echo $?)
fm_result "$ok" "Retry_count=0: nginx killed on $X: the start there is refused ('${reason:0:100}'), web runs on ${Y:-nowhere} after ${moved_ms} ms"
fm_timing "nginx: kill -9 -> serving on another node (Retry_count=0)" "$moved_ms"
pcs1 resource cleanup web
fm_wait_idle 60

# ------------------------------------------------------ manual resume
Y=$(fm_wait_resource web any 30)
pcs1 resource update web manual_resume=true
fm_wait_idle 60
nginx_kill "$Y"
Z=$(fm_wait_resource web "!$Y" 60)
fm_result $? "manual_resume: nginx killed on $Y: web moves to ${Z:-nowhere}"
held=$(sc_fm_field "$Y" web state)
pcs1 resource cleanup web
fm_wait_idle 60
reason=$(fm_exit_reason web "$Y")
fm_result "$([ "$held" = held ] || [[ $reason == *"held for manual resume"* ]]; echo $?)" \
    "manual_resume: $Y holds web off (faultmon state '${held:-?}', reason '${reason:0:80}')"
sc_fm "$Y" resume web >/dev/null 2>&1
st=$?
pcs1 resource cleanup web
fm_wait_idle 60
fm_result "$([ "$st" = 0 ] && [ "$(sc_fm_field "$Y" web state)" != held ]; echo $?)" \
    "manual_resume: faultmon resume web on $Y lifts the hold"

fm_timings_report
fm_done
