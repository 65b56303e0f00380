#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# metrics.sh: `faultmon metrics` and `faultmon exporter` against a real loop
# and nginx on loopback: the text passes `promtool check metrics`, --output
# writes atomically, the exporter serves only GET/HEAD /metrics and keeps its
# bounds (a 100 KiB request line, 40 idle clients, a POST, another path: each
# answered or closed within a deadline), and a real Prometheus scraping the
# exporter finds faultmon_state{state="down"} == 1 once the loop decided the
# stopped nginx is down.  The families of issue 14: each probe's phases
# (only those it went through, adding up to no more than its duration), the
# TLS target's certificate expiry (the test certificate's notAfter), the
# failure counters (growing with a failure) and the decision counters (one
# restart decided is 1, and both go on across a restart of the loop).
# Issue 29 #9: every sample unique, though one URL is in three lists.
# promtool and prometheus (Debian: prometheus) are optional: their cases are
# skipped without them.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 120
fm_require_faultmon
plan 43

export FAULTMON_STATE_DIR=$FM_TMP/state
PROMTOOL=${PROMTOOL:-$(command -v promtool)}
PROMETHEUS=${PROMETHEUS:-$(command -v prometheus)}
BG_PIDS=()
fm_cleanup_add 'for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done'

ws_nginx_start || bail_out "nginx did not start"

# wait_state RESOURCE STATE SECONDS: until `faultmon metrics` shows the
# loop's state (what the engine decided, not the status command's label).
wait_state() {
    local i want="faultmon_state{resource=\"$1\",state=\"$2\"} 1"
    for ((i = 0; i < $3 * 5; i++)); do
        "$FAULTMON" metrics 2>/dev/null | grep -qxF "$want" && return 0
        sleep 0.2
    done
    return 1
}

# metric FILE SERIES: the value of the series `SERIES` (name and labels as
# written), empty when it is absent.
metric() {
    awk -v s="$2" 'index($0, s " ") == 1 { print substr($0, length(s) + 2) }' "$1"
}

# promtool_check FILE NAME: the case NAME, that promtool accepts FILE.
promtool_check() {
    if [ -x "$PROMTOOL" ]; then
        "$PROMTOOL" check metrics <"$1" >"$FM_TMP/promtool.out" 2>&1
        is "$?" 0 "$2"
        diag_file "$FM_TMP/promtool.out"
    else
        skip "promtool not installed (Debian: prometheus)"
    fi
}

HTTP_T="http://127.0.0.1:$WS_HTTP_PORT/"
TLS_T="https://127.0.0.1:$WS_HTTPS_PORT/"
"$FAULTMON" run web --no-env --no-pacemaker \
    --param Port_list="127.0.0.1:$WS_HTTP_PORT $TLS_T" --param Thorough_probe_interval=1 \
    --param Probe_timeout=2s 2>"$FM_TMP/loop.err" &
BG_PIDS+=($!)
check "the loop finds nginx up" wait_state web up 15

# A state the reader refuses: no verdict, and no series but state_valid 0.
mkdir -m 0700 -p "$FAULTMON_STATE_DIR/broken"
printf 'faultmon-state 1\nresource=broken\n' >"$FAULTMON_STATE_DIR/broken/state"

fm_timeout 10 "$FAULTMON" metrics >"$FM_TMP/m.prom" 2>"$FM_TMP/m.err"
is "$?" 0 "faultmon metrics exits 0"
check "faultmon_state{state=up} is 1 for the loop's resource" \
    grep -qxF 'faultmon_state{resource="web",state="up"} 1' "$FM_TMP/m.prom"
check "faultmon_probe_success is 1 for its target" \
    grep -qxF "faultmon_probe_success{resource=\"web\",target=\"http://127.0.0.1:$WS_HTTP_PORT/\",source=\"port_list\"} 1" "$FM_TMP/m.prom"
check "a state the reader refuses is faultmon_state_valid 0" \
    grep -qxF 'faultmon_state_valid{resource="broken"} 0' "$FM_TMP/m.prom"
is "$(grep -c 'resource="broken"' "$FM_TMP/m.prom")" 1 "and has no other series (no verdict)"
promtool_check "$FM_TMP/m.prom" "promtool check metrics accepts the output"

# Issue 29 #9: the same URL in Port_list, Monitor_Uri_List and
# Dependency_list is three probes, told apart by source; the same probe
# twice in Port_list ("PORT" and "127.0.0.1:PORT") is shown once.  No two
# samples of the whole output, across every family, have the same name and
# labels, and promtool finds nothing to say either.
DUP_T="http://127.0.0.1:$WS_HTTP_PORT/"
fm_timeout 20 "$FAULTMON" run dup --no-env --no-pacemaker --cycles 1 \
    --param Port_list="$WS_HTTP_PORT 127.0.0.1:$WS_HTTP_PORT" --param Monitor_Uri_List="$DUP_T" \
    --param Dependency_list="127.0.0.1:$WS_HTTP_PORT" --param Probe_timeout=2s 2>"$FM_TMP/dup.err"
fm_timeout 10 "$FAULTMON" metrics >"$FM_TMP/dup.prom" 2>/dev/null
is "$(grep -c "^faultmon_probe_success{resource=\"dup\",target=\"$DUP_T\",source=\"\(port_list\|monitor_uri\|dependency\)\"} 1\$" "$FM_TMP/dup.prom")" 3 \
    "one URL in Port_list, Monitor_Uri_List and Dependency_list: three series, each with its source"
unique=$("$PYTHON3" "$FM_TEST_LIB/exposition.py" unique "$FM_TMP/dup.prom")
is "${unique%% *}" ok "no two samples of the whole output have the same name and labels"
[ "${unique%% *}" = ok ] || diag "$unique"
promtool_check "$FM_TMP/dup.prom" "promtool check metrics accepts it"
is "$(metric "$FM_TMP/dup.prom" 'faultmon_loop_running{resource="web"}')/$(metric "$FM_TMP/dup.prom" 'faultmon_loop_died{resource="web"}')" 1/0 \
    "faultmon_loop_running is 1 while the loop runs, faultmon_loop_died 0"
is "$(metric "$FM_TMP/dup.prom" 'faultmon_loop_running{resource="dup"}')/$(metric "$FM_TMP/dup.prom" 'faultmon_loop_died{resource="dup"}')" 0/0 \
    "a loop that stopped cleanly: faultmon_loop_running 0, faultmon_loop_died 0"
rm -rf "${FAULTMON_STATE_DIR:?}/dup"

# Issue 14's families, while the loop finds nginx up.
m=$FM_TMP/m.prom
phase() { metric "$m" "faultmon_probe_phase_duration_seconds{resource=\"web\",target=\"$1\",source=\"port_list\",phase=\"$2\"}"; }
check "the http target's connect, request and reply phases are there" \
    test -n "$(phase "$HTTP_T" connect)" -a -n "$(phase "$HTTP_T" request)" -a -n "$(phase "$HTTP_T" reply)"
is "$(phase "$HTTP_T" resolve)$(phase "$HTTP_T" tls)" "" "and no resolve (a numeric address) nor tls phase"
check "the https target's connect and tls phases are there" \
    test -n "$(phase "$TLS_T" connect)" -a -n "$(phase "$TLS_T" tls)"
sums=$("$PYTHON3" - "$m" <<'PYEOF'
import re, sys
us = lambda v: int(v.split(".")[0]) * 1000000 + int((v.split(".") + ["0"])[1].ljust(6, "0"))
total, phases = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r'faultmon_probe_(phase_)?duration_seconds\{resource="web",target="([^"]*)",source="port_list"(,phase="\w+")?\} (\S+)$', line)
    if m and m.group(1):
        phases[m.group(2)] = phases.get(m.group(2), 0) + us(m.group(4))
    elif m:
        total[m.group(2)] = us(m.group(4))
bad = [t for t in total if t not in phases or phases[t] > total[t]]
print("ok %d" % len(total) if not bad else "no: %r %r %r" % (bad, phases, total))
PYEOF
)
is "$sums" "ok 2" "each target's phases sum to at most its duration"
not_after=$(date -u -d "$(openssl x509 -enddate -noout -in "$WS_CERT" | sed 's/^notAfter=//')" +%s)
is "$(metric "$m" "faultmon_probe_tls_cert_expiry_timestamp_seconds{resource=\"web\",target=\"$TLS_T\",source=\"port_list\"}")" \
    "$not_after" "the https target's certificate expiry is the test certificate's notAfter"
is "$(grep -c "^faultmon_probe_tls_cert_expiry_timestamp_seconds{resource=\"web\",target=\"$HTTP_T\",source=\"port_list\"}" "$m")" 0 \
    "and the http target has none"
failures_up=$(metric "$m" "faultmon_probe_failures_total{resource=\"web\",target=\"$HTTP_T\",source=\"port_list\",class=\"complete\"}")
is "$failures_up" 0 "faultmon_probe_failures_total{class=complete} is 0 while nginx is up"
is "$(metric "$m" 'faultmon_decisions_total{resource="web",action="restart"}')" 0 \
    "faultmon_decisions_total{action=restart} is 0 before any recovery"

# Decisions, from a loop that finds nothing listening: one cycle, one
# restart decided; a new loop goes on counting (its first failure after the
# restart fails over).
CLOSED_T="http://127.0.0.1:$(fm_free_port)/"
fm_timeout 20 "$FAULTMON" run dec --no-env --no-pacemaker --cycles 1 --param Port_list="$CLOSED_T" \
    --param Probe_timeout=2s 2>"$FM_TMP/dec.err"
fm_timeout 10 "$FAULTMON" metrics >"$FM_TMP/d.prom" 2>/dev/null
is "$(metric "$FM_TMP/d.prom" 'faultmon_decisions_total{resource="dec",action="restart"}')" 1 \
    "faultmon_decisions_total{action=restart} is 1 after one restart decided"
is "$(metric "$FM_TMP/d.prom" "faultmon_probe_failures_total{resource=\"dec\",target=\"$CLOSED_T\",source=\"port_list\",class=\"complete\"}")" 1 \
    "faultmon_probe_failures_total{class=complete} is 1 after one refused connect"
is "$(metric "$FM_TMP/d.prom" "faultmon_probe_phase_duration_seconds{resource=\"dec\",target=\"$CLOSED_T\",source=\"port_list\",phase=\"request\"}")" "" \
    "a refused connect has no request phase"
fm_timeout 20 "$FAULTMON" run dec --no-env --no-pacemaker --cycles 1 --param Port_list="$CLOSED_T" \
    --param Probe_timeout=2s 2>>"$FM_TMP/dec.err"
fm_timeout 10 "$FAULTMON" metrics >"$FM_TMP/d.prom" 2>/dev/null
is "$(metric "$FM_TMP/d.prom" "faultmon_probe_failures_total{resource=\"dec\",target=\"$CLOSED_T\",source=\"port_list\",class=\"complete\"}")" 2 \
    "the next loop goes on counting failures (2)"
is "$(metric "$FM_TMP/d.prom" 'faultmon_decisions_total{resource="dec",action="restart"}')$(metric "$FM_TMP/d.prom" 'faultmon_decisions_total{resource="dec",action="failover"}')" 11 \
    "and decisions: the restart kept, the failover after it counted"
rm -rf "${FAULTMON_STATE_DIR:?}/dec"    # down: not the resource Prometheus is asked for below

mkdir -p "$FM_TMP/textfile"
fm_timeout 10 "$FAULTMON" metrics --output "$FM_TMP/textfile/faultmon.prom" 2>"$FM_TMP/o.err"
is "$?" 0 "faultmon metrics --output exits 0"
check "the file holds the metrics" grep -q '^# TYPE faultmon_state gauge$' "$FM_TMP/textfile/faultmon.prom"
is "$(find "$FM_TMP/textfile" -type f | wc -l)" 1 "and no temporary file is left beside it"
fm_timeout 10 "$FAULTMON" metrics --output "$FM_TMP/nonexistent/x.prom" 2>/dev/null
is "$?" 1 "an unwritable --output exits 1"

# The exporter.
EXPORTER_PORT=
for attempt in 1 2 3; do
    EXPORTER_PORT=$(fm_free_port) || break
    "$FAULTMON" exporter --listen 127.0.0.1:"$EXPORTER_PORT" 2>"$FM_TMP/exporter.err" &
    EXPORTER_PID=$!
    BG_PIDS+=("$EXPORTER_PID")
    fm_wait_port 127.0.0.1 "$EXPORTER_PORT" 5 && break
done
URL=http://127.0.0.1:$EXPORTER_PORT

code=$(curl -s -m 5 -o "$FM_TMP/scrape.prom" -w '%{http_code} %{content_type}' "$URL/metrics")
is "$code" "200 text/plain; version=0.0.4; charset=utf-8" "GET /metrics: 200, the format's content type"
check "the scrape holds the loop's state" \
    grep -qxF 'faultmon_state{resource="web",state="up"} 1' "$FM_TMP/scrape.prom"
is "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$URL/other")" 404 "GET /other: 404"
is "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -d x=1 "$URL/metrics")" 405 "POST /metrics: 405"

# bounds CASE: raw clients, each must get an answer or a close within 8 s
# (the exporter's 5 s deadline per client, plus slack on a busy machine).
bounds() {
    "$PYTHON3" - "$EXPORTER_PORT" "$1" <<'PYEOF'
import socket, sys, time
port, case = int(sys.argv[1]), sys.argv[2]
def closed_or_answered(s, deadline):
    s.settimeout(max(0.1, deadline - time.monotonic()))
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return data
            data += chunk
    except ConnectionResetError:
        return data
start = time.monotonic()
if case == "long-line":
    s = socket.create_connection(("127.0.0.1", port))
    try:
        s.sendall(b"GET /" + b"a" * 102400 + b" HTTP/1.1\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    data = closed_or_answered(s, start + 8)
    ok = data == b"" or data.startswith(b"HTTP/1.1 431")
    print("ok" if ok and time.monotonic() - start < 8 else "no: %r" % data[:40])
elif case == "idle":
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
    for s in idle:
        closed_or_answered(s, start + 8)
    took = time.monotonic() - start
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
    data = closed_or_answered(s, time.monotonic() + 5)
    print("ok" if took < 8 and data.startswith(b"HTTP/1.1 200") else "no: %.1f s, %r" % (took, data[:40]))
PYEOF
}
is "$(bounds long-line)" ok "a 100 KiB request line is answered 431 or closed within 8 s"
is "$(bounds idle)" ok "40 idle clients are all closed within 8 s, and a scrape is served after them"
check "the exporter still runs" kill -0 "$EXPORTER_PID"

# A real Prometheus scraping the exporter sees the loop's decision.
if [ -x "$PROMETHEUS" ]; then
    PROM_PORT=$(fm_free_port)
    cat >"$FM_TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: faultmon
    static_configs:
      - targets: ['127.0.0.1:$EXPORTER_PORT']
YML
    "$PROMETHEUS" --config.file="$FM_TMP/prometheus.yml" --storage.tsdb.path="$FM_TMP/tsdb" \
        --web.listen-address=127.0.0.1:"$PROM_PORT" >"$FM_TMP/prometheus.log" 2>&1 &
    BG_PIDS+=($!)
    ws_nginx_stop
    check "the loop decides the stopped nginx is down" wait_state web down 20
    found=
    for ((i = 0; i < 60; i++)); do
        found=$(curl -s -m 2 -G "http://127.0.0.1:$PROM_PORT/api/v1/query" \
            --data-urlencode 'query=faultmon_state{state="down"} == 1' |
            "$PYTHON3" -c 'import json,sys; print(" ".join(r["metric"]["resource"] for r in json.load(sys.stdin)["data"]["result"]))' 2>/dev/null)
        [ "$found" = web ] && break
        sleep 0.5
    done
    is "$found" web 'Prometheus answers faultmon_state{state="down"} == 1 with the resource'
    [ "$found" = web ] || diag_file "$FM_TMP/prometheus.log"
    # The new families through Prometheus: the certificate's expiry, and the
    # failures of the stopped nginx counted.
    query='faultmon_probe_tls_cert_expiry_timestamp_seconds{resource="web"} == '$not_after' and on(resource) faultmon_probe_failures_total{resource="web",class="complete"} > 0'
    found=
    for ((i = 0; i < 40; i++)); do
        found=$(curl -s -m 2 -G "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$query" |
            "$PYTHON3" -c 'import json,sys; print(" ".join(r["metric"]["target"] for r in json.load(sys.stdin)["data"]["result"]))' 2>/dev/null)
        [ "$found" = "$TLS_T" ] && break
        sleep 0.5
    done
    is "$found" "$TLS_T" "Prometheus has the certificate's expiry and the failures counted"
else
    ws_nginx_stop
    check "the loop decides the stopped nginx is down" wait_state web down 20
    skip "prometheus not installed (Debian: prometheus)"
    skip "prometheus not installed (Debian: prometheus)"
fi
fm_timeout 10 "$FAULTMON" metrics >"$FM_TMP/down.prom" 2>/dev/null
failures_down=$(metric "$FM_TMP/down.prom" "faultmon_probe_failures_total{resource=\"web\",target=\"$HTTP_T\",source=\"port_list\",class=\"complete\"}")
check "faultmon_probe_failures_total{class=complete} grew with the failures ($failures_up -> $failures_down)" \
    test "${failures_down:-0}" -gt "$failures_up"
# Without a cluster nobody restarts nginx: the loop may decide again by now.
restarts_down=$(metric "$FM_TMP/down.prom" 'faultmon_decisions_total{resource="web",action="restart"}')
check "faultmon_decisions_total{action=restart} counted the down nginx's restart ($restarts_down)" \
    test "${restarts_down:-0}" -ge 1
promtool_check "$FM_TMP/down.prom" "promtool check metrics accepts the output with failures and decisions counted"

kill -TERM "$EXPORTER_PID"
for ((i = 0; i < 50; i++)); do kill -0 "$EXPORTER_PID" 2>/dev/null || break; sleep 0.1; done
wait "$EXPORTER_PID"
is "$?" 0 "the exporter exits 0 on SIGTERM, within 5 s"
tap_done
