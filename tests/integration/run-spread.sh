#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-spread.sh: spread mode (the spread parameter of `faultmon run`, and
# `faultmon probe --spread`) against a real nginx on loopback.  nginx's
# access log, with the time of each request ($msec), shows that the probes
# of one interval start spread over it, in target order, each target once an
# interval; burst mode (the default) starts them together.  A server stopped
# under a spread loop is a complete failure within Thorough_probe_interval +
# Probe_timeout.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 90
fm_require_faultmon
trap fm_cleanup_run EXIT
export FAULTMON_STATE_DIR=$FM_TMP/state
# shellcheck disable=SC2016 # nginx's variables, not the shell's
WS_LOG_FORMAT='$msec|$request|$status'
ws_nginx_start || bail_out "nginx did not start"
H=127.0.0.1:$WS_HTTP_PORT
PYTHON3=${PYTHON3:-python3}

plan 17

# Background loops of this script, stopped on exit whatever happens.
BG_PIDS=()
# shellcheck disable=SC2016 # expanded when the cleanup runs
fm_cleanup_add 'for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done'

# targets TAG N: N Port_list URIs, /TAG0 ... (HEAD: a 404 is an answer).
targets() {
    local i
    for i in $(seq 0 $(($2 - 1))); do printf 'http://%s/%s%d\n' "$H" "$1" "$i"; done
}

# starts TAG ROUND: the start times (ms) of round ROUND's requests for the
# targets /TAG0... in the access log, in target order, one a line.
starts() {
    "$PYTHON3" - "$WS_ACCESS_LOG" "$1" "$2" <<'PY'
import re, sys
log, tag, rnd = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen = {}
for line in open(log):
    f = line.rstrip("\n").split("|")
    m = re.match(r"HEAD /%s(\d+) " % re.escape(tag), f[1]) if len(f) == 3 else None
    if m:
        seen.setdefault(int(m.group(1)), []).append(float(f[0]) * 1000.0)
for i in sorted(seen):
    if len(seen[i]) > rnd:
        print("%.0f" % seen[i][rnd])
PY
}

# spread_check NAME N WINDOW_MS FILE: one case: N starts, in target order,
# spanning at least 60 % of the (n-1)/n of WINDOW_MS they should, and less
# than WINDOW_MS; the median gap between neighbours at least half a slot.
spread_check() {
    local verdict
    verdict=$("$PYTHON3" - "$2" "$3" "$4" <<'PY'
import sys
n, window = int(sys.argv[1]), float(sys.argv[2])
t = [float(x) for x in open(sys.argv[3]).read().split()]
if len(t) != n:
    print("%d starts of %d" % (len(t), n)); sys.exit()
gaps = sorted(b - a for a, b in zip(t, t[1:]))
span = t[-1] - t[0]
want = window * (n - 1) / n
if min(gaps) < 0:
    print("not in target order: %s" % t)
elif span < 0.6 * want or span >= window:
    print("span %.0f ms, expected about %.0f" % (span, want))
elif gaps[len(gaps) // 2] < 0.5 * window / n:
    print("median gap %.0f ms, slot %.0f" % (gaps[len(gaps) // 2], window / n))
else:
    print("ok")
PY
)
    if [ "$verdict" = ok ]; then
        ok "$1"
    else
        not_ok "$1"
        diag "$verdict"
        diag_file "$4"
    fi
}

# 1-4: faultmon run, spread over a 2 s interval: 8 targets a quarter second
# apart, in order; the next interval probes each target 2 s after the last.
list=$(targets r 8 | paste -sd, -)
fm_timeout 30 "$FAULTMON" run sp --no-env --no-pacemaker --cycles 2 --param "Port_list=$list" \
    --param Thorough_probe_interval=2 --param Probe_timeout=1 --param spread=true 2>"$FM_TMP/run.err"
rc=$?
is "$rc" 0 "faultmon run --param spread=true: 2 cycles, exit 0"
[ "$rc" = 0 ] || diag_file "$FM_TMP/run.err"
starts r 0 >"$FM_TMP/r0"
starts r 1 >"$FM_TMP/r1"
spread_check "run, spread: the first interval's probes spread over it, in order" 8 2000 "$FM_TMP/r0"
spread_check "run, spread: so are the second interval's" 8 2000 "$FM_TMP/r1"
period=$(paste "$FM_TMP/r0" "$FM_TMP/r1" | awk '{ d = $2 - $1; if (d < 1800 || d > 2400) bad++ } END { print bad + 0 }')
is "$period" 0 "run, spread: each target is probed again one interval (2 s) later"

# 5-7: faultmon probe --spread --count 2 --interval 1s, and without --spread.
targets p 8 >"$FM_TMP/p.targets"
fm_probe --spread --count 2 --interval 1s --timeout 1s --targets-file "$FM_TMP/p.targets"
is "$FM_RC" 0 "faultmon probe --spread --count 2: exit 0"
starts p 1 >"$FM_TMP/p1"
spread_check "probe --spread: the probes of a run spread over --interval, in order" 8 1000 "$FM_TMP/p1"
targets b 8 >"$FM_TMP/b.targets"
fm_probe --timeout 1s --targets-file "$FM_TMP/b.targets"
starts b 0 >"$FM_TMP/b0"
burst=$(awk 'NR == 1 { lo = $1 } { hi = $1 } END { print (NR == 8 && hi - lo < 300)? "burst" : "span " hi - lo " ms over " NR }' "$FM_TMP/b0")
is "$burst" burst "probe without --spread (the default): every target at once"

# 8: the agents' one-shot probe (OCF_CHECK_LEVEL=10) never spreads: it is
# one check inside the monitor's own timeout (8 targets spread over the
# default second would take 875 ms).
ocf_probe=${FM_TOP_BUILDDIR:-$FM_TESTS_DIR/..}/agents/faultmon-ocf-probe
start_ms=$(fm_now_ms)
OCF_RESKEY_Port_list=$(targets o 8 | paste -sd, -) OCF_RESKEY_spread=true \
    fm_timeout 10 "$ocf_probe" >"$FM_TMP/ocf-probe.out" 2>&1
rc=$?
took=$(($(fm_now_ms) - start_ms))
if [ "$rc" = 0 ] && [ "$took" -lt 600 ]; then
    ok "faultmon-ocf-probe with spread=true: every target at once, ok ($took ms)"
else
    not_ok "faultmon-ocf-probe with spread=true: every target at once, ok ($took ms)"
    diag "exit $rc"
    diag_file "$FM_TMP/ocf-probe.out"
fi

# 9-10: a bad value is refused by the row's check (exit 64).
fm_timeout 10 "$FAULTMON" run sp-bad --no-env --no-pacemaker --cycles 1 --param "Port_list=$H" \
    --param spread=sometimes >/dev/null 2>"$FM_TMP/bad.err"
is "$?" 64 "run --param spread=sometimes: a usage error"
like "$(cat "$FM_TMP/bad.err")" "invalid spread 'sometimes': expected true or false" "... that says what spread takes"

# status_field RESOURCE EXPR: one value of `faultmon status --json`.
status_field() {
    "$FAULTMON" status "$1" --json 2>/dev/null |
        "$PYTHON3" -c "import json,sys; r=json.load(sys.stdin)['resources'][0]; print($2)" 2>/dev/null
}

# 11: between its probes a spread loop sleeps.  Its timer (a timer of the
# loop's, the wait's timeout: src/probe/spread.c) fires once per probe; a
# timer left due, or a wake-up set in the past, would have the loop spin,
# taking about its whole wall time in CPU.  3 cycles of 4
# targets a quarter second apart: it must take well under a quarter of that.
list=$(targets c 4 | paste -sd, -)
TIMEFORMAT='%R %U %S'
{ time fm_timeout 20 "$FAULTMON" run nospin --no-env --no-pacemaker --cycles 3 --param "Port_list=$list" \
    --param Thorough_probe_interval=1 --param Probe_timeout=1 --param spread=true \
    >/dev/null 2>"$FM_TMP/nospin.err"; } 2>"$FM_TMP/nospin.time"
read -r wall_s user_s sys_s <"$FM_TMP/nospin.time"
spin=$(awk -v w="$wall_s" -v u="$user_s" -v s="$sys_s" 'BEGIN { print (w >= 1.8 && u + s < w / 4)? "sleeps" : "spins" }')
is "$spin" sleeps "spread loop: sleeps between its probes (wall $wall_s s, CPU $user_s s user + $sys_s s system)"

# 12-17: nginx stops under a spread loop (4 targets, 2 s, Probe_timeout 1 s):
# a complete failure, no partial one first, within interval + timeout (the
# first refused probe starts the rest of the sweep at once).
list=$(targets d 4 | paste -sd, -)
"$FAULTMON" run dead --no-env --no-pacemaker -v --param "Port_list=$list" --param Thorough_probe_interval=2 \
    --param Probe_timeout=1 --param spread=true 2>"$FM_TMP/dead.err" &
LOOP_PID=$!
BG_PIDS+=("$LOOP_PID")
for _ in $(seq 1 100); do
    [ "$(status_field dead 'r["cycles"]')" = 1 ] && break
    sleep 0.05
done
sleep 0.7    # into the second sweep: some targets of it probed already
is "$(status_field dead 'r["history"][-1]["verdict"]')" ok "spread loop: a healthy first cycle"
killed_ms=$(fm_now_ms)
ws_nginx_kill
found_ms=
for _ in $(seq 1 100); do
    if [ "$(status_field dead 'r["history"][-1]["verdict"]')" = complete ]; then
        found_ms=$(fm_now_ms)
        break
    fi
    sleep 0.05
done
[ -n "$found_ms" ]
ok_if $? "spread loop: the stopped server is found"
took=$((${found_ms:-99999} - killed_ms))
[ "$took" -le 3000 ]
ok_if $? "spread loop: found within Thorough_probe_interval + Probe_timeout (3000 ms): $took ms"
# (The history's length is not read before the stop: the loop writes an
# unchanged ok state only every 10 s, so the file may lag by a few cycles.)
is "$(status_field dead '",".join(sorted(set(h["verdict"] for h in r["history"])))')" "complete,ok" \
    "spread loop: a complete failure, no partial one on the way"
# That cycle: the targets probed before the stop keep their ok (their latest
# verdict), every one after it is refused, and none is missing.
like "$(status_field dead '",".join(t["reason"] for t in r["targets"])')" \
    '^(ok,)*connect-failed(,connect-failed)*$' \
    "spread loop: that cycle has a verdict of every target, refused from the stop on"
kill -TERM "$LOOP_PID" 2>/dev/null
wait "$LOOP_PID"
is "$?" 0 "spread loop: exits 0 on SIGTERM"
