#!/bin/bash
# run-loop.sh: `faultmon run`, `status` and `resume` against the loopback
# fault server: the decisions it records, its state directory (mode, atomic
# writes, a corrupt file set aside without any recovery), and a prompt exit
# on SIGTERM.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 16

export FAULTMON_STATE_DIR=$FM_TMP/state
fm_fault_server_start ok refuse silent status-500 || bail_out "the fault server did not start"
OK=http://127.0.0.1:${FS_PORT[ok]}/
REFUSED=127.0.0.1:${FS_PORT[refuse]}
SILENT=http://127.0.0.1:${FS_PORT[silent]}/

json_field() {  # json_field RESOURCE EXPR: one value from `faultmon status --json`
    "$FAULTMON" status "$1" --json | "$PYTHON3" -c "import json,sys; r=json.load(sys.stdin)['resources'][0]; print($2)"
}

run_loop() {  # run_loop RESOURCE CYCLES PARAM...: run the loop for CYCLES cycles
    local rsc=$1 cycles=$2
    shift 2
    local args=()
    for p in "$@"; do args+=(--param "$p"); done
    fm_timeout 30 "$FAULTMON" run "$rsc" --no-env --cycles "$cycles" "${args[@]}" 2>"$FM_TMP/run.err"
}

# 1-4: Retry_count=2: complete failures restart twice, then fail over.
run_loop web 3 "Port_list=$REFUSED" Thorough_probe_interval=1 Retry_count=2 Retry_interval=300 Probe_timeout=1
ok_if $? "faultmon run exits 0 after --cycles"
is "$(json_field web 'r["pending"]')" failover "the third complete failure within Retry_interval asks for a failover"
like "$(json_field web 'r["reason"]')" "3 restarts within Retry_interval 300 s exceed Retry_count 2" \
    "the reason says why it fails over"
is "$(json_field web 'r["ocf_rc"]')" 4 "a failover is reported as OCF rc 4 (hard: move away)"

# 5: the history survives a restart of the loop (and of the service): a
# restart asked by one loop is still counted by the next one.
run_loop again 1 "Port_list=$REFUSED" Retry_count=2 Retry_interval=300
run_loop again 1 "Port_list=$OK" Retry_count=2 Retry_interval=300
is "$(json_field again 'r["restarts_in_window"]')" 1 "restarts asked are counted across loop restarts"

# 6-7: the state directory.
is "$(stat -c %a "$FAULTMON_STATE_DIR/web")" 700 "the state directory is mode 0700"
ls "$FAULTMON_STATE_DIR"/web/.state.* >/dev/null 2>&1
ok_if $((! $?)) "no temporary file is left behind"

# 8-10: a healthy service: one cycle, ok, no action; a URI answered 500
# is a complete failure (restart).
run_loop healthy 1 "Port_list=$OK" Thorough_probe_interval=1
is "$(json_field healthy 'r["state"] + "/" + r["pending"] + "/" + str(r["ocf_rc"])')" "up/none/0" \
    "a healthy service is up, nothing pending, OCF rc 0"
run_loop uri 1 "Port_list=$OK" "Monitor_Uri_List=http://127.0.0.1:${FS_PORT[status-500]}/status"
is "$(json_field uri 'r["pending"]')" restart "a Monitor_Uri_List GET answered 500 asks for a restart"
is "$(json_field uri 'r["ocf_rc"]')" 1 "a restart is reported as OCF rc 1 (soft: restart in place)"

# 11: a partial failure (silent server) alone does not restart.
run_loop partial 1 "Port_list=$SILENT" Probe_timeout=1
is "$(json_field partial 'r["pending"]')" none "one partial failure does not restart"

# 12-13: a corrupt state file is set aside and replaced, and causes no
# recovery by itself.
printf 'faultmon-state 1\npending=2\nd.restart=garbage\n' >"$FAULTMON_STATE_DIR/healthy/state"
run_loop healthy 1 "Port_list=$OK"
is "$(json_field healthy 'r["pending"]')" none "a corrupt state file causes no recovery"
ls "$FAULTMON_STATE_DIR"/healthy/state.*.bad >/dev/null 2>&1
ok_if $? "the corrupt state file is kept aside as state.*.bad"

# 14: SIGTERM ends the loop within a second.
"$FAULTMON" run sigterm --no-env --param "Port_list=$OK" --param Thorough_probe_interval=60 2>/dev/null &
pid=$!
for _ in $(seq 1 50); do [ -s "$FAULTMON_STATE_DIR/sigterm/state" ] && break; sleep 0.1; done
start=$(fm_now_ms)
kill -TERM "$pid"
for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
elapsed=$(($(fm_now_ms) - start))
kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
[ "$elapsed" -lt 1000 ]
ok_if $? "SIGTERM: the loop exits within a second (took ${elapsed} ms)"

# 15-16: manual resume: held after a failure until `faultmon resume`.
run_loop held 1 "Port_list=$REFUSED" manual_resume=true
is "$(json_field held 'r["state"]')" held "manual_resume: a failure holds the service"
"$FAULTMON" resume held >/dev/null
is "$(json_field held 'r["state"]')" up "faultmon resume puts it back"

tap_done
