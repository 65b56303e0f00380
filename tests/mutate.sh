#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/mutate.sh: mutation testing of one C file against the unit tests
# that cover it (not run by make check or CI: minutes to hours a file).
#
#   tests/mutate.sh [--tests "test_a test_b"] [--scratch DIR]
#                   [--lines A-B,C,...] [--list] FILE.c...
#
# Each mutant is one small change to one line of FILE: a relational
# operator (< <= > >= == !=) swapped, && for || and back, + for - and back,
# an integer constant changed (0 -> 1, N -> N+1), a condition negated
# (if (X) -> if (!(X))), true for false, a statement deleted (a call or an
# assignment alone on its line, a break, a continue, a goto).  Applied one
# at a time to a scratch copy of the tree (never to this one), built (-j1,
# only the test programs needed), and the unit tests run:
#   KILLED     a test failed or timed out: the change was noticed;
#   SURVIVED   every test passed: a missing test, unless the change does
#              not change behaviour (an equivalent mutant: say why in
#              tests/mutate.README when you report a score);
#   STILLBORN  it does not compile (not counted).
# The tests default to those named after the file (see tests_for below);
# --tests names others (programs under tests/unit).  The scratch copy is
# $TMPDIR/faultmon-mutate unless --scratch says otherwise; it is configured
# and built once and kept, its sources refreshed from this tree at each run.
# --lines mutates only those lines (to rerun the survivors after adding
# tests).  --list prints the mutants without running them.  The result
# lines go to stdout; the last per file: "FILE: killed K of T (S stillborn)".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
scratch=${TMPDIR:-/tmp}/faultmon-mutate
tests="" lines="" list=false
files=()
while [ $# -gt 0 ]; do
    case $1 in
        --tests) tests=$2; shift 2 ;;
        --scratch) scratch=$2; shift 2 ;;
        --lines) lines=$2; shift 2 ;;
        --list) list=true; shift ;;
        -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "mutate.sh: unknown option $1" >&2; exit 2 ;;
        *) files+=("$1"); shift ;;
    esac
done
[ "${#files[@]}" -gt 0 ] || { echo "usage: tests/mutate.sh [--tests LIST] [--scratch DIR] [--lines A-B,C] [--list] FILE.c..." >&2; exit 2; }
PYTHON3=${PYTHON3:-python3}

# tests_for FILE: the unit test programs that cover FILE.
tests_for() {
    local base
    base=$(basename "$1" .c)
    case $1 in
        src/decide/*) echo test_decide_adaptive test_decide_engine test_decide_names test_decide_params test_decide_persist ;;
        src/core/state.c) echo test_state test_state_forget test_state_metrics ;;
        src/probe/http_judge.c) echo test_http_judge test_http ;;
        src/util/regex_guard.c) echo test_regex_guard test_regex_linear ;;
        src/util/regex_linear_parse.c) echo test_regex_linear test_probe_opts ;;
        *)
            if [ -f "$top/tests/unit/test_$base.c" ]; then
                echo "test_$base"
            else
                echo "mutate.sh: no test_$base.c: name the tests with --tests" >&2
                return 1
            fi ;;
    esac
}

# mutants FILE: one line a mutant, "LINE<TAB>DESCRIPTION<TAB>NEW LINE TEXT".
# Comments, preprocessor lines and string literals are left alone.
mutants() {
    "$PYTHON3" - "$1" "$lines" <<'EOF'
import re, sys
path, span = sys.argv[1], sys.argv[2]
ranges = [(1, 10**9)]
if span:
    ranges = []
    for part in span.split(','):
        a, _, b = part.partition('-')
        ranges.append((int(a), int(b or a)))
src = open(path).read().split('\n')
in_comment = False
DECL = re.compile(r'^\s*(static\s+|const\s+|unsigned\s+|struct\s+|enum\s+)*'
                  r'(int|bool|char|size_t|ssize_t|long|double|uint\d+_t|int\d+_t|time_t|void|struct\s+\w+|enum\s+\w+|\w+_t)\b[\s\*]*\w+\s*(=|;|\[)')
def code_spans(line):
    """Positions outside string and char literals and // comments."""
    out, i, q = [], 0, None
    while i < len(line):
        c = line[i]
        if q:
            if c == '\\':
                i += 2
                continue
            if c == q:
                q = None
            i += 1
            continue
        if c in '"\'':
            q = c
        elif line.startswith('//', i) or line.startswith('/*', i):
            break
        else:
            out.append(i)
        i += 1
    return set(out)
def emit(n, what, new):
    print(f"{n}\t{what}\t{new}")
OPS = [('<=', '<'), ('>=', '>'), ('==', '!='), ('!=', '=='), ('&&', '||'), ('||', '&&')]
for n, line in enumerate(src, 1):
    s = line.strip()
    if in_comment:
        if '*/' in s:
            in_comment = False
        continue
    if s.startswith('/*') and '*/' not in s:
        in_comment = True
        continue
    if not s or s.startswith(('#', '*', '/*', '//')) or not any(a <= n <= b for a, b in ranges):
        continue
    ok = code_spans(line)
    seen = set()
    # two-character operators
    for old, new in OPS:
        for m in re.finditer(re.escape(old), line):
            if m.start() in ok:
                seen.add(m.start())
                emit(n, f"{old} -> {new}", line[:m.start()] + new + line[m.end():])
    # lone < and > (not <<, >>, ->, <=, >=, #include <...>)
    for m in re.finditer(r'(?<![<>\-=])([<>])(?![<>=])', line):
        if m.start() in ok and m.start() not in seen:
            new = m.group(1) + '='
            emit(n, f"{m.group(1)} -> {new}", line[:m.start()] + new + line[m.end():])
    # + and - between operands (not ++ -- -> += -=, not unary at the start)
    for m in re.finditer(r'(?<=[\w\)\]]) ([+-]) (?=[\w\(])', line):
        if m.start(1) in ok:
            new = '-' if m.group(1) == '+' else '+'
            emit(n, f"{m.group(1)} -> {new}", line[:m.start(1)] + new + line[m.end(1):])
    # integer constants (not in array sizes of declarations, not in names)
    if not DECL.match(line) or '=' in line:
        for m in re.finditer(r'(?<![\w.])(\d+)([uUlL]*)(?![\w.])', line):
            if m.start() in ok:
                v = int(m.group(1))
                new = '1' if v == 0 else ('0' if v == 1 else str(v + 1))
                emit(n, f"{m.group(1)} -> {new}", line[:m.start()] + new + m.group(2) + line[m.end():])
    # true <-> false
    for m in re.finditer(r'\b(true|false)\b', line):
        if m.start() in ok:
            new = 'false' if m.group(1) == 'true' else 'true'
            emit(n, f"{m.group(1)} -> {new}", line[:m.start()] + new + line[m.end():])
    # if (X) -> if (!(X)), when the condition closes on this line
    m = re.match(r'^(\s*(?:\}\s*else\s+)?(?:if|while)\s*\()(.*)(\)\s*\{?\s*)$', line)
    if m and m.start(2) in ok:
        depth, good = 0, True
        for c in m.group(2):
            depth += (c == '(') - (c == ')')
            if depth < 0:
                good = False
                break
        if good and depth == 0:
            emit(n, "condition negated", m.group(1) + '!(' + m.group(2) + ')' + m.group(3))
    # a statement alone on its line: a call, an assignment, ++/--, break,
    # continue, goto (not a declaration, not return)
    if (re.match(r'^\s*(break|continue|goto\s+\w+)\s*;\s*$', line) or
        (re.match(r'^\s*[\w\*][\w\.\->\[\]\*]*\s*(\(.*\)|[-+*/|&]?=.*|\+\+|--)\s*;\s*$', line)
         and not DECL.match(line) and not re.match(r'^\s*return\b', line)
         and line.count('(') == line.count(')'))):
        emit(n, "statement deleted", re.match(r'^\s*', line).group(0) + ';')
EOF
}

run_tests() {
    local t rc
    for t in "$@"; do
        timeout -k 2 30 "$scratch/build/tests/unit/$t" >/dev/null 2>&1 </dev/null
        rc=$?
        [ "$rc" -eq 0 ] || return 1
    done
    return 0
}

prepare() {
    mkdir -p "$scratch"
    # Sources only; configure's output and every build stay in the scratch.
    (cd "$top" && tar --no-wildcards-match-slash --exclude=./build --exclude=./build-asan \
        --exclude=./build-fuzz --exclude=./.git --exclude=./ci-logs \
        --exclude='*.o' --exclude='*.lo' -cf - .) |
        (cd "$scratch" && tar -xf -) || return 1
    if [ ! -f "$scratch/build/Makefile" ]; then
        echo "# configuring the scratch copy in $scratch" >&2
        (cd "$scratch" && { [ -x configure ] || autoreconf -fi >/dev/null; } &&
            mkdir -p build && cd build && ../configure -q >/dev/null) || return 1
    fi
}

$list || prepare || { echo "mutate.sh: cannot prepare $scratch" >&2; exit 1; }
for file in "${files[@]}"; do
    file=${file#"$top"/}
    [ -f "$top/$file" ] || { echo "mutate.sh: no $file" >&2; exit 2; }
    if $list; then
        mutants "$top/$file" | awk -F'\t' -v f="$file" '{ printf "%s:%s: %s\n", f, $1, $2 }'
        continue
    fi
    read -r -a progs <<<"${tests:-$(tests_for "$file")}" || exit 2
    [ "${#progs[@]}" -gt 0 ] || exit 2
    targets=()
    for t in "${progs[@]}"; do targets+=("tests/unit/$t"); done
    echo "# $file: building ${progs[*]}" >&2
    if ! make -s -C "$scratch/build" -j1 "${targets[@]}" >/dev/null 2>&1; then
        echo "mutate.sh: the scratch copy does not build ${progs[*]}" >&2
        exit 1
    fi
    if ! run_tests "${progs[@]}"; then
        echo "mutate.sh: ${progs[*]} fail on the unmutated $file: nothing to measure" >&2
        exit 1
    fi
    orig=$(mktemp)
    cp "$scratch/$file" "$orig"
    killed=0 survived=0 stillborn=0
    while IFS=$'\t' read -r n what new; do
        "$PYTHON3" -c '
import sys
path, n, new = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(path).read().split("\n")
lines[n - 1] = new
open(path, "w").write("\n".join(lines))' "$scratch/$file" "$n" "$new"
        if ! make -s -C "$scratch/build" -j1 "${targets[@]}" >/dev/null 2>&1; then
            verdict=STILLBORN stillborn=$((stillborn + 1))
        elif run_tests "${progs[@]}"; then
            verdict=SURVIVED survived=$((survived + 1))
        else
            verdict=KILLED killed=$((killed + 1))
        fi
        printf '%-9s %s:%s: %s\t|%s\n' "$verdict" "$file" "$n" "$what" "$(printf '%s' "$new" | sed 's/^[[:space:]]*//')"
        cp "$orig" "$scratch/$file"
        touch "$scratch/$file"
    done < <(mutants "$orig")
    make -s -C "$scratch/build" -j1 "${targets[@]}" >/dev/null 2>&1
    rm -f "$orig"
    echo "$file: killed $killed of $((killed + survived)) ($stillborn stillborn; tests: ${progs[*]})"
done
