#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# status.sh: what `faultmon status` tells an administrator and a script:
# a stopped resource shows as stopped with the age of its last result, each
# state has its documented exit code, and a loop run for ocf:faultmon:httpmon
# (--kind=httpmon) speaks of an unhealthy service, never of restarts or
# failovers, in its status, its JSON and its log.  Also: parameter names are
# case-insensitive and '-' stands for '_' on faultmon's command lines.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 28

export FAULTMON_STATE_DIR=$FM_TMP/state
mkdir -p "$FAULTMON_STATE_DIR"
fm_fault_server_start ok refuse silent || bail_out "the fault server did not start"
OK=127.0.0.1:${FS_PORT[ok]}
REFUSED=127.0.0.1:${FS_PORT[refuse]}
SILENT=127.0.0.1:${FS_PORT[silent]}

# status ARGS...: run `faultmon status`, output in $out, exit status in $rc.
status() {
    out=$(fm_timeout 10 "$FAULTMON" status "$@" 2>&1)
    rc=$?
}

json_field() {  # json_field RESOURCE EXPR: one value from `faultmon status --json`
    fm_timeout 10 "$FAULTMON" status "$1" --json |
        "$PYTHON3" -c "import json,sys; r=json.load(sys.stdin)['resources'][0]; print($2)"
}

run_loop() {  # run_loop RESOURCE CYCLES ARG...: a loop that ends after CYCLES cycles
    local rsc=$1 cycles=$2
    shift 2
    fm_timeout 30 "$FAULTMON" run "$rsc" --no-env --no-pacemaker --cycles "$cycles" "$@" \
        2>>"$FM_TMP/run.err"
}

# start_loop RESOURCE ARG...: a loop that keeps running (stopped at exit);
# returns once it has written the state of its first cycle.
start_loop() {
    local rsc=$1 i
    shift
    "$FAULTMON" run "$rsc" --no-env --no-pacemaker -v "$@" 2>"$FM_TMP/$rsc.log" &
    fm_cleanup_add "kill $! 2>/dev/null"
    for i in $(seq 1 100); do
        [ -s "$FAULTMON_STATE_DIR/$rsc/state" ] && [ -s "$FAULTMON_STATE_DIR/$rsc/pid" ] && return 0
        sleep 0.05
    done
    return 1
}

# 1-2: nothing known.
status
is "$rc" 4 "no resource has state on this node: exit 4"
status nosuch
is "$rc/$(printf '%s' "$out" | grep -c 'no state')" "4/1" "an unknown resource: exit 4, 'no state'"

# 3-6: a loop that ran and stopped: stopped, with the age of its last result,
# and no promise of a next probe.
run_loop web 1 --param "Port_list=$OK" --param Thorough_probe_interval=2
sed -i "s/^updated_wall_s=.*/updated_wall_s=$(($(date +%s) - 200))/" "$FAULTMON_STATE_DIR/web/state"
status web
is "$rc" 3 "a cleanly stopped resource: exit 3"
like "$out" "^web: stopped \\(no fault-monitor loop runs; its last result is 3 min 2[0-9] s old\\)" \
    "it shows as stopped, with the age of the last result"
unlike=$(printf '%s\n' "$out" | grep -c -e 'next probe' -e '^web: up')
is "$unlike" 0 "no 'up' and no 'next probe in' for a stopped resource"
is "$(json_field web 'r["status"], r["exit"], r["loop_running"], r["age_s"] >= 200')" \
    "stopped 3 False True" "JSON: state stopped, exit 3, loop not running, its age"

# 7: the loop died while the agent had the service started (its record is
# still there): not "stopped", but still exit 3.
run_loop died 1 --param "Port_list=$OK"
printf 'agent=apache\n' >"$FAULTMON_STATE_DIR/died/agent"
status died
is "$rc/$(printf '%s' "$out" | head -1 | cut -d' ' -f2)" "3/loop-not-running" \
    "a dead loop under a started agent: loop-not-running, exit 3"

# 7b: a loop killed (SIGKILL) without an agent: it died, it did not stop.
"$FAULTMON" run killed --no-env --no-pacemaker --param "Port_list=$OK" --param Thorough_probe_interval=60 \
    2>/dev/null &
killed_pid=$!
for _ in $(seq 1 100); do
    [ -s "$FAULTMON_STATE_DIR/killed/state" ] && break
    sleep 0.05
done
kill -KILL "$killed_pid"
wait "$killed_pid" 2>/dev/null
status killed
is "$rc/$(printf '%s' "$out" | head -1 | cut -d' ' -f2)" "3/loop-not-running" \
    "a loop that was killed: loop-not-running, exit 3"

# 8-9: failed over (Retry_count=0: the first recovery is a failover), the
# loop gone as Pacemaker stopped the resource here.
run_loop moved 1 --param "Port_list=$REFUSED" --param Retry_count=0
status moved
is "$rc" 2 "a failed-over resource: exit 2"
like "$out" "^moved: failed-over " "it shows as failed-over"

# 10: held for manual resume, not running.
run_loop held 1 --param "Port_list=$REFUSED" --param manual_resume=true
status held
is "$rc/$(printf '%s' "$out" | head -1 | cut -d' ' -f2)" "2/held" "held for manual resume: exit 2"

# 11-13: running loops: up (0), degraded after one partial failure (1),
# restarting after a complete failure (2).
start_loop live --param "Port_list=$OK" --param Thorough_probe_interval=60 ||
    bail_out "the loop did not write its state"
status live
is "$rc/$(printf '%s' "$out" | head -1)" "0/live: up" "a running loop, service up: exit 0"
start_loop slow --param "Port_list=$SILENT" --param Probe_timeout=200ms --param Thorough_probe_interval=60 ||
    bail_out "the loop did not write its state"
status slow
is "$rc/$(printf '%s' "$out" | head -1)" "1/slow: degraded" "one partial failure: degraded, exit 1"
start_loop dead --param "Port_list=$REFUSED" --param Thorough_probe_interval=60 ||
    bail_out "the loop did not write its state"
status dead
is "$rc/$(printf '%s' "$out" | head -1)" "2/dead: restarting" "a complete failure: restarting, exit 2"

# 14: several resources: the most urgent code (2 before 1, 3 and 0).
status
is "$rc" 2 "faultmon status without a resource: the most urgent exit code"

# 15-22: httpmon's loop speaks of an unhealthy service.
start_loop hm --kind=httpmon --param "Port_list=$REFUSED" --param Thorough_probe_interval=60 ||
    bail_out "the httpmon loop did not write its state"
status hm
is "$rc/$(printf '%s' "$out" | head -1)" "2/hm: unhealthy" "httpmon: an unhealthy service, exit 2"
like "$out" "reason: +complete failure, weight 100 within Retry_interval 300 s: unhealthy" \
    "httpmon: the reason says unhealthy"
is "$(printf '%s\n' "$out" | grep -ci -e restart -e failover -e 'fail over' -e Retry_count)" 0 \
    "httpmon: status never speaks of restarts, failovers or Retry_count"
is "$(json_field hm 'r["kind"], r["status"], r["pending"], "ocf_rc" in r, "restarts_in_window" in r')" \
    "httpmon unhealthy none False False" \
    "httpmon JSON: kind httpmon, state unhealthy, nothing pending, no ocf_rc or restart count"
is "$(json_field hm '[h["action"] for h in r["history"]]')" "['unhealthy']" \
    "httpmon JSON: the history records 'unhealthy', not 'restart'"
is "$(grep -ci -e restart -e failover -e 'fail over' -e Retry_count "$FM_TMP/hm.log")" 0 \
    "httpmon: the loop's log never speaks of restarts or failovers"
like "$(cat "$FM_TMP/hm.log")" "hm: unhealthy" "httpmon: the loop's log says unhealthy"
grep -qx 'kind=httpmon' "$FAULTMON_STATE_DIR/hm/state"
ok_if $? "the state file records which agent runs the loop (kind=httpmon)"

# 23-24: --kind is checked; apache is the default kind.
fm_timeout 10 "$FAULTMON" run bad --no-env --kind=frob --cycles 1 >/dev/null 2>&1
is "$?" 64 "an unknown --kind is a usage error (64)"
is "$(json_field live 'r["kind"]')" apache "without --kind the loop's kind is apache"

# 25-27: parameter names on faultmon's command lines: any case, '-' for '_'.
run_loop spell 1 --param "port-list=$OK" --param PROBE-TIMEOUT=2 --param retry_count=1 \
    --param thorough-probe-interval=2
ok_if $? "faultmon run --param takes port-list, PROBE-TIMEOUT, retry_count"
is "$(json_field spell 'r["next_failure"]')" \
    "restart: complete failure, weight 100 within Retry_interval 300 s: restart 1 of Retry_count 1" \
    "the names were applied (Retry_count 1)"
is "$(json_field spell 'r["status"] + "/" + str(r["cycles"])')" "stopped/1" "and the loop ran its cycle"

tap_done
