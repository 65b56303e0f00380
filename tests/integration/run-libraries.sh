#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-libraries.sh: a loop carries only the libraries its work needs.
# Every library a process maps costs it private memory (its relocated
# pages, its constructors' heap), and a node runs a loop per resource
# (issue 31: 100 loops under 100 MiB together).  libcrmcommon (with glib,
# libxml2, GnuTLS, ICU, libstdc++ behind it) serves only the controller
# request, made by a child of the loop (src/pcmk/crmcommon.h), and libxml2
# only the commands that read the CIB (src/cmd/xml_load.h): a loop that
# probes maps neither.  OpenSSL (libcrypto relocates about 0.4 MiB in each
# process) is loaded by the first TLS context (src/probe/ssl_load.h): a
# loop whose targets are plain does not map it, one with an https:// target
# does.  run-controller-frozen.sh, status-cluster.sh and the TLS tests
# check that the request, the commands and the TLS probes still work.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 5

export FAULTMON_STATE_DIR=$FM_TMP/state
# A target nobody serves: the loop's work is the same, refused or not.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$FAULTMON" run lean --no-env --no-pacemaker --cycles 50 --param "Port_list=127.0.0.1:$port" \
    --param Thorough_probe_interval=200ms --param Probe_timeout=100ms >"$FM_TMP/lean.out" 2>&1 &
loop=$!
fm_cleanup_add "kill $loop 2>/dev/null"
# After a few cycles: whatever the loop loads on its way has been loaded.
for _ in $(seq 1 100); do
    [ -s "$FAULTMON_STATE_DIR/lean/state" ] && break
    sleep 0.05
done
sleep 0.6
maps=$(awk '$6 ~ /\.so/ { n = $6; sub(/.*\//, "", n); print n }' "/proc/$loop/maps" 2>/dev/null | sort -u)
ok_if "$([ -n "$maps" ]; echo $?)" "the loop runs (its libraries read from /proc/$loop/maps)"
is "$(grep -c '^libcrmcommon\.so' <<<"$maps")" 0 "the loop maps no libcrmcommon"
is "$(grep -cE '^lib(xml2|glib-2\.0|icuuc|stdc\+\+)\.so' <<<"$maps")" 0 \
    "the loop maps none of libxml2, glib, ICU or libstdc++ ($(grep -E '^lib(xml2|glib-2\.0|icuuc|stdc\+\+)\.so' <<<"$maps" | tr '\n' ' '))"
is "$(grep -cE '^lib(ssl|crypto)\.so' <<<"$maps")" 0 "a loop with a plain target maps no OpenSSL"
kill "$loop" 2>/dev/null
wait "$loop" 2>/dev/null

# The same with an https:// target (refused as well): OpenSSL is loaded.
"$FAULTMON" run leantls --no-env --no-pacemaker --cycles 50 --param "Port_list=https://127.0.0.1:$port/" \
    --param Thorough_probe_interval=200ms --param Probe_timeout=100ms >"$FM_TMP/leantls.out" 2>&1 &
loop=$!
fm_cleanup_add "kill $loop 2>/dev/null"
for _ in $(seq 1 100); do
    [ -s "$FAULTMON_STATE_DIR/leantls/state" ] && break
    sleep 0.05
done
sleep 0.6
maps=$(awk '$6 ~ /\.so/ { n = $6; sub(/.*\//, "", n); print n }' "/proc/$loop/maps" 2>/dev/null | sort -u)
is "$(grep -cE '^lib(ssl|crypto)\.so' <<<"$maps")" 2 "a loop with an https:// target maps libssl and libcrypto"
tap_done
