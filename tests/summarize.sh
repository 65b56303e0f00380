#!/usr/bin/env bash
# Count the TAP results that automake's test harness left in .trs files and
# print the closing line CI reads: "N passed, N failed, N skipped".
#
#   tests/summarize.sh BUILD_DIR... [--asan ASAN_DIR] [--pcmk3 PCMK3_DIR]
#
# A count that looks green must mean the suite ran, so beyond the failed
# cases this also counts as failures:
#  - every file under DIR/sanitizer-logs/ (a sanitizer report, written there
#    by make check under --enable-sanitizers; printed here), and
#  - every tier that ran fewer cases (passed or failed, not skipped) than its
#    minimum: a tier that vanished (a failed compile, a stale results
#    directory, tests that all skip) must not read "0 failed".
# Tiers: the results under a BUILD_DIR's tests/unit are "unit",
# tests/integration "integration", tests/agents and metadata "agents",
# tests/cluster "cluster", tests/fuzz "fuzz"; everything under ASAN_DIR is
# "asan", and everything under PCMK3_DIR (the build against Pacemaker 3.0.2)
# "pcmk3".  FM_MIN_UNIT, FM_MIN_INTEGRATION, FM_MIN_AGENTS, FM_MIN_CLUSTER,
# FM_MIN_ASAN, FM_MIN_PCMK3 and FM_MIN_FUZZ override the minimums (raise them when a tier
# grows; fuzz has none, as it needs clang).
set -uo pipefail

build_dirs=() asan_dir="" pcmk3_dir=""
while [ $# -gt 0 ]; do
    case $1 in
        --asan) asan_dir=${2:?--asan needs a directory}; shift 2 ;;
        --pcmk3) pcmk3_dir=${2:?--pcmk3 needs a directory}; shift 2 ;;
        *) build_dirs+=("$1"); shift ;;
    esac
done
if [ "${#build_dirs[@]}" -eq 0 ]; then
    echo "usage: $0 BUILD_DIR... [--asan ASAN_DIR]" >&2
    exit 2
fi

tiers="unit integration agents cluster asan pcmk3 fuzz"
# About 85 % of what each tier ran when the minimum was last set (pcmk3 826, unit 610,
# integration 951, agents 720, cluster 156, asan 1792, fuzz 13 harnesses).
declare -A min=(
    [unit]=${FM_MIN_UNIT:-520}
    [integration]=${FM_MIN_INTEGRATION:-800}
    [agents]=${FM_MIN_AGENTS:-610}
    [cluster]=${FM_MIN_CLUSTER:-135}
    [asan]=${FM_MIN_ASAN:-1520}
    [pcmk3]=${FM_MIN_PCMK3:-700}
    [fuzz]=${FM_MIN_FUZZ:-0}
)
declare -A ran=() tier_passed=() tier_failed=() tier_skipped=()
for t in $tiers; do
    ran[$t]=0 tier_passed[$t]=0 tier_failed[$t]=0 tier_skipped[$t]=0
done
passed=0 failed=0 skipped=0

tier_of() {
    local rel=$1
    case $rel in
        tests/unit/*) echo unit ;;
        tests/integration/*) echo integration ;;
        tests/agents/* | metadata/*) echo agents ;;
        tests/cluster/*) echo cluster ;;
        tests/fuzz/*) echo fuzz ;;
        *) echo other ;;
    esac
}

# count DIR TIER: TIER "" means by path.
count() {
    local dir=$1 fixed=$2 trs tier line
    [ -d "$dir" ] || return 0
    while IFS= read -r trs; do
        if [ -n "$fixed" ]; then
            tier=$fixed
        else
            tier=$(tier_of "${trs#"$dir"/}")
        fi
        while IFS= read -r line; do
            case "$line" in
                ":test-result: PASS"* | ":test-result: XFAIL"*)
                    passed=$((passed + 1))
                    tier_passed[$tier]=$((${tier_passed[$tier]:-0} + 1))
                    ran[$tier]=$((${ran[$tier]:-0} + 1)) ;;
                ":test-result: FAIL"* | ":test-result: XPASS"* | ":test-result: ERROR"*)
                    failed=$((failed + 1))
                    tier_failed[$tier]=$((${tier_failed[$tier]:-0} + 1))
                    ran[$tier]=$((${ran[$tier]:-0} + 1)) ;;
                ":test-result: SKIP"*)
                    skipped=$((skipped + 1))
                    tier_skipped[$tier]=$((${tier_skipped[$tier]:-0} + 1)) ;;
            esac
        done <"$trs"
    done < <(find "$dir" -name '*.trs' -type f 2>/dev/null | sort)
}

# Every sanitizer report is a failure, whatever the test made of its exit.
sanitizer_logs() {
    local dir=$1 f
    [ -d "$dir/sanitizer-logs" ] || return 0
    while IFS= read -r f; do
        echo "# sanitizer report $f:"
        head -n 60 "$f" | sed 's/^/#   /'
        failed=$((failed + 1))
    done < <(find "$dir/sanitizer-logs" -type f 2>/dev/null | sort)
}

for dir in "${build_dirs[@]}"; do
    count "$dir" ""
done
if [ -n "$asan_dir" ]; then
    count "$asan_dir" asan
fi
if [ -n "$pcmk3_dir" ]; then
    count "$pcmk3_dir" pcmk3
fi
for dir in "${build_dirs[@]}"; do
    sanitizer_logs "$dir"
done
if [ -n "$asan_dir" ]; then
    sanitizer_logs "$asan_dir"
fi
if [ -n "$pcmk3_dir" ]; then
    sanitizer_logs "$pcmk3_dir"
fi

for t in $tiers; do
    if { [ "$t" = asan ] && [ -z "$asan_dir" ]; } || { [ "$t" = pcmk3 ] && [ -z "$pcmk3_dir" ]; } ||
        { [ "${min[$t]}" -eq 0 ] && [ $((ran[$t] + tier_skipped[$t])) -eq 0 ]; }; then
        continue
    fi
    note=""
    if [ "${ran[$t]}" -lt "${min[$t]}" ]; then
        note="  FAILED: fewer than the minimum of ${min[$t]} ran"
        failed=$((failed + 1))
    fi
    printf '# tier %-12s %4d ran (%d passed, %d failed), %d skipped%s\n' "$t:" \
        "${ran[$t]}" "${tier_passed[$t]}" "${tier_failed[$t]}" "${tier_skipped[$t]}" "$note"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
