#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-replay.sh: the loop keeps a cycle history (DIR/history, history.params)
# and `faultmon simulate --replay` runs it again with other parameters:
# with the recorded ones nothing differs (across a loop restart too), with
# Retry_count=5 the recorded failovers become restarts; a history file that
# is corrupt, truncated or missing is said in one line, never a crash.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 43

export FAULTMON_STATE_DIR=$FM_TMP/state
export TZ=UTC
fm_fault_server_start ok refuse || bail_out "the fault server did not start"
OK=127.0.0.1:${FS_PORT[ok]}
REFUSED=127.0.0.1:${FS_PORT[refuse]}
OUT=$FM_TMP/replay.out
ERR=$FM_TMP/replay.err
RC=

# run_loop RESOURCE CYCLES PORT PARAM...: one case, the loop exits 0.
run_loop() {
    local rsc=$1 cycles=$2 port=$3 rc
    shift 3
    local args=()
    for p in "$@"; do args+=(--param "$p"); done
    fm_timeout 30 "$FAULTMON" run "$rsc" --no-env --no-pacemaker --cycles "$cycles" --param "Port_list=$port" \
        --param Thorough_probe_interval=100ms --param Probe_timeout=1 "${args[@]}" 2>"$FM_TMP/run.err"
    rc=$?
    if [ "$rc" = 0 ]; then
        ok "faultmon run $rsc --cycles $cycles exits 0"
    else
        not_ok "faultmon run $rsc --cycles $cycles exits 0"
        diag "exit status $rc"
        diag_file "$FM_TMP/run.err"
    fi
}

# replay ARGS...: `faultmon simulate --replay ARGS...`; OUT, ERR, RC.
replay() {
    fm_timeout 20 "$FAULTMON" simulate --replay "$@" >"$OUT" 2>"$ERR"
    RC=$?
}

# differing: the differing lines as "recorded>replayed", space-joined.
differing() {
    grep -v '^#' "$OUT" | grep -E '^[0-9]{4}-' | awk '{ printf "%s%s>%s", sep, $4, $5; sep = " " }'
}

summary() {
    grep -E '^[A-Za-z0-9._-]+: [0-9]+ cycles replayed' "$OUT"
}

# 1-6: four refused cycles with Retry_count=1: a restart, then failovers.
run_loop web 4 "$REFUSED" Retry_count=1 Retry_interval=300
H=$FAULTMON_STATE_DIR/web/history
is "$(stat -c %a "$H" 2>&1)" 600 "the history is mode 0600"
size=$(stat -c %s "$H")
is "$(( (size - 32) % 16 ))/$(( (size - 32) / 16 ))" "0/5" \
    "a 32-byte header and 16-byte records: a loop start and four cycles"
like "$(cat "$FAULTMON_STATE_DIR/web/history.params")" "Retry_count=1" "history.params holds the loop's parameters"
replay web
is "$RC/$(differing)" "0/" "replayed with the recorded parameters, no decision differs"
like "$(summary)" "web: 4 cycles replayed over .*: restarts 1 recorded, 1 replayed; failovers 3 recorded, 3 replayed; 0 decisions differ" \
    "the summary counts restarts and failovers, recorded and replayed"

# 7-10: Retry_count=5: the failovers would have been restarts.
replay web --param Retry_count=5
is "$RC" 0 "a replay with --param exits 0"
is "$(differing)" "failover>restart failover>restart failover>restart" "with Retry_count=5 the three failovers are restarts"
like "$(grep '^# replayed with' "$OUT")" "Retry_count 1 -> 5" "the header names the parameter changed"
like "$(grep 'failover  *restart' "$OUT" | tail -n 1)" "restart 4 of Retry_count 5" "each differing line gives the replayed reason"

# 11-12: --json: one object per difference and a summary.
replay web --param retry-count=5 --json
is "$RC/$(grep -c '"recorded":"failover","replayed":"restart"' "$OUT")" "0/3" "--json: one object per differing decision"
is "$(tail -n 1 "$OUT" | "$PYTHON3" -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(s["outcomes"], s["restarts_recorded"], s["restarts_replayed"], s["failovers_replayed"])' 2>&1)" \
    "4 1 4 0" "--json: the summary object"

# 13-14: fall=2: the first failure would only have been flapping.
replay web --param fall=2
like "$(differing)" "^restart>degraded" "with fall=2 the first failure is not yet a restart"
is "$RC" 0 "a replay with fall=2 exits 0"

# 15-19: across a loop restart, as the agent starts a new loop after a
# restart: the new loop restored the history, and so does the replay.
run_loop two 2 "$REFUSED" Retry_count=2 Retry_interval=300
run_loop two 2 "$REFUSED" Retry_count=2 Retry_interval=300
replay two
is "$RC/$(differing)" "0/" "across a restored loop, the recorded parameters reproduce every decision"
replay two --param Retry_count=5
# The first cycle of the second loop verifies the restart asked for, in
# the replay too: a restart that fails is a failover, whatever Retry_count.
is "$(differing)" "failover>restart" "the second loop's second failover, with its restored restarts, is a restart"
like "$(summary)" "two: 4 cycles replayed" "both loops' cycles are replayed"

# 20-21: an ok loop, --since.
run_loop up 3 "$OK"
replay up --since 1h
like "$(summary)" "up: 3 cycles replayed over .*0 decisions differ" "--since 1h reports the last hour"

# 22-24: usage errors.
replay web --param Retry_count=many
is "$RC/$(wc -l <"$ERR")" "64/1" "a bad --param value is a usage error, one line"
replay web --param Port_list=x:1
is "$RC" 64 "a parameter that is not the engine's is refused"
replay web --since soon
is "$RC" 64 "a bad --since is refused"

# 25-26: no history.
replay nothing
is "$RC/$(wc -l <"$ERR")" "66/1" "no history: exit 66, one line"
like "$(cat "$ERR")" "no cycle history" "it says there is none"

# 27-29: a corrupt file: refused in one line, exit 65, no crash.
mkdir -p "$FAULTMON_STATE_DIR/bad"
cp "$FAULTMON_STATE_DIR/web/history.params" "$FAULTMON_STATE_DIR/bad/"
head -c 4096 /dev/urandom >"$FAULTMON_STATE_DIR/bad/history"
replay bad
is "$RC/$(wc -l <"$ERR")" "65/1" "a history that is not one: exit 65, one line"
like "$(cat "$ERR")" "bad magic.*nothing replayed" "it says why"
# The link points at a canary of this test's own, never at a system file.
printf 'canary\n' >"$FM_TMP/canary"
ln -sf "$FM_TMP/canary" "$FAULTMON_STATE_DIR/bad/history"
replay bad
is "$RC/$(cat "$FM_TMP/canary")" "65/canary" "a symbolic link is not followed (and its target is left alone)"

# 30-32: a truncated last record and a bad record are skipped, said once each.
rm -f "$FAULTMON_STATE_DIR/bad/history" && cp "$H" "$FAULTMON_STATE_DIR/bad/history"
printf '\x01\x02\x03\x04\x05' >>"$FAULTMON_STATE_DIR/bad/history"
replay bad
is "$RC/$(grep -c 'truncated last record (5 bytes)' "$ERR")" "0/1" "a truncated last record is ignored, in one line"
cp "$H" "$FAULTMON_STATE_DIR/bad/history"
printf '\xff' | dd of="$FAULTMON_STATE_DIR/bad/history" bs=1 seek=$((32 + 16 * 2 + 15)) conv=notrunc 2>/dev/null
replay bad
is "$RC/$(grep -c 'skipped 1 bad record(s), the first: record 3: state 7 out of range' "$ERR")" "0/1" \
    "a record out of range is skipped, in one line"
like "$(summary)" "bad: 3 cycles replayed" "the other records are replayed"

# 33-35: the writer rotates a file whose clock is not this boot's (its base
# after now) to history.1, and starts a new one.
mkdir -p "$FAULTMON_STATE_DIR/rot"
printf '\x89FMHIST\n\x01\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00' \
    >"$FAULTMON_STATE_DIR/rot/history"
run_loop rot 2 "$OK"
is "$(stat -c %s "$FAULTMON_STATE_DIR/rot/history.1" 2>&1)/$(stat -c %s "$FAULTMON_STATE_DIR/rot/history" 2>&1)" \
    "32/80" "another boot's file becomes history.1; the new one holds a loop start and two cycles"
replay rot
like "$(summary)" "rot: 2 cycles replayed" "both files are read, the empty old one too"

# 36-38: a file that is not a history is kept as history.bad and replaced.
mkdir -p "$FAULTMON_STATE_DIR/junk"
echo "not a history" >"$FAULTMON_STATE_DIR/junk/history"
run_loop junk 2 "$OK"
is "$(cat "$FAULTMON_STATE_DIR/junk/history.bad" 2>&1)" "not a history" "a foreign file is kept as history.bad"
replay junk
is "$RC/$(summary | grep -c '^junk: 2 cycles replayed')" "0/1" "and the new history replays"

# 39-41: a record cut short (a full disk) is cut off before the next batch,
# so that it shifts no later record.
printf '\x01\x02\x03\x04\x05' >>"$FAULTMON_STATE_DIR/junk/history"
run_loop junk 1 "$OK"
size=$(stat -c %s "$FAULTMON_STATE_DIR/junk/history")
is "$(( (size - 32) % 16 ))" 0 "the writer cuts a truncated record off before it appends"
replay junk
is "$RC/$(wc -l <"$ERR")/$(summary | grep -c '^junk: 3 cycles replayed')" "0/0/1" \
    "the history reads whole again: three cycles of two loops, nothing skipped"

# 42-43: a history that cannot be written costs its records, never the
# loop: said once, and every cycle runs.
mkdir -p "$FAULTMON_STATE_DIR/nowrite/history"
fm_timeout 30 "$FAULTMON" run nowrite --no-env --no-pacemaker -v --cycles 4 --param "Port_list=$REFUSED" \
    --param Thorough_probe_interval=100ms --param Probe_timeout=1 2>"$FM_TMP/run.err"
is "$?/$(sed -n 's/^cycles=//p' "$FAULTMON_STATE_DIR/nowrite/state")" "0/4" "the loop runs its four cycles and exits 0"
is "$(grep -c 'cannot write the cycle history' "$FM_TMP/run.err")" 1 "the failure is logged once"
