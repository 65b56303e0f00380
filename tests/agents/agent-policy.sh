#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-policy.sh: a policy mismatch (two settings that each work but
# disagree) is refused by validate-all only.  start, reload and monitor run
# with the stricter policy and say so (a warning, faultmon status, the
# reason attribute): migration-threshold below Retry_count + 2, set on the
# primitive or in rsc_defaults, lowers the loop's Retry_count to
# threshold - 2; a Probe_timeout longer than the start's timeout is capped
# to it.  A real Apache on loopback, started by the agent; cibadmin and
# attrd_updater are stand-ins (FAULTMON_OCF_ATTRD_UPDATER: the tools beside
# it) that answer as a CIB holding the meta attribute would, and record
# their calls.

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

plan 30

# $FA_TMP/mt: "primitive N", "defaults N" or "none": where the CIB sets
# migration-threshold.  Every other query: no such object (105).
fa_pcmk_standins
cat >"$TOOLS/cibadmin.answers" <<EOF
read -r where value <"$FA_TMP/mt"
case "\$where:\$*" in
    "primitive:"*"//primitive[@id='fmtest']/meta_attributes/nvpair[@name='migration-threshold']"* | \
    "defaults:"*"//rsc_defaults/meta_attributes/nvpair[@name='migration-threshold']"*)
        echo "<nvpair id=\"mt\" name=\"migration-threshold\" value=\"\$value\"/>"; exit 0 ;;
esac
EOF
mt() { printf '%s\n' "$*" >"$FA_TMP/mt"; }

STATE=$FAULTMON_STATE_DIR/fmtest
loop_pid() { cat "$STATE/pid" 2>/dev/null; }
# The Retry_count the running loop was given (its environment).
loop_retry_count() {
    tr '\0' '\n' <"/proc/$(loop_pid)/environ" 2>/dev/null | sed -n 's/^OCF_RESKEY_Retry_count=//p'
}
status_policy() { "$FAULTMON" status fmtest 2>&1 | sed -n 's/^  policy: *//p'; }
stop_as_pacemaker() {
    OCF_RESKEY_CRM_meta_on_node=node1 fa_agent apache stop
}
# Pacemaker names the node in every action; only then is there a cluster
# whose attributes the agent may set.
start_as_pacemaker() {
    OCF_RESKEY_CRM_meta_on_node=node1 fa_agent apache start
}

# 1-10: migration-threshold=3 on the primitive, Retry_count 2 (default).
mt primitive 3
fa_params fmtest
fa_agent apache validate-all
fa_check_rc_reason "validate-all: migration-threshold=3 below Retry_count=2 + 2 is refused: 6" 6 \
    "migration-threshold=3 would move fmtest before Retry_count=2"
start_as_pacemaker
fa_check_rc "start with migration-threshold=3 on the primitive: 0 (not refused)" 0
like "$FA_OUT" "WARNING.*migration-threshold=3 is below Retry_count=2 \+ 2: running with Retry_count=1" \
    "start says once, as a warning, that it runs with Retry_count=1"
is "$(printf '%s\n' "$FA_OUT" | grep -c 'running with Retry_count')" 1 "... once"
is "$(loop_retry_count)" 1 "the loop runs with Retry_count=1 (threshold - 2)"
like "$(status_policy)" "migration-threshold=3 .*running with Retry_count=1" "faultmon status shows the policy"
like "$(grep 'attrd_updater -n faultmon-fmtest-reason -U' "$CALLS")" "migration-threshold=3" \
    "the reason attribute says so"
old=$(loop_pid)
kill -KILL "$old"
for _ in $(seq 1 50); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
fa_agent apache monitor
fa_check_rc "monitor after the loop died: 0, the loop restarted" 0
rm -f "$STATE/loop-died"      # killed on purpose
is "$(loop_retry_count)" 1 "the restarted loop keeps the start's Retry_count=1"
: >"$CALLS"
stop_as_pacemaker
fa_check_rc "stop: 0" 0

# 11-13: what a stop leaves behind.
like "$(cat "$CALLS")" "attrd_updater -n faultmon-fmtest-reason -D" "Pacemaker's stop deletes the reason attribute"
if [ ! -e "$STATE/policy" ]; then ok "stop removes the policy note"; else not_ok "stop removes the policy note"; fi
is "$(status_policy)" "" "faultmon status shows no policy after the stop"

# 14-18: in rsc_defaults, threshold 2: Retry_count 0 (fail over at once).
mt defaults 2
fa_params fmtest
fa_agent apache validate-all
fa_check_rc_reason "validate-all: migration-threshold=2 in rsc_defaults is refused: 6" 6 "migration-threshold=2"
fa_agent apache start
fa_check_rc "start with migration-threshold=2 in rsc_defaults: 0" 0
is "$(loop_retry_count)" 0 "the loop runs with Retry_count=0"
like "$(status_policy)" "migration-threshold=2 .*Retry_count=0" "faultmon status shows it"
# reload (a loop parameter changed): never refused for the policy either.
export OCF_RESKEY_Retry_count=3
fa_agent apache reload
fa_check_rc "reload to Retry_count=3 with migration-threshold=2: 0 (not refused)" 0

# 19-21
is "$(loop_retry_count)" 0 "after the reload the loop runs with Retry_count=0"
is "$(printf '%s\n' "$FA_OUT" | grep -c 'running with Retry_count')" 1 "the reload says it once"
stop_as_pacemaker
fa_check_rc "stop: 0" 0

# 22-25: a threshold high enough: nothing changed, nothing said.
mt primitive 5
fa_params fmtest
fa_agent apache validate-all
fa_check_rc "validate-all: migration-threshold=5 with Retry_count=2: 0" 0
fa_agent apache start
fa_check_rc "start: 0" 0
if printf '%s' "$FA_OUT" | grep -q "running with"; then
    not_ok "no policy warning"; diag "$FA_OUT"
else
    ok "no policy warning"
fi
is "$(loop_retry_count)" "" "the loop gets Retry_count as the administrator set it (unset)"

# 26-30: Probe_timeout longer than the start's timeout (less 1.5 s).
stop_as_pacemaker
mt none
fa_params fmtest
export OCF_RESKEY_Probe_timeout=5s OCF_RESKEY_CRM_meta_timeout=4000
fa_agent apache validate-all
fa_check_rc_reason "validate-all: Probe_timeout=5s with a 4 s timeout is refused: 6" 6 "Probe_timeout=5s is longer"
fa_agent apache start
fa_check_rc "start: Probe_timeout=5s with a 4 s start timeout: 0 (not refused)" 0
like "$FA_OUT" "WARNING.*running with Probe_timeout=2500ms" "start says it runs with Probe_timeout=2500ms"
like "$(status_policy)" "Probe_timeout=5s .*running with Probe_timeout=2500ms" "faultmon status shows it"
unset OCF_RESKEY_CRM_meta_timeout
stop_as_pacemaker
fa_check_rc "stop: 0" 0
