#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/remote-stand.sh: a recovery decided on a Pacemaker Remote
# node stands until Pacemaker acts on it (issue 29 item 5).  On a remote
# node the controller refuses the loop's fail request, so the decision
# reaches Pacemaker through the agent's next monitor (every 10 s here),
# which reads it from the state file; the service answering again before
# that monitor used to make the decision lapse (nothing restarted), while on
# a cluster node the same decision is carried out at once.
#
#  2 cluster nodes and 1 remote node, web (ocf:faultmon:apache) on the remote
#  node only; /app (a static file) removed, so 404, until the loop decides a
#  restart, then put back at once: the restart still happens, in place, at
#  the next monitor.
#
# Needs root, the packages of lib.sh, pacemaker-remoted, and the agents
# installed (make install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=300}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs apache2
fm_skip_unless_remote
sc_skip_unless_agents

TPI=2
MON=10
R=remote1
fm_plan 4

fm_cluster_start 2 || fm_bail "2-node cluster did not form"
fm_remote_start 1 || fm_bail "the remote node did not come online"
fm_result 0 "2 cluster nodes and remote node $R online"
fm_apache_setup "$R"
sc_apache_extras "$R"

fm_node_exec node1 pcs resource create web ocf:faultmon:apache configfile="$FM_APACHE_CONF" \
    Monitor_Uri_List="http://127.0.0.1/app" Thorough_probe_interval=$TPI Probe_timeout=1 \
    Retry_count=2 Retry_interval=300 op monitor interval=${MON}s --disabled </dev/null >/dev/null 2>&1
sc_remote_only web "$R"
fm_node_exec node1 pcs resource enable web </dev/null >/dev/null 2>&1
fm_wait_resource web "$R" 40 >/dev/null && fm_wait_serving "$R" /app 10
fm_result $? "web (ocf:faultmon:apache, monitor ${MON}s) on remote node $R, serving /app"

app=$(fm_node_dir "$R")/root/srv/www/app
pid0=$(sc_httpd_pid "$R")
mv "$app" "$app.away"
t0=$(fm_now_ms)
decided() { sc_fm_field "$R" web reason | grep -q "restart 1 of Retry_count 2"; }
fm_poll 20 decided
st=$?
mv "$app.away" "$app"
d_dec=$(fm_since_ms "$t0")
back() { [ "$(fm_http "$R" /app)" = 200 ]; }
fm_poll 5 back
pending=$(sc_fm_field "$R" web pending)
ok=$([ "$st" = 0 ] && [ "$(sc_httpd_pid "$R")" = "$pid0" ]; echo $?)
fm_result "$ok" "/app 404 on $R: restart decided after $d_dec ms; /app put back at once, serving 200 before the next monitor (pending '$pending')"

restarted() { local p; p=$(sc_httpd_pid "$R"); [ "$p" != "$pid0" ] && [ "$p" != 0 ] && [ "$(fm_http "$R" /app)" = 200 ]; }
fm_poll $((MON + 15)) restarted
st=$?
d_done=$(fm_since_ms "$t0")
# Where it runs, once Pacemaker has recorded the start: httpd serves before
# the start's result reaches the CIB, when crm_mon shows it on no node.
on_r() { on=$(fm_resource_nodes web | head -n1); [ "$on" = "$R" ]; }
fm_poll 10 on_r
rs=$(sc_fm_field "$R" web restarts_in_window)
ok=$([ "$st" = 0 ] && [ "$on" = "$R" ] && [ "$rs" = 1 ]; echo $?)
fm_result "$ok" "the decided restart stands: carried out at the next monitor, in place on ${on:-nowhere} (httpd pid $pid0 -> $(sc_httpd_pid "$R"), faultmon counts $rs) $d_done ms after the fault"
fm_timing "remote node: fault -> decided restart carried out, the service back before the monitor" "$d_done" "monitor ${MON}s"

fm_timings_report
fm_done
