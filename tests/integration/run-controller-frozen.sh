#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-controller-frozen.sh: a controller that takes the connection and never
# answers (pacemaker-controld SIGSTOPped, or stuck) does not hold the loop.
# In a network namespace of its own (abstract sockets are per namespace, so
# the machine's own Pacemaker is neither seen nor touched), a listener on
# Pacemaker's controller socket (@crmd) accepts and stays silent; the loop
# probes a service that is down, every 500 ms:
#
#  - 10 cycles take about 5 s (the loop that waited for the controller
#    was still waiting when killed after 30 s);
#  - the request is reported as one that failed, as when the controller
#    cannot be reached: the agent's next monitor reports the failure;
#  - the controller was asked once (the later cycles are the same outage).
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
plan 3

if [ -z "${FM_IN_NETNS:-}" ]; then
    for _ in 1 2 3; do skip "a frozen controller" "no network namespace of our own (unshare -n)"; done
    tap_done
fi
export FAULTMON_STATE_DIR=$FM_TMP/state
# libqb pads the abstract name with NULs to the whole sun_path.
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(b"\0crmd" + b"\0" * 103)
s.listen(16)
open(sys.argv[1], "w").write("ready\n")
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    open(sys.argv[2], "a").write("connection\n")
' "$FM_TMP/ready" "$FM_TMP/connections" &
fake=$!
fm_cleanup_add "kill $fake 2>/dev/null"
for _ in $(seq 1 100); do [ -e "$FM_TMP/ready" ] && break; sleep 0.05; done

start=$(fm_now_ms)
FAULTMON_ATTRD_UPDATER=/bin/true OCF_RESOURCE_INSTANCE=web OCF_RESOURCE_TYPE=apache \
    fm_timeout 30 "$FAULTMON" run web --no-env -v --cycles 10 --param "Probe_command=/bin/sh -c 'exit 2'" \
    --param Thorough_probe_interval=500ms --param Probe_timeout=400ms 2>"$FM_TMP/web.err"
rc=$?
took=$(($(fm_now_ms) - start))
ok_if "$([ "$rc" -eq 0 ] && [ "$took" -le 9000 ]; echo $?)" \
    "10 cycles, 500 ms apart, with the controller silent: exit 0 within 9 s (took ${took} ms, exit $rc)"
like "$(grep -m1 'fail request' "$FM_TMP/web.err")" \
    "web: the controller did not take the fail request within [0-9]+ ms; the next monitor will report the failure" \
    "the request unanswered is reported as one that failed"
is "$(wc -l <"$FM_TMP/connections" 2>/dev/null)" 1 "the controller was asked once"
tap_done
