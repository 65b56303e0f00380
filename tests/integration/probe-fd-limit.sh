#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-fd-limit.sh: more targets than the soft limit of open files allows
# are all probed (the engine raises the limit), so a low limit never looks
# like a failed service; an impossible limit is a clear usage error.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 30
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 3

fm_fault_server_start ok || bail_out "the fault server did not start"
list=$FM_TMP/targets
for _ in $(seq 1 300); do echo "tcp://127.0.0.1:${FS_PORT[ok]}"; done >"$list"

out=$( (ulimit -Sn 128; fm_timeout 20 "$FAULTMON" probe -q --targets-file "$list") 2>&1)
like "$out" '^verdict: ok \(300 ok, 0 partial, 0 complete\)' "300 targets under a soft limit of 128 fds: all ok"

err=$( (ulimit -n 128; fm_timeout 20 "$FAULTMON" probe -q --targets-file "$list") 2>&1 >/dev/null)
rc=$?
is "$rc" 64 "300 targets under a hard limit of 128 fds: usage error (64)"
like "$err" 'need [0-9]+ file descriptors' "the error says how many descriptors are needed"

tap_done
