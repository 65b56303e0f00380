#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-leftovers.sh: what the apache agent tells the administrator after a
# recovery must be true (issue 29, item 6).  A loop the agent's own stop had
# to kill (it ignored SIGTERM) is no crash at the next start; a reload that
# only changes the loop's parameters (Retry_count) while the service fails
# is no failed reload (the monitor reports the service); Pacemaker's stop
# deletes the resource's reason attribute; with the CIB and attrd frozen
# that stop does not wait for them (issue 31: it waited 2 s for cibadmin on
# the way to a failover), and the stay constraint is deleted all the same.
# A real Apache on loopback,
# started by the agent; attrd_updater is a stand-in that records its calls.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_root
fa_require_apache
tap_watchdog 240
fa_agents_setup
fa_apache_setup || bail_out "cannot write an Apache configuration"

plan 15

fa_pcmk_standins

STATE=$FAULTMON_STATE_DIR/fmtest
# The test's own loop, checked: its PID file names a faultmon.
own_loop() {
    local pid
    pid=$(cat "$STATE/pid" 2>/dev/null)
    case $pid in '' | *[!0-9]*) return 1 ;; esac
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = faultmon ] || return 1
    echo "$pid"
}

# 1-4: the stop had to kill the loop (stopped: SIGTERM waits): the next
# start says nothing of a crash, and records none.
fa_params fmtest
export OCF_RESKEY_Monitor_Uri_List="http://127.0.0.1:$FA_PORT/health"
fa_agent apache start
fa_check_rc "start: 0" 0
loop=$(own_loop) || bail_out "no loop of this test after start"
kill -STOP "$loop"
OCF_RESKEY_CRM_meta_on_node=node1 fa_agent apache stop
kill -CONT "$loop" 2>/dev/null
like "$FA_RC/$FA_OUT" "^0/.*ignored SIGTERM; killing it" "stop of a loop that ignores SIGTERM kills it: 0, says so"
fa_agent apache start
if [ "$FA_RC" = 0 ] && ! printf '%s' "$FA_OUT" | grep -q "crashed or killed"; then
    ok "the next start: 0, and no 'crashed or killed' for the loop the stop killed"
else
    not_ok "the next start: 0, and no 'crashed or killed' for the loop the stop killed"
    diag "exit code $FA_RC" "$FA_OUT"
fi
if [ ! -e "$STATE/loop-died" ]; then
    ok "no loop-died record for it"
else
    not_ok "no loop-died record for it"
    diag_file "$STATE/loop-died"
    rm -f "$STATE/loop-died"
fi

# 5-8: the service fails (the health page is gone: 404, a complete
# failure); Retry_count changes meanwhile: the reload restarts the loop with
# it and answers 0; the failure is the monitor's to report.
mv "$FA_DIR/htdocs/health" "$FA_DIR/health.aside"
if fa_wait_state fmtest ocf_rc 1 15; then
    ok "the loop sees the failure (ocf_rc 1)"
else
    not_ok "the loop sees the failure (ocf_rc 1)"
    diag_file "$STATE/state"
fi
old_loop=$(own_loop)
export OCF_RESKEY_Retry_count=5
fa_agent apache reload
fa_check_rc "reload to Retry_count=5 while the service fails: 0, not a failed reload" 0
new_loop=$(own_loop)
if [ -n "$new_loop" ] && [ "$new_loop" != "$old_loop" ] &&
    tr '\0' '\n' <"/proc/$new_loop/environ" | grep -qx 'OCF_RESKEY_Retry_count=5'; then
    ok "the reload restarted the loop with Retry_count=5"
else
    not_ok "the reload restarted the loop with Retry_count=5"
    diag "old loop $old_loop, new loop $new_loop" "$FA_OUT"
fi
# No restart happened: the loop must not take the failure for a failed
# restart (that would fail over, a false recovery); the restart asked
# before the reload is still to be carried out.
fa_agent apache monitor
if [ "$FA_RC" != 0 ] && [ "$FA_RC" != 4 ] && ! printf '%s' "$FA_OUT" | grep -q "did not bring the service back"; then
    ok "the monitor reports the failing service, and no failover for a restart that never happened ($FA_RC)"
else
    not_ok "the monitor reports the failing service, and no failover for a restart that never happened"
    diag "exit code $FA_RC" "$FA_OUT"
fi
is "$(fa_state_get fmtest pending)" 1 "the restart asked before the reload is still pending"
mv "$FA_DIR/health.aside" "$FA_DIR/htdocs/health"

# 10-11: Pacemaker's stop deletes the reason attribute.
: >"$CALLS"
OCF_RESKEY_CRM_meta_on_node=node1 fa_agent apache stop
fa_check_rc "stop: 0" 0
# the delete runs detached (the stop does not wait for attrd): a moment
for _ in $(seq 1 40); do grep -q 'faultmon-fmtest-reason -D' "$CALLS" && break; sleep 0.05; done
like "$(cat "$CALLS")" "attrd_updater -n faultmon-fmtest-reason -D" \
    "Pacemaker's stop deletes faultmon-fmtest-reason"

# 12-15: with the CIB and attrd frozen (stand-ins that record the call and
# hang), Pacemaker's stop of a resource faultmon is not restarting returns
# without waiting for them, and the stay constraint's delete is still made.
fa_agent apache start
fa_check_rc "start again (the service serves): 0" 0
fa_wait_state fmtest pending 0 10
printf '#!/bin/bash\necho "cibadmin $*" >>"%s"\nexec sleep 10\n' "$CALLS" >"$TOOLS/cibadmin"
printf '#!/bin/bash\necho "attrd_updater $*" >>"%s"\nexec sleep 10\n' "$CALLS" >"$TOOLS/attrd_updater"
: >"$CALLS"
t0=$(fm_now_ms)
OCF_RESKEY_CRM_meta_on_node=node1 fa_agent apache stop
took=$(( $(fm_now_ms) - t0 ))
fa_check_rc "stop with the CIB and attrd frozen: 0" 0
ok_if "$([ "$took" -lt 2000 ]; echo $?)" "stop with the CIB and attrd frozen took ${took} ms (under 2000, the loop's own attribute deletes 500 ms of it: it waited 2 s more for cibadmin)"
for _ in $(seq 1 40); do grep -q 'cibadmin --delete' "$CALLS" && break; sleep 0.05; done
like "$(cat "$CALLS")" 'cibadmin --delete --scope constraints --xml-text <rsc_location id="faultmon-stay-fmtest"/>' \
    "the stay constraint's delete is made all the same (detached, under its 2 s)"
