#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/dropin-1node.sh: ocf:faultmon:apache as a drop-in for
# ocf:heartbeat:apache on a real single-node Pacemaker cluster (issue 9).
# Every resource is configured with heartbeat's parameters only (configfile,
# statusurl) unless a scenario says otherwise.
#
#  A. (items 1, 4, 5) Failures found by the agent's monitor count: with a
#     2 s monitor (the loop probes every second), httpd killed three times:
#     restart, restart, failover, whoever (monitor or loop) saw each kill;
#     `migration-threshold=5` kept from a heartbeat set-up does not move the
#     resource early (each restart counts once in the fail-count), and
#     validate-all refuses a threshold that would (rsc_defaults 3 with
#     Retry_count=2); the
#     failover shows fail-count INFINITY, an exit reason that leads with the
#     target and cause, and the full reason as node attribute
#     faultmon-RSC-reason.
#  B. (item 2) `pcs resource cleanup` after the failover clears faultmon's
#     decision and history: the resource starts here again and faultmon
#     counts 0 restarts; `faultmon reset RSC` does the same by hand.
#  C. (item 3) heartbeat's parameters and `op monitor interval=5s
#     timeout=10s` only: a hung httpd (SIGSTOP) is restarted within the
#     monitor interval plus the monitor timeout (as heartbeat's monitor
#     timing out would), and a status page answering 403 is a failure (as
#     for heartbeat's wget).
#
# Needs root, the packages of lib.sh, and the agents installed (make
# install); otherwise "1..0 # SKIP".  Takes about 2 minutes.

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=360}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs crm apache2 attrd_updater
sc_skip_unless_agents

N=node1
AG=ocf:faultmon:apache
SURL=$FM_APACHE_STATUSURL

fm_plan 14

fm_cluster_start 1 || fm_bail "single-node cluster did not form"
fm_result 0 "single-node cluster formed in ${FM_LAST_MS} ms; agents: $(readlink -f "$FM_OCF_DIR/faultmon/apache")"
fm_apache_setup "$N"

started() { fm_wait_resource "$1" "$N" 30 >/dev/null && fm_wait_serving "$N" /health 10; }
delete() { fm_node_exec "$N" pcs resource delete "$1" >/dev/null 2>&1; fm_wait_idle 60; }
node_attr() { fm_node_exec "$N" attrd_updater -Q -n "$1" -N "$N" 2>/dev/null | sed -n 's/.*value="\(.*\)"$/\1/p'; }
new_pid() { local p; p=$(sc_httpd_pid "$N"); [ "$p" != 0 ] && [ "$p" != "$1" ] && [ "$(fm_http "$N" /health)" = 200 ]; }

# ------------------------------------ A: restart, restart, failover (1, 4, 5)
fm_node_exec "$N" pcs resource create d1 "$AG" configfile="$FM_APACHE_CONF" statusurl="$SURL" \
    op monitor interval=2s timeout=20s meta migration-threshold=5 >/dev/null 2>&1
st=$?
started d1
fm_result $((st || $?)) "A: d1 with heartbeat's parameters, monitor 2 s, migration-threshold=5: started and serving"

# the policy's other half: a threshold that would move it before Retry_count
# (here from rsc_defaults, for a resource dx with no threshold of its own)
pcs_out=$(fm_node_exec "$N" pcs resource defaults update migration-threshold=3 2>&1)
out=$(fm_node_exec "$N" env OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE=dx OCF_RESKEY_configfile="$FM_APACHE_CONF" \
      OCF_RESKEY_statusurl="$SURL" "$FM_OCF_DIR/faultmon/apache" validate-all 2>&1)
st=$?
reason=$(sed -n 's/^ocf-exit-reason://p' <<<"$out" | tail -n1)
ok=$([ "$st" = 6 ] && grep -q 'migration-threshold=3' <<<"$reason"; echo $?)
fm_result "$ok" "A: validate-all with rsc_defaults migration-threshold=3 and Retry_count=2: exit $st, '$reason'" \
    || fm_diag "pcs: $pcs_out" "agent: $out"
fm_node_exec "$N" pcs resource defaults update migration-threshold= >/dev/null 2>&1

for k in 1 2; do
    pid0=$(sc_httpd_pid "$N")
    sleep "0.$((RANDOM % 10))"
    fm_httpd_kill "$N"
    fm_poll 30 new_pid "$pid0"
    sleep 1
    rs=$(sc_fm_field "$N" d1 restarts_in_window) fc=$(fm_failcount d1 "$N")
    on=$(fm_resource_nodes d1)
    ok=$([ "$rs" = "$k" ] && [ "$fc" = "$k" ] && [ "$on" = "$N" ]; echo $?)
    fm_result "$ok" "A: kill $k: restarted on ${on:-nowhere} (httpd pid $pid0 -> $(sc_httpd_pid "$N")); faultmon counts $rs restart(s), fail-count $fc (want $k and $k)"
done

t0=$(fm_now_ms)
fm_httpd_kill "$N"
fm_wait_resource d1 none 30 >/dev/null
det=$(fm_since_ms "$t0")
# The refused start's INFINITY is written a moment after the resource shows
# stopped: wait for it rather than read the fail-count of the restarts.
failcount_infinity() { [ "$(fm_failcount d1 "$N")" = INFINITY ]; }
fm_poll 10 failcount_infinity
fc=$(fm_failcount d1 "$N")
rc=$(fm_failures d1 | awk -F'\t' '$5 == 4' | tail -n1 | cut -f5)
reason=$(fm_failures d1 | awk -F'\t' '$5 == 4' | tail -n1 | cut -f7 | sed -e "s/&apos;/'/g" -e 's/&quot;/"/g' -e 's/&amp;/\&/g')
dec=$(sc_fm_field "$N" d1 reason)
ok=$([ -z "$(fm_resource_nodes d1)" ] && [ "$rc" = 4 ] && [[ $dec == *"failing over"* ]] && [ "$fc" = INFINITY ]; echo $?)
fm_result "$ok" "A: kill 3 within Retry_interval: failover after $det ms (rc ${rc:-none}, fail-count $fc, faultmon: '$dec')"
ok=$(grep -qE '^(httpd|http://)' <<<"$reason" && grep -q 'Retry_count' <<<"$reason"; echo $?)
fm_result "$ok" "A: the exit reason leads with the target and cause, then the decision: '$reason'"
attr=$(node_attr faultmon-d1-reason)
ok=$(grep -q 'Retry_count 2' <<<"$attr" && grep -qE 'fail(ing)? ?over' <<<"$attr"; echo $?)
fm_result "$ok" "A: the full reason is node attribute faultmon-d1-reason: '$attr'"

# ------------------------------------------- B: cleanup and reset clear (2)
fm_cleanup d1
started d1
st=$?
sleep 3
rs=$(sc_fm_field "$N" d1 restarts_in_window) nf=$(sc_fm_field "$N" d1 next_failure)
ok=$([ "$st" -eq 0 ] && [ "$(fm_resource_nodes d1)" = "$N" ] && [ "$rs" = 0 ] && [[ $nf == restart* ]]; echo $?)
fm_result "$ok" "B: after a cleanup d1 starts on $N again and faultmon counts $rs restarts (next failure: $nf)"

pid0=$(sc_httpd_pid "$N")
fm_httpd_kill "$N"
fm_poll 30 new_pid "$pid0"
sleep 1
rs1=$(sc_fm_field "$N" d1 restarts_in_window)
sc_fm "$N" reset d1 >/dev/null 2>&1
st=$?
sleep 1
rs2=$(sc_fm_field "$N" d1 restarts_in_window)
ok=$([ "$st" -eq 0 ] && [ "$rs1" = 1 ] && [ "$rs2" = 0 ] && [ "$(fm_resource_nodes d1)" = "$N" ]; echo $?)
fm_result "$ok" "B: faultmon reset d1 (exit $st): restarts $rs1 -> $rs2, still running"
delete d1

# ---------------------------- C: heartbeat's parameters detect as fast (3)
fm_node_exec "$N" pcs resource create d3 "$AG" configfile="$FM_APACHE_CONF" statusurl="$SURL" \
    op monitor interval=5s timeout=10s op stop timeout=10s >/dev/null 2>&1
st=$?
started d3
fm_result $((st || $?)) "C: d3 with heartbeat's parameters and monitor interval=5s timeout=10s: started"
pid0=$(sc_httpd_pid "$N")
t0=$(fm_now_ms)
fm_httpd_kill "$N" STOP
fm_poll 40 new_pid "$pid0"
t=$(fm_since_ms "$t0")
ok=$([ "$t" -le 20000 ] && fm_wait_resource d3 "$N" 10 >/dev/null; echo $?)
fm_result "$ok" "C: SIGSTOP: serving again (new httpd) after $t ms (heartbeat's bound: interval 5 s + timeout 10 s + 5 s)"
fm_httpd_kill "$N" CONT 2>/dev/null

sleep 2
fc0=$(fm_failcount d3 "$N")
s=$(fm_node_dir "$N")/root/srv/apache/httpd.conf
cp "$s" "$s.orig"
sed -i 's|Require ip 127.0.0.1|Require all denied|' "$s"
t0=$(fm_now_ms)
fm_node_exec "$N" sh -c "kill -USR1 \$(cat '$FM_APACHE_PIDFILE')"
code403() { [ "$(fm_http "$N" /server-status)" = 403 ]; }
fm_poll 10 code403
failed() { [ "$(fm_failcount d3 "$N")" != "$fc0" ]; }
fm_poll 30 failed
t=$(fm_since_ms "$t0")
ok=$(failed && [ "$t" -le 15000 ]; echo $?)
fm_result "$ok" "C: status page 403: detected after $t ms (fail-count $fc0 -> $(fm_failcount d3 "$N"))"
mv "$s.orig" "$s"
delete d3

# ----------------------------------------------------------------- end
fm_cluster_destroy
no_netns_left() { ! ip netns list | grep -q "^${FM_NS_PREFIX}"; }
fm_ok "teardown: no namespace of this run left" no_netns_left
fm_done
