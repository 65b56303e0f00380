#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-apache.sh: ocf:faultmon:apache against a real Apache on loopback,
# started and stopped by the agent: ocf-tester, the derived Port_list, the
# loop's verdict in monitor, a dead loop restarted, OCF_CHECK_LEVEL=10,
# testconffile with testname, the heartbeat-compatible statusurl check (a
# 404 or a redirect fails it), and
# a start refused where faultmon decided to fail over or holds the service.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_root
fa_require_apache
if ! command -v ocf-tester >/dev/null 2>&1; then
    echo "1..0 # SKIP ocf-tester is not installed (apt-get install resource-agents)"
    exit 0
fi
tap_watchdog 240
fa_agents_setup
fa_apache_setup || bail_out "cannot write an Apache configuration"

plan 45

# The PID of a live httpd (the pid file may be stale after a kill).
httpd_pid() {
    fa_httpd_pid
}
loop_pid() {
    cat "$FAULTMON_STATE_DIR/$OCF_RESOURCE_INSTANCE/pid" 2>/dev/null
}

# 1-2: ocf-tester, the way administrators test an agent by hand.
fa_params fmtest
out=$(fm_timeout 180 ocf-tester -n fmtest -o configfile="$FA_CONF" -o envfiles= \
    -o Thorough_probe_interval=2s -o Probe_timeout=2s "$FA_APACHE" 2>&1)
rc=$?
if [ "$rc" = 0 ] && printf '%s' "$out" | grep -q "passed all tests"; then
    ok "ocf-tester passes"
else
    not_ok "ocf-tester passes"
    diag "ocf-tester exited $rc" "$out"
fi
if [ -z "$(httpd_pid)" ] && [ -z "$(loop_pid)" ]; then
    ok "after ocf-tester neither httpd nor the loop runs"
else
    not_ok "after ocf-tester neither httpd nor the loop runs"
    diag "httpd pid file: $(httpd_pid), loop pid file: $(loop_pid)"
fi

# 3-8: start, and what it started.
fa_params fmtest
fa_agent apache start
fa_check_rc "start: 0" 0
pid=$(httpd_pid)
cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)
like "$cmdline" "-DSTATUS -f $FA_CONF" "httpd runs as ocf:heartbeat:apache starts it (-DSTATUS -f configfile)"
targets=$(grep '^target=' "$FAULTMON_STATE_DIR/fmtest/state" | sed 's/.*=//')
is "$targets" "http://127.0.0.1:$FA_PORT/" \
    "Port_list derived from the included Listen; the IfModule of an absent module is skipped"
loop_args=$(tr '\0' ' ' <"/proc/$(loop_pid)/cmdline" 2>/dev/null)
like "$loop_args" "run fmtest $" "the loop runs as 'faultmon run RESOURCE', no parameters in its arguments"
fa_agent apache monitor
fa_check_rc "monitor of the running resource: 0" 0
fa_agent apache start
fa_check_rc "start of a started resource: 0" 0

# 9-10: a dead loop is restarted by the next monitor, and that is logged.
old_loop=$(loop_pid)
fm_signal KILL "$old_loop" "^$(fm_ere_quote "$FAULTMON") run fmtest( |\$)"
fa_wait_gone() { for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; return 1; }
fa_wait_gone "$old_loop"
fa_agent apache monitor
fa_check_rc "monitor after the loop died: 0" 0
new_loop=$(loop_pid)
if [ -n "$new_loop" ] && [ "$new_loop" != "$old_loop" ] && kill -0 "$new_loop" 2>/dev/null &&
    printf '%s' "$FA_OUT" | grep -q "restarting it"; then
    ok "the dead loop was restarted (pid $old_loop -> $new_loop) and it was logged"
else
    not_ok "the dead loop was restarted and it was logged"
    diag "old $old_loop new $new_loop" "$FA_OUT"
fi
# Killed on purpose: not a crash (see fa_check_loop_deaths).
rm -f "$FAULTMON_STATE_DIR/fmtest/loop-died"

# 11-14: OCF_CHECK_LEVEL=10: a fresh cycle, and testurl/testregex10
# (case-insensitive, as in ocf:heartbeat:apache).
export OCF_CHECK_LEVEL=10
fa_agent apache monitor
fa_check_rc "OCF_CHECK_LEVEL=10: a fresh probe cycle passes: 0" 0
export OCF_RESKEY_testurl=/health OCF_RESKEY_testregex10="${WS_HEALTH_MARKER^^}"
fa_agent apache monitor
fa_check_rc "OCF_CHECK_LEVEL=10 with testurl and testregex10 (matched regardless of case): 0" 0
export OCF_RESKEY_testregex10="no-such-content"
fa_agent apache monitor
fa_check_rc_reason "OCF_CHECK_LEVEL=10, testregex10 does not match: 1, says why" 1 "content"
unset OCF_RESKEY_testurl OCF_RESKEY_testregex10
cat >"$FA_DIR/tests.conf" <<EOF
test first
url /no-such-page
match no-such-content
end
test second
url /health
match $WS_HEALTH_MARKER
end
EOF
export OCF_RESKEY_testconffile=$FA_DIR/tests.conf OCF_RESKEY_testname=second
fa_agent apache monitor
fa_check_rc "testconffile: testname selects the second test (heartbeat:apache would run the first): 0" 0
unset OCF_CHECK_LEVEL OCF_RESKEY_testconffile OCF_RESKEY_testname

# 15-18: httpd dies (its whole process group, or a child would go on
# serving): monitor says so; the loop records a restart decision.
# A configuration removed while httpd runs: httpd cannot be started here
# again, a file missing on this node: OCF_ERR_INSTALLED (5), as heartbeat.
mv "$FA_CONF" "$FA_CONF.aside"
fa_agent apache monitor
fa_check_rc_reason "monitor with the configfile removed from this node: 5, says so" 5 "removed from this node"
mv "$FA_CONF.aside" "$FA_CONF"
killed=$(httpd_pid)
fm_signal_group KILL "$killed" "$(fm_ere_quote "$FA_CONF")"
# monitor must not race the kernel: wait until the process is gone.
for _ in $(seq 1 50); do kill -0 "$killed" 2>/dev/null || break; sleep 0.1; done
fa_agent apache monitor
fa_check_rc_reason "monitor after httpd was killed: 1, says httpd is not running" 1 "httpd is not running"
if fa_wait_state fmtest ocf_rc 1 10; then
    ok "the loop saw the failure and decided (ocf_rc 1)"
else
    not_ok "the loop saw the failure and decided (ocf_rc 1)"
    diag_file "$FAULTMON_STATE_DIR/fmtest/state"
fi
like "$(fa_state_get fmtest reason)" "complete failure.*restart" "the loop's reason says complete failure and restart"
fa_agent apache stop
fa_check_rc "stop after the failure: 0" 0

# 19-20: nothing is left, but the history is.
leftover=""
[ -n "$(httpd_pid)" ] && leftover="$leftover httpd"
[ -n "$(loop_pid)" ] && leftover="$leftover loop"
[ -e "$FAULTMON_STATE_DIR/fmtest/agent" ] && leftover="$leftover agent-record"
is "$leftover" "" "stop leaves no httpd, no loop and no agent record"
if [ -f "$FAULTMON_STATE_DIR/fmtest/state" ]; then
    ok "stop keeps the loop's history (state) for the next start"
else
    not_ok "stop keeps the loop's history (state) for the next start"
fi

# 21-24: a failover decision: the start on this node refuses with a hard
# error (4, OCF_ERR_PERM), once.
# A consistent failover decision (a bare pending=2 next to a restart is
# a file the reader refuses).
sed -i -e 's/^pending=.*/pending=2/' -e 's/^action=.*/action=2/' -e 's/^ocf_rc=.*/ocf_rc=4/' \
    -e 's/^d.last_action=.*/d.last_action=2/' "$FAULTMON_STATE_DIR/fmtest/state"
fa_agent apache start
fa_check_rc_reason "start after a failover decision: 4 (hard: Pacemaker moves it)" 4 \
    "not starting here until a cleanup of fmtest"
is "$(fa_state_get fmtest pending)" "0" "the refusal clears the failover request"
is "$(httpd_pid)" "" "the refused start did not start httpd"
fa_agent apache start
fa_check_rc "the next start (after a cleanup) works: 0" 0
fa_agent apache stop

# 25-27: held for manual resume: refused until 'faultmon resume'.
sed -i 's/^d\.down=.*/d.down=1/; s/^d\.held=.*/d.held=1/; s/^state=.*/state=4/' \
    "$FAULTMON_STATE_DIR/fmtest/state"
fa_agent apache start
fa_check_rc_reason "start while held for manual resume: 4, says how to resume" 4 "faultmon resume fmtest"
"$FAULTMON" resume fmtest >/dev/null 2>&1
fa_agent apache start
fa_check_rc "start after 'faultmon resume': 0" 0
fa_agent apache stop
fa_check_rc "stop: 0" 0

# 28-30: the ocf:heartbeat:apache check: statusurl and testregex, matched
# regardless of case, as the only target.
fa_params fmstatus
export OCF_RESKEY_statusurl="http://127.0.0.1:$FA_PORT/server-status"
export OCF_RESKEY_testregex="apache server status for"
fa_agent apache start
fa_check_rc "statusurl with a testregex that matches: start 0" 0
targets=$(grep '^target=' "$FAULTMON_STATE_DIR/fmstatus/state" | sed 's/.*=//')
is "$targets" "http://127.0.0.1:$FA_PORT/server-status" "statusurl is the only target, as in ocf:heartbeat:apache"
fa_agent apache stop
export OCF_RESKEY_testregex="no-such-content"
fa_agent apache start
fa_check_rc_reason "statusurl with a testregex that does not match: start fails (1), says why" 1 \
    "first probe cycle failed"
fa_agent apache stop

# 31-32: a statusurl that answers 404 or redirects fails before testregex
# is applied: Apache's 404 and 301 pages both match the default testregex
# "</ *html *>", and ocf:heartbeat:apache's wget fails on the 404.
unset OCF_RESKEY_testregex
export OCF_RESKEY_statusurl="http://127.0.0.1:$FA_PORT/yoyoyoyo"
fa_agent apache start
fa_check_rc_reason "statusurl answering 404, default testregex: start fails (1), names the status" 1 \
    "first probe cycle failed.*404"
fa_agent apache stop
mkdir -p "$FA_DIR/htdocs/dir"
fa_params fmredirect
export OCF_RESKEY_statusurl="http://127.0.0.1:$FA_PORT/dir"
fa_agent apache start
fa_check_rc_reason "statusurl answering 301 (not followed), default testregex: start fails (1)" 1 \
    "first probe cycle failed.*301"
fa_agent apache stop

# 34-36: the service asks to be drained (maintenance_status, HAProxy's
# disable-on-404): a Monitor_Uri_List URI answering 404 is no failure, the
# monitor answers degraded (190, which crm_mon shows) and says why.
fa_params fmmaint
export OCF_RESKEY_Monitor_Uri_List="http://127.0.0.1:$FA_PORT/fm-maintenance-page"
export OCF_RESKEY_maintenance_status=404
fa_agent apache start
fa_check_rc "maintenance_status=404, a URI answering 404: start 0" 0
fa_agent apache monitor
fa_check_rc_reason "monitor: degraded (190), the service signals maintenance" 190 "signals maintenance"
unset OCF_RESKEY_maintenance_status
fa_agent apache monitor
fa_agent apache stop
fa_agent apache start
fa_check_rc_reason "without maintenance_status the same 404 fails start (1)" 1 "first probe cycle failed.*404"
fa_agent apache stop

# 37-45: reload (Pacemaker calls it for a change of parameters without
# unique="1"): the fault monitor's parameters restart the loop alone, httpd
# keeps its pid, the loop its history; httpd's own parameters restart httpd
# in place; invalid ones change nothing and fail the reload.
fa_params fmreload
export OCF_RESKEY_Retry_count=2
fa_agent apache start
fa_check_rc "reload: start 0" 0
httpd_before=$(httpd_pid) loop_before=$(loop_pid)
streak_before=$(fa_state_get fmreload d.ok_streak)
export OCF_RESKEY_Retry_count=5
fa_agent apache reload
fa_check_rc "reload with Retry_count=5: 0" 0
loop_after=$(loop_pid)
is "$(httpd_pid)" "$httpd_before" "  httpd keeps its pid"
ok_if "$([ -n "$loop_after" ] && [ "$loop_after" != "$loop_before" ] &&
    tr '\0' '\n' <"/proc/$loop_after/environ" | grep -qx 'OCF_RESKEY_Retry_count=5'; echo $?)" \
    "  a new loop runs with Retry_count=5"
fa_wait_state fmreload pid "$loop_after" 5
streak_after=$(fa_state_get fmreload d.ok_streak)
ok_if "$([ "${streak_after:-0}" -gt "${streak_before:-0}" ]; echo $?)" \
    "  and keeps the engine's history (successes in a row: ${streak_before:-?}, then ${streak_after:-?})"
export OCF_RESKEY_Retry_count=many
fa_agent apache reload
fa_check_rc_reason "reload with Retry_count=many: 6, nothing changes" 6 "Retry_count"
is "$(httpd_pid)/$(loop_pid)" "$httpd_before/$loop_after" "  httpd and the loop are the same"
export OCF_RESKEY_Retry_count=5 OCF_RESKEY_options="-DFaultmonReload"
fa_agent apache reload
fa_check_rc "reload with new httpd options: 0" 0
ok_if "$(p=$(httpd_pid); [ -n "$p" ] && [ "$p" != "$httpd_before" ] &&
    tr '\0' ' ' <"/proc/$p/cmdline" | grep -q -- -DFaultmonReload; echo $?)" \
    "  httpd was restarted in place with them"
fa_agent apache stop

tap_done
