#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cluster.sh PREFIX [TEST...]: the cluster tests on nodes that run the
# Pacemaker installed under PREFIX (build-pacemaker.sh) with a faultmon
# built here against its libcrmcommon.  Both are bound over the machine's
# programs inside each node's mount namespace only (tests/cluster/lib.sh:
# FM_CLUSTER_PACEMAKER, FM_CLUSTER_FAULTMON); the machine's files are not
# changed.  The TESTs are names of tests/cluster (or of this directory); by
# default versions.sh (the nodes really run PREFIX's Pacemaker), the smoke
# test and the core scenarios.
#
# Needs what every cluster test needs (root; see tests/cluster/lib.sh) and
# faultmon installed on the machine (make install): the nodes' copies are
# bound over the installed programs, at the installed paths.  faultmon is
# built in BUILDDIR (FM_PCMK3_CLUSTER_BUILDDIR, default build-pcmk3-cluster
# in the source tree; FM_PCMK3_CLUSTER_REUSE=1 reuses it) and installed
# into BUILDDIR/stage (DESTDIR); each
# test's output goes to BUILDDIR/tests/cluster/TEST.log (timings, results
# and, after a failure, the nodes' logs beside it).  Prints one line per
# test and a total; exit status 0 when every test passed.
set -uo pipefail

prefix=${1:?usage: cluster.sh PREFIX [TEST...]}
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/pacemaker3
build=${FM_PCMK3_CLUSTER_BUILDDIR:-$top/build-pcmk3-cluster}
jobs=${FM_MAKE_JOBS:-2}
[ -x "$prefix/sbin/pacemakerd" ] || { echo "no Pacemaker under $prefix (build-pacemaker.sh PREFIX)" >&2; exit 2; }
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(versions.sh smoke.sh scenarios-1node.sh scenarios-3node.sh
                                 restart-inplace-3node.sh guard-3node.sh)

# faultmon at the installed prefix (the agents' links lead there)
installed=$(readlink -f /usr/lib/ocf/resource.d/faultmon/apache) ||
    { echo "faultmon's agents are not installed (make install)" >&2; exit 2; }
fm_prefix=${installed%/*}; fm_prefix=${fm_prefix%/*}; fm_prefix=${fm_prefix%/*}

# FM_PCMK3_CLUSTER_REUSE=1: run again on the build already made there
if [ "${FM_PCMK3_CLUSTER_REUSE:-0}" = 1 ] && [ -x "$build/stage$fm_prefix/bin/faultmon" ]; then
    rm -rf "$build/tests/cluster"
    mkdir -p "$build/tests/cluster"
else
    rm -rf "$build"
    mkdir -p "$build/tests/cluster"
    [ -x "$top/configure" ] || (cd "$top" && autoreconf -fi) >"$build/build.log" 2>&1
fi
# the run path: Pacemaker 3's libcrmcommon.so.68 is not in the loader's path
if [ ! -x "$build/stage$fm_prefix/bin/faultmon" ] && ! { (cd "$build" && PKG_CONFIG_PATH=$prefix/lib/pkgconfig "$top/configure" -q --enable-werror \
            --prefix="$fm_prefix" LDFLAGS="-Wl,-rpath,$prefix/lib" CPPFLAGS=-DPCMK_ALLOW_DEPRECATED=0) &&
        make -C "$build" -j"$jobs" &&
        make -C "$build" install DESTDIR="$build/stage"; } >>"$build/build.log" 2>&1; then
    tail -n 40 "$build/build.log"
    echo "faultmon did not build against $prefix (see $build/build.log)"
    exit 1
fi
echo "faultmon built against Pacemaker $(sed -n 's/^#define FM_PACEMAKER_VERSION "\(.*\)"/\1/p' "$build/config.h")" \
     "($(ldd "$build/stage$fm_prefix/bin/faultmon" | awk '/libcrmcommon/ { print $3 }'))"

export FM_CLUSTER_PACEMAKER=$prefix FM_CLUSTER_FAULTMON=$build/stage
# the scenarios compare the machine's installed programs with
# FM_TOP_BUILDDIR's: here the nodes' are this build's, checked by versions.sh
unset FM_TOP_BUILDDIR
cd "$build" || exit 1
passed=0 failed=0 skipped=0 status=0
for t in "${tests[@]}"; do
    script=$top/tests/cluster/$t
    [ -f "$script" ] || script=$here/$t
    log=tests/cluster/${t%.sh}.log
    start=$SECONDS
    bash "$script" >"$log" 2>&1
    rc=$?
    p=$(grep -cE '^ok [0-9]+ ' "$log" | head -n1)
    s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log" | head -n1)
    f=$(grep -cE '^not ok [0-9]+ ' "$log" | head -n1)
    p=$((p - s))
    grep -q '^Bail out!' "$log" && f=$((f + 1))
    [ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
    [ "$f" -eq 0 ] || status=1
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    echo "$t: $p passed, $f failed, $s skipped (exit status $rc, $((SECONDS - start)) s)"
    grep -E '^(not ok|Bail out!|1\.\.0)' "$log" | sed 's/^/    /'
done
echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"
