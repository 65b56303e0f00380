#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# doc-links.sh: every relative link of README.md and doc/ leads somewhere.
# A link [text](path) or [text](path#anchor) that is not a URL must name a
# file or folder of the tree, relative to the page it is on (as GitHub and
# every Markdown viewer read it); an anchor is not checked.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

TOP=${FM_TOP_SRCDIR:-$FM_TEST_LIB/../..}

tap_watchdog 30
mapfile -t pages < <(cd "$TOP" && { echo README.md; find doc -name '*.md' 2>/dev/null; } | sort)
plan $(( ${#pages[@]} + 1 ))
check "found the pages (${#pages[@]})" test "${#pages[@]}" -gt 5

for page in "${pages[@]}"; do
    dir=$(dirname "$page")
    bad=""
    # Links outside code spans and fenced blocks: a code block may show any text.
    while IFS= read -r link; do
        target=${link%%#*}
        [ -n "$target" ] || continue
        [ -e "$TOP/$dir/$target" ] || bad="$bad $target"
    done < <(awk '/^```/ { fence = !fence; next } !fence' "$TOP/$page" |
        sed 's/`[^`]*`//g' | grep -o '\]([^)]*)' | sed 's/^](//; s/)$//' |
        grep -Ev '^(https?|mailto|ftp):' )
    if [ -z "$bad" ]; then
        ok "$page: every relative link resolves"
    else
        not_ok "$page: links to what is not there:$bad"
    fi
done
