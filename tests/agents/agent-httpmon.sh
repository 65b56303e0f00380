#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-httpmon.sh: ocf:faultmon:httpmon against a real Apache on loopback
# that it does not manage: ocf-tester, and the node attributes it publishes
# as the service goes down and comes back.  attrd_updater is replaced by a
# recorder (there is no cluster here); tests/cluster proves the real one.

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
tap_watchdog 180
fa_agents_setup
ws_apache_start || bail_out "Apache did not start"

plan 21

# The recorder: one line per call, "ARGS...".
FA_ATTRD_LOG=$FA_TMP/attrd.log
cat >"$FA_TMP/bin/attrd_updater" <<EOF
#!/bin/sh
echo "\$*" >>"$FA_ATTRD_LOG"
EOF
chmod 755 "$FA_TMP/bin/attrd_updater"
export FAULTMON_OCF_ATTRD_UPDATER=$FA_TMP/bin/attrd_updater

# The last value set for an attribute, or "deleted".
attr_value() {
    awk -v name="$1" '
        $1 == "-n" && $2 == name && $3 == "-U" { v = $4 }
        $1 == "-n" && $2 == name && $3 == "-D" { v = "deleted" }
        END { print v }' "$FA_ATTRD_LOG" 2>/dev/null
}

params() {
    fa_clear_params
    export OCF_RESOURCE_INSTANCE=fmcheck:0
    export OCF_RESKEY_Port_list="127.0.0.1:$WA_HTTP_PORT"
    export OCF_RESKEY_Monitor_Uri_List="http://127.0.0.1:$WA_HTTP_PORT/health"
    export OCF_RESKEY_Thorough_probe_interval=1s
    export OCF_RESKEY_Probe_timeout=1s
    export OCF_RESKEY_health_attribute="#health-fmcheck"
    export OCF_RESKEY_multiplier=100
}

# 1: ocf-tester.
params
out=$(fm_timeout 120 ocf-tester -n fmcheck:0 -o Port_list="127.0.0.1:$WA_HTTP_PORT" \
    -o Thorough_probe_interval=1s -o Probe_timeout=1s "$FA_HTTPMON" 2>&1)
rc=$?
if [ "$rc" = 0 ] && printf '%s' "$out" | grep -q "passed all tests"; then
    ok "ocf-tester passes"
else
    not_ok "ocf-tester passes"
    diag "ocf-tester exited $rc" "$out"
fi

# 2-6: start; the verdict as attributes.
: >"$FA_ATTRD_LOG"
params
fa_agent httpmon start
fa_check_rc "start: 0" 0
is "$(attr_value faultmon-httpmon)" "100" "the attribute (default name) is the multiplier while the service is up"
is "$(attr_value '#health-fmcheck')" "green" "the health attribute is green"
loop=$(cat "$FAULTMON_STATE_DIR/fmcheck:0/pid" 2>/dev/null)
like "$(tr '\0' ' ' <"/proc/$loop/cmdline" 2>/dev/null)" "run fmcheck:0 --kind=httpmon" \
    "the loop never asks Pacemaker for recovery (--kind=httpmon implies --no-pacemaker)"
fa_agent httpmon monitor
fa_check_rc "monitor: 0" 0

# 7-9: the service goes down: the attribute turns 0, health red; monitor
# still answers 0 (the clone itself is fine).
ws_apache_kill
fa_wait_state fmcheck:0 d.down 1 10
fa_agent httpmon monitor
fa_check_rc "monitor while the service is down: still 0" 0
is "$(attr_value faultmon-httpmon)" "0" "the attribute is 0 while the service is down"
is "$(attr_value '#health-fmcheck')" "red" "the health attribute is red"
st_out=$(fm_timeout 10 "$FAULTMON" status fmcheck:0 2>&1)
st_rc=$?
is "$st_rc/$(printf '%s\n' "$st_out" | head -n 1)/$(printf '%s\n' "$st_out" | grep -ci -e restart -e failover)" \
    "2/fmcheck:0: unhealthy/0" "faultmon status: unhealthy (exit 2), never a restart or a failover"

# 10-11: it comes back (same configuration, same ports).
"$WS_APACHE" -f "$WA_DIR/apache.conf" -DFOREGROUND >"$WA_DIR/stdout.log" 2>&1 </dev/null &
WA_PID=$!
fm_wait_port 127.0.0.1 "$WA_HTTP_PORT" 5
fa_wait_state fmcheck:0 d.down 0 10
fa_agent httpmon monitor
is "$(attr_value faultmon-httpmon)" "100" "back up: the attribute is the multiplier again"
is "$(attr_value '#health-fmcheck')" "green" "back up: the health attribute is green again"

# reload (a parameter without unique="1" changed): a new loop with the new
# multiplier publishes at once; the attribute is never deleted meanwhile.
: >"$FA_ATTRD_LOG"
export OCF_RESKEY_multiplier=50
fa_agent httpmon reload
fa_check_rc "reload with multiplier=50: 0" 0
is "$(attr_value faultmon-httpmon)/$(grep -c -- ' -D' "$FA_ATTRD_LOG")" "50/0" \
    "  the attribute is 50 at once, and was never deleted"

# 12-14: stop removes both attributes and the loop.
fa_agent httpmon stop
fa_check_rc "stop: 0" 0
is "$(attr_value faultmon-httpmon)/$(attr_value '#health-fmcheck')" "deleted/deleted" \
    "stop deletes both attributes"
fa_agent httpmon monitor
fa_check_rc "monitor after stop: 7" 7

# 16: httpmon has no Retry_count: validate-all never warns about it.
params
export OCF_RESKEY_Thorough_probe_interval=200 OCF_RESKEY_Retry_interval=300
fa_agent httpmon validate-all
is "$FA_RC/$(printf '%s\n' "$FA_OUT" | grep -c Retry_count)" "0/0" \
    "validate-all with a short Retry_interval: no warning about Retry_count, which httpmon does not have"

# 19-21: a state file the reader refuses is no verdict: the attributes come
# from a fresh probe (here the service is down: 0 and red, not the last
# verdict's 100 and green), and monitor answers 190 with the reason, not 0.
# The loop is stopped (SIGSTOP, by its checked PID) so that it neither
# replaces the file nor sees the service go.
: >"$FA_ATTRD_LOG"
params
fa_agent httpmon start
loop=$(cat "$FAULTMON_STATE_DIR/fmcheck:0/pid" 2>/dev/null)
case $loop in '' | *[!0-9]*) bail_out "no loop pid after start" ;; esac
[ "$(cat "/proc/$loop/comm" 2>/dev/null)" = faultmon ] || bail_out "pid $loop is not the test's loop"
kill -STOP "$loop"
sed -i 's/^d\.version=.*/d.version=7/' "$FAULTMON_STATE_DIR/fmcheck:0/state"
ws_apache_kill
fa_agent httpmon monitor
kill -CONT "$loop"
fa_check_rc_reason "monitor with a state the reader refuses: 190, not 0, the fresh probe's reason" 190 \
    "^fresh probe: complete failure: .*Connection refused"
is "$(attr_value faultmon-httpmon)/$(attr_value '#health-fmcheck')" "0/red" \
    "the attributes come from the fresh probe (the service is down), not the last verdict"
like "$FA_OUT" "state: decision history: version 7 is not 1; no verdict from it: probing afresh" \
    "and the log says why"
fa_agent httpmon stop

tap_done
