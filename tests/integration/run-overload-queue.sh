#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-overload-queue.sh: the kernel's witness of overload (the accept
# queue, doc/overload.md) on a real Apache (prefork, MaxRequestWorkers 4)
# filled by a real load generator (ab -c 40 on a CGI that takes a second):
# 36 connections wait in the accept queue, so the status page, behind them,
# cannot answer within its bound (3 x Probe_timeout).  The kernel's two
# looks see connections waiting at both and some of them accepted between:
# overloaded, held (degraded, no restart).  The same Apache SIGSTOPped (its
# parent and children, which this script started): the queue stays, nothing
# is accepted: no evidence, a restart.  A second loop beside it has no
# status page at all (overload_status_url=tcp://HOST:PORT: the kernel only)
# and must judge alike.

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
ov_loop_start queue
klog=$FM_TMP/kernel.err
"$FAULTMON" run kernel --no-env -v --no-pacemaker --param "Monitor_Uri_List=http://127.0.0.1:$port/health" \
    --param Thorough_probe_interval=1s --param Probe_timeout=1s --param Retry_count=1 \
    --param "overload_status_url=tcp://127.0.0.1:$port" 2>"$klog" &
kloop=$!
fm_cleanup_add "kill -TERM $kloop 2>/dev/null; wait $kloop 2>/dev/null"
fm_wait_log "$klog" 'monitoring 1 target' 10 "$kloop"
ok_if $? "a second loop, with no status page (tcp://: the kernel only), started"

# 40 clients on 4 workers, each request a second: 36 wait in the queue.
"$AB" -q -s 60 -t 30 -n 100000 -c 40 "http://127.0.0.1:$port/cgi-bin/slow" >"$FM_TMP/ab.out" 2>&1 &
ab=$!
fm_cleanup_add "kill -TERM $ab 2>/dev/null"

wait_log 'waiting in the accept queue \(backlog 64\), accepted slowly: overloaded, not restarting' 20
ok_if $? "a long accept queue, drained slowly: held as overloaded on the kernel's word" || diag_file "$log"
line=$(grep -m1 'accepted slowly: overloaded' "$log")
diag "$line"
like "$line" 'state degraded, action degraded' "degraded (OCF 190), with the reason"
! grep -q 'all 4 workers busy' "$log"
ok_if $? "the status page, behind the queue, never answered in time" || diag_file "$log"
fm_wait_log "$klog" 'accepted slowly: overloaded, not restarting' 20 "$kloop"
ok_if $? "without a status page: held as overloaded on the kernel's word alone" || diag_file "$klog"
sleep 3
! grep -q 'action restart' "$log" "$klog"
ok_if $? "no restart while overloaded" || diag_file "$log" "$klog"

# The same server, stopped under the same load: the queue stays full.
ov_apache_freeze
wait_log 'action restart' 20
ok_if $? "the same Apache SIGSTOPped: restarted (nothing accepted, no excuse)" || diag_file "$log"
! grep 'action restart' "$log" | grep -q 'overloaded'
ok_if $? "the restart does not claim overload"
fm_wait_log "$klog" 'action restart' 20 "$kloop"
ok_if $? "without a status page, the stopped Apache: restarted too" || diag_file "$klog"
! grep 'action restart' "$klog" | grep -q 'overloaded'
ok_if $? "that restart does not claim overload either"
ov_apache_thaw
