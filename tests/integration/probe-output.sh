#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-output.sh: what `faultmon probe` prints.  The text has a header line
# naming the columns; --count ends with a summary like ping's (cycles sent,
# ok, partial, complete, min/avg/max), on Ctrl-C (SIGINT) too; the JSON gives
# each run and each target a UTC time, the run its counts, and null (never 0)
# for a status line or a certificate the probe did not see.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

plan 11
tap_watchdog 60
fm_require_faultmon

fm_fault_server_start refuse status-500 || bail_out "the fault server did not start"
REFUSE=tcp://127.0.0.1:${FS_PORT[refuse]}
S500=http://127.0.0.1:${FS_PORT[status-500]}/

fm_probe --timeout 2s "$REFUSE"
like "$(head -n 1 "$FM_OUT")" '^TARGET +KIND +VERDICT +LAYER/REASON +LATENCY +DETAIL$' \
    "the text output begins with a header naming the columns"
is "$(sed -n 2p "$FM_OUT" | awk '{ print $1, $3 }')" "$REFUSE complete" \
    "the header's columns are the lines' (TARGET, VERDICT)"
fm_probe --quiet --timeout 2s "$REFUSE"
is "$(wc -l <"$FM_OUT")" 1 "--quiet: the verdict line only, no header"

fm_probe --timeout 2s --count 3 --interval 50ms "$REFUSE" "$S500"
is "$FM_RC/$(tail -n 3 "$FM_OUT" | head -n 2 | tr '\n' '|')" \
    "2/--- faultmon probe statistics ---|3 cycles sent, 0 ok, 0 partial, 3 complete|" \
    "--count 3: a summary of the cycles sent and their verdicts"
like "$(tail -n 1 "$FM_OUT")" '^latency min/avg/max = [0-9.]+/[0-9.]+/[0-9.]+ ms$' \
    "--count 3: the summary ends with min/avg/max"

# Ctrl-C: the probe started here, interrupted after its first cycles (not
# under timeout(1), which would take the SIGINT itself; tap_watchdog bounds it).
"$FAULTMON" probe --timeout 2s --count 1000 --interval 200ms "$REFUSE" \
    >"$FM_OUT" 2>"$FM_ERR" </dev/null &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
like "$rc/$(grep -- '^--- ' "$FM_OUT")" '^2/--- faultmon probe statistics ---$' \
    "SIGINT ends a --count run with the summary and the worst verdict's exit status"
like "$(grep 'cycles sent' "$FM_OUT")" '^[1-9][0-9]? cycles sent, 0 ok, 0 partial, [1-9][0-9]? complete$' \
    "SIGINT: the summary counts the cycles run before it"

fm_probe --json --timeout 2s "$REFUSE" "$S500"
why=$("$PYTHON3" - "$FM_OUT" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
bad = []
if not iso.match(doc.get("time", "")): bad.append("run time %r" % doc.get("time"))
if doc.get("cycle") != 1: bad.append("cycle %r" % doc.get("cycle"))
if doc.get("counts") != {"ok": 0, "partial": 0, "complete": 2}: bad.append("counts %r" % doc.get("counts"))
t = {x["target"].split(":")[0]: x for x in doc["targets"]}
for x in doc["targets"]:
    if not iso.match(x.get("time", "")): bad.append("target time %r" % x.get("time"))
    if x.get("cert_not_after", 0) is not None: bad.append("cert_not_after %r" % x.get("cert_not_after"))
if t["tcp"].get("status", 0) is not None: bad.append("refused: status %r, not null" % t["tcp"].get("status"))
if t["http"].get("status") != 500: bad.append("http status %r" % t["http"].get("status"))
print("; ".join(bad))
PY
)
is "$why" "" "--json: UTC times per run and target, counts, null where nothing was seen"

fm_probe --json --timeout 2s --count 2 --interval 50ms "$REFUSE"
is "$(tail -n 1 "$FM_OUT" | "$PYTHON3" -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(s["sent"], s["complete"], s["min_us"] <= s["avg_us"] <= s["max_us"])')" \
    "2 2 True" "--json --count 2: the summary is a last object"

# The log: one warning per failing target and episode, not one per cycle.
fm_probe -v --timeout 2s --count 4 --interval 50ms "$REFUSE"
is "$FM_RC/$(grep -c 'Failed to connect' "$FM_ERR")" "2/1" \
    "a target refused four cycles running: one warning, not four"
fm_probe -v -v --timeout 2s --count 3 --interval 50ms "$REFUSE"
is "$(grep -c 'still failing (connect-failed, [23] cycles)' "$FM_ERR")" 2 \
    "the repeats are debug lines that count the cycles"

tap_done
