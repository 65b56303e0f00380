#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-attrs-frozen.sh: an attribute update that attrd does not answer in
# time is asked again until it is answered (issue 31: "the attributes reach
# their latest values within 5 s of SIGCONT").  A stand-in attrd_updater
# that hangs while $FM_TMP/frozen exists (attrd stopped with SIGSTOP: its
# callers wait, and finish when it is continued) and records each call it
# finishes; the loop's first updates time out at their 5 s and are killed.
# attrd is "continued" at 6 s:
#
#  - the state attribute reaches its value (up) within 5 s of that (before,
#    a timed-out update was not sent again until the value changed: never,
#    for a service that stays up);
#  - the warning about the timeout is logged once per attribute, not once
#    per retry;
#  - at most one call per attribute runs at a time;
#  - attrd restarted by pacemakerd (it found attrd frozen): the calls
#    waiting for it fail at once ("Connection reset by peer", status 102);
#    the value is asked again a second later (before, a failed update
#    was not sent again until the value changed), and said once;
#  - the loop stopped 50 ms after it decided a failover, while attrd takes
#    300 ms a call: the reason attribute (what the agent's stop after a
#    failover keeps for the administrator) is still set, not killed with
#    the calls the stop cancels.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 90
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 9

export FAULTMON_STATE_DIR=$FM_TMP/state
finished=$FM_TMP/attrd.finished
overlaps=$FM_TMP/overlaps
: >"$finished"
: >"$overlaps"
: >"$FM_TMP/frozen"
cat >"$FM_TMP/attrd_updater" <<EOF
#!/bin/bash
name=\$(printf '%s' "\$*" | sed -E 's/.*-n ([^ ]+).*/\1/')
# one call of an attribute at a time (a killed call lets its lock go when
# the kernel has ended it: wait a moment for that)
printf '%s\n' "\$*" >>"$FM_TMP/attrd.started"
exec 9>"$FM_TMP/lock-\$name"
flock -n 9 || flock -w 1 9 || printf '%s\n' "\$*" >>"$overlaps"
while [ -e "$FM_TMP/frozen" ]; do sleep 0.05 9>&-; done
[ ! -e "$FM_TMP/slow" ] || sleep 0.3 9>&-
if [ -e "$FM_TMP/reset-\$name" ]; then
    rm -f "$FM_TMP/reset-\$name"
    echo "attrd_updater: Could not update \$name: Connection reset by peer (104)" >&2
    exit 102
fi
printf '%s %s\n' "\$(date +%s%3N)" "\$*" >>"$finished"
EOF
chmod +x "$FM_TMP/attrd_updater"
printf '#!/bin/sh\nexit 0\n' >"$FM_TMP/check"
chmod +x "$FM_TMP/check"
export FAULTMON_ATTRD_UPDATER=$FM_TMP/attrd_updater
export OCF_RESOURCE_INSTANCE=web OCF_RESOURCE_TYPE=apache OCF_RESKEY_CRM_meta_on_node=node1

"$FAULTMON" run web --cycles 14 --no-env -v --param "Probe_command=$FM_TMP/check" \
    --param Thorough_probe_interval=1s --param Probe_timeout=400ms 2>"$FM_TMP/web.err" &
loop=$!
fm_cleanup_add "kill -KILL $loop 2>/dev/null"
sleep 6
thawed=$(date +%s%3N)
rm -f "$FM_TMP/frozen"
wait "$loop"
rc=$?
is "$rc" 0 "14 cycles, attrd frozen for the first 6 s: exit 0"
at=$(awk '/-n faultmon-web-state -U up/ { print $1; exit }' "$finished")
ok_if "$([ -n "$at" ] && [ $((at - thawed)) -le 5000 ]; echo $?)" \
    "the state attribute reached its value (up) $(( ${at:-0} - thawed )) ms after attrd answered again (at most 5000)"
[ -n "$at" ] || { diag_file "$finished"; diag_file "$FM_TMP/web.err"; }
is "$(grep -c 'faultmon-web-state: no answer within its time' "$FM_TMP/web.err")" 1 \
    "the timeout of the state's update is logged once, not at each retry"
is "$(cat "$overlaps")" "" "never two updates of one attribute at once"

# attrd restarted: the state's first update fails at once.
: >"$finished"
: >"$FM_TMP/reset-faultmon-web-state"
start=$(date +%s%3N)
"$FAULTMON" run web --cycles 9 --no-env -v --param "Probe_command=$FM_TMP/check" \
    --param Thorough_probe_interval=1s --param Probe_timeout=400ms 2>"$FM_TMP/reset.err"
is "$?" 0 "9 cycles, the state's first update failed (attrd restarted): exit 0"
at=$(awk '/-n faultmon-web-state -U up/ { print $1; exit }' "$finished")
ok_if "$([ -n "$at" ] && [ $((at - start)) -le 4000 ]; echo $?)" \
    "the state attribute reached its value (up) $(( ${at:-0} - start )) ms after the loop started (asked again after 1 s; at most 4000)"
[ -n "$at" ] || { diag_file "$finished"; diag_file "$FM_TMP/reset.err"; }
is "$(grep -c 'faultmon-web-state failed (status 102)' "$FM_TMP/reset.err")" 1 \
    "the failed update is logged once"

# A failover decided, the loop stopped 50 ms later, attrd slow.
: >"$finished"
: >"$FM_TMP/attrd.started"
: >"$FM_TMP/slow"
printf '#!/bin/sh\necho down; exit 2\n' >"$FM_TMP/check"
"$FAULTMON" run web --no-env -v --param "Probe_command=$FM_TMP/check" --param Retry_count=0 \
    --param Thorough_probe_interval=1s --param Probe_timeout=400ms 2>"$FM_TMP/stop.err" &
loop=$!
fm_cleanup_add "kill -KILL $loop 2>/dev/null"
for _ in $(seq 1 100); do grep -q -- '-n faultmon-web-reason -U' "$FM_TMP/attrd.started" && break; sleep 0.02; done
sleep 0.05
kill -TERM "$loop"
wait "$loop"
is "$?" 0 "the loop stopped on SIGTERM 50 ms after its failover's reason went to attrd: exit 0"
like "$(cat "$finished")" "-n faultmon-web-reason -U .*fail" \
    "the failover's reason attribute was set all the same (sent again with the stop's deletes)"
[ -n "$(grep reason "$finished")" ] || { diag_file "$FM_TMP/attrd.started"; diag_file "$FM_TMP/stop.err"; }
tap_done
