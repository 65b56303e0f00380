#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# operator-kit.sh: the operator's kit of issue 33 (contrib/) against the
# exporter it is for.  The alert rules pass `promtool check rules` and their
# unit tests (`promtool test rules`, contrib/prometheus/faultmon-alerts.test.yml);
# every metric the rules and the Grafana dashboard (contrib/grafana/
# faultmon.json, parsed as JSON) query is one a real exposition exports (a
# loop probing nginx over HTTP and HTTPS), and the check does fail on a
# dashboard that names a metric nobody exports; faultmon_build_info carries
# configure's version; the exporter's / is an HTML page linking /metrics,
# any other path 404.  promtool (Debian: prometheus) is installed by
# tests/install-deps.sh; its cases are skipped only without it.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 90
fm_require_faultmon
plan 11

KIT=$(cd "$FM_TEST_LIB/../../contrib" && pwd) || bail_out "no contrib/ beside tests/"
RULES=$KIT/prometheus/faultmon-alerts.yml
DASHBOARD=$KIT/grafana/faultmon.json
export FAULTMON_STATE_DIR=$FM_TMP/state
PROMTOOL=${PROMTOOL:-$(command -v promtool)}
BG_PIDS=()
fm_cleanup_add 'for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done'

if [ -x "$PROMTOOL" ]; then
    "$PROMTOOL" check rules "$RULES" >"$FM_TMP/check.out" 2>&1
    is "$?" 0 "promtool check rules accepts faultmon-alerts.yml"
    diag_file "$FM_TMP/check.out"
    # promtool reads the rule file named in the test beside the test file.
    "$PROMTOOL" test rules "$KIT/prometheus/faultmon-alerts.test.yml" >"$FM_TMP/test.out" 2>&1
    is "$?" 0 "promtool test rules: every alert's unit tests pass"
    diag_file "$FM_TMP/test.out"
else
    skip "promtool not installed (Debian: prometheus)"
    skip "promtool not installed (Debian: prometheus)"
fi
for alert in FaultmonResourceDown FaultmonFailingOver FaultmonResourceHeld FaultmonResourceFlapping \
    FaultmonCertificateExpiring FaultmonLoopNotRunning FaultmonLoopStale FaultmonExporterDown; do
    grep -q "alertname: $alert\$" "$KIT/prometheus/faultmon-alerts.test.yml" || missing="$missing $alert"
done
is "${missing:-none}" none "each alert the issue asks for has a unit test"

# A real exposition: a loop probing nginx over HTTP and HTTPS, so that the
# per-target families (the certificate's included) have samples.
ws_nginx_start || bail_out "nginx did not start"
fm_timeout 20 "$FAULTMON" run web --no-env --no-pacemaker --cycles 1 \
    --param Port_list="127.0.0.1:$WS_HTTP_PORT https://127.0.0.1:$WS_HTTPS_PORT/" \
    --param Probe_timeout=2s 2>"$FM_TMP/loop.err"
fm_timeout 10 "$FAULTMON" metrics >"$FM_TMP/m.prom" 2>"$FM_TMP/m.err"
check "the exposition has the TLS target's certificate (every family has samples to match)" \
    grep -q '^faultmon_probe_tls_cert_expiry_timestamp_seconds{' "$FM_TMP/m.prom"

names=$("$PYTHON3" "$FM_TEST_LIB/promql_names.py" check "$FM_TMP/m.prom" "$DASHBOARD")
is "${names%% *}" ok "every query of the Grafana dashboard names a metric the exporter exports"
[ "${names%% *}" = ok ] || diag "$names"
names=$("$PYTHON3" "$FM_TEST_LIB/promql_names.py" check "$FM_TMP/m.prom" "$RULES")
is "${names%% *}" ok "and every alert rule's"
[ "${names%% *}" = ok ] || diag "$names"
# The check keeps its word: a dashboard with a misspelt metric fails it.
sed 's/faultmon_window_weight{/faultmon_window_wieght{/' "$DASHBOARD" >"$FM_TMP/bad.json"
"$PYTHON3" "$FM_TEST_LIB/promql_names.py" check "$FM_TMP/m.prom" "$FM_TMP/bad.json" >"$FM_TMP/bad.out"
is "$?/$(grep -c 'faultmon_window_wieght is not exported' "$FM_TMP/bad.out")" 1/1 \
    "a dashboard naming a metric nobody exports fails the check"


version=$("$FAULTMON" --version 2>/dev/null | awk '{print $NF; exit}')
is "$(grep '^faultmon_build_info' "$FM_TMP/m.prom")" "faultmon_build_info{version=\"$version\"} 1" \
    "faultmon_build_info carries configure's version ($version)"

EXPORTER_PORT=
for attempt in 1 2 3; do
    EXPORTER_PORT=$(fm_free_port) || break
    "$FAULTMON" exporter --listen 127.0.0.1:"$EXPORTER_PORT" 2>"$FM_TMP/exporter.err" &
    BG_PIDS+=($!)
    fm_wait_port 127.0.0.1 "$EXPORTER_PORT" 5 && break
done
URL=http://127.0.0.1:$EXPORTER_PORT
is "$(curl -s -m 5 -o "$FM_TMP/index.html" -w '%{http_code} %{content_type}' "$URL/")" \
    "200 text/html; charset=utf-8" "GET /: 200, an HTML page"
check "that links /metrics" grep -q '<a href="metrics">' "$FM_TMP/index.html"
is "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$URL/index.html")" 404 "any other path: 404"
tap_done
