#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-stay-async.sh: the constraint that keeps a restart in place
# (faultmon-stay-RSC, cibadmin) is written by a child of the loop, never
# waited for, and the fail request follows it.  In a network namespace of
# its own (abstract sockets are per namespace, so the machine's own
# Pacemaker is neither seen nor touched), a listener on the controller's
# socket (@crmd) notes when it is asked and stays silent; a stand-in
# cibadmin notes when it starts and hangs (a CIB that does not answer); the
# service is down, probed every 500 ms:
#
#  - cibadmin is asked for the constraint, for this resource on this node;
#  - the loop probes on while cibadmin hangs (the loop that waited for it
#    probed nothing for 2 s);
#  - cibadmin is killed at its 2 s bound, said in the log, and only then is
#    the controller asked (the restart is asked all the same);
#  - 12 cycles end in time, cibadmin and the controller asked once.
# Skipped where no network namespace can be made (not root).

if [ -z "${FM_IN_NETNS:-}" ] && unshare -n true 2>/dev/null; then
    exec unshare -n env FM_IN_NETNS=1 bash "$0" "$@"
fi

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 6

if [ -z "${FM_IN_NETNS:-}" ]; then
    for _ in 1 2 3 4 5 6; do skip "a restart's constraint on the loop" "no network namespace of our own (unshare -n)"; done
    tap_done
fi
export FAULTMON_STATE_DIR=$FM_TMP/state
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(b"\0crmd" + b"\0" * 103)
s.listen(16)
open(sys.argv[1], "w").write("ready\n")
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    open(sys.argv[2], "a").write("%d\n" % int(time.time() * 1000))
' "$FM_TMP/ready" "$FM_TMP/connections" &
fake=$!
fm_cleanup_add "kill $fake 2>/dev/null"
for _ in $(seq 1 100); do [ -e "$FM_TMP/ready" ] && break; sleep 0.05; done

# The stand-in is exec'd as one process, so that the loop's SIGKILL at its
# deadline ends it.
cat >"$FM_TMP/cibadmin" <<EOF
#!/bin/bash
printf '%s %s\n' "\$(date +%s%3N)" "\$*" >>"$FM_TMP/cib.calls"
exec sleep 30
EOF
cat >"$FM_TMP/check" <<EOF
#!/bin/sh
date +%s%3N >>"$FM_TMP/probes"
exit 2
EOF
chmod +x "$FM_TMP/cibadmin" "$FM_TMP/check"

start=$(fm_now_ms)
FAULTMON_ATTRD_UPDATER=/bin/true FAULTMON_CIBADMIN=$FM_TMP/cibadmin OCF_RESOURCE_INSTANCE=web \
    OCF_RESOURCE_TYPE=apache OCF_RESKEY_CRM_meta_on_node=node1 \
    fm_timeout 40 "$FAULTMON" run web --no-env -v --cycles 12 --param "Probe_command=$FM_TMP/check" \
    --param Thorough_probe_interval=500ms --param Probe_timeout=400ms 2>"$FM_TMP/web.err"
rc=$?
took=$(($(fm_now_ms) - start))

like "$(cat "$FM_TMP/cib.calls" 2>/dev/null)" \
    "^[0-9]+ --modify --allow-create --scope constraints --xml-text <rsc_location id=\"faultmon-stay-web\" rsc=\"web\">.*attribute=\"#uname\" operation=\"eq\" value=\"node1\"" \
    "a restart: cibadmin asked for faultmon-stay-web on this node"
cib_at=$(awk 'NR == 1 { print $1 }' "$FM_TMP/cib.calls" 2>/dev/null)
during=$(awk -v a="${cib_at:-0}" '$1 > a + 100 && $1 < a + 1900' "$FM_TMP/probes" | wc -l)
ok_if "$([ -n "$cib_at" ] && [ "$during" -ge 2 ]; echo $?)" \
    "the service probed on while cibadmin hung ($during probes in its 2 s; the loop that waited: none)"
like "$(grep -m1 'cannot keep the restart' "$FM_TMP/web.err")" \
    "web: cannot keep the restart on node1 \\(cibadmin did not answer within 2000 ms\\): placed by the scheduler" \
    "cibadmin killed at its bound, said in the log"
asked_at=$(head -n1 "$FM_TMP/connections" 2>/dev/null)
ok_if "$([ -n "$cib_at" ] && [ -n "$asked_at" ] && [ "$asked_at" -ge $((cib_at + 1900)) ]; echo $?)" \
    "the controller asked once cibadmin had ended (cibadmin at ${cib_at:-none}, the controller at ${asked_at:-none})"
ok_if "$([ "$rc" -eq 0 ] && [ "$took" -le 10000 ]; echo $?)" \
    "12 cycles, 500 ms apart: exit 0 within 10 s (took ${took} ms, exit $rc)"
is "$(wc -l <"$FM_TMP/cib.calls") $(wc -l <"$FM_TMP/connections")" "1 1" "cibadmin and the controller asked once"
[ "$rc" -eq 0 ] || diag_file "$FM_TMP/web.err"
tap_done
