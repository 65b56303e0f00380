# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib/probe.sh: run `faultmon probe` and check what it says.
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Source tests/lib/tap.sh first.  Every run leaves its output in files under
# FM_TMP, its exit status in FM_RC and its wall-clock duration in
# FM_ELAPSED_MS, so that several checks can look at one run.

FM_TEST_LIB=${FM_TEST_LIB:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
FM_TESTS_DIR=$(cd "$FM_TEST_LIB/.." && pwd)
FAULTMON=${FAULTMON:-$FM_TESTS_DIR/../src/faultmon}
PYTHON3=${PYTHON3:-python3}

FM_TMP=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-test.XXXXXX") || exit 1
# shellcheck disable=SC2016 # expanded when the cleanup runs
fm_cleanup_add 'rm -rf "$FM_TMP"'

FM_RC=
FM_ELAPSED_MS=
FM_OUT=$FM_TMP/probe.out
FM_ERR=$FM_TMP/probe.err
FM_LAST_CMD=

# fm_require_faultmon: bail out (the whole script fails) without a binary.
fm_require_faultmon() {
    if [ ! -x "$FAULTMON" ]; then
        bail_out "no faultmon binary at $FAULTMON (build it, or set FAULTMON)"
    fi
}

# fm_wait_log FILE REGEX SECONDS [PID]: until FILE has a line matching the
# extended REGEX (0), or SECONDS pass or process PID (a loop writing the
# file) is gone (1).
fm_wait_log() {
    local end=$(($(fm_now_ms) + $3 * 1000))
    while [ "$(fm_now_ms)" -lt "$end" ]; do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        if [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; then
            grep -Eq -- "$2" "$1" 2>/dev/null
            return
        fi
        sleep 0.05
    done
    return 1
}

# fm_probe ARGS...: run `faultmon probe ARGS...` under a watchdog of
# FM_PROBE_WATCHDOG_S seconds (default 20).
fm_probe() {
    local start end
    FM_LAST_CMD="faultmon probe $*"
    start=$(fm_now_ms)
    fm_timeout "${FM_PROBE_WATCHDOG_S:-20}" "$FAULTMON" probe "$@" \
        >"$FM_OUT" 2>"$FM_ERR" </dev/null
    FM_RC=$?
    end=$(fm_now_ms)
    FM_ELAPSED_MS=$((end - start))
    return 0
}

# fm_show_run: the last run as diagnostics.
fm_show_run() {
    diag "command: $FM_LAST_CMD" "exit status: $FM_RC, took ${FM_ELAPSED_MS} ms"
    diag_file "$FM_OUT" "$FM_ERR"
}

# fm_json_check FILE PATH=VALUE...: check fields of a JSON document.
# PATH is dotted (verdict, targets.0.reason, targets.length); VALUE may list
# alternatives separated by "|".  Prints each mismatch; false if any.
fm_json_check() {
    local file=$1
    shift
    "$PYTHON3" - "$file" "$@" <<'EOF'
import json, sys
path = sys.argv[1]
try:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
except (OSError, ValueError) as err:
    print("output is not one JSON document: %s" % err)
    sys.exit(1)

def lookup(node, dotted):
    for part in dotted.split("."):
        if part == "length" and isinstance(node, list):
            node = len(node)
        elif isinstance(node, list):
            node = node[int(part)]
        else:
            node = node[part]
    return node

bad = 0
for spec in sys.argv[2:]:
    key, want = spec.split("=", 1)
    try:
        got = lookup(doc, key)
    except (KeyError, IndexError, ValueError, TypeError):
        print("%s: missing (wanted %s)" % (key, want))
        bad += 1
        continue
    text = json.dumps(got) if not isinstance(got, str) else got
    if text not in want.split("|"):
        print("%s: got %s, wanted %s" % (key, text, want))
        bad += 1
sys.exit(1 if bad else 0)
EOF
}

# fm_json_get FILE PATH: print one field of a JSON document.
fm_json_get() {
    "$PYTHON3" - "$1" "$2" <<'EOF'
import json, sys
node = json.load(open(sys.argv[1], encoding="utf-8"))
for part in sys.argv[2].split("."):
    node = node[int(part)] if isinstance(node, list) else node[part]
print(node if isinstance(node, str) else json.dumps(node))
EOF
}

# fm_json_contract FILE TIMEOUT_MS N: the JSON of a run has the contract's
# shape: every key, known names only, the verdict is the worst target verdict,
# the layer agrees with the reason, and the reason's class with the verdict.
fm_json_contract() {
    "$PYTHON3" - "$1" "$2" "$3" "$FM_RC" <<'EOF'
import json, sys
path, timeout_ms, n, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
VERDICTS = ["ok", "partial", "complete"]
KINDS = {"http-head", "http-get", "tls-connect", "tcp-connect"}
# reason -> (layer, class): the seed's rules.
REASONS = {
    "ok": ("none", "ok"),
    "resolve-failed": ("resolve", "complete"),
    "resolve-timeout": ("resolve", "complete"),
    "connect-failed": ("connect", "complete"),
    "connect-timeout": ("connect", "complete"),
    "tls-failed": ("tls", "complete"),
    "tls-timeout": ("tls", "complete"),
    "tls-verify": ("tls", "complete"),
    "send-failed": ("send", "complete"),
    "send-timeout": ("send", "complete"),
    "read-failed": ("read", "partial"),
    "read-timeout": ("read", "partial"),
    "read-malformed": ("read", "partial"),
    "read-too-large": ("read", "partial"),
    "status": ("status", "complete"),
    "content-mismatch": ("content", "complete"),
    "content-reverse": ("content", "complete"),
}
problems = []
try:
    doc = json.load(open(path, encoding="utf-8"))
except ValueError as err:
    print("not JSON: %s" % err)
    sys.exit(1)
for key, kind in (("verdict", str), ("timeout_ms", int), ("elapsed_us", int), ("targets", list),
                  ("time", str), ("cycle", int), ("counts", dict)):
    if not isinstance(doc.get(key), kind):
        problems.append("top-level %s missing or not %s" % (key, kind.__name__))
if not problems:
    if doc["timeout_ms"] != timeout_ms:
        problems.append("timeout_ms %s, wanted %d" % (doc["timeout_ms"], timeout_ms))
    if len(doc["targets"]) != n:
        problems.append("%d targets, wanted %d" % (len(doc["targets"]), n))
    worst = 0
    for i, t in enumerate(doc["targets"]):
        for key, kind in (("target", str), ("kind", str), ("verdict", str), ("layer", str),
                          ("reason", str), ("status", (int, type(None))), ("latency_us", int),
                          ("cert_not_after", (int, type(None))), ("time", str), ("detail", str)):
            if key not in t or not isinstance(t.get(key), kind):
                problems.append("targets.%d.%s missing or not %s" % (i, key, kind))
        if t.get("status") == 0 or t.get("cert_not_after") == 0:
            problems.append("targets.%d: 0 where null means none" % i)
        if t.get("kind") not in KINDS:
            problems.append("targets.%d.kind %r unknown" % (i, t.get("kind")))
        reason = t.get("reason")
        if reason not in REASONS:
            problems.append("targets.%d.reason %r unknown" % (i, reason))
            continue
        layer, cls = REASONS[reason]
        if t.get("layer") != layer:
            problems.append("targets.%d: reason %s with layer %r, wanted %s" % (i, reason, t.get("layer"), layer))
        if t.get("verdict") != cls:
            problems.append("targets.%d: reason %s with verdict %r, wanted %s" % (i, reason, t.get("verdict"), cls))
        if isinstance(t.get("latency_us"), int) and t["latency_us"] > timeout_ms * 1000 + 100000:
            problems.append("targets.%d.latency_us %d beyond the deadline" % (i, t["latency_us"]))
        if t.get("verdict") in VERDICTS:
            worst = max(worst, VERDICTS.index(t["verdict"]))
    if sum(doc["counts"].get(v, 0) for v in VERDICTS) != n:
        problems.append("counts %r do not add up to %d targets" % (doc["counts"], n))
    if doc["verdict"] != VERDICTS[worst]:
        problems.append("verdict %r, but the worst target is %s" % (doc["verdict"], VERDICTS[worst]))
    if doc["verdict"] in VERDICTS and rc != VERDICTS.index(doc["verdict"]):
        problems.append("exit status %d for verdict %s" % (rc, doc["verdict"]))
    if doc["elapsed_us"] > timeout_ms * 1000 + 100000:
        problems.append("elapsed_us %d beyond the deadline" % doc["elapsed_us"])
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
}

# fm_check_probe NAME RC PATH=VALUE...: one TAP line for the last run: the
# exit status is RC and the JSON fields have these values.
fm_check_probe() {
    local name=$1 want_rc=$2 why
    shift 2
    why=$(fm_json_check "$FM_OUT" "$@" 2>&1)
    if [ "$FM_RC" != "$want_rc" ]; then
        why="exit status $FM_RC, wanted $want_rc${why:+
$why}"
    fi
    if [ -z "$why" ]; then
        ok "$name"
    else
        not_ok "$name"
        diag "$why"
        fm_show_run
    fi
}

# fm_check_elapsed NAME MAX_MS [MIN_MS]: the last run took at most MAX_MS
# (and at least MIN_MS) of wall-clock time.
fm_check_elapsed() {
    local name=$1 max_ms=$2 min_ms=${3:-0}
    if [ "$FM_ELAPSED_MS" -le "$max_ms" ] && [ "$FM_ELAPSED_MS" -ge "$min_ms" ]; then
        ok "$name"
        diag "took $FM_ELAPSED_MS ms"
    else
        not_ok "$name"
        diag "took $FM_ELAPSED_MS ms, wanted $min_ms..$max_ms ms"
        fm_show_run
    fi
}

# --- the fault server -----------------------------------------------------

declare -A FS_PORT=()

# fm_fault_server_start [--host ADDR] MODE...: start tests/fault_server.py
# with these modes and fill FS_PORT[MODE] (FS_PORT[v6:MODE] for --host ::1).
# Stopped on exit.
fm_fault_server_start() {
    local host=127.0.0.1 prefix='' pidvar portfile mode port
    if [ "$1" = --host ]; then
        host=$2
        shift 2
    fi
    if [ "$host" = ::1 ]; then
        prefix=v6:
    fi
    portfile=$FM_TMP/ports.$RANDOM
    "$PYTHON3" "$FM_TESTS_DIR/fault_server.py" --host "$host" \
        --max-seconds "${FM_FAULT_SERVER_MAX_S:-120}" \
        --port-file "$portfile" "$@" 2>"$FM_TMP/fault_server.log" &
    pidvar=$!
    fm_cleanup_add "kill $pidvar 2>/dev/null; wait $pidvar 2>/dev/null"
    for _ in $(seq 1 100); do
        [ -s "$portfile" ] && break
        kill -0 "$pidvar" 2>/dev/null || break
        sleep 0.05
    done
    if [ ! -s "$portfile" ]; then
        diag "fault server did not start"
        diag_file "$FM_TMP/fault_server.log"
        return 1
    fi
    while read -r mode port; do
        FS_PORT[$prefix$mode]=$port
    done <"$portfile"
    return 0
}
