#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-overload-nginx.sh: overload is not a hang, on the real loop against a
# real nginx (one worker, worker_connections 8: at most 6 client
# connections, since the worker keeps one for its listening socket and one
# for its master's channel) filled by a real load generator (ab,
# apache2-utils) with 6 slow downloads (limit_rate).  nginx then closes
# every new connection at once, the probe's and its stub_status request's
# alike, so the page never answers; the kernel's view of the port does:
# nginx still accepts (its accept queue stays empty) and holds all 6
# connections (overload_capacity 6): degraded (OCF 190), not weighed, no
# restart.  The same nginx SIGSTOPped (master and worker, which this
# script started and checked) while ab still holds its connections: the
# probe's connection waits in the accept queue and nothing is accepted:
# the normal rules, a restart.  A second loop beside it has no status
# page (overload_status_url=tcp://HOST:PORT: the kernel only) and judges
# alike.
#
# Heartbeat's ocf:heartbeat:nginx, side by side (its monitor under a 10 s
# op timeout as Pacemaker kills it): at OCF_CHECK_LEVEL 0 it only looks
# for the master process, and passes both the full and the stopped nginx
# (a stopped process is running); at level 10 it fetches status10url with
# curl, which nginx resets when full and which hangs when stopped: it
# fails both (it restarts the busy server as it restarts the stopped one).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

NGINX=${WS_NGINX:-/usr/sbin/nginx}
AB=${AB:-/usr/bin/ab}
if [ ! -x "$NGINX" ]; then
    echo "1..0 # SKIP nginx not installed (apt-get install nginx-light)"
    exit 0
fi
if [ ! -x "$AB" ]; then
    echo "1..0 # SKIP ab not installed (apt-get install apache2-utils)"
    exit 0
fi
tap_watchdog 150
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 14

dir=$FM_TMP/nginx
mkdir -p "$dir/tmp" "$dir/htdocs"
chmod 755 "$FM_TMP" "$dir"
echo ok >"$dir/htdocs/health"
# 64 KiB at 4 KiB/s: each download holds its connection for 16 s.
head -c 65536 /dev/zero | tr '\0' a >"$dir/htdocs/big"
chmod -R a+rX "$dir/htdocs"
port=$(fm_free_port 0) || bail_out "no free port"
user_line=
[ "$(id -u)" = 0 ] && user_line='user root;'
cat >"$dir/nginx.conf" <<CONF
$user_line
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log notice;
events { worker_connections 8; }
http {
    access_log off;
    client_body_temp_path $dir/tmp;
    proxy_temp_path $dir/tmp;
    fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp;
    scgi_temp_path $dir/tmp;
    default_type text/plain;
    server {
        listen 127.0.0.1:$port backlog=16;
        root $dir/htdocs;
        limit_rate 4k;
        location = /nginx_status { stub_status; }
    }
}
CONF
setsid "$NGINX" -p "$dir" -c "$dir/nginx.conf" >"$dir/stdout.log" 2>&1 </dev/null &
nginx=$!
fm_cleanup_add "kill -CONT $nginx 2>/dev/null; kill -TERM $nginx 2>/dev/null; wait $nginx 2>/dev/null"
fm_wait_port 127.0.0.1 "$port" 10 || { diag_file "$dir/error.log" "$dir/stdout.log"; bail_out "nginx did not start"; }
worker=$(ps -o pid= --ppid "$nginx" | tr -d ' ')
[ "$(ps -o comm= -p "$nginx")" = nginx ] && [ -n "$worker" ] && [ "$(ps -o comm= -p "$worker")" = nginx ]
ok_if $? "nginx started: its master ($nginx) and one worker (${worker:-none}) are this test's"

export FAULTMON_STATE_DIR=$FM_TMP/state
log=$FM_TMP/loop.err
"$FAULTMON" run full --no-env -v --no-pacemaker --param "Monitor_Uri_List=http://127.0.0.1:$port/health" \
    --param Thorough_probe_interval=1s --param Probe_timeout=1s --param Retry_count=1 \
    --param "overload_status_url=http://127.0.0.1:$port/nginx_status" --param overload_capacity=6 2>"$log" &
loop=$!
fm_cleanup_add "kill -TERM $loop 2>/dev/null; wait $loop 2>/dev/null"
wait_log() { fm_wait_log "$log" "$1" "$2" "$loop"; }
wait_log 'monitoring 1 target' 10
ok_if $? "the loop started against a healthy nginx"
klog=$FM_TMP/kernel.err
"$FAULTMON" run kernel --no-env -v --no-pacemaker --param "Monitor_Uri_List=http://127.0.0.1:$port/health" \
    --param Thorough_probe_interval=1s --param Probe_timeout=1s --param Retry_count=1 \
    --param "overload_status_url=tcp://127.0.0.1:$port" --param overload_capacity=6 2>"$klog" &
kloop=$!
fm_cleanup_add "kill -TERM $kloop 2>/dev/null; wait $kloop 2>/dev/null"
fm_wait_log "$klog" 'monitoring 1 target' 10 "$kloop"
ok_if $? "a second loop, with no status page (tcp://: the kernel only), started"

# Every connection busy: 6 clients, each download 16 s; -r: ab goes on
# when nginx closes a connection it has no room for.
"$AB" -q -r -s 60 -t 40 -n 100000 -c 6 "http://127.0.0.1:$port/big" >"$FM_TMP/ab.out" 2>&1 &
ab=$!
fm_cleanup_add "kill -TERM $ab 2>/dev/null"

# heartbeat_monitor LEVEL: ocf:heartbeat:nginx's monitor on this nginx at
# OCF_CHECK_LEVEL LEVEL, under a 10 s op timeout as Pacemaker would kill
# it; prints "RC SECONDS".
HEARTBEAT=${OCF_ROOT:-/usr/lib/ocf}/resource.d/heartbeat/nginx
heartbeat_monitor() {
    local t0 rc
    t0=$(fm_now_ms)
    OCF_ROOT=${OCF_ROOT:-/usr/lib/ocf} OCF_RESOURCE_INSTANCE=full OCF_RESKEY_configfile=$dir/nginx.conf \
        OCF_RESKEY_httpd=$NGINX OCF_RESKEY_status10url="http://127.0.0.1:$port/nginx_status" \
        OCF_CHECK_LEVEL=$1 OCF_RESKEY_CRM_meta_timeout=10000 \
        timeout -s KILL 10 "$HEARTBEAT" monitor >"$FM_TMP/hb.out" 2>&1
    rc=$?
    echo "$rc $((($(fm_now_ms) - t0) / 1000))"
}

wait_log 'all 6 connections busy.*overloaded, not restarting' 15
ok_if $? "every connection busy: the failed cycle is held as overloaded" || diag_file "$log"
like "$(grep -m1 'overloaded, not restarting' "$log")" 'state degraded, action degraded' \
    "degraded (OCF 190), with the reason"
like "$(grep -m1 'overloaded, not restarting' "$log")" 'accept queue empty' \
    "the evidence is the kernel's: nginx closed the status request too"
fm_wait_log "$klog" 'all 6 connections busy.*overloaded, not restarting' 15 "$kloop"
ok_if $? "without a status page: held as overloaded on the kernel's word alone" || diag_file "$klog"
sleep 4
! grep -q 'action restart' "$log" "$klog"
ok_if $? "no restart while overloaded" || diag_file "$log" "$klog"
if [ -x "$HEARTBEAT" ]; then
    hb_busy0=$(heartbeat_monitor 0)
    hb_busy10=$(heartbeat_monitor 10)
    diag "ocf:heartbeat:nginx monitor, every connection busy: level 0: rc $hb_busy0 s; level 10: rc $hb_busy10 s"
fi

# The same nginx, stopped while ab still holds its 6 connections: the
# kernel sees them held, but the probe's connection waits unaccepted.
kill -STOP "$worker"
kill -STOP "$nginx"
wait_log 'action restart' 15
ok_if $? "the same nginx SIGSTOPped: restarted (nothing accepted, no excuse)" || diag_file "$log"
! grep 'action restart' "$log" | grep -q 'overloaded'
ok_if $? "the restart does not claim overload"
fm_wait_log "$klog" 'action restart' 15 "$kloop"
ok_if $? "without a status page, the stopped nginx: restarted too" || diag_file "$klog"
if [ -x "$HEARTBEAT" ]; then
    hb_stop0=$(heartbeat_monitor 0)
    hb_stop10=$(heartbeat_monitor 10)
    diag "ocf:heartbeat:nginx monitor, nginx stopped: level 0: rc $hb_stop0 s; level 10: rc $hb_stop10 s"
    [ "${hb_busy0%% *}" = 0 ] && [ "${hb_stop0%% *}" = 0 ]
    ok_if $? "heartbeat's monitor at level 0 passes both (it only looks for the process)"
    [ "${hb_busy10%% *}" != 0 ] && [ "${hb_stop10%% *}" != 0 ]
    ok_if $? "heartbeat's monitor at level 10 fails both: it would restart the busy nginx too"
else
    skip "heartbeat's monitor at level 0 passes both" "resource-agents is not installed"
    skip "heartbeat's monitor at level 10 fails both" "resource-agents is not installed"
fi
kill -CONT "$nginx"
kill -CONT "$worker"
# ab prints its results when interrupted.
kill -INT "$ab" 2>/dev/null
wait "$ab" 2>/dev/null
grep -q 'Complete requests' "$FM_TMP/ab.out"
ok_if $? "ab served real traffic meanwhile" || diag_file "$FM_TMP/ab.out"
