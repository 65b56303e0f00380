#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-guard.sh: ocf:faultmon:guard without a cluster, against a real Apache
# on loopback that it does not manage: validate-all's refusals, ocf-tester,
# and start/monitor/stop with the loop's verdict.  Here there is no CIB to
# look the guarded resource up in, so the guard's loop only records its
# decisions and the monitor says so; tests/cluster/guard-3node.sh proves
# the restart and the failover on a real cluster.  cibadmin, crm_resource
# and attrd_updater are stand-ins (FAULTMON_OCF_ATTRD_UPDATER: the tools
# beside it) that record their calls and answer as a cluster without the
# resource, or without a cluster, would.

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

plan 25

# Stand-ins for Pacemaker's tools, found beside attrd_updater.  cibadmin
# answers as $FA_TMP/cib says: "none" (no cluster: 102), "absent" (no such
# object: 105), or the XML to print.
TOOLS=$FA_TMP/pcmk
mkdir -p "$TOOLS"
CALLS=$FA_TMP/calls.log
: >"$CALLS"
for t in attrd_updater crm_resource; do
    printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 0\n' "$t" "$CALLS" >"$TOOLS/$t"
done
cat >"$TOOLS/cibadmin" <<EOF
#!/bin/sh
echo "cibadmin \$*" >>"$CALLS"
case "\$(cat "$FA_TMP/cib")" in
    none) echo "Could not connect to the CIB" >&2; exit 102 ;;
    absent) exit 105 ;;
esac
case "\$*" in
    *"//resources//primitive[@id='web']"*) cat "$FA_TMP/cib"; exit 0 ;;
    *"//resources//*[@id='webgroup']"*) echo '<group id="webgroup">'; exit 0 ;;
    *"//group["*) exit 0 ;;
esac
exit 105
EOF
chmod 755 "$TOOLS"/*
export FAULTMON_OCF_ATTRD_UPDATER=$TOOLS/attrd_updater FAULTMON_ATTRD_UPDATER=$TOOLS/attrd_updater
cib() { printf '%s\n' "$1" >"$FA_TMP/cib"; }
cib none

DEAD_PORT=$(fm_free_port 0) || bail_out "no free port"

params() {
    fa_clear_params
    export OCF_RESOURCE_INSTANCE=webguard
    export OCF_RESKEY_resource=web
    export OCF_RESKEY_Port_list="127.0.0.1:$WA_HTTP_PORT"
    export OCF_RESKEY_Thorough_probe_interval=1s
    export OCF_RESKEY_Probe_timeout=1s
}

# 1-8: validate-all's refusals, each with its reason.
params; unset OCF_RESKEY_resource
fa_agent guard validate-all
fa_check_rc_reason "validate-all: no resource: 6" 6 "resource is required"
params; OCF_RESKEY_resource="web'] | //*[@id='x"
fa_agent guard validate-all
fa_check_rc_reason "validate-all: a resource id with a quote (an XPath injection): 6" 6 "invalid resource"
params; OCF_RESKEY_resource=webguard
fa_agent guard validate-all
fa_check_rc_reason "validate-all: the guard guarding itself: 6" 6 "is this guard itself"
params; unset OCF_RESKEY_Port_list
fa_agent guard validate-all
fa_check_rc_reason "validate-all: nothing to probe: 6" 6 "nothing to probe"
params; OCF_RESKEY_Probe_timeout=soon
fa_agent guard validate-all
fa_check_rc "validate-all: a bad Probe_timeout: 6" 6
params; cib absent
fa_agent guard validate-all
fa_check_rc_reason "validate-all: the resource is not in the CIB: 6" 6 "resource 'web' is not in the CIB"
params; OCF_RESKEY_resource=webgroup; cib '<primitive id="x"/>'
fa_agent guard validate-all
fa_check_rc_reason "validate-all: the resource is a group: 6, guard the primitive" 6 "is a group, not a primitive"
params; cib none; export OCF_RESKEY_CRM_meta_on_node=node1
fa_agent guard validate-all
fa_check_rc_reason "validate-all under Pacemaker with no readable CIB: 1" 1 "cannot read resource 'web'"

# 9: no cluster at all (ocf-tester, a shell): valid, with a warning.
params; cib none
fa_agent guard validate-all
if [ "$FA_RC" = 0 ] && printf '%s' "$FA_OUT" | grep -q "no CIB to read resource 'web' from"; then
    ok "validate-all without a cluster: 0, and says the loop will only record"
else
    not_ok "validate-all without a cluster: 0, and says the loop will only record"
    diag "rc $FA_RC" "$FA_OUT"
fi

# 10: ocf-tester.
params
out=$(fm_timeout 120 ocf-tester -n webguard -o resource=web -o Port_list="127.0.0.1:$WA_HTTP_PORT" \
    -o Thorough_probe_interval=1s -o Probe_timeout=1s "$FA_GUARD" 2>&1)
rc=$?
left=$(cat "$FAULTMON_STATE_DIR/webguard/pid" 2>/dev/null)
if [ "$rc" = 0 ] && printf '%s' "$out" | grep -q "passed all tests" && { [ -z "$left" ] || ! kill -0 "$left" 2>/dev/null; }; then
    ok "ocf-tester passes, and leaves no loop running"
else
    not_ok "ocf-tester passes, and leaves no loop running"
    diag "ocf-tester exited $rc; loop pid ${left:-none}" "$out"
fi

# 11-14: a primitive found in the CIB: the loop is aimed at it.
params
cib '<primitive id="web" class="ocf" provider="heartbeat" type="nginx">'
: >"$CALLS"
fa_agent guard start
fa_check_rc "start with web in the CIB: 0" 0
loop=$(cat "$FAULTMON_STATE_DIR/webguard/pid" 2>/dev/null)
env_of() { tr '\0' '\n' <"/proc/$loop/environ" 2>/dev/null | grep -E '^FAULTMON_GUARD_' | sort | tr '\n' ' '; }
is "$(env_of)" "FAULTMON_GUARD_CLASS=ocf FAULTMON_GUARD_PROVIDER=heartbeat FAULTMON_GUARD_RESOURCE=web FAULTMON_GUARD_TYPE=nginx " \
    "the loop is aimed at the guarded resource (class, provider and type from the CIB)"
like "$(grep -c 'cibadmin --query --xpath //group' "$CALLS")" "^[1-9]" "start asks the CIB whether a group places the guard after web"
fa_agent guard monitor
fa_check_rc "monitor while web answers: 0" 0

# 15-16: the service fails: without the controller the loop's request fails;
# the monitor asks with crm_resource --fail (never a shell) and says so.
fa_agent guard stop
params
cib '<primitive id="web" class="systemd" type="nginx">'
OCF_RESKEY_Port_list="127.0.0.1:$DEAD_PORT"
: >"$CALLS"
fa_agent guard start
asked() { grep -q "^crm_resource --fail --resource web" "$CALLS"; }
for _ in $(seq 1 40); do
    fa_agent guard monitor
    asked && break
    sleep 0.25
done
if asked && [ "$FA_RC" = 190 ] && printf '%s' "$FA_REASON" | grep -q "of web asked"; then
    ok "a failed service: the monitor asks crm_resource --fail --resource web and answers 190"
else
    not_ok "a failed service: the monitor asks crm_resource --fail --resource web and answers 190"
    diag "rc $FA_RC, reason '$FA_REASON'" "calls:" "$(cat "$CALLS")"
fi
loop=$(cat "$FAULTMON_STATE_DIR/webguard/pid" 2>/dev/null)
is "$(env_of)" "FAULTMON_GUARD_CLASS=systemd FAULTMON_GUARD_RESOURCE=web FAULTMON_GUARD_TYPE=nginx " \
    "a systemd resource: class and type, no provider"

# 17: the restart carried out (the group restarts the guard after web):
# the guard's start sets web's fail-count of fail requests to the one
# restart counted (the controller may have counted the request twice).
fa_agent guard stop
: >"$CALLS"
fa_agent guard start
like "$(grep 'fail-count-web' "$CALLS")" "^attrd_updater -n fail-count-web#asyncmon_0 -U 1$" \
    "start after the restart: fail-count-web#asyncmon_0 set to the 1 restart counted"

# 18-20: stop removes the guard's attributes, and only them; stop again is 0.
: >"$CALLS"
fa_agent guard stop
fa_check_rc "stop: 0" 0
# the reason's delete runs detached (the stop does not wait for attrd)
for _ in $(seq 1 40); do grep -q 'faultmon-webguard-reason -D' "$CALLS" && break; sleep 0.05; done
deleted=$(sed -n 's/^attrd_updater -n \([^ ]*\) -D.*/\1/p' "$CALLS" | sort -u | tr '\n' ' ')
others=$(grep '^attrd_updater' "$CALLS" | grep -v -e ' -D' -e '-n faultmon-webguard-' | head -n 3)
is "$deleted/$others" "faultmon-webguard-reason faultmon-webguard-state faultmon-webguard-weight /" \
    "stop deletes faultmon-webguard-reason, -state and -weight, and sets nothing"
fa_agent guard stop
fa_check_rc "stop when stopped: 0" 0

# 20-21: monitor when stopped; a failover decided with nobody to ask.
fa_agent guard monitor
fa_check_rc "monitor when stopped: 7" 7
params; unset OCF_RESKEY_CRM_meta_on_node
cib none
OCF_RESKEY_Port_list="127.0.0.1:$DEAD_PORT"
OCF_RESKEY_Retry_count=0
export OCF_RESKEY_Retry_count
fa_agent guard start
for _ in $(seq 1 40); do
    fa_agent guard monitor
    [ "$FA_RC" = 190 ] && break
    sleep 0.25
done
fa_check_rc_reason "no cluster: a failover decided, 190 'nobody to ask'" 190 "failover of web decided, nobody to ask"
fa_agent guard stop

# 22-23: a state file the reader refuses is no verdict on web: 190 with the
# reason, never 0.  (A loop that wrote such a file at every cycle would be
# judged healthy at every monitor, and a dead web never reported.)  The loop
# is stopped (SIGSTOP) so that it does not replace the file meanwhile.
params
cib none
fa_agent guard start
loop=$(cat "$FAULTMON_STATE_DIR/webguard/pid" 2>/dev/null)
# Only the test's own loop, checked, is ever signalled.
case $loop in '' | *[!0-9]*) bail_out "no loop pid after start" ;; esac
[ "$(cat "/proc/$loop/comm" 2>/dev/null)" = faultmon ] || bail_out "pid $loop is not the test's loop"
for _ in $(seq 1 40); do
    [ -s "$FAULTMON_STATE_DIR/webguard/state" ] && break
    sleep 0.1
done
# The pid file is checked (the loop's command line) before any signal; with
# no loop the case fails, it never stops PID 0 (the whole process group).
loop_args="^$(fm_ere_quote "$FAULTMON") run webguard( |\$)"
if fm_signal STOP "$loop" "$loop_args"; then
    sed -i 's/^d\.version=.*/d.version=7/' "$FAULTMON_STATE_DIR/webguard/state"
    fa_agent guard monitor
    fm_signal CONT "$loop" "$loop_args"
else
    FA_RC="no loop to stop (pid file: '$loop')" FA_REASON=
fi
fa_check_rc_reason "monitor with a state the reader refuses: 190, not 0" 190 \
    "no verdict on web from the fault monitor's state: .*version 7"
like "$FA_OUT" "no verdict on web from it" "and the log says why"

# 24-25: no state at all from a loop that started long ago (past its
# first cycle's bound: 2 x (1 s + 1 s) + 30 s) is no verdict either, not
# "its first cycle is under way": 190, never 0.  The lock file's time is
# the loop's start.
if fm_signal STOP "$loop" "$loop_args"; then
    rm -f "$FAULTMON_STATE_DIR/webguard/state"
    touch -d '10 minutes ago' "$FAULTMON_STATE_DIR/webguard/lock"
    fa_agent guard monitor
    fm_signal CONT "$loop" "$loop_args"
else
    FA_RC="no loop to stop (pid file: '$loop')" FA_REASON=
fi
fa_check_rc_reason "monitor with no state from a loop started 10 min ago: 190, not 0" 190 \
    "no verdict on web from the fault monitor's state: .*has written no state in the [0-9]+ s since it started"
touch "$FAULTMON_STATE_DIR/webguard/lock"
fa_agent guard stop

tap_done
