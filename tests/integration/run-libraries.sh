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
# does.  corosync's libcfg and libcmap (with libcorosync_common) serve
# only observer_corosync's child on a failed cycle (src/run/corosync_load.h):
# a loop whose cycles fail and ask corosync maps none of them, and a library
# that cannot be loaded (an empty file bound over libcfg in a mount
# namespace of the test's own) is one line in the log and no verdict, never
# a loop that cannot start.  run-controller-frozen.sh, status-cluster.sh and
# the TLS tests check that the request, the commands and the TLS probes
# still work.

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
kill "$loop" 2>/dev/null
wait "$loop" 2>/dev/null

# corosync_loop NAME [WRAPPER...]: a loop whose every cycle fails, so that
# observer_corosync asks corosync (none runs here: no verdict) in a child;
# its log in $FM_TMP/NAME.err, its pid in $loop.
corosync_loop() {
    local name=$1
    shift
    env -u FAULTMON_COROSYNC_CFGTOOL "$@" "$FAULTMON" run "$name" --no-env -v --no-pacemaker \
        --param "Probe_command=/bin/sh -c 'echo service down; exit 2'" \
        --param Thorough_probe_interval=300ms --param Probe_timeout=200ms --param Retry_count=2 \
        --param observer_corosync=true --param observer_hold=60s 2>"$FM_TMP/$name.err" &
    loop=$!
    fm_cleanup_add "kill -KILL $loop 2>/dev/null"
}
corosync=$FM_TMP/corosync.err
corosync_loop corosync
fm_wait_log "$corosync" 'observer_corosync: no verdict from' 10 "$loop"
if ! grep -q "no verdict from corosync's libcfg" "$corosync"; then
    # Built --without-libcfg: the loop runs corosync-cfgtool, nothing to load.
    diag "$(grep -m1 'observer_corosync' "$corosync")"
    kill "$loop" 2>/dev/null
    wait "$loop" 2>/dev/null
    skip "a loop that asks corosync maps no libcfg, libcmap or libcorosync_common" "built without libcfg"
    skip "a libcfg that cannot be loaded: the loop runs" "built without libcfg"
    skip "a libcfg that cannot be loaded: one line, no verdict" "built without libcfg"
    skip "a libcfg that cannot be loaded: the cycles go on" "built without libcfg"
    tap_done
    exit
fi
maps=$(awk '$6 ~ /\.so/ { n = $6; sub(/.*\//, "", n); print n }' "/proc/$loop/maps" 2>/dev/null | sort -u)
is "$(grep -cE '^lib(cfg|cmap|corosync_common)\.so' <<<"$maps")" 0 \
    "a loop that asks corosync maps no libcfg, libcmap or libcorosync_common ($(grep -E '^lib(cfg|cmap|corosync_common)\.so' <<<"$maps" | tr '\n' ' '))"
kill "$loop" 2>/dev/null
wait "$loop" 2>/dev/null

# libcfg unloadable: an empty file bound over it, in a user and mount
# namespace of this test's own (the library the loader would find).
libcfg=$(awk '/libcfg\.so/ { print $3; exit }' <<<"$(ldd "$(dirname "$FAULTMON")/faultmon-libs" 2>/dev/null)")
libcfg=$(readlink -f "${libcfg:-/nonexistent}")
if [ ! -f "$libcfg" ] || ! unshare -rm true 2>/dev/null; then
    skip "a libcfg that cannot be loaded: the loop runs" "no faultmon-libs to find libcfg, or no user namespace"
    skip "a libcfg that cannot be loaded: one line, no verdict" "no faultmon-libs to find libcfg, or no user namespace"
    skip "a libcfg that cannot be loaded: the cycles go on" "no faultmon-libs to find libcfg, or no user namespace"
    tap_done
    exit
fi
: >"$FM_TMP/empty.so"
broken=$FM_TMP/broken.err
# shellcheck disable=SC2016 # $0 and $@ are the inner shell's
corosync_loop broken unshare -rm sh -c 'mount --bind "$0" "$1" && shift && exec "$@"' "$FM_TMP/empty.so" "$libcfg"
fm_wait_log "$broken" 'action restart' 10 "$loop"
ok_if "$(kill -0 "$loop" 2>/dev/null; echo $?)" "a libcfg that cannot be loaded: the loop runs"
is "$(grep -c "observer_corosync: no verdict from corosync's libcfg (status 1: cannot load libcfg" "$broken")" 1 \
    "a libcfg that cannot be loaded: one line, no verdict"
ok_if "$(grep -q 'action restart' "$broken"; echo $?)" "a libcfg that cannot be loaded: the cycles go on (a restart, nothing impaired)"
kill "$loop" 2>/dev/null
wait "$loop" 2>/dev/null
tap_done
