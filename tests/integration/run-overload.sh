#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-overload.sh: overload is not a hang, on the real loop against a real
# Apache (prefork, MaxRequestWorkers 4, mod_status) filled by a real load
# generator (ab, apache2-utils) on a CGI that takes a second: every worker
# busy, the probe times out, the status page (?auto), read late but read,
# says "all 4 workers busy": degraded (OCF 190 in the state), not weighed,
# no restart.  The same server SIGSTOPped (its parent and children, which
# this script started) answers no status page: the normal rules, a restart.
# A second loop whose probe the busy server answers, late but within its
# Probe_timeout, with a 404, is not excused by the same status page: a
# server that answered was not too busy to answer.
#
# Heartbeat's ocf:heartbeat:apache, side by side (its monitor, statusurl
# the HTML server-status, under a 10 s op timeout as Pacemaker kills it),
# does not tell them apart either: it has no bound of its own below the op
# timeout, so it waits in the same queue.  Measured here: busy, it passes
# (rc 0 after about 2 s: the queue was shorter than the op timeout; a
# queue longer than that fails it, and Pacemaker restarts the busy server);
# stopped, it hangs until the op timeout kills it (a failure: a restart).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/lib/overload-apache.sh
. "$FM_TEST_LIB/overload-apache.sh"

ov_require
tap_watchdog 120
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 11

ov_apache_start
port=$OV_PORT
ov_loop_start busy

# Every worker busy: 8 clients on 4 workers, each request a second.
"$AB" -q -s 60 -t 10 -n 100000 -c 8 "http://127.0.0.1:$port/cgi-bin/slow" >"$FM_TMP/ab.out" 2>&1 &
ab=$!
fm_cleanup_add "kill -TERM $ab 2>/dev/null"
alog=$FM_TMP/answered.err
"$FAULTMON" run answered --no-env -v --no-pacemaker --param "Monitor_Uri_List=http://127.0.0.1:$port/missing" \
    --param Thorough_probe_interval=1s --param Probe_timeout=5s --param Retry_count=1 \
    --param "overload_status_url=http://127.0.0.1:$port/server-status?auto" 2>"$alog" &
aloop=$!
fm_cleanup_add "kill -TERM $aloop 2>/dev/null; wait $aloop 2>/dev/null"

# heartbeat_monitor: ocf:heartbeat:apache's monitor on this server, under a
# 10 s op timeout as Pacemaker would kill it; prints "RC SECONDS".
HEARTBEAT=${OCF_ROOT:-/usr/lib/ocf}/resource.d/heartbeat/apache
heartbeat_monitor() {
    local t0 rc
    t0=$(fm_now_ms)
    OCF_ROOT=${OCF_ROOT:-/usr/lib/ocf} OCF_RESOURCE_INSTANCE=busy OCF_RESKEY_configfile=$OV_DIR/apache.conf \
        OCF_RESKEY_httpd=$APACHE OCF_RESKEY_statusurl="http://127.0.0.1:$port/server-status" \
        OCF_RESKEY_CRM_meta_timeout=10000 timeout -s KILL 10 "$HEARTBEAT" monitor >"$FM_TMP/hb.out" 2>&1
    rc=$?
    echo "$rc $((($(fm_now_ms) - t0) / 1000))"
}

wait_log 'all 4 workers busy: overloaded, not restarting' 15
ok_if $? "every worker busy: the failed cycle is held as overloaded" || diag_file "$log"
like "$(grep -m1 'overloaded, not restarting' "$log")" 'state degraded, action degraded' \
    "degraded (OCF 190), with the reason"
sleep 4
! grep -q 'action restart' "$log"
ok_if $? "no restart while overloaded" || diag_file "$log"
if [ -x "$HEARTBEAT" ]; then
    hb_busy=$(heartbeat_monitor)
    diag "ocf:heartbeat:apache monitor, every worker busy: rc and seconds: $hb_busy"
fi
[ "$(grep -c 'cycle complete.*action' "$alog")" -ge 2 ]
ok_if $? "the loop whose probe gets a 404 judged its cycles under the same load" || diag_file "$alog"
! grep -q 'overloaded' "$alog"
ok_if $? "a 404, answered however busy the server: never excused as overloaded" || diag_file "$alog"
kill -TERM "$aloop" 2>/dev/null
wait "$ab" 2>/dev/null
grep -q 'Complete requests' "$FM_TMP/ab.out"
ok_if $? "ab served real traffic meanwhile" || diag_file "$FM_TMP/ab.out"

# The same server, stopped: no status page, the normal rules.
sleep 4
ov_apache_freeze
wait_log 'action restart' 15
ok_if $? "the same server SIGSTOPped: restarted (no status page, no excuse)"
if [ -x "$HEARTBEAT" ]; then
    hb_stopped=$(heartbeat_monitor)
    diag "ocf:heartbeat:apache monitor, server stopped: rc and seconds: $hb_stopped"
    [ "${hb_stopped%% *}" != 0 ]
    ok_if $? "heartbeat's monitor fails the stopped server too (killed at its op timeout)"
    [ "${hb_busy%% *}" = 0 ]
    ok_if $? "heartbeat's monitor passes the busy server by waiting in its queue (rc ${hb_busy%% *})"
else
    skip "heartbeat's monitor fails the stopped server too" "resource-agents is not installed"
    skip "heartbeat's monitor passes the busy server by waiting" "resource-agents is not installed"
fi
! grep 'action restart' "$log" | grep -q 'overloaded'
ok_if $? "the restart does not claim overload"
ov_apache_thaw
