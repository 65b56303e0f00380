#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/restart-inplace-3node.sh: a restart faultmon asks for stays
# on its node (issue 29 item 4), on a real 3-node Pacemaker cluster with
# Pacemaker's default resource-stickiness 0.
#
# A restart faultmon asks for is a failed operation (crm_resource --fail's
# call), after which the scheduler places the resource again; with
# stickiness 0 it may choose a node with fewer resources, so the restart
# becomes a move to a node with a fresh history and Retry_count is never
# reached.  Two Dummy resources that prefer web's node make that node the
# busiest, as other services would.
#
#  stickiness 0 (no migrate): /app broken once: restarted in place, through
#     the expiring constraint faultmon-stay-RSC the loop writes before it
#     asks (without it the restart's transition, aborted by an attribute
#     change while web was stopped, placed web on node1: measured).
#  `faultmon migrate web` (ocf:heartbeat:apache): sets resource-stickiness=1
#     on web and says why; then /app broken three times within
#     Retry_interval: restart, restart on the same node (faultmon counts 1,
#     2), then the failover (Sun's rule).
#
# Needs root, the packages of lib.sh, and the agents installed (make
# install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=480}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs apache2
sc_skip_unless_agents

TPI=2
fm_plan 8

fm_cluster_start 3 || fm_bail "3-node cluster did not form"
fm_result 0 "3-node cluster formed in ${FM_LAST_MS} ms (resource-stickiness unset: 0)"
fm_apache_setup
sc_apache_extras

pcs1() { fm_node_exec node1 pcs "$@" </dev/null >/dev/null 2>&1; }
# crowd NODE: two Dummy resources that prefer NODE
crowd() {
    local d
    for d in d1 d2; do
        pcs1 resource create "$d" ocf:pacemaker:Dummy op monitor interval=30s
        pcs1 constraint location "$d" prefers "$1=100"
    done
    fm_wait_idle 60
}
# to_node3 RSC: move RSC to node3 by hand, then drop the constraint
to_node3() {
    fm_node_exec node1 crm_resource --move -r "$1" -N node3 >/dev/null 2>&1
    fm_wait_resource "$1" node3 30 >/dev/null
    fm_node_exec node1 crm_resource --clear -r "$1" >/dev/null 2>&1
    fm_wait_idle 60
    fm_diag "$1 moved to node3 then its constraint cleared: now on $(fm_resource_nodes "$1")"
}
# broken_once RSC NODE: /app broken on NODE; echo where RSC serves again
broken_once() {
    local rsc=$1 node=$2 on=""
    sc_break_app "$node" >/dev/null
    restarted() {
        on=$(fm_resource_nodes "$rsc" | head -n1)
        [ -n "$on" ] && [ "$(fm_http "$on" /app)" = 200 ]
    }
    fm_poll 40 restarted
    echo "$on"
}

# ------------------------------------------------------- stickiness 0
pcs1 resource create w0 ocf:faultmon:apache configfile="$FM_APACHE_CONF" \
    Monitor_Uri_List="http://127.0.0.1/app" Thorough_probe_interval=$TPI Probe_timeout=1 \
    Retry_count=2 Retry_interval=300 op monitor interval=10s
X=$(fm_wait_resource w0 any 30)
[ -n "$X" ] && fm_wait_serving "$X" /app 10 || fm_bail "w0 did not start"
# off node1, which wins every tie of the scheduler
to_node3 w0
X=$(fm_wait_resource w0 any 30)
fm_wait_serving "${X:-none}" /app 10
crowd "$X"
on=$(broken_once w0 "$X")
rs=$(sc_fm_field "$X" w0 restarts_in_window)
cons=$(fm_node_exec node1 cibadmin --query --scope constraints 2>/dev/null | grep -o '<rsc_location id="faultmon-stay-w0"[^>]*>')
ok=$([ "$on" = "$X" ] && [ "$rs" = 1 ] && [ -n "$cons" ]; echo $?)
fm_result "$ok" "stickiness 0, w0's node the busiest: one restart asked by faultmon stays in place on ${on:-nowhere} (was $X; restarts $rs; $cons)"
pcs1 resource delete w0
pcs1 resource delete d1
pcs1 resource delete d2
fm_wait_idle 60

# --------------------------------------------- faultmon migrate web, then
pcs1 resource create web ocf:heartbeat:apache configfile="$FM_APACHE_CONF" \
    statusurl="$FM_APACHE_STATUSURL" op monitor interval=10s
X=$(fm_wait_resource web any 30)
[ -n "$X" ] && fm_wait_serving "$X" /health 10 || fm_bail "web did not start"
out=$(fm_node_exec node1 "$SC_FAULTMON" migrate web --timeout 60 2>&1)
st=$?
sticky=$(fm_node_exec node1 crm_resource --resource web --meta --get-parameter resource-stickiness 2>/dev/null)
ok=$([ "$st" = 0 ] && [ "$sticky" = 1 ] && [[ $out == *"resource-stickiness is unset (0): it will be set to 1"* ]]; echo $?)
fm_result "$ok" "faultmon migrate web: migrated, resource-stickiness=$sticky set and said why (exit $st): $out"
pcs1 resource update web Monitor_Uri_List="http://127.0.0.1/app" Thorough_probe_interval=$TPI Probe_timeout=1 \
    Retry_count=2 Retry_interval=300
fm_wait_idle 60
to_node3 web
X=$(fm_wait_resource web any 30)
fm_wait_serving "${X:-none}" /app 10
fm_result $? "web as ocf:faultmon:apache with Monitor_Uri_List=/app, Retry_count=2: on ${X:-nowhere}"
crowd "$X"

for k in 1 2; do
    on=$(broken_once web "$X")
    rs=$(sc_fm_field "$X" web restarts_in_window)
    ok=$([ "$on" = "$X" ] && [ "$rs" = "$k" ]; echo $?)
    fm_result "$ok" "/app broken ($k): restarted in place on ${on:-nowhere} (was $X, the busiest node), faultmon counts $rs restart(s)"
done
sc_break_app "$X" >/dev/null
Y=$(fm_wait_resource web "!$X" 60)
fm_wait_serving "${Y:-none}" /app 20
ok=$([ $? = 0 ] && [ -n "$Y" ] && [[ $(sc_status "$X" web | sc_jget reason) == *"exceed"*"Retry_count 2"*"failing over"* ]]; echo $?)
fm_result "$ok" "/app broken (3) within Retry_interval: failover to ${Y:-nowhere}, as Sun's rule says: '$(sc_status "$X" web | sc_jget reason)'"
fm_result 0 "the other resources stayed: d1 on $(fm_resource_nodes d1), d2 on $(fm_resource_nodes d2)"

fm_timings_report
fm_done
