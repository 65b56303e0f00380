#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-nginx.sh: ocf:faultmon:nginx (the built agent) against a real nginx
# on a free loopback port, started and stopped by the agent: ocf-tester,
# start as ocf:heartbeat:nginx starts it, Port_list derived from a listen in
# an included file, the monitor levels 0, 10 (stub_status), 20 (test20url,
# test20conffile with test20name) and 30 (external_monitor30_cmd, never run
# by a shell), a kill -9 of the master seen by the loop at once, stop
# leaving no process of it (workers included), reload keeping nginx's pid
# for the loop's parameters and restarting it for its own, and
# validate-all's refusals.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_root
fa_require_nginx
if ! command -v ocf-tester >/dev/null 2>&1; then
    echo "1..0 # SKIP ocf-tester is not installed (apt-get install resource-agents)"
    exit 0
fi
tap_watchdog 300
fa_agents_setup
fa_nginx_setup || bail_out "cannot write an nginx configuration"

plan 41

loop_pid() {
    cat "$FAULTMON_STATE_DIR/$OCF_RESOURCE_INSTANCE/pid" 2>/dev/null
}
wait_gone() {
    for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    return 1
}

# 1-2: ocf-tester, the way administrators test an agent by hand.
fa_nginx_params fmtest
out=$(fm_timeout 180 ocf-tester -n fmtest -o configfile="$FA_NCONF" -o options="$FA_NGINX_OPTIONS" \
    -o Thorough_probe_interval=2s -o Probe_timeout=2s "$FA_NGINX" 2>&1)
rc=$?
if [ "$rc" = 0 ] && printf '%s' "$out" | grep -q "passed all tests"; then
    ok "ocf-tester passes"
else
    not_ok "ocf-tester passes"
    diag "ocf-tester exited $rc" "$out"
fi
ok_if "$([ -z "$(fa_nginx_pid)" ] && [ -z "$(fa_nginx_pids)" ] && [ -z "$(loop_pid)" ]; echo $?)" \
    "after ocf-tester neither nginx nor the loop runs"

# 3-9: start, and what it started.
fa_nginx_params fmtest
fa_agent nginx validate-all
fa_check_rc "validate-all of the healthy set-up: 0" 0
fa_agent nginx start
fa_check_rc "start: 0" 0
pid=$(fa_nginx_pid)
cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)
like "$cmdline" "nginx $FA_NGINX_OPTIONS -c $FA_NCONF" \
    "nginx runs as ocf:heartbeat:nginx starts it (options, -c configfile)"
targets=$(grep '^target=' "$FAULTMON_STATE_DIR/fmtest/state" | sed 's/.*=//')
is "$targets" "http://127.0.0.1:$FA_NPORT/" "Port_list derived from the listen of the included conf.d/listen.conf"
is "$(sed -n 's/^status_url=//p' "$FAULTMON_STATE_DIR/fmtest/agent")" "http://127.0.0.1:$FA_NPORT/nginx_status" \
    "the status URL derived from the listen and the stub_status location"
fa_agent nginx monitor
fa_check_rc "monitor of the running resource: 0" 0
fa_agent nginx start
fa_check_rc "start of a started resource: 0" 0

# 10-18: the monitor levels, as ocf:heartbeat:nginx's.
export OCF_CHECK_LEVEL=10
fa_agent nginx monitor
fa_check_rc "OCF_CHECK_LEVEL=10: stub_status matches the default status10regex: 0" 0
export OCF_RESKEY_status10regex="no-such-content"
fa_agent nginx monitor
fa_check_rc_reason "OCF_CHECK_LEVEL=10, status10regex does not match: 1, says why" 1 "content"
unset OCF_RESKEY_status10regex
export OCF_CHECK_LEVEL=20 OCF_RESKEY_test20url=/index.html OCF_RESKEY_test20regex=FAULTMON-NGINX-INDEX
fa_agent nginx monitor
fa_check_rc "OCF_CHECK_LEVEL=20: test20url relative to the listen, test20regex regardless of case: 0" 0
unset OCF_RESKEY_test20url OCF_RESKEY_test20regex
fa_agent nginx monitor
fa_check_rc_reason "OCF_CHECK_LEVEL=20 without a test: 6, as heartbeat" 6 "test url empty"
cat >"$FA_NDIR/tests.conf" <<EOF
test first
url /no-such-page
match no-such-content
end
test second
url /index.html
match faultmon-nginx-index
end
EOF
export OCF_RESKEY_test20conffile=$FA_NDIR/tests.conf OCF_RESKEY_test20name=second
fa_agent nginx monitor
fa_check_rc "test20conffile: test20name selects the second test: 0" 0
unset OCF_RESKEY_test20conffile OCF_RESKEY_test20name
export OCF_CHECK_LEVEL=30 OCF_RESKEY_external_monitor30_cmd="test -d '$FA_NDIR'"
fa_agent nginx monitor
fa_check_rc "OCF_CHECK_LEVEL=30: external_monitor30_cmd with its arguments succeeds: 0" 0
export OCF_RESKEY_external_monitor30_cmd="test -d $FA_NDIR/no-such-dir"
fa_agent nginx monitor
fa_check_rc_reason "OCF_CHECK_LEVEL=30: a failing command: 1, says so" 1 "reported failure"
export OCF_RESKEY_external_monitor30_cmd="true; touch $FA_NDIR/shell-ran"
fa_agent nginx monitor
fa_check_rc_reason "OCF_CHECK_LEVEL=30: shell syntax is refused: 6" 6 "no shell runs it"
ok_if "$([ ! -e "$FA_NDIR/shell-ran" ]; echo $?)" "  and nothing ran it through a shell"
unset OCF_CHECK_LEVEL OCF_RESKEY_external_monitor30_cmd

# 19-20: a configuration removed while nginx runs: 5, as the apache agent.
mv "$FA_NCONF" "$FA_NCONF.aside"
fa_agent nginx monitor
fa_check_rc_reason "monitor with the configfile removed from this node: 5" 5 "removed from this node"
mv "$FA_NCONF.aside" "$FA_NCONF"
fa_agent nginx monitor
fa_check_rc "monitor with it back: 0" 0

# 21-27: nginx's master killed: the loop watches it and decides at once,
# not at its next probe cycle (Thorough_probe_interval 30s here); stop
# leaves no worker behind.
fa_agent nginx stop
export OCF_RESKEY_Thorough_probe_interval=30s
fa_agent nginx start
fa_check_rc "start with Thorough_probe_interval=30s: 0" 0
fa_wait_state fmtest ocf_rc 0 5
killed=$(fa_nginx_pid)
workers=$(pgrep -P "$killed")
kill -KILL "$killed"
if fa_wait_state fmtest ocf_rc 1 3; then
    ok "the loop saw the kill -9 within 3 s and decided (ocf_rc 1), no monitor called"
else
    not_ok "the loop saw the kill -9 within 3 s and decided (ocf_rc 1), no monitor called"
    diag_file "$FAULTMON_STATE_DIR/fmtest/state"
fi
like "$(fa_state_get fmtest reason)" "complete failure.*restart" "the loop's reason says complete failure and restart"
fa_agent nginx monitor
fa_check_rc_reason "monitor after nginx was killed: 1, says nginx is not running" 1 "nginx is not running"
# shellcheck disable=SC2086 # one PID a word
ok_if "$([ -n "$workers" ] && kill -0 $workers 2>/dev/null; echo $?)" "  its worker outlived the master ($workers)"
fa_agent nginx stop
fa_check_rc "stop after the crash: 0" 0
ok_if "$(for w in $workers; do wait_gone "$w" || exit 1; done; echo 0)" \
    "  stop killed the orphaned worker (same session as the dead master)"

# 28-29: stopped: stop again and monitor.
fa_agent nginx stop
fa_check_rc "stop of a stopped resource: 0" 0
fa_agent nginx monitor
fa_check_rc "monitor of a stopped resource: 7" 7

# 30-36: reload: the loop's parameters restart the loop alone, nginx keeps
# its pid; nginx's own (options) restart nginx in place; invalid ones change
# nothing and fail the reload.
fa_nginx_params fmreload
export OCF_RESKEY_Retry_count=2
fa_agent nginx start
fa_check_rc "reload: start 0" 0
nginx_before=$(fa_nginx_pid) loop_before=$(loop_pid)
export OCF_RESKEY_Retry_count=5
fa_agent nginx reload
fa_check_rc "reload with Retry_count=5: 0" 0
loop_after=$(loop_pid)
is "$(fa_nginx_pid)" "$nginx_before" "  nginx keeps its pid"
ok_if "$([ -n "$loop_after" ] && [ "$loop_after" != "$loop_before" ] &&
    tr '\0' '\n' <"/proc/$loop_after/environ" | grep -qx 'OCF_RESKEY_Retry_count=5'; echo $?)" \
    "  a new loop runs with Retry_count=5"
export OCF_RESKEY_Retry_count=many
fa_agent nginx reload
fa_check_rc_reason "reload with Retry_count=many: 6, nothing changes" 6 "Retry_count"
export OCF_RESKEY_Retry_count=5 OCF_RESKEY_options="$FA_NGINX_OPTIONS -g 'worker_priority 1;'"
fa_agent nginx reload
fa_check_rc "reload with new nginx options: 0" 0
ok_if "$(p=$(fa_nginx_pid); [ -n "$p" ] && [ "$p" != "$nginx_before" ] &&
    tr '\0' ' ' <"/proc/$p/cmdline" | grep -q -- 'worker_priority 1;'; echo $?)" \
    "  nginx was restarted in place with them"
fa_agent nginx stop

# 37-41: validate-all refuses what heartbeat refuses (or more).
fa_nginx_params fmvalid
export OCF_RESKEY_configfile=$FA_NDIR/no-such.conf
fa_agent nginx validate-all
fa_check_rc_reason "configfile missing: 5" 5 "not found"
fa_nginx_params fmvalid
export OCF_RESKEY_status10url="https://127.0.0.1:$FA_NPORT/nginx_status"
fa_agent nginx validate-all
fa_check_rc_reason "status10url not http://HOST/PATH: 2, as heartbeat" 2 "Invalid STATUSURL"
fa_nginx_params fmvalid
export OCF_RESKEY_httpd=$FA_NDIR/no-such-nginx
fa_agent nginx validate-all
fa_check_rc_reason "httpd missing: 5" 5 "not an executable"
fa_nginx_params fmvalid
echo "listen 127.0.0.1:$FA_NPORT; no_such_directive on;" >"$FA_NDIR/conf.d/listen.conf"
fa_agent nginx validate-all
fa_check_rc_reason "nginx -t fails: 6, with nginx's words" 6 "unknown directive"
echo "listen 127.0.0.1:$FA_NPORT;" >"$FA_NDIR/conf.d/listen.conf"
ln -s "$FA_NCONF" "$FA_NDIR/conf.d/loop.conf"
fa_agent nginx validate-all
fa_check_rc_reason "an include loop: 6, one line" 6 "include loop"
rm -f "$FA_NDIR/conf.d/loop.conf"

tap_done
