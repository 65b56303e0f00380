#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# simulate.sh: `faultmon simulate` runs timelines through the decision engine
# and prints what it decides; bad input is refused with exit status 64 and one
# line naming the problem.  No network, no sleeping: time is in the input.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

FAULTMON=${FAULTMON:-$FM_TEST_LIB/../../src/faultmon}
PYTHON3=${PYTHON3:-python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-simulate.XXXXXX") || exit 1
# shellcheck disable=SC2016 # expanded when the cleanup runs
fm_cleanup_add 'rm -rf "$TMP"'
OUT=$TMP/out
ERR=$TMP/err
RC=

tap_watchdog 60
if [ ! -x "$FAULTMON" ]; then
    bail_out "no faultmon binary at $FAULTMON (build it, or set FAULTMON)"
fi

# sim ARGS... < TIMELINE: run `faultmon simulate ARGS...`; output in OUT and
# ERR, exit status in RC.
sim() {
    fm_timeout 10 "$FAULTMON" simulate "$@" >"$OUT" 2>"$ERR"
    RC=$?
    return 0
}

# column N: field N of every decision line of the text output, space-joined.
column() {
    grep -v '^#' "$OUT" | awk -v n="$1" '{ printf "%s%s", sep, $n; sep = " " }'
}

# show: the last run as diagnostics (after a failed check).
show() {
    diag "exit status: $RC"
    diag_file "$OUT" "$ERR"
}

# is_run GOT EXPECTED NAME: like is(), with the run shown on failure.
is_run() {
    if [ "$1" = "$2" ]; then
        ok "$3"
    else
        not_ok "$3"
        diag "got:      '$1'" "expected: '$2'"
        show
    fi
}

# usage_case NAME BAD ARGS... < TIMELINE: exit 64, one line on stderr that
# contains BAD.
usage_case() {
    local name=$1 bad=$2 why=
    shift 2
    sim "$@"
    [ "$RC" = 64 ] || why="exit status $RC, wanted 64"
    [ "$(wc -l <"$ERR")" = 1 ] || why="${why:+$why; }not exactly one line on stderr"
    grep -qF -- "$bad" "$ERR" || why="${why:+$why; }stderr does not name '$bad'"
    if [ -z "$why" ]; then
        ok "$name"
    else
        not_ok "$name"
        diag "$why"
        show
    fi
}

plan 35

# --- the README timeline ---------------------------------------------------

sim --retry-count 2 --retry-interval 300 <<'EOF'
0 complete
60 complete
120 complete
EOF
is_run "$RC" 0 "README timeline: exit 0"
is_run "$(column 5)" "restart restart failover" \
    "README timeline: complete failures at 0, 60, 120 s restart, restart, fail over"
is_run "$(column 7)" "1 2 2" "README timeline: restarts counted within Retry_interval"
like "$(grep -v '^#' "$OUT" | tail -n 1)" \
    "3 restarts within Retry_interval 300 s exceed Retry_count 2: failing over" \
    "README timeline: the failover says why"

sim --retry-count 2 --retry-interval 300 <<'EOF'
0 complete
200 complete
400 complete
600 complete
EOF
is_run "$(column 5)" "restart restart restart restart" \
    "README timeline spread wider (every 200 s): restarts only"

# --- the window's edge ------------------------------------------------------

sim <<'EOF'
0 partial
300 partial
EOF
is_run "$(column 5)" "degraded restart" \
    "two partial failures exactly Retry_interval apart make one complete failure"

sim <<'EOF'
0 partial
300.000001 partial
EOF
is_run "$(column 5) / $(column 6)" "degraded degraded / 50 50" \
    "a partial failure 1 us older than Retry_interval is forgotten"

sim --retry-count 2 <<'EOF'
0 complete
150 complete
300 complete  # the first restart is exactly 300 s old: still counted
EOF
is_run "$(column 5)" "restart restart failover" "restarts just inside Retry_interval fail over"

sim --retry-count 2 <<'EOF'
0 complete
150 complete
301 complete
EOF
is_run "$(column 5)" "restart restart restart" "restarts just outside Retry_interval restart"

# --- input format -----------------------------------------------------------

sim --retry-count=1 <<'EOF'
# a comment line

   0 partial     # a trailing comment
	30 ok
60 complete
EOF
is_run "$RC $(column 1) $(column 5)" "0 0 30 60 degraded degraded restart" \
    "blank lines and comments are skipped, tabs and spaces separate fields"

sim </dev/null
is_run "$RC $(grep -vc '^#' "$OUT")" "0 0" "an empty timeline prints the header only"

usage_case "a malformed line: exit 64 naming its number and text" "line 3: '60 crashed'" <<'EOF'
0 ok
30 ok
60 crashed
90 ok
EOF
is_run "$(column 1)" "0 30" "lines before a malformed one are still decided"

usage_case "a time that is not a number" "time 'soon' is not a number" <<'EOF'
soon ok
EOF

usage_case "a bad latency" "'fast' is not a latency" <<'EOF'
0 ok fast
EOF

usage_case "time going backwards is refused" "time 10 is earlier than 60 on line 2" <<'EOF'
0 ok
60 ok
10 ok
EOF

sim --clock-steps --retry-count 1 <<'EOF'
1000 complete
100 ok
200 complete
EOF
is_run "$RC $(column 5)" "0 restart none failover" \
    "--clock-steps: a clock stepping back forgets no restart"

# --- parameters ----------------------------------------------------------------

usage_case "a bad parameter value names the parameter and the value" \
    "invalid value 'many' for retry-count" --retry-count many </dev/null
usage_case "a duration below its minimum" "'500ms' for retry-interval" \
    --retry-interval 500ms </dev/null
usage_case "an unknown option" "unknown option '--retry'" --retry 2 </dev/null
usage_case "a positional argument" "unexpected argument 'timeline.txt'" timeline.txt </dev/null
usage_case "adaptive without a limit" "neither adaptive_limit_ms" --adaptive </dev/null

# Options are spelt like the parameters too: any case, '_' for '-'.
timeline='0 complete
60 complete
120 complete'
sim --retry-count 1 --retry-interval 300 --manual-resume=false <<<"$timeline"
want=$(cat "$OUT")
sim --retry_count 1 --Retry_Interval=300 --MANUAL_RESUME=false <<<"$timeline"
is_run "$RC/$(cat "$OUT")" "0/$want" "--retry_count, --Retry_Interval=, --MANUAL_RESUME= are the same options"
like "$want" "Retry_count 1, Retry_interval 300 s" "(the options were applied)"
sim --retry_count many </dev/null
like "$(cat "$ERR")" "invalid value 'many' for retry-count" "a value is never folded: 'many' is refused as given"

sim --help </dev/null
missing=
for opt in --retry-count --retry-interval --thorough-probe-interval --probe-timeout \
    --down-interval --flapping-interval --rise --fall --manual-resume --report-degraded \
    --adaptive --adaptive-limit-ms --adaptive-limit-pct --adaptive-window \
    --adaptive-misses --cert-warn-days --json --clock-steps --replay --since; do
    grep -qF -- "$opt" "$OUT" || missing="$missing $opt"
done
is_run "$RC${missing}" "0" "--help: exit 0 and every option listed"
sim --replay web --help </dev/null
is_run "$RC/$(grep -c -- '--replay RESOURCE' "$OUT")" "0/1" "--replay --help: the same help, with the replay"
sim --replay '../etc' </dev/null
is_run "$RC/$(wc -l <"$ERR")" "64/1" "--replay of a name that is no resource's: a usage error, one line"

sim --retry-interval 200 </dev/null
like "$(cat "$ERR")" "warning: Retry_interval 200 s is shorter" \
    "a Retry_interval too short for Retry_count draws a warning"

printf '0 partial\n60 ok\n' | sim
like "$(sed -n 4p "$OUT")" "  weight 50 of 100 within Retry_interval 300 s \\(1 partial failure\\)$" \
    "an ok cycle inside the window says what its weight is made of"

sim --rise 3 --fall 2 --thorough-probe-interval 15 --down-interval 5 --flapping-interval 10 <<'EOF'
0 complete
10 complete
15 ok
20 ok
30 ok
EOF
is_run "$(column 4) / $(column 8)" "flapping down flapping flapping up / 10 5 10 10 15" \
    "rise, fall and the interval by state"

sim --manual-resume <<'EOF'
0 complete
60 ok
120 resume
180 ok
EOF
is_run "$(column 4) / $(column 5)" "held held up up / failover degraded none none" \
    "--manual-resume: recovery fails over and holds until a resume line"

sim <<'EOF'
0 complete
30 restart-failed
EOF
is_run "$(column 5)" "restart failover" "a restart that failed means failover"

sim --adaptive-limit-ms 100 <<'EOF'
0 ok 10
60 ok 10
120 ok 10
180 ok 200
240 ok 200
300 ok 200
EOF
is_run "$(column 5)" "none none none degraded degraded restart" \
    "adaptive response time: 3 latency misses in a row are a failure"

# --- JSON -----------------------------------------------------------------

sim --json --retry-count 2 --cert-warn-days 14 <<'EOF'
0 complete
60 complete 12.5
120 complete - cert=3
180 ok 1 cert=3
EOF
"$PYTHON3" - "$OUT" >"$TMP/json-check" 2>&1 <<'PY'
import json, sys
want = [("restart", 1, "down"), ("restart", 1, "down"), ("failover", 4, "down"),
        ("degraded", 190, "degraded")]
keys = {"t", "result", "latency_ms", "state", "action", "ocf_rc", "weight",
        "restarts_in_window", "next_probe_s", "reason"}
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
bad = []
if len(lines) != len(want):
    bad.append("%d lines, wanted %d" % (len(lines), len(want)))
for i, (line, (action, rc, state)) in enumerate(zip(lines, want)):
    obj = json.loads(line)
    if set(obj) != keys:
        bad.append("line %d: keys %s" % (i + 1, sorted(obj)))
    if (obj["action"], obj["ocf_rc"], obj["state"]) != (action, rc, state):
        bad.append("line %d: %s %s %s" % (i + 1, obj["action"], obj["ocf_rc"], obj["state"]))
if json.loads(lines[1])["latency_ms"] != 12.5 or json.loads(lines[2])["latency_ms"] is not None:
    bad.append("latency_ms not carried over")
if "exceed Retry_count 2" not in json.loads(lines[2])["reason"]:
    bad.append("failover reason")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
json_rc=$?
if [ "$RC" = 0 ] && [ "$json_rc" = 0 ]; then
    ok "--json: one object per line with the documented keys, actions and OCF codes"
else
    not_ok "--json: one object per line with the documented keys, actions and OCF codes"
    diag_file "$TMP/json-check"
    show
fi

tap_done
