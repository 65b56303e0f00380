#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slow-attrd.sh: issue 31's case, `faultmon run` against an attrd that is
# slow or frozen.  A stand-in attrd_updater that takes DELAY seconds a call
# (FAULTMON_ATTRD_UPDATER), one target whose verdict changes every cycle (an
# exec probe that fails every other time), a dependency that is down (a
# closed port), Thorough_probe_interval=1s, --cycles CYCLES.  Prints the
# wall time of the run and how many calls of the tool it made.
#
# usage: [FAULTMON=build/src/faultmon] [DELAY=3] [CYCLES=12] tests/bench/slow-attrd.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${FAULTMON:-}" ] && [ -x "$top/build/src/faultmon" ]; then FAULTMON=$top/build/src/faultmon; fi
FAULTMON=${FAULTMON:-$top/src/faultmon}
DELAY=${DELAY:-3}
CYCLES=${CYCLES:-12}
[ -x "$FAULTMON" ] || { echo "no faultmon at $FAULTMON (run make, or set FAULTMON)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-slow-attrd.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/attrd_updater" <<EOS
#!/bin/sh
echo "\$*" >>"$tmp/calls"
exec sleep $DELAY
EOS
cat >"$tmp/check" <<EOS
#!/bin/sh
if [ -e "$tmp/flip" ]; then rm -f "$tmp/flip"; echo down; exit 2; fi
: >"$tmp/flip"
EOS
chmod +x "$tmp/attrd_updater" "$tmp/check"
: >"$tmp/calls"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start=$(date +%s%N)
FAULTMON_STATE_DIR=$tmp/state FAULTMON_ATTRD_UPDATER=$tmp/attrd_updater OCF_RESOURCE_INSTANCE=web \
    OCF_RESOURCE_TYPE=apache OCF_RESKEY_CRM_meta_on_node=node1 \
    "$FAULTMON" run web --no-env --cycles "$CYCLES" --param "Probe_command=$tmp/check" \
    --param "Dependency_list=tcp://127.0.0.1:$port" --param Thorough_probe_interval=1s \
    --param Probe_timeout=400ms 2>"$tmp/run.err"
rc=$?
end=$(date +%s%N)
echo "$CYCLES cycles, attrd_updater ${DELAY} s a call: $(( (end - start) / 1000000 )) ms, $(wc -l <"$tmp/calls") calls, exit $rc"
