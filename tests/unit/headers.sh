#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# headers.sh: every file of src/ and agents/ is named for what it holds
# (issue 32): a .c with a header of its name (include/faultmon/NAME.h or
# NAME.h beside it) includes that header first, after <config.h>, so that
# the header is seen to stand on its own; and every header has a .c of its
# name or says at its top why not, in a line "No .c of its name: ...".

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

TOP=${FM_TOP_SRCDIR:-$FM_TEST_LIB/../..}

# The comment a header opens with, up to its first "*/" (the licence's
# one-line SPDX comment before it is not that comment).
top_comment()
{
    awk '/^\/\* SPDX-License-Identifier: .*\*\/$/ && NR == 1 { next } { print } /\*\// { exit }' "$1"
}

tap_watchdog 30
cd "$TOP" || exit 1
mapfile -t sources < <(find src agents -name '*.c' | sort)
mapfile -t headers < <(find include/faultmon src agents -name '*.h' | sort)
plan $(( ${#sources[@]} + ${#headers[@]} + 1 ))

check "found the sources (${#sources[@]}) and headers (${#headers[@]})" \
    test "${#sources[@]}" -gt 40 -a "${#headers[@]}" -gt 40

for c in "${sources[@]}"; do
    name=$(basename "$c" .c)
    if [ -f "include/faultmon/$name.h" ]; then
        own="<faultmon/$name.h>"
    elif [ -f "$(dirname "$c")/$name.h" ]; then
        own="\"$name.h\""
    else
        ok "$c: no header of its name"
        continue
    fi
    first=$(grep '^#include' "$c" | grep -v -m1 '<config.h>' | sed 's/^#include *//; s/ *[/][*/].*//')
    if [ "$first" = "$own" ]; then
        ok "$c: includes $own first"
    else
        not_ok "$c: includes $first first, not its own $own"
    fi
done

for h in "${headers[@]}"; do
    name=$(basename "$h" .h)
    if [ -n "$(find src agents -name "$name.c" -print -quit)" ]; then
        ok "$h: has $name.c"
    elif top_comment "$h" | grep -q 'No \.c of its name: '; then
        ok "$h: $(top_comment "$h" | grep -o -m1 'No \.c of its name: .*')"
    else
        not_ok "$h: no $name.c and no 'No .c of its name:' line at its top"
    fi
done
