#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make fuzz-smoke: run each libFuzzer harness for a short fixed time on a
# copy of its checked-in corpus (tests/fuzz/corpus/<harness>/), one TAP case
# per harness.  A crash, a leak, UB (the build aborts on it) or a broken
# property fails the case; what libFuzzer found is kept in the build tree
# under tests/fuzz/artifacts/, never in the source tree.
#
# FM_FUZZ_HARNESSES   the harness programs, relative to the build tree
# FM_FUZZ_SMOKE_SECONDS  seconds per harness (default 12)
# FM_FUZZ_SMOKE_RUNS  executions per harness at most (default 5000000)
set -u
FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

srcdir=${FM_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${FM_TOP_BUILDDIR:-$(pwd)}
secs=${FM_FUZZ_SMOKE_SECONDS:-12}
runs=${FM_FUZZ_SMOKE_RUNS:-5000000}
read -r -a harnesses <<< "${FM_FUZZ_HARNESSES:-}"

if [ "${#harnesses[@]}" -eq 0 ]; then
    bail_out "FM_FUZZ_HARNESSES is empty: run this through make fuzz-smoke"
fi
# Each harness gets its time, plus start-up and the reading of its corpus.
tap_watchdog $(( ${#harnesses[@]} * (secs + 30) + 30 ))
plan "${#harnesses[@]}"

base=/tmp
[ -w /dev/shm ] && base=/dev/shm
work=$(mktemp -d "$base/faultmon-fuzz-smoke.XXXXXX") || bail_out "cannot make a temporary directory"
fm_cleanup_add "rm -rf '$work'"
artifacts="$builddir/tests/fuzz/artifacts"
mkdir -p "$artifacts"

for h in "${harnesses[@]}"; do
    name=${h##*/}
    prog="$builddir/$h"
    dir="$work/$name"
    mkdir -p "$dir/corpus" "$dir/tmp"
    if [ ! -x "$prog" ]; then
        not_ok "$name: $prog is not built (configure CC=clang --enable-fuzzing)"
        continue
    fi
    if [ -d "$srcdir/tests/fuzz/corpus/$name" ]; then
        cp -R "$srcdir/tests/fuzz/corpus/$name/." "$dir/corpus/"
    fi
    dict=()
    if [ -f "$srcdir/tests/fuzz/$name.dict" ]; then
        dict=("-dict=$srcdir/tests/fuzz/$name.dict")
    fi
    # A fixed seed (FM_FUZZ_SEED) makes the smoke run reproducible: CI
    # must not go red on a new finding of a random walk; long runs with
    # random seeds are for finding (tests/fuzz/README.md).
    # Sanitizer reports end the run with their own exit status; a leak is
    # a failure like a crash.
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:exitcode=86 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87 \
    FM_FUZZ_TMPDIR="$dir/tmp" \
        fm_timeout $((secs + 25)) "$prog" "${dict[@]}" -max_total_time="$secs" -runs="$runs" \
            -seed="${FM_FUZZ_SEED:-1}" \
            -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$artifacts/$name-" "$dir/corpus" > "$dir/log" 2>&1
    status=$?
    executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
    if [ "$status" -eq 0 ] && grep -q '^Done ' "$dir/log"; then
        ok "$name: ${executed:-?} executions in ${secs} s, no crash, leak, UB or broken property"
    else
        not_ok "$name: exit status $status after ${executed:-?} executions"
        if grep -qE 'property failed|ERROR: |runtime error' "$dir/log"; then
            grep -E 'property failed|ERROR: |SUMMARY: |runtime error|Test unit written' "$dir/log" \
                | head -n 12 | sed 's/^/# /'
        else
            tail -n 12 "$dir/log" | sed 's/^/# /'
        fi
    fi
done
tap_done
