#!/bin/bash
# metrics.sh: `faultmon metrics` and `faultmon exporter` against a real loop
# and nginx on loopback: the text passes `promtool check metrics`, --output
# writes atomically, the exporter serves only GET/HEAD /metrics and keeps its
# bounds (a 100 KiB request line, 40 idle clients, a POST, another path: each
# answered or closed within a deadline), and a real Prometheus scraping the
# exporter finds faultmon_state{state="down"} == 1 once the loop decided the
# stopped nginx is down.  promtool and prometheus (Debian: prometheus) are
# optional: their cases are skipped without them.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 120
fm_require_faultmon
plan 21

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

"$FAULTMON" run web --no-env --no-pacemaker \
    --param Port_list=127.0.0.1:"$WS_HTTP_PORT" --param Thorough_probe_interval=1 \
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
    grep -qxF "faultmon_probe_success{resource=\"web\",target=\"http://127.0.0.1:$WS_HTTP_PORT/\"} 1" "$FM_TMP/m.prom"
check "a state the reader refuses is faultmon_state_valid 0" \
    grep -qxF 'faultmon_state_valid{resource="broken"} 0' "$FM_TMP/m.prom"
is "$(grep -c 'resource="broken"' "$FM_TMP/m.prom")" 1 "and has no other series (no verdict)"
if [ -x "$PROMTOOL" ]; then
    "$PROMTOOL" check metrics <"$FM_TMP/m.prom" >"$FM_TMP/promtool.out" 2>&1
    is "$?" 0 "promtool check metrics accepts the output"
    diag_file "$FM_TMP/promtool.out"
else
    skip "promtool not installed (Debian: prometheus)"
fi

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
else
    skip "prometheus not installed (Debian: prometheus)"
    skip "prometheus not installed (Debian: prometheus)"
fi

kill -TERM "$EXPORTER_PID"
for ((i = 0; i < 50; i++)); do kill -0 "$EXPORTER_PID" 2>/dev/null || break; sleep 0.1; done
wait "$EXPORTER_PID"
is "$?" 0 "the exporter exits 0 on SIGTERM, within 5 s"
tap_done
