#!/bin/bash
# agent-describe.sh: the administrators' tools describe every parameter of
# the installed agents: `pcs resource describe` and `crm ra info` (both read
# the agent's meta-data; neither needs a running cluster).

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

plan 6

for agent in apache httpmon; do
    if "$FA_INSTALLED_DIR/$agent" meta-data 2>/dev/null | cmp -s - "$top_srcdir/metadata/$agent.xml"; then
        ok "the installed $agent agent is this build's (same meta-data)"
    else
        not_ok "the installed $agent agent is this build's (same meta-data)"
        diag "$FA_INSTALLED_DIR/$agent meta-data differs from metadata/$agent.xml: run make install"
    fi
    names=$(xmllint --xpath '//parameter/@name' "$top_srcdir/metadata/$agent.xml" |
        tr ' ' '\n' | sed -n 's/^name="\(.*\)"$/\1/p')
    if command -v pcs >/dev/null 2>&1; then
        out=$(cd / && fm_timeout 90 pcs resource describe "ocf:faultmon:$agent" 2>&1)
        missing=""
        for p in $names; do
            printf '%s\n' "$out" | grep -Eq "^  $p( \\(.*\\))?:" || missing="$missing $p"
        done
        is "$missing" "" "pcs resource describe ocf:faultmon:$agent shows every parameter"
    else
        skip "pcs resource describe ocf:faultmon:$agent shows every parameter" "pcs is not installed"
    fi
    if command -v crm >/dev/null 2>&1; then
        out=$(cd / && fm_timeout 90 crm ra info "ocf:faultmon:$agent" 2>&1)
        missing=""
        for p in $names; do
            printf '%s\n' "$out" | grep -Eq "^$p\\*? \\(" || missing="$missing $p"
        done
        is "$missing" "" "crm ra info ocf:faultmon:$agent shows every parameter"
    else
        skip "crm ra info ocf:faultmon:$agent shows every parameter" "crmsh is not installed"
    fi
done

tap_done
