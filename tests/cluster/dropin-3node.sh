#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/dropin-3node.sh: migrating from ocf:heartbeat:apache to
# ocf:faultmon:apache on a running 3-node Pacemaker cluster, and the two
# side by side with heartbeat's parameters only (issue 9, items 3 and 6).
#
#  M. A resource `web` runs as ocf:heartbeat:apache (configfile, statusurl,
#     op monitor interval=10s timeout=20s).  `pcs resource update web
#     ocf:faultmon:apache` does not change the provider; changing the
#     primitive's provider in the CIB (cibadmin --modify, the README's
#     command) does: Pacemaker restarts it in place as ocf:faultmon:apache,
#     with faultmon's loop running.  Measured: the outage (longest gap with
#     no HTTP 200, polled every 100 ms), the httpd pid before and after.
#  T. ocf:heartbeat:apache on node2 and ocf:faultmon:apache on node3, both
#     with heartbeat's parameters only and the same monitor operation
#     (interval FM_DI_MON, timeout FM_DI_MON_TO); each fault is made on
#     both nodes at the same moment: httpd killed, httpd stopped (SIGSTOP),
#     the status page answering 403, 404 and 500, the status page slower
#     than the monitor timeout, the configuration file removed.  For each:
#     time to detection (Pacemaker's fail-count rises) and to serving again
#     (for the faults a restart cures), heartbeat vs faultmon.  Asserted:
#     faultmon detects every fault, within heartbeat's worst case (its next
#     monitor; plus its monitor timeout for a hang) or no later than
#     heartbeat did, plus FM_DI_SLACK_MS (the two sides are different nodes,
#     each at a random phase, so one sample may favour heartbeat).  The
#     table goes to the results file and the log.
#
# Needs root, the packages of lib.sh, and the agents installed (make
# install); otherwise "1..0 # SKIP".  Takes about 4 minutes.

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=600}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs crm apache2 tc
sc_skip_unless_agents

: "${FM_DI_MON:=10}"
: "${FM_DI_MON_TO:=20}"
: "${FM_DI_SLACK_MS:=2000}"
SURL=$FM_APACHE_STATUSURL
HB=node2 FM=node3

fm_plan 14

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_result 0 "3-node cluster formed in ${FM_LAST_MS} ms; agents: $(readlink -f "$FM_OCF_DIR/faultmon/apache")"
fm_apache_setup
for n in $(fm_nodes); do
    s=$(fm_node_dir "$n")/root/srv
    cp "$s/apache/httpd.conf" "$s/apache/httpd.conf.good"
done

provider() { fm_node_exec node1 cibadmin --query --xpath "//primitive[@id='$1']" 2>/dev/null | sed -n 's/.*provider="\([^"]*\)".*/\1/p' | head -n1; }
delete() { local r; for r in "$@"; do fm_node_exec node1 pcs resource delete "$r" >/dev/null 2>&1; done; fm_wait_idle 60; }

# ----------------------------------------------- M: the migration itself (6)
fm_node_exec node1 pcs resource create web ocf:heartbeat:apache configfile="$FM_APACHE_CONF" \
    statusurl="$SURL" op monitor interval=${FM_DI_MON}s timeout=${FM_DI_MON_TO}s >/dev/null 2>&1
st=$?
X=$(fm_wait_resource web any 30)
fm_wait_serving "${X:-none}" /health 10
fm_result $((st || $?)) "M: web runs as ocf:heartbeat:apache on ${X:-nowhere} and serves"
[ -n "$X" ] || fm_bail "web did not start"

fm_node_exec node1 pcs resource update web ocf:faultmon:apache >/dev/null 2>&1
pcs_st=$?
sleep 1
ok=$([ "$(provider web)" = heartbeat ]; echo $?)
fm_result "$ok" "M: pcs resource update web ocf:faultmon:apache (exit $pcs_st) leaves the provider $(provider web) (as the README warns)"

pid0=$(sc_httpd_pid "$X")
gap=0 worst=0 last_ok=$(fm_now_ms)
t0=$(fm_now_ms)
fm_node_exec node1 cibadmin --modify --xml-text '<primitive id="web" provider="faultmon"/>' >/dev/null 2>&1
st=$?
# poll until web serves again as faultmon; the longest gap without a 200
migrated() {
    local now; now=$(fm_now_ms)
    if [ "$(fm_http_remote "$X" /health)" = 200 ]; then
        gap=$(( now - last_ok )); [ "$gap" -gt "$worst" ] && worst=$gap; last_ok=$now
        [ "$(sc_httpd_pid "$X")" != "$pid0" ] && [ "$(fm_resource_nodes web)" = "$X" ] \
            && [ "$(sc_fm_field "$X" web loop_running)" = true ]
    else
        return 1
    fi
}
fm_poll 60 migrated
mst=$?
total=$(fm_since_ms "$t0")
pid1=$(sc_httpd_pid "$X")
fm_timing "migration: cibadmin --modify to serving as ocf:faultmon:apache" "$total" "on $X, httpd pid $pid0 -> $pid1"
fm_timing "migration: longest outage (no HTTP 200, polled every 100 ms)" "$worst"
ok=$([ "$st" -eq 0 ] && [ "$mst" -eq 0 ] && [ "$(provider web)" = faultmon ] && [ -z "$(fm_failures web)" ]; echo $?)
fm_result "$ok" "M: cibadmin --modify provider=faultmon: web restarted in place on $X (httpd pid $pid0 -> $pid1), serving as ocf:faultmon:apache with its loop after $total ms, longest outage $worst ms, no failed operation"
rs=$(sc_status "$X" web)
ok=$([ "$(sc_jget state <<<"$rs")" = up ] && [ "$(sc_jget restarts_in_window <<<"$rs")" = 0 ]; echo $?)
fm_result "$ok" "M: faultmon status web on $X: state $(sc_jget state <<<"$rs"), $(sc_jget restarts_in_window <<<"$rs") restarts, probing $(sc_jget target target <<<"$rs")"
delete web

# ------------------------------------- T: heartbeat vs faultmon, defaults (3)
# Created stopped and placed first: both manage the same Apache
# configuration, so a probe of one on the other's node would take the
# other's httpd for its own (hence also resource-discovery=never there).
fm_node_exec node1 pcs resource create hb ocf:heartbeat:apache configfile="$FM_APACHE_CONF" statusurl="$SURL" \
    op monitor interval=${FM_DI_MON}s timeout=${FM_DI_MON_TO}s op stop timeout=10s --disabled >/dev/null 2>&1
st=$?
fm_node_exec node1 pcs resource create fm ocf:faultmon:apache configfile="$FM_APACHE_CONF" statusurl="$SURL" \
    op monitor interval=${FM_DI_MON}s timeout=${FM_DI_MON_TO}s op stop timeout=10s --disabled --force >/dev/null 2>&1
st=$((st || $?))
fm_node_exec node1 pcs constraint location add hb-on-hb hb $HB INFINITY >/dev/null 2>&1
fm_node_exec node1 pcs constraint location add hb-not-fm hb $FM -INFINITY resource-discovery=never >/dev/null 2>&1
fm_node_exec node1 pcs constraint location add fm-on-fm fm $FM INFINITY >/dev/null 2>&1
fm_node_exec node1 pcs constraint location add fm-not-hb fm $HB -INFINITY resource-discovery=never >/dev/null 2>&1
fm_node_exec node1 crm configure colocation fm-apart-from-hb -inf: fm hb </dev/null >/dev/null 2>&1
fm_node_exec node1 pcs resource enable hb fm >/dev/null 2>&1
fm_wait_resource hb $HB 30 >/dev/null && fm_wait_resource fm $FM 30 >/dev/null \
    && fm_wait_serving $HB /health 10 && fm_wait_serving $FM /health 10
fm_result $((st || $?)) "T: ocf:heartbeat:apache on $HB and ocf:faultmon:apache on $FM, heartbeat's parameters only, monitor interval=${FM_DI_MON}s timeout=${FM_DI_MON_TO}s"

conf() { echo "$(fm_node_dir "$1")/root/srv/apache/httpd.conf"; }
reload() { fm_node_exec "$1" sh -c "kill -USR1 \$(cat '$FM_APACHE_PIDFILE')" 2>/dev/null; }
inject() {      # inject FAULT NODE
    local c; c=$(conf "$2")
    case $1 in
        kill) fm_httpd_kill "$2" ;;
        stop) fm_httpd_kill "$2" STOP ;;
        403) sed -i 's|Require ip 127.0.0.1|Require all denied|' "$c"; reload "$2" ;;
        404) sed -i 's|SetHandler server-status|SetHandler none|' "$c"; reload "$2" ;;
        500) printf 'LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so\nRewriteEngine On\nRewriteRule ^/server-status$ - [R=500]\n' >> "$c"; reload "$2" ;;
        slow) sc_slow_on "$2" 1kbit ;;
        noconf) rm -f "$c" ;;
    esac
}
repair() {      # repair NODE
    sc_slow_off "$1"
    cp "$(conf "$1").good" "$(conf "$1")"
    fm_httpd_kill "$1" CONT 2>/dev/null
}
declare -A DET RES
T_ROWS=()
for fault in kill stop 403 404 500 slow noconf; do
    SC_FC_HB=$(fm_failcount hb $HB) SC_FC_FM=$(fm_failcount fm $FM)
    sleep "$((RANDOM % FM_DI_MON)).$((RANDOM % 10))"
    t0=$(fm_now_ms)
    # (wait for these two only: the watchdog runs in the background too)
    inject "$fault" $HB & p1=$!; inject "$fault" $FM & p2=$!; wait "$p1" "$p2"
    DET=() RES=()
    # each side is settled once it detected (and, for a fault a restart
    # cures, serves again) or heartbeat's own bound has passed
    bound=$(( (FM_DI_MON + FM_DI_MON_TO) * 1000 + 10000 ))
    both() {
        local r n fc0 done=0 el
        el=$(fm_since_ms "$t0")
        for r in hb fm; do
            n=$HB fc0=$SC_FC_HB; [ $r = fm ] && n=$FM fc0=$SC_FC_FM
            if [ -z "${DET[$r]:-}" ] && [ "$(fm_failcount $r $n)" != "$fc0" ]; then DET[$r]=$el; fi
            if [ -n "${DET[$r]:-}" ] && [ -z "${RES[$r]:-}" ] && { [ $fault = kill ] || [ $fault = stop ]; } \
                && [ "$(fm_http_remote $n /health)" = 200 ] && [ "$(fm_resource_nodes $r)" = $n ]; then
                RES[$r]=$el
            fi
            if [ "$el" -gt "$bound" ] || { [ -n "${DET[$r]:-}" ] \
                 && { { [ $fault != kill ] && [ $fault != stop ]; } || [ -n "${RES[$r]:-}" ]; }; }; then
                done=$((done + 1))
            fi
        done
        [ "$done" -eq 2 ]
    }
    fm_poll $(( bound / 1000 + 30 )) both
    dh=${DET[hb]:-} df=${DET[fm]:-}
    # heartbeat's worst case: its next monitor, plus its timeout for a hang
    case $fault in stop|slow) hb_bound=$(( (FM_DI_MON + FM_DI_MON_TO) * 1000 )) ;; *) hb_bound=$(( FM_DI_MON * 1000 )) ;; esac
    ok=$([ -n "$df" ] && { [ "$df" -le $(( hb_bound + FM_DI_SLACK_MS )) ] \
         || { [ -n "$dh" ] && [ "$df" -le $(( dh + FM_DI_SLACK_MS )) ]; }; }; echo $?)
    fm_result "$ok" "T: $fault: detected by heartbeat after ${dh:-never} ms, by faultmon after ${df:-never} ms; serving again after ${RES[hb]:--} / ${RES[fm]:--} ms"
    T_ROWS+=("$fault"$'\t'"${dh:-never}"$'\t'"${df:-never}"$'\t'"${RES[hb]:--}"$'\t'"${RES[fm]:--}")
    sc_row "T $fault (monitor ${FM_DI_MON}s/${FM_DI_MON_TO}s)" "faultmon detects no later" "hb ${dh:-never}, fm ${df:-never}" "$df" "${RES[fm]:--}" "$ok"
    repair $HB & p1=$!; repair $FM & p2=$!; wait "$p1" "$p2"
    # a cleanup while a failed start is still being recorded would leave
    # the ban of that start: settle first
    fm_wait_idle 60
    fm_cleanup hb; fm_cleanup fm
    fm_wait_resource hb $HB 60 >/dev/null; fm_wait_resource fm $FM 60 >/dev/null
    fm_wait_serving $HB /health 20; fm_wait_serving $FM /health 20
done
fm_diag "heartbeat vs faultmon, heartbeat's parameters only, op monitor interval=${FM_DI_MON}s timeout=${FM_DI_MON_TO}s (ms from the fault):"
fm_diag "$(printf '%-8s %14s %14s %14s %14s\n' fault hb_detect fm_detect hb_serving fm_serving; for r in "${T_ROWS[@]}"; do IFS=$'\t' read -r a b c d e <<<"$r"; printf '%-8s %14s %14s %14s %14s\n' "$a" "$b" "$c" "$d" "$e"; done)"
delete hb fm

# ----------------------------------------------------------------- end
fm_cluster_destroy
no_netns_left() { ! ip netns list | grep -q "^${FM_NS_PREFIX}"; }
fm_ok "teardown: no namespace of this run left" no_netns_left
fm_timings_report
sc_report
fm_done
