#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-loop.sh: `faultmon run`, `status`, `resume` and `reset` against the loopback
# fault server: the decisions it records, its state directory (mode, atomic
# writes, a corrupt or inconsistent file set aside or refused without any
# recovery), one loop per resource (the lock), a prompt exit on SIGTERM, and
# failures the agent's monitor or a watched process hands to the loop.
# Every exit status is checked: a loop that crashes fails the case.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 120
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 86

export FAULTMON_STATE_DIR=$FM_TMP/state
fm_fault_server_start ok refuse silent status-500 quadratic-body || bail_out "the fault server did not start"
OK=http://127.0.0.1:${FS_PORT[ok]}/
REFUSED=127.0.0.1:${FS_PORT[refuse]}
SILENT=http://127.0.0.1:${FS_PORT[silent]}/

# Background loops of this script, stopped on exit whatever happens.
BG_PIDS=()
fm_cleanup_add 'for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done'

# json_field RESOURCE EXPR: one value from `faultmon status --json`.  A
# status that crashes, refuses the state or prints anything but one JSON
# document with one resource prints "status failed ..." instead, which no
# case expects (its exit status may also say how the service is doing).
json_field() {
    local out rc
    out=$("$FAULTMON" status "$1" --json 2>"$FM_TMP/status.err")
    rc=$?
    if [ "$rc" -ge 64 ] || [ "$rc" -ge 128 ] ||
        ! printf '%s' "$out" | "$PYTHON3" -c "import json,sys; d=json.load(sys.stdin); assert len(d['resources']) == 1" 2>/dev/null; then
        echo "status failed (exit $rc): $(head -c 200 "$FM_TMP/status.err")"
        return
    fi
    printf '%s' "$out" | "$PYTHON3" -c "import json,sys; r=json.load(sys.stdin)['resources'][0]; print($2)"
}

# no_verdict RESOURCE: "no verdict" when `faultmon status` refuses the
# state: it fails, says "no verdict", and shows no state.
no_verdict() {
    local out rc
    out=$("$FAULTMON" status "$1" 2>&1)
    rc=$?
    if [ "$rc" != 0 ] && [ "$rc" -lt 64 ] && printf '%s' "$out" | grep -q "no verdict" &&
        ! printf '%s' "$out" | grep -Eq "^$1: |reason: "; then
        echo "no verdict"
    else
        echo "exit $rc: $out"
    fi
}

# run_loop RESOURCE CYCLES PARAM...: run the loop for CYCLES cycles; one
# case: it exits 0.
run_loop() {
    local rsc=$1 cycles=$2 rc
    shift 2
    local args=()
    for p in "$@"; do args+=(--param "$p"); done
    fm_timeout 30 "$FAULTMON" run "$rsc" --no-env -v --cycles "$cycles" "${args[@]}" 2>"$FM_TMP/run.err"
    rc=$?
    cat "$FM_TMP/run.err" >>"$FM_TMP/all-runs.err"
    if [ "$rc" = 0 ]; then
        ok "faultmon run $rsc --cycles $cycles exits 0"
    else
        not_ok "faultmon run $rsc --cycles $cycles exits 0"
        diag "exit status $rc"
        diag_file "$FM_TMP/run.err"
    fi
}

# start_loop RESOURCE PARAM...: a loop in the background; LOOP_PID. It has
# written its first state when this returns 0.
start_loop() {
    local rsc=$1
    shift
    local args=()
    for p in "$@"; do args+=(--param "$p"); done
    "$FAULTMON" run "$rsc" --no-env -v "${args[@]}" 2>>"$FM_TMP/bg-$rsc.err" &
    LOOP_PID=$!
    BG_PIDS+=("$LOOP_PID")
    for _ in $(seq 1 100); do
        [ "$(sed -n 's/^pid=//p' "$FAULTMON_STATE_DIR/$rsc/state" 2>/dev/null)" = "$LOOP_PID" ] && return 0
        kill -0 "$LOOP_PID" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# stop_loop PID: SIGTERM, then the exit status of the loop (wait).
# survivors_within TENTHS PID1 PID2: how many of the two still run once one
# stops, or when TENTHS tenths of a second have passed.
survivors_within() {
    local n=2
    for _ in $(seq 1 "$1"); do
        n=0
        kill -0 "$2" 2>/dev/null && n=$((n + 1))
        kill -0 "$3" 2>/dev/null && n=$((n + 1))
        [ "$n" -le 1 ] && break
        sleep 0.1
    done
    echo "$n"
}

stop_loop() {
    kill -TERM "$1" 2>/dev/null
    wait "$1"
}

# 1-4: Retry_count=2: complete failures restart twice, then fail over.
run_loop web 3 "Port_list=$REFUSED" Thorough_probe_interval=1 Retry_count=2 Retry_interval=300 Probe_timeout=1
is "$(json_field web 'r["pending"]')" failover "the third complete failure within Retry_interval asks for a failover"
like "$(json_field web 'r["reason"]')" "3 restarts within Retry_interval 300 s exceed Retry_count 2" \
    "the reason says why it fails over"
is "$(json_field web 'r["ocf_rc"]')" 4 "a failover is reported as OCF rc 4 (hard: move away)"

# 5-7: the history survives a restart of the loop (and of the service): a
# restart asked by one loop is still counted by the next one.
run_loop again 1 "Port_list=$REFUSED" Retry_count=2 Retry_interval=300
run_loop again 1 "Port_list=$OK" Retry_count=2 Retry_interval=300
is "$(json_field again 'r["restarts_in_window"]')" 1 "restarts asked are counted across loop restarts"

# 8-9: the state directory.
is "$(stat -c %a "$FAULTMON_STATE_DIR/web")" 700 "the state directory is mode 0700"
ls "$FAULTMON_STATE_DIR"/web/.state.* >/dev/null 2>&1
ok_if $((! $?)) "no temporary file is left behind"

# 10-14: a healthy service: one cycle, ok, no action; a URI answered 500
# is a complete failure (restart).
run_loop healthy 1 "Port_list=$OK" Thorough_probe_interval=1
is "$(json_field healthy 'r["state"] + "/" + r["pending"] + "/" + str(r["ocf_rc"])')" "up/none/0" \
    "a healthy service is up, nothing pending, OCF rc 0"
run_loop uri 1 "Port_list=$OK" "Monitor_Uri_List=http://127.0.0.1:${FS_PORT[status-500]}/status"
is "$(json_field uri 'r["pending"]')" restart "a Monitor_Uri_List GET answered 500 asks for a restart"
is "$(json_field uri 'r["ocf_rc"]')" 1 "a restart is reported as OCF rc 1 (soft: restart in place)"

# 15-16: a partial failure (silent server) alone does not restart.
run_loop partial 1 "Port_list=$SILENT" Probe_timeout=1
is "$(json_field partial 'r["pending"]')" none "one partial failure does not restart"

# 17-19: a corrupt state file is set aside and replaced, and causes no
# recovery by itself.
printf 'faultmon-state 1\npending=2\nd.restart=garbage\n' >"$FAULTMON_STATE_DIR/healthy/state"
run_loop healthy 1 "Port_list=$OK"
is "$(json_field healthy 'r["pending"]')" none "a corrupt state file causes no recovery"
ls "$FAULTMON_STATE_DIR"/healthy/state.*.bad >/dev/null 2>&1
ok_if $? "the corrupt state file is kept aside as state.*.bad"

# 20-23: a well-formed file the loop would refuse is no verdict for status
# either: never "failing-over, ocf_rc 4".
cp "$FAULTMON_STATE_DIR/web/state" "$FM_TMP/web.state"
sed -i 's/^d\.version=.*/d.version=7/' "$FAULTMON_STATE_DIR/web/state"
is "$(no_verdict web)" "no verdict" "status: d.version=7 next to a failover is no verdict, not failing-over"
like "$("$FAULTMON" status web 2>&1)" "no verdict: .*version 7" "status says why it gives no verdict"
cp "$FM_TMP/web.state" "$FAULTMON_STATE_DIR/web/state"
sed -i 's/^ocf_rc=.*/ocf_rc=200/' "$FAULTMON_STATE_DIR/web/state"
is "$(no_verdict web)" "no verdict" "status: an ocf_rc outside 0, 1, 4, 190 is no verdict"
cp "$FM_TMP/web.state" "$FAULTMON_STATE_DIR/web/state"
sed -i -e 's/^pending=.*/pending=1/' "$FAULTMON_STATE_DIR/web/state"
is "$(no_verdict web)" "no verdict" "status: pending restart next to a failover decision is no verdict"
cp "$FM_TMP/web.state" "$FAULTMON_STATE_DIR/web/state"

# 24-27: SIGTERM ends a running loop within a second, with status 0.
if start_loop sigterm "Port_list=$OK" Thorough_probe_interval=60; then
    ok "the loop is running and has written its state before SIGTERM"
else
    not_ok "the loop is running and has written its state before SIGTERM"
    diag_file "$FM_TMP/bg-sigterm.err"
fi
pid=$LOOP_PID
start=$(fm_now_ms)
kill -TERM "$pid"
wait "$pid"
rc=$?
elapsed=$(($(fm_now_ms) - start))
is "$rc" 0 "SIGTERM: the loop exits with status 0"
[ "$elapsed" -lt 1000 ]
ok_if $? "SIGTERM: the loop exits within a second (took ${elapsed} ms)"
is "$(cat "$FAULTMON_STATE_DIR/sigterm/lock")" "" "a clean stop leaves no PID in the lock file"

# 28-34: one loop per resource.  A second loop exits at once (75) with one
# line naming the first; the first keeps running and owns the state.
if start_loop one "Port_list=$OK" Thorough_probe_interval=1; then
    ok "a first loop runs"
else
    not_ok "a first loop runs"
    diag_file "$FM_TMP/bg-one.err"
fi
first=$LOOP_PID
start=$(fm_now_ms)
fm_timeout 10 "$FAULTMON" run one --no-env --param "Port_list=$OK" --cycles 1 >"$FM_TMP/second.out" 2>"$FM_TMP/second.err"
rc=$?
elapsed=$(($(fm_now_ms) - start))
is "$rc" 75 "a second loop for the same resource exits 75"
[ "$elapsed" -lt 2000 ]
ok_if $? "the second loop exits at once (took ${elapsed} ms)"
is "$(wc -l <"$FM_TMP/second.err")/$(grep -c "faultmon loop (pid $first) holds the loop lock" "$FM_TMP/second.err")" "1/1" \
    "the second loop's error is one line naming pid $first"
sleep 1.2
kill -0 "$first" 2>/dev/null
ok_if $? "the first loop is still running"
is "$(sed -n 's/^pid=//p' "$FAULTMON_STATE_DIR/one/state")" "$first" "the state is still the first loop's"
is "$(json_field one 'r["loop_running"]')" True "status sees the loop running (from the lock)"

# 35-37: the state directory removed under a running loop: a loop started
# afterwards and the old one never both keep running.
rm -rf "${FAULTMON_STATE_DIR:?}/one"
start_loop one "Port_list=$OK" Thorough_probe_interval=1
second=$LOOP_PID
survivors=$(survivors_within 60 "$first" "$second")
is "$survivors" 1 "after the directory was removed, one of two loops stops"
if [ "$survivors" != 1 ]; then
    kill -KILL "$first" "$second" 2>/dev/null
fi
if kill -0 "$first" 2>/dev/null; then
    wait "$second"; rc=$?; survivor=$first
else
    wait "$first"; rc=$?; survivor=$second
fi
is "$rc" 75 "the loop that stops exits 75 (another loop holds the lock)"
stop_loop "$survivor"
is "$?" 0 "the survivor stops on SIGTERM with status 0"

# 38-40: a stale pid file naming a live faultmon of another resource (a
# reused PID) is not a running loop: the lock decides.
if start_loop other "Port_list=$OK" Thorough_probe_interval=60; then
    other=$LOOP_PID
    echo "$other" >"$FAULTMON_STATE_DIR/healthy/pid"
    is "$(json_field healthy 'r["loop_running"]')" False "a stale pid file of a reused PID is no loop"
    out=$("$FAULTMON" resume healthy 2>&1)
    rc=$?
    is "$rc/$(printf '%s' "$out" | grep -c 'from the running loop')" "2/0" \
        "resume does not take the stale pid for the loop (and, nothing held, changes nothing: 2)"
    kill -0 "$other" 2>/dev/null
    ok_if $? "the other resource's loop was not signalled"
    stop_loop "$other"
else
    not_ok "a loop for another resource runs"
    skip "needs the other loop" 2
fi

# 41-44: manual resume: held after a failure until `faultmon resume`.
run_loop held 1 "Port_list=$REFUSED" manual_resume=true
is "$(json_field held 'r["state"]')" held "manual_resume: a failure holds the service"
out=$("$FAULTMON" resume held 2>&1)
is "$?" 0 "faultmon resume exits 0"
is "$(json_field held 'r["state"]')" up "faultmon resume puts it back"
out=$("$FAULTMON" resume held 2>&1)
is "$?/$out" "2/held: nothing is held for manual resume on this node (up); nothing changed" \
    "faultmon resume with nothing held: exit 2, says so (not 0 'resume requested')"

# 45: reset without a loop: the failover decision of 1-4 and its restarts go.
"$FAULTMON" reset web >/dev/null
is "$(json_field web 'r["pending"] + "/" + str(r["restarts_in_window"])')" "none/0" \
    "faultmon reset forgets a failover decision and the restarts (no loop running)"

# 46-47: reset keeps a hold for manual resume, in a state the reader accepts.
run_loop held2 1 "Port_list=$REFUSED" manual_resume=true
"$FAULTMON" reset held2 >/dev/null
is "$(json_field held2 'r["state"] + "/" + str(r["restarts_in_window"])')" "held/0" \
    "faultmon reset of a held service keeps the hold (faultmon resume releases it)"

# 48-51: a running loop: a failure the agent's monitor found (the file
# `event` and SIGUSR2) enters its history once; reset clears it.
"$FAULTMON" run live --no-env --no-pacemaker --param "Port_list=$OK" --param Thorough_probe_interval=60 2>>"$FM_TMP/bg-live.err" &
pid=$!
BG_PIDS+=("$pid")
for _ in $(seq 1 50); do [ -s "$FAULTMON_STATE_DIR/live/state" ] && break; sleep 0.1; done
event() {   # event: hand one complete failure to the loop, wait until it took it
    printf 'complete httpd is not running (test)\n' >"$FAULTMON_STATE_DIR/live/event"
    kill -USR2 "$pid"
    for _ in $(seq 1 50); do [ -e "$FAULTMON_STATE_DIR/live/event" ] || break; sleep 0.05; done
}
event
is "$(json_field live 'r["pending"] + "/" + str(r["restarts_in_window"]) + "/" + str(r["ocf_rc"])')" "restart/1/1" \
    "a failure found by the monitor is a complete failure of the history: restart 1, OCF rc 1"
event
is "$(json_field live 'str(r["restarts_in_window"])')" 1 \
    "the same outage reported again while its restart is pending counts once"
"$FAULTMON" reset live >/dev/null
for _ in $(seq 1 50); do [ -e "$FAULTMON_STATE_DIR/live/reset" ] || break; sleep 0.05; done
is "$(json_field live 'r["pending"] + "/" + str(r["restarts_in_window"])')" "none/0" \
    "faultmon reset of a running loop forgets the decision and the restarts"
event
is "$(json_field live 'str(r["restarts_in_window"])')" 1 "after a reset, a new failure is restart 1 again"
kill -TERM "$pid"
wait "$pid" 2>/dev/null

# 52-53: the watched process (FAULTMON_WATCH_PIDFILE, httpd's pid file as the
# agent passes it) exits: a complete failure at once, not at the next probe.
sleep 60 &
spid=$!
echo "$spid" >"$FM_TMP/watched.pid"
FAULTMON_WATCH_PIDFILE=$FM_TMP/watched.pid FAULTMON_WATCH_NAME=sleep "$FAULTMON" run watched -v --no-env --no-pacemaker \
    --param "Port_list=$OK" --param Thorough_probe_interval=60 2>>"$FM_TMP/bg-watched.err" &
pid=$!
BG_PIDS+=("$pid")
for _ in $(seq 1 50); do [ -s "$FAULTMON_STATE_DIR/watched/state" ] && break; sleep 0.1; done
is "$(json_field watched 'r["pending"]')" none "the watched process runs: nothing pending"
start=$(fm_now_ms)
kill -KILL "$spid"
wait "$spid" 2>/dev/null
for _ in $(seq 1 40); do
    [ "$(json_field watched 'r["pending"]')" = restart ] && break
    sleep 0.05
done
elapsed=$(($(fm_now_ms) - start))
is "$(json_field watched 'r["pending"] + "/" + str(r["restarts_in_window"])')" "restart/1" \
    "the watched process exits: restart 1 decided after ${elapsed} ms (the next probe was 60 s away)"
like "$(grep -m1 'restart asked' "$FM_TMP/bg-watched.err")" "sleep \\(pid $spid\\) exited" \
    "the decision's line names the watched process as FAULTMON_WATCH_NAME calls it"
kill -TERM "$pid"
wait "$pid" 2>/dev/null

# 54-55: a receive regex left to regexec() (an anchor inside a repeated
# group: see regex_linear.h) runs in a child of the loop, which shares the
# loop's descriptors and so its lock: killed with the loop, it must not keep
# the lock and make the next loop exit 75 while it matches on.
"$FAULTMON" run slowmatch --no-env --no-pacemaker --param Probe_timeout=20 --param receive_bytes=64k \
    --param receive_regex='a.*b.*(x|y$z)+' \
    --param Monitor_Uri_List="http://127.0.0.1:${FS_PORT[quadratic-body]}/m" 2>>"$FM_TMP/bg-slowmatch.err" &
slow=$!
BG_PIDS+=("$slow")
child=
for _ in $(seq 1 200); do
    child=$(pgrep -P "$slow" | head -n 1)
    [ -n "$child" ] && break
    sleep 0.05
done
kill -KILL "$slow" 2>/dev/null
wait "$slow" 2>/dev/null
if [ -n "$child" ]; then
    ok "the loop matches in a child process (pid $child)"
else
    not_ok "the loop matches in a child process"
fi
fm_timeout 30 "$FAULTMON" run slowmatch --no-env --no-pacemaker --cycles 1 --param "Port_list=$OK" 2>"$FM_TMP/run.err"
rc=$?
is "$rc" 0 "after the loop was killed mid-match, the next loop runs (no child holds the lock)"
[ "$rc" = 0 ] || diag_file "$FM_TMP/run.err"

# 56-58: a FIFO at the watched pid file (where httpd's pid file should be)
# does not block the loop: it keeps cycling and says why it watches nothing.
mkfifo "$FM_TMP/fifo.pid"
start=$(fm_now_ms)
FAULTMON_WATCH_PIDFILE=$FM_TMP/fifo.pid fm_timeout 10 "$FAULTMON" run fifo --no-env --no-pacemaker -v \
    --cycles 3 --param "Port_list=$OK" --param Thorough_probe_interval=1 2>"$FM_TMP/fifo.err"
rc=$?
elapsed=$(($(fm_now_ms) - start))
is "$rc" 0 "a FIFO at the watched pid file: the loop runs its 3 cycles and exits 0 (took ${elapsed} ms)"
[ "$rc" = 0 ] || diag_file "$FM_TMP/fifo.err"
is "$(json_field fifo 'str(r["cycles"])')" 3 "and its state has the 3 cycles"
is "$(grep -c "no process to watch: $FM_TMP/fifo.pid is not a regular file" "$FM_TMP/fifo.err")" 1 \
    "it says why, once"
cat "$FM_TMP/fifo.err" >>"$FM_TMP/all-runs.err"

# quorum: one refused target of three is degraded, not a restart; two are a
# failure.  startup_grace: a refused target right after the start is shown,
# not weighed.
run_loop quorum1 1 "Port_list=$OK $REFUSED $OK" quorum=2
is "$(json_field quorum1 'r["state"] + "/" + r["pending"] + "/" + str(r["ocf_rc"])')" "degraded/none/190" \
    "quorum=2, 1 of 3 targets refused: degraded (190), nothing asked"
like "$(json_field quorum1 'r["reason"]')" "1 of 3 targets failing, below quorum 2" "  the reason says why"
run_loop quorum2 1 "Port_list=$OK $REFUSED $REFUSED" quorum=2
is "$(json_field quorum2 'r["pending"]')" restart "quorum=2, 2 of 3 targets refused: a restart"
run_loop grace 1 "Port_list=$REFUSED" startup_grace=60s
is "$(json_field grace 'r["pending"] + "/" + str(r["weight"])')" "none/0" \
    "startup_grace=60s: a complete failure in the first cycle asks nothing, weighs nothing"

# Transitions: every change of state is one notice line with its reason, and a
# cycle that changes nothing adds none (`grep faultmon pacemaker.log` tells
# the story of an incident).
# state_lines FILE RESOURCE: the transition lines of RESOURCE in FILE.
state_lines() {
    grep -E "^faultmon: notice: $2: state [a-z]+ -> [a-z]+" "$1"
}
run_loop steady 3 "Port_list=$OK" Thorough_probe_interval=1
is "$(state_lines "$FM_TMP/run.err" steady | wc -l)" 0 "3 ok cycles: no transition line"
run_loop story 3 "Port_list=$OK $REFUSED $OK" quorum=2 Thorough_probe_interval=1
is "$(state_lines "$FM_TMP/run.err" story | wc -l)" 1 "3 degraded cycles: one transition line"
like "$(state_lines "$FM_TMP/run.err" story)" \
    "state up -> degraded: http://$REFUSED/: connect-failed: 1 of 3 targets failing, below quorum 2" \
    "  up -> degraded, with the failed target and the reason"
: >"$FM_TMP/pacemaker.log"
export PCMK_logfile=$FM_TMP/pacemaker.log
run_loop plog 1 "Port_list=$REFUSED"
unset PCMK_logfile
like "$(grep -c . "$FM_TMP/pacemaker.log")/$(grep ' faultmon: notice: plog: state ' "$FM_TMP/pacemaker.log")" \
    "^[0-9]+/[A-Z][a-z]{2} [0-9]{2} [0-9:]{8} \\[[0-9]+\\] [^ ]+ faultmon: notice: plog: state up -> down, restart asked: http://$REFUSED/: connect-failed: " \
    "PCMK_logfile: the transition line reaches Pacemaker's log file, in its detail-log form"
if start_loop tale "Port_list=$OK" Thorough_probe_interval=60; then
    tale=$LOOP_PID
    tale_event() {   # one complete failure found by the monitor, taken
        printf 'complete httpd is not running (test)\n' >"$FAULTMON_STATE_DIR/tale/event"
        kill -USR2 "$tale"
        for _ in $(seq 1 50); do [ -e "$FAULTMON_STATE_DIR/tale/event" ] || break; sleep 0.05; done
    }
    tale_event
    tale_event
    "$FAULTMON" reset tale >/dev/null
    for _ in $(seq 1 50); do [ -e "$FAULTMON_STATE_DIR/tale/reset" ] || break; sleep 0.05; done
    stop_loop "$tale"
    state_lines "$FM_TMP/bg-tale.err" tale >"$FM_TMP/tale.lines"
    is "$(wc -l <"$FM_TMP/tale.lines")" 2 "failure, the same outage again, reset: two transition lines"
    like "$(sed -n 1p "$FM_TMP/tale.lines")" \
        "state up -> down, restart asked: httpd is not running \\(test\\): complete failure, weight 100" \
        "  up -> down, restart asked, with the cause and the reason"
    like "$(sed -n 2p "$FM_TMP/tale.lines")" \
        "state down -> up: cleanup or faultmon reset: history and decision reset" "  down -> up on the reset"
else
    not_ok "a loop for the transition lines runs"
    skip "needs the loop" 2
fi

# Node attributes for `crm_mon -A`: each resource's state and weight, set
# on change only, removed on a clean stop; through a stand-in attrd_updater
# that records its arguments (FAULTMON_ATTRD_UPDATER) and the OCF environment
# that makes the loop talk to the cluster (the fail request fails here).
cat >"$FM_TMP/attrd_updater" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$FM_TMP/attrd.calls"
EOF
chmod +x "$FM_TMP/attrd_updater"
# attrd_calls RESOURCE: its calls so far, one a line.
attrd_calls() {
    grep -E -- "^-n faultmon-$1-" "$FM_TMP/attrd.calls" 2>/dev/null
}
export FAULTMON_ATTRD_UPDATER=$FM_TMP/attrd_updater OCF_RESOURCE_INSTANCE=attrs OCF_RESOURCE_TYPE=apache
start_loop attrs "Port_list=$OK" Thorough_probe_interval=1
attrs=$LOOP_PID
start_loop attrs2 "Port_list=$OK" Thorough_probe_interval=60
attrs2=$LOOP_PID
unset FAULTMON_ATTRD_UPDATER OCF_RESOURCE_INSTANCE OCF_RESOURCE_TYPE
sleep 2.5
# The attributes are set in parallel, each on its own: sorted.
is "$(attrd_calls attrs | sort)" "-n faultmon-attrs-state -U up -d 5s
-n faultmon-attrs-weight -U 0 -d 5s" "attributes: state and weight set once, with dampening, over 3 ok cycles"
stop_loop "$attrs"
is "$?/$(attrd_calls attrs | sed -n '3,$p' | sort)" "0/-n faultmon-attrs-state -D
-n faultmon-attrs-weight -D" "attributes: a clean stop deletes both"
attrs_event() {   # one complete failure found by the monitor, taken
    printf 'complete httpd is not running (test)\n' >"$FAULTMON_STATE_DIR/attrs2/event"
    kill -USR2 "$attrs2"
    for _ in $(seq 1 50); do [ -e "$FAULTMON_STATE_DIR/attrs2/event" ] || break; sleep 0.05; done
}
# wait_calls RESOURCE N: until RESOURCE has N calls (the loop runs them after
# it took the event), 5 s at most.
wait_calls() {
    for _ in $(seq 1 100); do [ "$(attrd_calls "$1" | wc -l)" -ge "$2" ] && break; sleep 0.05; done
}
attrs_event
wait_calls attrs2 5
attrd_calls attrs2 >"$FM_TMP/attrs2.calls"
is "$(grep -E -- '-(state|weight) ' "$FM_TMP/attrs2.calls" | sed -n '3,$p' | sort)" "-n faultmon-attrs2-state -U down -d 5s
-n faultmon-attrs2-weight -U 100 -d 5s" "attributes: a failure sets state down and weight 100"
like "$(cat "$FM_TMP/attrs2.calls")" "-n faultmon-attrs2-reason -U httpd is not running \\(test\\): " \
    "  and the reason, as before"
attrs_event
sleep 0.3
is "$(attrd_calls attrs2 | wc -l)" "$(wc -l <"$FM_TMP/attrs2.calls")" "attributes: the same outage again: no call"
stop_loop "$attrs2"
is "$(attrd_calls attrs2 | tail -n 2 | sort)" "-n faultmon-attrs2-state -D
-n faultmon-attrs2-weight -D" "attributes: deleted on SIGTERM after a failure"

# 59: every state any loop above wrote is one the reader accepts (the loop
# checks its own state before writing it and logs a bug otherwise).
cat "$FM_TMP"/bg-*.err >>"$FM_TMP/all-runs.err" 2>/dev/null
if grep -q "bug: the state" "$FM_TMP/all-runs.err"; then
    not_ok "no loop wrote a state the reader refuses"
    diag "$(grep "bug: the state" "$FM_TMP/all-runs.err" | head -n 5)"
else
    ok "no loop wrote a state the reader refuses"
fi

# 60-61: the state directory renamed away (the lock file keeps its name,
# so only the check by path sees it, at least every 5 s): the loop started
# in a new directory of that name and the old one never both keep running.
if start_loop moved "Port_list=$OK" Thorough_probe_interval=1; then
    first=$LOOP_PID
    sleep 1.5       # past the first check by path, at the first cycle
    mv "$FAULTMON_STATE_DIR/moved" "$FAULTMON_STATE_DIR/moved.away"
    start_loop moved "Port_list=$OK" Thorough_probe_interval=1
    second=$LOOP_PID
    survivors=$(survivors_within 90 "$first" "$second")   # the 5 s bound, a cycle, slack
    is "$survivors" 1 "after the directory was renamed away, one of two loops stops"
    kill -0 "$second" 2>/dev/null
    ok_if $? "  the one left is the loop of the directory the name now shows"
    stop_loop "$second"
    kill -KILL "$first" 2>/dev/null
else
    not_ok "a loop runs for the rename"
    skip "needs the loop" 1
fi

tap_done
