#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-state.sh: ocf:faultmon:apache and the loop's state: a state file the
# loop would refuse is no verdict (monitor answers from a fresh probe of the
# targets, start is not refused), a trusted one is believed (the positive
# controls), monitor answers only 0, 1, 4 or 190 from the state, and the
# agent never makes a second loop: not on start, not when a dead loop is
# restarted, not when httpd died under a running loop; a crashed loop is
# recorded, and a stale pid file is never taken for the loop.  The agent's
# own record is no verdict either when its reader refuses it.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_root
fa_require_apache
tap_watchdog 180
fa_agents_setup
fa_apache_setup || bail_out "cannot write an Apache configuration"

plan 44

RSC=fmstate
STATE=$FAULTMON_STATE_DIR/$RSC/state
BG_PIDS=()
fm_cleanup_add 'for p in "${BG_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done'

# The loop keeps the file it wrote for a minute: time to tamper with it.
params() {
    fa_params "$RSC"
    export OCF_RESKEY_Thorough_probe_interval=60s
}

httpd_pid() {
    fa_httpd_pid
}

# The PIDs of every `faultmon run RESOURCE` process (default RSC), whatever
# its pid file says.
loops() {
    local p args rsc=${1:-$RSC}
    for p in /proc/[0-9]*; do
        args=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) || continue
        case $args in
            "$FAULTMON run $rsc "*) echo "${p#/proc/}" ;;
        esac
    done
}
# What fm_signal checks a PID's command line against before signalling it.
HTTPD_ARGS=$(fm_ere_quote "$FA_CONF")
LOOP_ARGS="^$(fm_ere_quote "$FAULTMON") run $RSC( |\$)"
# A second loop the agent should never have started is stopped too.
fm_cleanup_add 'for p in $(loops) $(loops fmhm:0); do kill -TERM "$p" 2>/dev/null; done'

# set_fields KEY=VALUE...: rewrite lines of the state file in place.
set_fields() {
    local kv args=()
    for kv in "$@"; do
        args+=(-e "s/^${kv%%=*}=.*/$kv/")
    done
    sed -i "${args[@]}" "$STATE"
}

# A failover decision, every field consistent with it (as the loop writes one).
make_failover() {
    local clock
    clock=$(sed -n 's/^d\.clock_us=//p' "$STATE")
    set_fields state=2 action=2 pending=2 ocf_rc=4 weight=100 d.down=1 d.ok_streak=0 \
        d.last_action=2 "d.last_action_us=$clock"
}

# 1-3: a started resource, one loop.
params
fa_agent apache start
fa_check_rc "start: 0" 0
cp "$STATE" "$FA_TMP/good.state"
is "$(loops | wc -l)" 1 "one loop runs"
fa_agent apache monitor
fa_check_rc "monitor: 0" 0

# 4-8: monitor believes a trusted state, and nothing else.
make_failover
fa_agent apache monitor
fa_check_rc "monitor of a consistent failover decision: 4 (the positive control)" 4
set_fields d.version=7
fa_agent apache monitor
fa_check_rc "monitor: d.version=7 next to a failover is no verdict: 0, not 4" 0
cp "$FA_TMP/good.state" "$STATE"
make_failover
printf 'd.restart=-5\n' >"$FA_TMP/line"
sed -i "/^d\.last_action_us=/r $FA_TMP/line" "$STATE"
fa_agent apache monitor
fa_check_rc "monitor: d.restart=-5 next to a failover is no verdict: 0, not 4" 0
cp "$FA_TMP/good.state" "$STATE"
set_fields ocf_rc=200
fa_agent apache monitor
fa_check_rc "monitor: ocf_rc=200 is no verdict: 0, never 200" 0
cp "$FA_TMP/good.state" "$STATE"
set_fields pending=1 ocf_rc=1
fa_agent apache monitor
fa_check_rc "monitor: pending restart in an up state is no verdict: 0, not 1" 0
cp "$FA_TMP/good.state" "$STATE"

# 9-10: no verdict either way: with a refused file the monitor probes the
# targets afresh, so a service that does not answer (httpd stopped by
# SIGSTOP: connects, no reply) fails, though the loop, probing once a
# minute here, has not seen it yet.  OK there would be a false verdict on
# a file nobody trusts, and on a remote node nothing else reports it.
set_fields d.version=7
# httpd_pid checks the command line; without an httpd the case fails, it
# never signals 0 (the whole process group) or children of PID 0 (init).
hp=$(httpd_pid)
kids=() stopped=()
[ -n "$hp" ] && mapfile -t kids < <(pgrep -P "$hp")
rc_stopped="no httpd to stop (pid file: $(cat "$FA_PID_FILE" 2>/dev/null))"
for p in "$hp" "${kids[@]}"; do
    fm_signal STOP "$p" "$HTTPD_ARGS" && stopped+=("$p")
done
if [ -n "$hp" ] && [ "${#stopped[@]}" -eq $((1 + ${#kids[@]})) ]; then
    fa_agent apache monitor
    rc_stopped=$FA_RC
fi
for p in "${stopped[@]}"; do
    fm_signal CONT "$p" "$HTTPD_ARGS"
done
is "$rc_stopped" 190 "monitor: a refused state and httpd not answering (SIGSTOP): the fresh probe's timeout, a partial failure: 190, not 0"
like "$FA_OUT" "no verdict from it: probing afresh" "and the log says why it probed"
cp "$FA_TMP/good.state" "$STATE"

# 11-12: no state at all, from a loop that started 10 min ago (past its
# first cycle's bound), is no verdict either, not "its first cycle is under
# way": a fresh probe, which fails on the stopped httpd.
rm -f "$STATE"
lock_time=$(stat -c %Y "$(dirname "$STATE")/lock")
touch -d '10 minutes ago' "$(dirname "$STATE")/lock"
# The same checked httpd and children as above: without them the case
# fails, it never signals 0.
stopped=()
rc_stopped="no httpd to stop (pid file: $(cat "$FA_PID_FILE" 2>/dev/null))"
for p in "$hp" "${kids[@]}"; do
    fm_signal STOP "$p" "$HTTPD_ARGS" && stopped+=("$p")
done
if [ -n "$hp" ] && [ "${#stopped[@]}" -eq $((1 + ${#kids[@]})) ]; then
    fa_agent apache monitor
    rc_stopped=$FA_RC
fi
for p in "${stopped[@]}"; do
    fm_signal CONT "$p" "$HTTPD_ARGS"
done
touch -d "@$lock_time" "$(dirname "$STATE")/lock"
is "$rc_stopped" 190 "monitor: no state from a loop started 10 min ago, httpd not answering: 190, not 0"
like "$FA_OUT" "has written no state in the [0-9]+ s since it started; no verdict from it: probing afresh" \
    "and the log says why it probed"
cp "$FA_TMP/good.state" "$STATE"

# 11-14: no second loop: a loop started by hand, and the agent's start.
first=$(loops)
fm_timeout 10 "$FAULTMON" run "$RSC" --no-env --param "Port_list=127.0.0.1:$FA_PORT" --cycles 1 \
    >/dev/null 2>"$FA_TMP/second.err"
is "$?" 75 "faultmon run beside the agent's loop exits 75"
like "$(cat "$FA_TMP/second.err")" "loop \\(pid $first\\) holds the loop lock" "and names the loop's pid"
fa_agent apache start
fa_check_rc "start of a started resource: 0" 0
is "$(loops)" "$first" "still the one loop (pid $first)"

# 15-19: a crashed loop: the monitor restarts it, one loop, and the crash
# is recorded rather than hidden.
fm_signal KILL "$first" "$LOOP_ARGS"
for _ in $(seq 1 50); do kill -0 "$first" 2>/dev/null || break; sleep 0.1; done
fa_agent apache monitor
fa_check_rc "monitor after the loop was killed: 0 (restarted)" 0
is "$(loops | wc -l)" 1 "one loop after the restart"
second=$(loops)
isnt_first=no
[ -n "$second" ] && [ "$second" != "$first" ] && isnt_first=yes
is "$isnt_first" yes "a new loop (pid $first -> $second)"
like "$(cat "$FAULTMON_STATE_DIR/$RSC/loop-died" 2>/dev/null)" "pid $first\$" "the crash of pid $first is recorded in loop-died"
like "$FA_OUT" "pid $first\\) ended without stopping cleanly" "and logged"
rm -f "$FAULTMON_STATE_DIR/$RSC/loop-died"    # killed on purpose

# 20-21: two monitors at once find the loop dead: each may start one, the
# lock lets one run, and the other monitor waits for that one.
fm_signal KILL "$second" "$LOOP_ARGS"
for _ in $(seq 1 50); do kill -0 "$second" 2>/dev/null || break; sleep 0.1; done
(fa_agent apache monitor; echo "$FA_RC" >"$FA_TMP/m1.rc") &
m1=$!
(fa_agent apache monitor; echo "$FA_RC" >"$FA_TMP/m2.rc") &
m2=$!
wait "$m1" "$m2"
is "$(cat "$FA_TMP/m1.rc")/$(cat "$FA_TMP/m2.rc")" "0/0" "two monitors at once after the loop died: both 0"
is "$(loops | wc -l)" 1 "and one loop afterwards"
second=$(loops)
rm -f "$FAULTMON_STATE_DIR/$RSC/loop-died"    # killed on purpose

# 22-25: a stale pid file naming a live faultmon of another resource (a
# reused PID): not the loop; monitor restarts the real one, stop leaves the
# other alone.
"$FAULTMON" run other --no-env --param "Port_list=127.0.0.1:$FA_PORT" --param Thorough_probe_interval=60 \
    2>/dev/null &
other=$!
BG_PIDS+=("$other")
for _ in $(seq 1 50); do [ -s "$FAULTMON_STATE_DIR/other/state" ] && break; sleep 0.1; done
fm_signal KILL "$second" "$LOOP_ARGS"
for _ in $(seq 1 50); do kill -0 "$second" 2>/dev/null || break; sleep 0.1; done
echo "$other" >"$FAULTMON_STATE_DIR/$RSC/pid"
fa_agent apache monitor
fa_check_rc "monitor with a stale pid file: 0" 0
rm -f "$FAULTMON_STATE_DIR/$RSC/loop-died"    # killed on purpose
is "$(loops | wc -l)" 1 "the monitor started the loop (the stale pid is not the loop)"
fa_agent apache stop
fa_check_rc "stop: 0" 0
kill -0 "$other" 2>/dev/null
ok_if $? "stop did not touch the other resource's faultmon (pid $other)"
fm_signal TERM "$other" --child
wait "$other"

# 26-29: a start is refused only on a trusted failover decision.
cp "$FA_TMP/good.state" "$STATE"
make_failover
set_fields d.version=7
fa_agent apache start
fa_check_rc "start with an untrusted failover decision: 0 (no verdict, not refused)" 0
fa_agent apache stop
fa_check_rc "stop: 0" 0
cp "$FA_TMP/good.state" "$STATE"
make_failover
fa_agent apache start
fa_check_rc_reason "start with a trusted failover decision: 4 (the positive control)" 4 "not starting here"
is "$(httpd_pid)" "" "the refused start started nothing"

# 30-31: httpd died under a running loop: start replaces that loop, it
# does not add a second one.
params
fa_agent apache start
dead=$(httpd_pid)
fm_signal_group KILL "$dead" "$HTTPD_ARGS"
for _ in $(seq 1 50); do kill -0 "$dead" 2>/dev/null || break; sleep 0.1; done
fa_agent apache start
fa_check_rc "start after httpd died under its loop: 0" 0
is "$(loops | wc -l)" 1 "one loop afterwards"

# 32-36: ocf:faultmon:httpmon publishes only a trusted verdict.
FA_ATTRD_LOG=$FA_TMP/attrd.log
printf '#!/bin/sh\necho "$*" >>"%s"\n' "$FA_ATTRD_LOG" >"$FA_TMP/bin/attrd_updater"
chmod 755 "$FA_TMP/bin/attrd_updater"
export FAULTMON_OCF_ATTRD_UPDATER=$FA_TMP/bin/attrd_updater
attr_value() {
    awk -v name="$1" '$1 == "-n" && $2 == name && $3 == "-U" { v = $4 } END { print v }' \
        "$FA_ATTRD_LOG" 2>/dev/null
}
hm_params() {
    fa_clear_params
    export OCF_RESOURCE_INSTANCE=fmhm:0
    export OCF_RESKEY_Port_list="127.0.0.1:$FA_PORT"
    export OCF_RESKEY_Thorough_probe_interval=60s
    export OCF_RESKEY_multiplier=100
}
hm_params
STATE=$FAULTMON_STATE_DIR/fmhm:0/state
fa_agent httpmon start
fa_check_rc "httpmon start: 0" 0
is "$(attr_value faultmon-httpmon)" 100 "httpmon publishes the healthy verdict"
# Down after a failover, on a later cycle with nothing pending and OCF 0
# (report_degraded off): consistent whether or not the loop leaves a
# recovery pending for httpmon.
clock=$(sed -n 's/^d\.clock_us=//p' "$STATE")
set_fields state=2 action=0 pending=0 ocf_rc=0 weight=0 d.down=1 d.ok_streak=0 \
    d.last_action=2 "d.last_action_us=$clock"
set_fields d.version=7
fa_agent httpmon monitor
fa_check_rc_reason "httpmon monitor with an untrusted down state: no verdict, 190 (not 0)" 190 \
    "no verdict from the fault monitor's state .*published from a fresh probe: ok"
is "$(attr_value faultmon-httpmon)" 100 "an untrusted down state is not published: the fresh probe's (up) is"
set_fields d.version=1
fa_agent httpmon monitor
is "$(attr_value faultmon-httpmon)" 0 "a trusted down state is published (the positive control)"
fa_agent httpmon stop

# 37-42: a record the reader refuses (data after 'end', cut short, a
# symbolic link) is no verdict: with httpd running, monitor fails rather
# than answer success from it; stop still stops httpd (from the
# configuration).
params
STATE=$FAULTMON_STATE_DIR/$RSC/state
RECORD=$FAULTMON_STATE_DIR/$RSC/agent
cp "$RECORD" "$FA_TMP/good.agent"
printf 'pid_file=/nonexistent\n' >>"$RECORD"
fa_agent apache monitor
fa_check_rc_reason "monitor with data after 'end' in the agent's record: 1, not 0" 1 "record .* is refused"
head -n 3 "$FA_TMP/good.agent" >"$RECORD"
fa_agent apache monitor
fa_check_rc_reason "monitor with the agent's record cut short: 1, not 0" 1 "record .* is refused"
rm -f "$RECORD"
ln -s "$FA_TMP/good.agent" "$RECORD"
fa_agent apache monitor
fa_check_rc_reason "monitor with the agent's record a symbolic link: 1, not 0" 1 "record .* is refused"
rm -f "$RECORD"
cp "$FA_TMP/good.agent" "$RECORD"
fa_agent apache monitor
fa_check_rc "monitor with the record restored: 0 (the positive control)" 0
running=$(httpd_pid)
printf 'faultmon-agent 1\nhttpd=/bin/false\n' >"$RECORD"
fa_agent apache stop
fa_check_rc "stop with a refused record: 0" 0
# Gone, or a zombie that init reaps in a moment (the agent counts it gone).
for _ in $(seq 1 50); do
    [ -n "$running" ] && kill -0 "$running" 2>/dev/null || break
    sleep 0.1
done
left=$(httpd_pid)
if [ -n "$running" ] && kill -0 "$running" 2>/dev/null; then
    left="$left $running"
fi
is "$left" "" "and httpd (pid ${running:-none}) is stopped"

params
fa_agent apache stop

tap_done
