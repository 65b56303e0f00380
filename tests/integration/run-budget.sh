#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-budget.sh: the node's recovery budget, on three real loops of one
# node.  Each probes an exec check of a file this script creates; with
# node_budget=3, the first two failing resources are restarted as ever, and
# the third, failing within node_budget_window of them, holds its own
# restart and marks the node unhealthy (#health-faultmon=red, for
# Pacemaker's node-health-strategy to move everything once), through a
# stand-in attrd_updater that records its arguments.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 9

export FAULTMON_STATE_DIR=$FM_TMP/state
cat >"$FM_TMP/attrd_updater" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$FM_TMP/attrd.calls"
EOF
chmod +x "$FM_TMP/attrd_updater"

# start RESOURCE: its loop in the background, talking to a cluster (the
# fail request fails here, and is only logged), with the stand-in.
start() {
    local check="/bin/sh -c 'test ! -e $FM_TMP/down-$1 || { echo $1 down; exit 2; }'"
    FAULTMON_ATTRD_UPDATER=$FM_TMP/attrd_updater OCF_RESOURCE_INSTANCE=$1 OCF_RESOURCE_TYPE=apache \
        "$FAULTMON" run "$1" --no-env -v --param "Probe_command=$check" \
        --param Thorough_probe_interval=500ms --param Probe_timeout=400ms --param Retry_count=2 \
        --param node_budget=3 --param node_budget_window=60s --param observer_hold=60s \
        2>"$FM_TMP/$1.err" &
    eval "pid_$1=\$!"
    fm_cleanup_add "kill -KILL $! 2>/dev/null"
}

# wait_log RESOURCE REGEX: until its log has a line matching REGEX (10 s).
wait_log() { fm_wait_log "$FM_TMP/$1.err" "$2" 10; }

for r in r1 r2 r3; do
    start "$r"
done
wait_log r1 'monitoring 1 target' && wait_log r2 'monitoring 1 target' &&
    wait_log r3 'monitoring 1 target'
ok_if $? "three loops run"

touch "$FM_TMP/down-r1"
wait_log r1 'action restart'
ok_if $? "r1 fails: restarted, the first of the node's recoveries"
touch "$FM_TMP/down-r2"
wait_log r2 'action restart'
ok_if $? "r2 fails: restarted, the second"
touch "$FM_TMP/down-r3"
wait_log r3 'recovery held'
ok_if $? "r3 fails within the window: its restart is held"
like "$(grep -m1 'may be impaired' "$FM_TMP/r3.err")" \
    '2 other resources of this node asked for recovery within 60 s, node_budget 3' \
    "the evidence names the other resources and the budget"
if grep -q 'action restart' "$FM_TMP/r3.err"; then
    not_ok "r3 asked for no restart"
    diag_file "$FM_TMP/r3.err"
else
    ok "r3 asked for no restart"
fi
for _ in $(seq 1 100); do
    grep -q '^-n #health-faultmon -U red' "$FM_TMP/attrd.calls" 2>/dev/null && break
    sleep 0.05
done
is "$(grep -c '#health-faultmon' "$FM_TMP/attrd.calls" 2>/dev/null)/$(grep -m1 '#health-faultmon' "$FM_TMP/attrd.calls")" \
    "1/-n #health-faultmon -U red" "the node is marked unhealthy once: #health-faultmon=red"
for r in r1 r2; do
    grep -q '#health-faultmon\|recovery held' "$FM_TMP/$r.err"
    rc=$?
    [ "$rc" = 1 ]
    ok_if $? "$r held nothing and marked nothing (it came before the budget was spent)"
done
tap_done
