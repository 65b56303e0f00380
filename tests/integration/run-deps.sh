#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-deps.sh: Dependency_list on the real loop.  The service (a closed
# port) and its dependency (another closed port, or one that listens) are
# probed in the same cycle; attrd_updater is a stand-in that records what the
# loop publishes and answers its query of the other nodes' views from a file
# this script writes, as Pacemaker's does (`name="N" host="H" value="V"`).
# tests/cluster proves it with the real attrd.
#
#  - the dependency down from every node: held, degraded, no recovery;
#  - down from this node only (another sees it up): failover at once, once
#    the views can have caught up (pending before);
#  - until attrd_updater's first answer (the loop never waits for it): held;
#  - no other node's view (a single node), or a reply that is not attrd's:
#    held, degraded, never a restart (it cannot bring the dependency back);
#  - a loop that stops deletes the view it published;
#  - the dependency up while the service fails: the rules (restart);
#  - this node's view is published as faultmon-dep-KEY, up or down.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 90
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 17

export FAULTMON_STATE_DIR=$FM_TMP/state
SERVICE_PORT=$(fm_free_port 0) || bail_out "no free port"
DEP_PORT=$(fm_free_port 0) || bail_out "no free port"
DEP=tcp://127.0.0.1:$DEP_PORT
ATTR=faultmon-dep-tcp-127-0-0-1-$DEP_PORT
views=$FM_TMP/views
calls=$FM_TMP/attrd.log
cat >"$FM_TMP/attrd_updater" <<EOF
#!/bin/sh
echo "\$*" >>"$calls"
case "\$*" in
    "-Q -A -n "*) echo "query aimed at '\${OCF_RESKEY_CRM_meta_on_node:-}'" >>"$calls"; cat "$views" ;;
esac
exit 0
EOF
chmod 755 "$FM_TMP/attrd_updater"
export FAULTMON_ATTRD_UPDATER=$FM_TMP/attrd_updater
# Under an agent's environment (the loop talks to the cluster); there is no
# controller here, so its fail requests fail with a warning.
export OCF_RESOURCE_INSTANCE=web OCF_RESKEY_CRM_meta_on_node=node1

view() { printf 'name="%s" host="%s" value="%s"\n' "$ATTR" "$1" "$2"; }

# run_loop NAME: a loop probing the service and its dependency; its log in
# $FM_TMP/NAME.err, its pid in $loop.
run_loop() {
    : >"$calls"
    "$FAULTMON" run "$1" --no-env -v --param "Port_list=127.0.0.1:$SERVICE_PORT" \
        --param "Dependency_list=$DEP" --param Thorough_probe_interval=1s \
        --param Probe_timeout=400ms --param Retry_count=2 2>"$FM_TMP/$1.err" &
    loop=$!
    fm_cleanup_add "kill -KILL $loop 2>/dev/null"
}
stop_loop() { kill -TERM "$loop"; wait "$loop" 2>/dev/null; }

# 1-5: down from all three nodes.
{ view node1 down; view node2 down; view node3 down; } >"$views"
run_loop all
fm_wait_log "$FM_TMP/all.err" 'down from all' 15 "$loop"
like "$(grep -m1 'down from all' "$FM_TMP/all.err")" \
    "state degraded, action degraded: .*dependency $DEP down from all 3 nodes, recovery cannot help: holding" \
    "down from every node: degraded, with the dependency and the node count in the reason"
if grep -q "views pending" "$FM_TMP/all.err"; then
    not_ok "every other node's view down: held at once, never 'the others' views pending'"
else
    ok "every other node's view down: held at once, never 'the others' views pending'"
fi
sleep 2.5
if grep -q 'action restart\|action failover' "$FM_TMP/all.err"; then
    not_ok "down from every node: no restart, no failover (3 cycles)"
    diag_file "$FM_TMP/all.err"
else
    ok "down from every node: no restart, no failover (3 cycles)"
fi
like "$(grep -m1 -- "-n $ATTR -U" "$calls")" "^-n $ATTR -U down\$" "this node's view is published: $ATTR down"
# Pacemaker's tools answer --all for the one node this names.
is "$(grep -m1 '^query aimed at' "$calls")" "query aimed at ''" \
    "the query runs without OCF_RESKEY_CRM_meta_on_node (with it, attrd answers for this node only)"
stop_loop
like "$(tail -n1 "$calls")" "^-n $ATTR -D\$" "a loop that stops deletes the view it published"

# 6-8: down from this node only, once the views can have caught up.
{ view node1 down; view node2 up; view node3 down; } >"$views"
run_loop pending
fm_wait_log "$FM_TMP/pending.err" 'views pending' 15 "$loop"
# The views are read on the loop, never waited for: the first failed cycle
# holds while attrd_updater answers ('the others' views being read').
like "$(grep -m1 'holding' "$FM_TMP/pending.err")$(grep -m1 'views pending' "$FM_TMP/pending.err")" \
    "dependency $DEP down from this node, the others' views (being read|pending): holding.*dependency $DEP down from this node, the others' views pending: holding" \
    "another node's 'up' is trusted only once it can have caught up (2 cycles and 2 s): pending before"
stop_loop

{ view node1 down; view node2 up; view node3 down; } >"$views"
run_loop here
fm_wait_log "$FM_TMP/here.err" 'action failover' 15 "$loop"
ok_if $? "down from this node only: a failover at the first recovery due"
like "$(grep -m1 'action failover' "$FM_TMP/here.err")" \
    "failing over at once \\(dependency $DEP down from this node only, up from node2\\)" \
    "the reason names the dependency and a node that sees it up"
stop_loop

# 9-10: no other node's view (a single node): held, never a restart.
view node1 down >"$views"
run_loop alone
fm_wait_log "$FM_TMP/alone.err" 'down from all 1 nodes' 10 "$loop"
like "$(grep -m1 'down from all 1 nodes' "$FM_TMP/alone.err")" \
    "state degraded, action degraded: .*dependency $DEP down from all 1 nodes, recovery cannot help: holding" \
    "no other node's view: held degraded, 'down from all 1 nodes'"
sleep 2.5
if grep -q 'action restart\|action failover' "$FM_TMP/alone.err"; then
    not_ok "no other node's view: no restart, no failover (3 cycles)"
    diag_file "$FM_TMP/alone.err"
else
    ok "no other node's view: no restart, no failover (3 cycles)"
fi
stop_loop

# 11-12: a reply that is not attrd's: no evidence of a node where it is up: held.
echo "Could not connect to the cluster" >"$views"
run_loop garbled
fm_wait_log "$FM_TMP/garbled.err" 'recovery cannot help: holding' 10 "$loop"
ok_if $? "an unreadable reply: held, no restart"
grep -q "views of $ATTR cannot be read" "$FM_TMP/garbled.err"
ok_if $? "the unreadable reply is said"
stop_loop

# 13-14: the dependency up while the service fails: the rules; published up.
python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $DEP_PORT)); s.listen(64); time.sleep(60)" &
listener=$!
fm_cleanup_add "kill $listener 2>/dev/null"
for _ in $(seq 1 100); do
    { exec 3<>"/dev/tcp/127.0.0.1/$DEP_PORT"; } 2>/dev/null && { exec 3<&-; break; }
    sleep 0.05
done
{ view node1 down; view node2 down; view node3 down; } >"$views"
run_loop depup
fm_wait_log "$FM_TMP/depup.err" 'action restart' 10 "$loop"
ok_if $? "the dependency up from here: a restart, by the rules"
like "$(grep -m1 -- "-n $ATTR -U" "$calls")" "^-n $ATTR -U up\$" "this node's view is published: $ATTR up"
stop_loop
kill "$listener" 2>/dev/null

# 15-16: without an agent's environment nothing is published or asked; held.
unset OCF_RESOURCE_INSTANCE
run_loop plain
fm_wait_log "$FM_TMP/plain.err" 'down from all 1 nodes' 10 "$loop"
ok_if $? "outside a cluster's resource: the dependency down from this node alone holds"
stop_loop
is "$(grep -c -- "$ATTR" "$calls")" 0 "outside a cluster's resource: no view published, none asked"
tap_done
