#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
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
#  - every script of tests/minimums.txt (SCRIPT LEAST, one a line; SCRIPT
#    is its path in the build tree, with or without .sh) that ran
#    fewer cases than its LEAST: a tier minimum misses a script that lost
#    its cases while the others grew.  A script not in the table is not
#    checked (a new one is added when it has landed: see below);
#  - with CI=true, every script that skipped (1..0 # SKIP, or a skipped
#    case) and is not in tests/allowed-skips.txt (SCRIPT REASON, one a
#    line): in CI every dependency is installed, so a skip is a server
#    that did not start or a check that silently went away.
# Tiers: the results under a BUILD_DIR's tests/unit are "unit",
# tests/integration "integration", tests/agents and metadata "agents",
# tests/cluster "cluster", tests/packages "packages", tests/fuzz "fuzz";
# everything under ASAN_DIR is "asan", everything under PCMK3_DIR (the build
# against Pacemaker 3.0.2) "pcmk3".  FM_MIN_PCMK3, FM_MIN_UNIT, FM_MIN_INTEGRATION,
# FM_MIN_AGENTS, FM_MIN_CLUSTER, FM_MIN_PACKAGES, FM_MIN_ASAN and
# FM_MIN_FUZZ override the minimums (raise them when a tier grows; fuzz has
# none, as it needs clang).  FM_MINIMUMS and FM_ALLOWED_SKIPS name other
# tables (the tests of this script use them).
#
#   tests/summarize.sh --write-minimums BUILD_DIR...
# rewrites tests/minimums.txt from a run: each script that ran cases gets
# its count now; the lines of scripts this run did not run are kept.  Run it
# after a full `make check` when a script was added or grew, and review the
# diff (a line going down is a suite shrinking).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
minimums_file=${FM_MINIMUMS:-$here/minimums.txt}
allowed_file=${FM_ALLOWED_SKIPS:-$here/allowed-skips.txt}
build_dirs=() asan_dir="" pcmk3_dir="" write_minimums=false
while [ $# -gt 0 ]; do
    case $1 in
        --asan) asan_dir=${2:?--asan needs a directory}; shift 2 ;;
        --pcmk3) pcmk3_dir=${2:?--pcmk3 needs a directory}; shift 2 ;;
        --write-minimums) write_minimums=true; shift ;;
        *) build_dirs+=("$1"); shift ;;
    esac
done
if [ "${#build_dirs[@]}" -eq 0 ]; then
    echo "usage: $0 [--write-minimums] BUILD_DIR... [--asan ASAN_DIR] [--pcmk3 PCMK3_DIR]" >&2
    exit 2
fi

tiers="unit integration agents cluster packages asan pcmk3 fuzz"
# About 85 % of what each tier ran when the minimum was last set (pcmk3 826, unit 610,
# integration 951, agents 720, cluster 156, asan 1792, fuzz 13 harnesses).
declare -A min=(
    [unit]=${FM_MIN_UNIT:-520}
    [integration]=${FM_MIN_INTEGRATION:-800}
    [agents]=${FM_MIN_AGENTS:-610}
    [cluster]=${FM_MIN_CLUSTER:-135}
    [packages]=${FM_MIN_PACKAGES:-40}
    [asan]=${FM_MIN_ASAN:-1520}
    [pcmk3]=${FM_MIN_PCMK3:-700}
    [fuzz]=${FM_MIN_FUZZ:-0}
)
declare -A ran=() tier_passed=() tier_failed=() tier_skipped=()
# Per script (its path under the build directory, without .trs): cases
# that ran, cases skipped.
declare -A script_ran=() script_skipped=()
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
        tests/packages/*) echo packages ;;
        tests/fuzz/*) echo fuzz ;;
        *) echo other ;;
    esac
}

# count DIR TIER: TIER "" means by path.
count() {
    local dir=$1 fixed=$2 trs tier line script n_ran n_skipped
    [ -d "$dir" ] || return 0
    while IFS= read -r trs; do
        script=${trs#"$dir"/}
        script=${script%.trs}
        script=${script%.sh}    # automake's x.sh.trs, or x.trs for x.sh
        if [ -n "$fixed" ]; then
            tier=$fixed
        else
            tier=$(tier_of "$script")
        fi
        n_ran=0 n_skipped=0
        while IFS= read -r line; do
            case "$line" in
                ":test-result: PASS"* | ":test-result: XFAIL"*)
                    passed=$((passed + 1)) n_ran=$((n_ran + 1))
                    tier_passed[$tier]=$((${tier_passed[$tier]:-0} + 1))
                    ran[$tier]=$((${ran[$tier]:-0} + 1)) ;;
                ":test-result: FAIL"* | ":test-result: XPASS"* | ":test-result: ERROR"*)
                    failed=$((failed + 1)) n_ran=$((n_ran + 1))
                    tier_failed[$tier]=$((${tier_failed[$tier]:-0} + 1))
                    ran[$tier]=$((${ran[$tier]:-0} + 1)) ;;
                ":test-result: SKIP"*)
                    skipped=$((skipped + 1)) n_skipped=$((n_skipped + 1))
                    tier_skipped[$tier]=$((${tier_skipped[$tier]:-0} + 1)) ;;
            esac
        done <"$trs"
        # Skips count in every directory (the ASan run too), a script's
        # cases only in the build directories (ASan runs a subset).
        script_skipped[$script]=$((${script_skipped[$script]:-0} + n_skipped))
        if [ -z "$fixed" ]; then
            script_ran[$script]=$((${script_ran[$script]:-0} + n_ran))
        fi
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

# read_table FILE: its lines without comments and blank lines.
# A script is named as in the build tree, with or without its .sh.
read_table() {
    [ -f "$1" ] || return 0
    sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e 's/^\([^[:space:]]*\)\.sh\([[:space:]]\|$\)/\1\2/' "$1" |
        grep -v '^[[:space:]]*$'
}

if "$write_minimums"; then
    tmp=$(mktemp) || exit 1
    {
        sed -n '/^#/p' "$minimums_file" 2>/dev/null
        read_table "$minimums_file" | while read -r script least; do
            [ -n "${script_ran[$script]:-}" ] && [ "${script_ran[$script]}" -gt 0 ] && continue
            printf '%s %s\n' "$script" "$least"
        done
        for script in "${!script_ran[@]}"; do
            [ "${script_ran[$script]}" -gt 0 ] && printf '%s %s\n' "$script" "${script_ran[$script]}"
        done
    } | awk '/^#/ { print; next } { body[++n] = $0 } END {
        # comments first, then the table sorted by script
        cmd = "sort"; for (i = 1; i <= n; i++) print body[i] | cmd; close(cmd) }' >"$tmp"
    mv "$tmp" "$minimums_file"
    echo "wrote $(read_table "$minimums_file" | wc -l) scripts' minimums to $minimums_file"
    exit 0
fi

# A script that shrank.  Only tiers that count here (those with a minimum,
# or that ran anything): without clang the fuzz tier is not run at all.
tier_counts() {
    [ "${min[$1]:-0}" -gt 0 ] || [ $((${ran[$1]:-0} + ${tier_skipped[$1]:-0})) -gt 0 ]
}
shrunk=0
while read -r script least; do
    case $least in '' | *[!0-9]*) echo "# tests/minimums.txt: bad line '$script $least'"; failed=$((failed + 1)); continue ;; esac
    tier_counts "$(tier_of "$script")" || continue
    got=${script_ran[$script]:-0}
    if [ "$got" -lt "$least" ]; then
        echo "# FAILED: $script ran $got cases, fewer than its minimum of $least (tests/minimums.txt)"
        shrunk=$((shrunk + 1))
    fi
done < <(read_table "$minimums_file")
failed=$((failed + shrunk))

# A skip in CI, unless allowed with its reason.
if [ "${CI:-}" = true ]; then
    declare -A allowed=()
    while read -r script reason; do
        if [ -z "$reason" ]; then
            echo "# tests/allowed-skips.txt: '$script' has no reason: not allowed"
            continue
        fi
        allowed[$script]=$reason
    done < <(read_table "$allowed_file")
    for script in $(printf '%s\n' "${!script_skipped[@]}" | sort); do
        [ "${script_skipped[$script]}" -gt 0 ] || continue
        if [ -n "${allowed[$script]:-}" ]; then
            echo "# allowed skip: $script (${script_skipped[$script]}): ${allowed[$script]}"
        else
            echo "# FAILED: $script skipped ${script_skipped[$script]} case(s) in CI (not in tests/allowed-skips.txt); its log says why"
            failed=$((failed + 1))
        fi
    done
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
