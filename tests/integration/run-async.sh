#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-async.sh: the loop never waits for the cluster (issue 31).  A stand-in
# attrd_updater that takes 3 s a call (an attrd that is slow or frozen), a
# service whose verdict changes every cycle (so that its attributes change
# every cycle), a dependency that is down (its view published, the others'
# views asked), Thorough_probe_interval=1s:
#
#  - 12 cycles take about 12 s (the loop that waited for each call took
#    138 s on the same case, 50 calls);
#  - at most one call per attribute runs at a time (coalesced: the latest
#    value waits, the ones between are never sent): 2 to 5 calls for the
#    state in 12 s;
#  - the probe ran 12 times, once a cycle, and the loop exits 0;
#  - SIGTERM while a call is under way: the loop stops within a second
#    (the deletes of its attributes run together, under their 500 ms).
# The stand-in is exec'd as one process (flock + exec sleep), so that the
# loop's SIGKILL at a call's deadline ends it and frees its lock.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 120
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 7

export FAULTMON_STATE_DIR=$FM_TMP/state
calls=$FM_TMP/attrd.calls
overlaps=$FM_TMP/overlaps
: >"$calls"
: >"$overlaps"
cat >"$FM_TMP/attrd_updater" <<EOF
#!/bin/bash
# One lock an attribute and operation (a query may run beside an update).
name=\$(printf '%s' "\$*" | sed -E 's/.*-n ([^ ]+).*/\1/')\${1#-}
printf '%s\n' "\$*" >>"$calls"
exec 9>"$FM_TMP/lock-\$name"
# A call the loop killed (SIGKILL, at its deadline or at the stop) lets the
# lock go when the kernel has ended it, a moment later: the next call of
# that attribute waits for that moment (1 s), never for a call still
# running, which holds the lock 3 s.
flock -n 9 || flock -w 1 9 || printf '%s\n' "\$*" >>"$overlaps"
exec sleep 3
EOF
chmod +x "$FM_TMP/attrd_updater"
# The service: down every other cycle.
cat >"$FM_TMP/check" <<EOF
#!/bin/sh
echo x >>"$FM_TMP/probes"
if [ -e "$FM_TMP/flip" ]; then rm -f "$FM_TMP/flip"; echo down; exit 2; fi
: >"$FM_TMP/flip"
EOF
chmod +x "$FM_TMP/check"
DEP_PORT=$(fm_free_port 0) || bail_out "no free port"
export FAULTMON_ATTRD_UPDATER=$FM_TMP/attrd_updater
export OCF_RESOURCE_INSTANCE=web OCF_RESOURCE_TYPE=apache OCF_RESKEY_CRM_meta_on_node=node1
args=(--no-env -v --param "Probe_command=$FM_TMP/check" --param "Dependency_list=tcp://127.0.0.1:$DEP_PORT"
      --param Thorough_probe_interval=1s --param Probe_timeout=400ms)

start=$(fm_now_ms)
fm_timeout 60 "$FAULTMON" run web --cycles 12 "${args[@]}" 2>"$FM_TMP/web.err"
rc=$?
took=$(($(fm_now_ms) - start))
is "$rc" 0 "12 cycles against a 3 s attrd_updater: exit 0"
ok_if "$([ "$took" -le 14000 ]; echo $?)" "12 cycles took ${took} ms, at most 14 s (the loop that waited: 138 s)"
[ "$took" -le 14000 ] || diag_file "$FM_TMP/web.err"
is "$(wc -l <"$FM_TMP/probes")" 12 "the service was probed once a cycle"
n=$(wc -l <"$calls")
ok_if "$([ "$n" -ge 4 ]; echo $?)" "the attributes and the dependency's view were asked for ($n calls)"
is "$(cat "$overlaps")" "" "never two updates (or two queries) of one attribute at once"
# The state changes about every cycle; at 3 s a call, only the latest value
# goes when the call before ends: 12 s hold at most 5 calls, not 12.
states=$(grep -Ec -- '-n faultmon-web-state -U ' "$calls")
ok_if "$([ "$states" -ge 2 ] && [ "$states" -le 5 ]; echo $?)" \
    "the state attribute is set, coalesced: $states calls for a state that changed every cycle (2 to 5)"

# SIGTERM while the first calls are under way.
: >"$calls"
"$FAULTMON" run term "${args[@]}" 2>"$FM_TMP/term.err" &
loop=$!
fm_cleanup_add "kill -KILL $loop 2>/dev/null"
for _ in $(seq 1 100); do [ -s "$calls" ] && break; sleep 0.05; done
sleep 0.2
start=$(fm_now_ms)
kill -TERM "$loop"
wait "$loop"
took=$(($(fm_now_ms) - start))
ok_if "$([ "$took" -le 1000 ]; echo $?)" \
    "SIGTERM with attrd_updater calls under way: the loop exits within 1 s (took ${took} ms)"
tap_done
