#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-accesslog.sh: access_log, the passive signal of the server's own
# traffic, on a real Apache writing its combined log with real requests
# (curl, a bounded loop), a share of them to /boom, which answers 500: no
# failure below access_log_min_requests nor below access_log_5xx_pct, a
# partial failure (weight 50, once per window) above it; logrotate's two
# rotations in the middle (rename + create with a graceful restart, then
# copytruncate) lose no line.  The probe is an exec target (/bin/true), so
# that the log holds only the test's requests.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

if ! ws_have_apache; then
    echo "1..0 # SKIP Apache httpd is not installed (apt-get install apache2)"
    exit 0
fi
if ! command -v curl >/dev/null; then
    echo "1..0 # SKIP curl is not installed"
    exit 0
fi
tap_watchdog 120
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 13

export FAULTMON_STATE_DIR=$FM_TMP/state
LOGS=$FM_TMP/logs
LOG=$LOGS/access.log
mkdir -p "$LOGS"
chmod 755 "$FM_TMP" "$LOGS"
# Apache's own combined format, as Debian's apache2.conf defines it.
WA_EXTRA_CONF="LogFormat \"%h %l %u %t \\\"%r\\\" %>s %O \\\"%{Referer}i\\\" \\\"%{User-Agent}i\\\"\" combined
CustomLog $LOG combined"
ws_apache_start || bail_out "Apache did not start"
BASE=http://127.0.0.1:$WA_HTTP_PORT

LOOP_PID=
# shellcheck disable=SC2016 # run at exit, with the PID of then
fm_cleanup_add '[ -n "$LOOP_PID" ] && kill -KILL "$LOOP_PID" 2>/dev/null'

# requests N PATH: N requests, one curl each (real clients), bounded.
requests() {
    local i
    for i in $(seq 1 "$1"); do
        curl -s -o /dev/null --max-time 5 "$BASE$2" || diag "curl $2 failed"
    done
}

# json EXPR: one value of `faultmon status $RSC --json`'s resource.
json() {
    "$FAULTMON" status "$RSC" --json 2>/dev/null |
        "$PYTHON3" -c "import json,sys; r=json.load(sys.stdin)['resources'][0]; print($1)" 2>/dev/null
}

# wait_replies N: until the loop has counted N replies (a cycle a second), at most 10 s.
wait_replies() {
    for _ in $(seq 1 100); do
        [ "$(json 'r.get("access_log", {}).get("requests")')" = "$1" ] && return 0
        sleep 0.1
    done
    return 1
}

# start_loop RESOURCE: a loop that follows the log from its end; LOOP_PID.
start_loop() {
    "$FAULTMON" run "$1" --no-env -v --param Probe_command=/bin/true --param Thorough_probe_interval=1s \
        --param Retry_interval=300s --param "access_log=$LOG" --param access_log_window=60s \
        --param access_log_5xx_pct=20 --param access_log_min_requests=20 2>>"$FM_TMP/run.err" &
    LOOP_PID=$!
    for _ in $(seq 1 100); do
        [ -f "$FAULTMON_STATE_DIR/$1/state" ] && break
        sleep 0.05
    done
}

# 1-2: ten 500s on a quiet server: below access_log_min_requests, no failure.
RSC=quiet
start_loop quiet
requests 10 /boom
wait_replies 10
is "$(json 'r["access_log"]["errors_5xx"]')/$(json 'r["access_log"]["requests"]')" 10/10 \
    "status shows the window's replies: 10 of 10 5xx"
sleep 2
is "$(json 'r["weight"]')" 0 "10 replies, all 500, below access_log_min_requests 20: no failure"
kill -TERM "$LOOP_PID"
wait "$LOOP_PID"

# 3: another loop, from the log's end: 90 replies that pass, then 10 500s:
# never more than 10%, below 20%: no failure.
RSC=web
start_loop web
requests 90 /health
requests 10 /boom
wait_replies 100
sleep 2
is "$(json 'r["weight"]')" 0 "10 of 100 replies 5xx, below access_log_5xx_pct 20: no failure"

# 4-6: rename + create (logrotate's default, then Apache's graceful restart
# reopens its logs), then copytruncate, with failing requests in between.
requests 20 /boom
mv "$LOG" "$LOG.1"
requests 20 /boom               # still into the renamed file until the reload
kill -USR1 "$WA_PID"
for _ in $(seq 1 50); do
    [ -f "$LOG" ] && break
    sleep 0.1
done
fm_wait_port 127.0.0.1 "$WA_HTTP_PORT" 5
requests 20 /boom
wait_replies 160
is "$(json 'r["access_log"]["requests"]')" 160 "rename + create: every reply counted (the renamed file read to its end)"
cp "$LOG" "$LOG.2"
: >"$LOG"
requests 10 /boom
requests 10 /health
wait_replies 180
is "$(json 'r["access_log"]["requests"]')/$(json 'r["access_log"]["errors_5xx"]')" 180/80 \
    "copytruncate: every reply counted (read again from the start), 80 of them 5xx"
lines=$(cat "$LOG.1" "$LOG.2" "$LOG" | wc -l)
is "$((lines - 10))" 180 "the log files hold the 180 replies counted after the quiet loop's 10 (none lost, none twice)"

# 7-9: above the threshold: a partial failure, weight 50, with the cause.
for _ in $(seq 1 30); do
    [ "$(json 'r["weight"]')" = 50 ] && break
    sleep 0.1
done
is "$(json 'r["weight"]')" 50 "80 of 180 replies 5xx (44%, over 20%): a partial failure, weight 50"
is "$(json 'r["state"]')" degraded "the state is degraded"
if grep -q "access log: [0-9]* of [0-9]* replies 5xx in 60 s ([0-9]*%, threshold 20%): a partial failure" "$FM_TMP/run.err"; then
    ok "the loop logs the cause: the share, the window and the threshold"
else
    not_ok "the loop logs the cause: the share, the window and the threshold"
    diag_file "$FM_TMP/run.err"
fi

# 10: once per window: the same replies give no second failure.
requests 10 /boom
sleep 3
is "$(json 'r["weight"]')" 50 "the same window gives no second failure (weight still 50)"

# 11: the metrics' family, one series per class.
"$FAULTMON" metrics >"$FM_TMP/metrics" 2>&1
is "$(grep -c '^faultmon_access_log_window_replies{resource="web",class="\(all\|5xx\|slow\)"}' "$FM_TMP/metrics")" 3 \
    "the metrics show the replies by class, one series each"

# 12: the loop stops cleanly.
kill -TERM "$LOOP_PID"
wait "$LOOP_PID"
rc=$?
LOOP_PID=
is "$rc" 0 "the loop exits 0 on SIGTERM"

# 13: a loop without access_log shows no earlier loop's rates.
"$FAULTMON" run web --no-env --cycles 1 --param Probe_command=/bin/true 2>>"$FM_TMP/run.err"
is "$(json '"access_log" in r')" False "a loop without access_log removes the earlier loop's rates (status shows none)"

tap_done
