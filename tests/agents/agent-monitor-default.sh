#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-monitor-default.sh: what an administrator gets by default (issue 31).
# The web agents' meta-data give a 60 s monitor (the loop asks for recovery
# itself; the monitor is a backstop), and a start with Thorough_probe_interval
# unset derives the loop's interval from the monitor operation as
# min(interval / 2, 10 s): a 60 s monitor still probes every 10 s
# (heartbeat's default), a 10 s one every 5 s, a 1 h one every 10 s (it
# was 30 s, 5 s and the loop's own 60 s).  Where the controller refused
# the loop's fail request (a Pacemaker Remote node; the loop leaves
# STATE/refused, here a stand-in), the monitor warns once, with the
# resource's interval, that recovery waits for it, and says to set
# op monitor interval=10s.  A real Apache on loopback, started by the
# agent; cibadmin and attrd_updater are stand-ins (found beside
# FAULTMON_OCF_ATTRD_UPDATER) that answer as a CIB with the monitor op.

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

plan 17

# $FA_TMP/op: the monitor op's interval in the stand-in CIB.
fa_pcmk_standins
cat >"$TOOLS/cibadmin.answers" <<EOF
case "\$*" in
    *"//primitive[@id='fmtest']/operations/op[@name='monitor']"*)
        echo "<op id=\"fmtest-monitor\" name=\"monitor\" interval=\"\$(cat "$FA_TMP/op")\" timeout=\"20s\"/>"
        exit 0 ;;
esac
EOF

STATE=$FAULTMON_STATE_DIR/fmtest
loop_pid() { cat "$STATE/pid" 2>/dev/null; }
# The Thorough_probe_interval the running loop was given (its environment).
loop_interval() {
    tr '\0' '\n' <"/proc/$(loop_pid)/environ" 2>/dev/null | sed -n 's/^OCF_RESKEY_Thorough_probe_interval=//p'
}
# Pacemaker's defaults: no Thorough_probe_interval, no Probe_timeout.
default_params() {
    fa_params fmtest
    unset OCF_RESKEY_Thorough_probe_interval OCF_RESKEY_Probe_timeout
}

# 1-2: the meta-data's default monitor operation.
for agent in apache nginx; do
    fa_agent "$agent" meta-data
    like "$FA_OUT" '<action name="monitor" depth="0" timeout="20s" interval="60s" />' \
        "$agent: the meta-data's default monitor interval is 60s"
done

# 3-11: the loop's interval derived from the monitor's.
for case in "60s 10000ms" "10s 5000ms" "1h 10000ms"; do
    read -r op want <<<"$case"
    printf '%s\n' "$op" >"$FA_TMP/op"
    default_params
    fa_agent apache start
    fa_check_rc "start with op monitor interval=$op: 0" 0
    is "$(loop_interval)" "$want" "monitor interval $op: the loop probes every $want"
    fa_agent apache stop
    fa_check_rc "stop: 0" 0
done

# 12-17: a refused fail request, told once a loop by the monitor.
printf '60s\n' >"$FA_TMP/op"
default_params
fa_agent apache start
fa_check_rc "start (monitor 60s): 0" 0
export OCF_RESKEY_CRM_meta_interval=60000 OCF_RESKEY_CRM_meta_timeout=20000
: >"$STATE/refused"
fa_agent apache monitor
like "$FA_OUT" "WARNING.*refused the fault monitor's fail request.*waits for the monitor, every 60 s; set op monitor interval=10s on fmtest" \
    "a monitor every 60 s after a refused fail request: one warning, with the interval and what to set"
fa_agent apache monitor
if printf '%s\n' "$FA_OUT" | grep -q "refused the fault monitor's fail request"; then
    not_ok "the next monitor does not say it again"; diag "$FA_OUT"
else
    ok "the next monitor does not say it again"
fi
# A monitor every 10 s already recovers within 10 s: nothing to say, until
# the monitor is made slower.
export OCF_RESKEY_CRM_meta_interval=10000
: >"$STATE/refused"
fa_agent apache monitor
if printf '%s\n' "$FA_OUT" | grep -q "refused the fault monitor's fail request"; then
    not_ok "a monitor every 10 s: no warning"; diag "$FA_OUT"
else
    ok "a monitor every 10 s: no warning"
fi
export OCF_RESKEY_CRM_meta_interval=30000
fa_agent apache monitor
like "$FA_OUT" "WARNING.*refused the fault monitor's fail request.*every 30 s; set op monitor interval=10s" \
    "the same loop's refusal, once the monitor is every 30 s: the warning"
unset OCF_RESKEY_CRM_meta_interval OCF_RESKEY_CRM_meta_timeout
fa_agent apache stop
fa_check_rc "stop: 0" 0
