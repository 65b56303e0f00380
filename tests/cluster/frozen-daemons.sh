#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/frozen-daemons.sh: faultmon under a frozen cluster daemon
# (issue 31), on a real 3-node Pacemaker cluster: the daemons frozen are
# those of the node that runs the resource, never the DC's.  (On a single
# node the frozen attrd is the DC's, and Pacemaker 2.1's controller exits
# fatally when it cannot update the fail-count within 5 s: the whole node
# stops, measured.)
#
# One ocf:faultmon:apache resource (Thorough_probe_interval=1).  The node's
# pacemaker-attrd, then pacemaker-based, then pacemaker-controld is stopped
# with SIGSTOP for FM_FREEZE_S (30) seconds, each one checked to be that
# daemon before it is signalled, and always sent SIGCONT again (also when
# the test fails).  The loop logs how late each cycle started
# ("cycle N started L ms after its schedule", a debug line: the nodes run
# with PCMK_debug=faultmon).
#
#  attrd, CIB: while frozen, cycles start within 50 ms of their schedule; a
#     kill -9 of httpd is serving again within FM_KILL_MS (1000); after
#     SIGCONT nothing is asked twice (one restart asked for the kill, httpd
#     not restarted again) and faultmon-web-state and -weight reach the
#     loop's latest values within 5 s (pacemakerd may have restarted the
#     frozen attrd meanwhile, which fails the updates waiting for it).  (With the CIB frozen Pacemaker
#     cannot carry out any recovery: the controller records the failure in
#     the CIB before it schedules the restart, so the kill is asserted
#     recovered within 1 s of SIGCONT, and the measured time is reported.)
#  controller: nothing can recover while it is frozen; the loop keeps
#     probing (cycles on time), says once that the controller does not
#     answer, and the decision is carried out once it answers (serving
#     again within 15 s of SIGCONT, restarted once).
#
# Needs root, the packages of lib.sh, and the agents installed (make
# install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll and fm_at_exit
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=360}"
: "${FM_FREEZE_S:=30}"
: "${FM_KILL_MS:=1000}"
export FM_NODE_PCMK_DEBUG=faultmon
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs apache2
sc_skip_unless_agents

LOG=""
fm_plan 13

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_apache_setup
DC=$(fm_dc)
# web's node: neither the DC nor node1 (where lib.sh asks crm_mon first)
N=node2
[ "$DC" != node2 ] || N=node3
LOG=$(fm_node_dir "$N")/root/var/log/pacemaker/pacemaker.log
fm_node_exec "$DC" pcs resource create web ocf:faultmon:apache configfile="$FM_APACHE_CONF" \
    Thorough_probe_interval=1 Probe_timeout=1 Retry_count=10 Retry_interval=600 \
    op monitor interval=10s >/dev/null 2>&1
fm_node_exec "$DC" pcs constraint location web prefers "$N=100" >/dev/null 2>&1
fm_wait_resource web "$N" 30 >/dev/null && fm_wait_serving "$N" /health 10
fm_result $? "3-node cluster formed in ${FM_LAST_MS} ms (DC $DC); web (ocf:faultmon:apache, Thorough_probe_interval=1) serving on $N"

# ------------------------------------------------- freezing, by checked PID
FROZEN_PID="" FROZEN_NAME=""
# signal SIG PID NAME: send SIG to PID inside the node only while PID is
# still the daemon NAME (its executable's name)
signal() {
    # shellcheck disable=SC2016   # expanded by that sh
    fm_node_exec "$N" sh -c '[ "$(basename "$(readlink /proc/$2/exe)")" = "$3" ] && kill -"$1" "$2"' \
        sh "$1" "$2" "$3"
}
freeze() {
    local pid
    pid=$(fm_node_exec "$N" pidof "$1" | awk '{print $1}')
    [ -n "$pid" ] || { fm_diag "$1: no such process in $N"; return 1; }
    FROZEN_PID=$pid FROZEN_NAME=$1
    signal STOP "$pid" "$1" || { FROZEN_PID=""; return 1; }
    fm__log "$1 (pid $pid in $N) frozen"
}
thaw() {
    [ -n "$FROZEN_PID" ] || return 0
    signal CONT "$FROZEN_PID" "$FROZEN_NAME"
    fm__log "$FROZEN_NAME (pid $FROZEN_PID in $N) thawed"
    FROZEN_PID="" FROZEN_NAME=""
}
fm_at_exit thaw

# ---------------------------------------------------------------- measures
log_mark() { wc -l < "$LOG"; }
# log_since MARK: the log's lines after MARK
log_since() { tail -n +"$(( $1 + 1 ))" "$LOG"; }
# cycles_late MARK: "N MAX": the loop's cycles started since MARK and the
# largest delay (ms) of their start after the schedule
cycles_late() {
    log_since "$1" | sed -n 's/.*: web: cycle [0-9]* started \(-\{0,1\}[0-9]*\) ms after its schedule.*/\1/p' |
        awk 'BEGIN { n = 0; m = 0 } { n++; if ($1 > m) m = $1 } END { print n, m }'
}
asked_since() { log_since "$1" | grep -cE ': web: state [a-z-]+ -> [a-z-]+, (restart|failover) asked: '; }
httpd_pid() { sc_httpd_pid "$N"; }
# kill_and_time: kill -9 httpd; echo the ms until a new httpd serves /health
kill_and_time() {
    local old t0
    old=$(httpd_pid)
    t0=$(fm_now_ms)
    fm_httpd_kill "$N"
    while [ "$(fm_since_ms "$t0")" -lt 20000 ]; do
        if [ "$(httpd_pid)" != "$old" ] && [ "$(fm_http "$N" /health)" = 200 ]; then
            fm_since_ms "$t0"
            return 0
        fi
        sleep 0.02
    done
    echo 99999
    return 1
}
attr_q() { fm_node_exec "$N" attrd_updater -Q -n "$1" -N "$N" 2>/dev/null | sed -n 's/.* value="\([^"]*\)".*/\1/p'; }
# the node attributes agree with the loop's state
attrs_latest() {
    local js st wt a_st a_wt
    js=$(sc_status "$N" web)
    st=$(sc_jget state <<<"$js") wt=$(sc_jget weight <<<"$js")
    a_st=$(attr_q faultmon-web-state) a_wt=$(attr_q faultmon-web-weight)
    ATTRS="state $a_st/$st, weight $a_wt/$wt"
    [ -n "$st" ] && [ "$a_st" = "$st" ] && [ "$a_wt" = "$wt" ]
}

# frozen_kill DAEMON: the attrd and CIB scenarios
frozen_kill() {
    local d=$1 mark ms t_thaw cyc after pid_ok asked ok
    # the attributes as the loop last set them are gone: only an update
    # that reaches attrd after SIGCONT can bring them back
    fm_wait_idle 30
    fm_node_exec "$N" attrd_updater -D -n faultmon-web-state >/dev/null 2>&1
    fm_node_exec "$N" attrd_updater -D -n faultmon-web-weight >/dev/null 2>&1
    sleep 0.5
    mark=$(log_mark)
    freeze "$d" || fm_bail "cannot freeze $d"
    sleep 3
    ms=$(kill_and_time)
    fm_timing "$d frozen: kill -9 of httpd -> serving" "$ms"
    [ $((FM_FREEZE_S - 3 - ms / 1000)) -le 0 ] || sleep $((FM_FREEZE_S - 3 - ms / 1000))
    cyc=$(cycles_late "$mark")
    thaw
    t_thaw=$(fm_now_ms)
    if [ "$d" = pacemaker-based ] && [ "$ms" -gt "$FM_KILL_MS" ]; then
        fm_wait_serving "$N" /health 1
        ok=$?
        fm_result "$ok" "$d frozen ${FM_FREEZE_S} s: kill -9 of httpd recovered within 1 s of SIGCONT (not while frozen, $ms ms after the kill: the controller writes the failure to the CIB first)"
    else
        fm_result "$([ "$ms" -le "$FM_KILL_MS" ]; echo $?)" "$d frozen: kill -9 of httpd serving again in $ms ms (at most $FM_KILL_MS)"
    fi
    # shellcheck disable=SC2086
    set -- $cyc
    fm_result "$([ "$1" -ge $((FM_FREEZE_S / 2)) ] && [ "$2" -le 50 ]; echo $?)" \
        "$d frozen ${FM_FREEZE_S} s: $1 cycles, each started at most $2 ms after its schedule (at most 50)"
    ATTRS=""
    fm_poll 5 attrs_latest
    ok=$?
    after=$(fm_since_ms "$t_thaw")
    fm_timing "$d thawed: node attributes at the loop's latest values" "$after" "$ATTRS"
    fm_result "$ok" "$d thawed: node attributes at the loop's latest values in $after ms (attrd/loop: $ATTRS)"
    pid_ok=$(httpd_pid)
    sleep 5
    asked=$(asked_since "$mark")
    fm_result "$([ "$asked" = 1 ] && [ "$(httpd_pid)" = "$pid_ok" ] && [ "$(fm_http "$N" /health)" = 200 ]; echo $?)" \
        "$d thawed: nothing asked twice (restarts asked: $asked; httpd pid $pid_ok, 5 s later $(httpd_pid))"
}

frozen_kill pacemaker-attrd
frozen_kill pacemaker-based

# ------------------------------------------------------------- controller
fm_wait_idle 30
mark=$(log_mark)
freeze pacemaker-controld || fm_bail "cannot freeze pacemaker-controld"
sleep 2
old=$(httpd_pid)
fm_httpd_kill "$N"
sleep $((FM_FREEZE_S - 2))
cyc=$(cycles_late "$mark")
said=$(log_since "$mark" | grep -c ': web: .*the next monitor will report the failure')
thaw
t_thaw=$(fm_now_ms)
# shellcheck disable=SC2086
set -- $cyc
fm_result "$([ "$1" -ge $((FM_FREEZE_S / 2)) ] && [ "$2" -le 50 ]; echo $?)" \
    "pacemaker-controld frozen ${FM_FREEZE_S} s, httpd killed: the loop kept probing, $1 cycles, each at most $2 ms late"
fm_result "$([ "$said" = 1 ]; echo $?)" "pacemaker-controld frozen: the loop said once that the controller did not take its request ($said line(s))"
restored() { [ "$(httpd_pid)" != "$old" ] && [ "$(httpd_pid)" != 0 ] && [ "$(fm_http "$N" /health)" = 200 ]; }
fm_poll 15 restored
ok=$?
fm_timing "pacemaker-controld thawed -> serving" "$(fm_since_ms "$t_thaw")"
fm_result "$ok" "pacemaker-controld thawed: the recovery carried out, serving again in $(fm_since_ms "$t_thaw") ms"
pid_ok=$(httpd_pid)
sleep 5
fm_result "$([ "$(httpd_pid)" = "$pid_ok" ] && [ "$(asked_since "$mark")" -le 1 ]; echo $?)" \
    "pacemaker-controld thawed: restarted once (httpd pid $pid_ok, 5 s later $(httpd_pid); asked $(asked_since "$mark"))"

fm_timings_report
fm_done
