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

APACHE=${WS_APACHE:-/usr/sbin/apache2}
MODULES=${WS_APACHE_MODULES:-/usr/lib/apache2/modules}
AB=${AB:-/usr/bin/ab}
if [ ! -x "$APACHE" ] || [ ! -f "$MODULES/mod_mpm_prefork.so" ] || [ ! -f "$MODULES/mod_status.so" ]; then
    echo "1..0 # SKIP Apache with prefork and mod_status not installed (apt-get install apache2)"
    exit 0
fi
if [ ! -x "$AB" ]; then
    echo "1..0 # SKIP ab not installed (apt-get install apache2-utils)"
    exit 0
fi
tap_watchdog 120
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 11

dir=$FM_TMP/apache
mkdir -p "$dir/run" "$dir/htdocs" "$dir/cgi-bin"
chmod 755 "$FM_TMP" "$dir"
echo ok >"$dir/htdocs/health"
printf '#!/bin/sh\nsleep 1\nprintf "Content-Type: text/plain\\r\\n\\r\\nslow\\n"\n' >"$dir/cgi-bin/slow"
chmod -R a+rX "$dir/htdocs" "$dir/cgi-bin"
chmod 755 "$dir/cgi-bin/slow"
port=$(fm_free_port 0) || bail_out "no free port"
user_lines=
[ "$(id -u)" = 0 ] && user_lines=$'User www-data\nGroup www-data'
cat >"$dir/apache.conf" <<CONF
ServerRoot $dir
ServerName localhost
PidFile $dir/run/apache.pid
DefaultRuntimeDir $dir/run
ErrorLog $dir/error.log
LogLevel warn
LoadModule mpm_prefork_module $MODULES/mod_mpm_prefork.so
LoadModule authz_core_module $MODULES/mod_authz_core.so
LoadModule status_module $MODULES/mod_status.so
LoadModule cgi_module $MODULES/mod_cgi.so
LoadModule alias_module $MODULES/mod_alias.so
LoadModule mime_module $MODULES/mod_mime.so
$user_lines
Listen 127.0.0.1:$port
StartServers 4
MinSpareServers 1
MaxSpareServers 4
ServerLimit 4
MaxRequestWorkers 4
ListenBacklog 64
Timeout 30
TypesConfig /dev/null
DocumentRoot $dir/htdocs
<Directory />
    Require all granted
</Directory>
ScriptAlias /cgi-bin/ $dir/cgi-bin/
<Location /server-status>
    SetHandler server-status
</Location>
CONF
# In a session of its own: prefork signals its whole process group when it stops.
setsid "$APACHE" -f "$dir/apache.conf" -DFOREGROUND >"$dir/stdout.log" 2>&1 </dev/null &
apache=$!
fm_cleanup_add "kill -CONT $apache 2>/dev/null; kill -TERM $apache 2>/dev/null; wait $apache 2>/dev/null"
fm_wait_port 127.0.0.1 "$port" 10 || { diag_file "$dir/error.log" "$dir/stdout.log"; bail_out "Apache did not start"; }

export FAULTMON_STATE_DIR=$FM_TMP/state
log=$FM_TMP/loop.err
"$FAULTMON" run queue --no-env -v --no-pacemaker --param "Monitor_Uri_List=http://127.0.0.1:$port/health" \
    --param Thorough_probe_interval=1s --param Probe_timeout=1s --param Retry_count=1 \
    --param "overload_status_url=http://127.0.0.1:$port/server-status?auto" 2>"$log" &
loop=$!
fm_cleanup_add "kill -TERM $loop 2>/dev/null; wait $loop 2>/dev/null"
wait_log() { fm_wait_log "$log" "$1" "$2" "$loop"; }
wait_log 'monitoring 1 target' 10
ok_if $? "the loop started against a healthy Apache"
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
children=$(ps -o pid= --ppid "$apache")
[ "$(ps -o comm= -p "$apache")" = apache2 ] || bail_out "$apache is not this test's Apache"
kill -STOP "$apache"
for c in $children; do
    kill -STOP "$c"
done
wait_log 'action restart' 20
ok_if $? "the same Apache SIGSTOPped: restarted (nothing accepted, no excuse)" || diag_file "$log"
! grep 'action restart' "$log" | grep -q 'overloaded'
ok_if $? "the restart does not claim overload"
fm_wait_log "$klog" 'action restart' 20 "$kloop"
ok_if $? "without a status page, the stopped Apache: restarted too" || diag_file "$klog"
! grep 'action restart' "$klog" | grep -q 'overloaded'
ok_if $? "that restart does not claim overload either"
for c in $children; do
    kill -CONT "$c"
done
kill -CONT "$apache"
