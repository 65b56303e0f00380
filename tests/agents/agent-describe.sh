#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-describe.sh: the administrators' tools describe every parameter of
# the installed agents: `pcs resource describe` and `crm ra info` (both read
# the agent's meta-data; neither needs a running cluster), and pcs's fits on
# a screen without --full.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_installed
command -v xmllint >/dev/null 2>&1 || {
    echo "1..0 # SKIP xmllint is not installed (apt-get install libxml2-utils)"
    exit 0
}
tap_watchdog 240
top_srcdir=${FM_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}

plan 16

for agent in apache nginx httpmon guard; do
    # An install older than ocf:faultmon:nginx has no link for it.
    if [ ! -e "$FA_INSTALLED_DIR/$agent" ]; then
        for what in "is this build's" "in pcs resource describe" "in pcs, one line per parameter" "in crm ra info"; do
            skip "ocf:faultmon:$agent $what" "not installed in $FA_INSTALLED_DIR"
        done
        continue
    fi
    this_build=false
    if "$FA_INSTALLED_DIR/$agent" meta-data 2>/dev/null | cmp -s - "$top_srcdir/metadata/$agent.xml"; then
        this_build=true
        ok "the installed $agent agent is this build's (same meta-data)"
    else
        not_ok "the installed $agent agent is this build's (same meta-data)"
        diag "$FA_INSTALLED_DIR/$agent meta-data differs from metadata/$agent.xml: run make install"
    fi
    names=$(xmllint --xpath '//parameter/@name' "$top_srcdir/metadata/$agent.xml" |
        tr ' ' '\n' | sed -n 's/^name="\(.*\)"$/\1/p')
    # An empty or cut-short list would find nothing missing.
    n_names=$(echo "$names" | wc -w)
    n_xml=$(fm_xml_param_count "$top_srcdir/metadata/$agent.xml")
    short=""
    if [ "$n_xml" -eq 0 ] || [ "$n_names" -ne "$n_xml" ]; then
        short=" (parsed $n_names of $n_xml parameter names)"
    fi
    if command -v pcs >/dev/null 2>&1; then
        out=$(cd / && fm_timeout 90 pcs resource describe "ocf:faultmon:$agent" 2>&1)
        missing=$short
        for p in $names; do
            printf '%s\n' "$out" | grep -Eq "^  $p( \\(.*\\))?:" || missing="$missing $p"
        done
        is "$missing" "" "pcs resource describe ocf:faultmon:$agent shows every parameter"
        # Off a terminal pcs does not wrap; with no line wider than 80
        # columns, a terminal of 80 shows exactly these lines.  Each
        # parameter takes one line, and the header above them few (the
        # protocols keep adding parameters: one screen is no longer the rule).
        # pcs's own warning about monitor depths without an interval
        # (heartbeat's nginx lists two; nginx.xml lists only level 0 now)
        # would be pcs's line, not a parameter's.
        out=$(printf '%s\n' "$out" | grep -v '^Warning: changing a monitor operation interval')
        lines=$(printf '%s\n' "$out" | grep -v '^Assumed agent name' | sed '/^Default operations:/,$d' | wc -l)
        max=$((n_xml + 6))
        wide=$(printf '%s\n' "$out" | awk 'length($0) > 80' | head -n 3)
        if ! $this_build; then
            skip "pcs resource describe ocf:faultmon:$agent: one line per parameter" "the installed agent is not this build's"
        elif [ "$lines" -le "$max" ] && [ -z "$wide" ]; then
            ok "pcs resource describe ocf:faultmon:$agent: one line per parameter ($lines lines above the operations for $n_xml parameters, at most 80 columns)"
        else
            not_ok "pcs resource describe ocf:faultmon:$agent: one line per parameter ($lines lines for $n_xml parameters, at most $max)"
            diag "$wide"
        fi
    else
        skip "pcs resource describe ocf:faultmon:$agent shows every parameter" "pcs is not installed"
        skip "pcs resource describe ocf:faultmon:$agent: one line per parameter" "pcs is not installed"
    fi
    if command -v crm >/dev/null 2>&1; then
        out=$(cd / && fm_timeout 90 crm ra info "ocf:faultmon:$agent" 2>&1)
        missing=$short
        for p in $names; do
            printf '%s\n' "$out" | grep -Eq "^$p\\*? \\(" || missing="$missing $p"
        done
        is "$missing" "" "crm ra info ocf:faultmon:$agent shows every parameter"
    else
        skip "crm ra info ocf:faultmon:$agent shows every parameter" "crmsh is not installed"
    fi
done

tap_done
