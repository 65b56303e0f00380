#!/bin/bash
# check-metadata.sh: the agents' meta-data.  Both XML files validate against
# resource-agents' ra-api-1.dtd (the DTD ocf-tester uses), the agent prints
# them unchanged, the man pages describe every parameter, ocf:faultmon:apache
# has every parameter of ocf:heartbeat:apache with its default, and every
# parameter of the probe core and the decision engine.

top_srcdir=${FM_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${FM_TOP_BUILDDIR:-$top_srcdir}
# shellcheck source=tests/lib/tap.sh
. "$top_srcdir/tests/lib/tap.sh"

dtd=${FA_DTD:-/usr/share/resource-agents/ra-api-1.dtd}
program=$top_builddir/agents/faultmon-ocf
heartbeat_apache=/usr/lib/ocf/resource.d/heartbeat/apache
agents="apache httpmon"

if ! command -v xmllint >/dev/null 2>&1; then
    echo "1..0 # SKIP xmllint is not installed (apt-get install libxml2-utils)"
    exit 0
fi
if [ ! -f "$dtd" ]; then
    echo "1..0 # SKIP $dtd is missing (apt-get install resource-agents)"
    exit 0
fi
tap_watchdog 60
plan 15

tmp=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-metadata.XXXXXX") || bail_out "mktemp failed"
fm_cleanup_add "rm -rf '$tmp'"

# Parameter names of a meta-data document, one a line.
param_names() {
    xmllint --xpath '//parameter/@name' "$1" 2>/dev/null | tr ' ' '\n' |
        sed -n 's/^name="\(.*\)"$/\1/p'
}

# The default of one parameter ("" when none).
param_default() {
    xmllint --xpath "string(//parameter[@name='$2']/content/@default)" "$1" 2>/dev/null
}

for agent in $agents; do
    xml=$top_srcdir/metadata/$agent.xml
    if out=$(xmllint --noout --nonet --path "$(dirname "$dtd")" --dtdvalid "$dtd" "$xml" 2>&1); then
        ok "$agent.xml validates against ra-api-1.dtd"
    else
        not_ok "$agent.xml validates against ra-api-1.dtd"
        diag "$out"
    fi
done

for agent in $agents; do
    if [ -x "$program" ] && "$program" "$agent" meta-data >"$tmp/$agent.out" 2>"$tmp/$agent.err" &&
        cmp -s "$tmp/$agent.out" "$top_srcdir/metadata/$agent.xml"; then
        ok "faultmon-ocf $agent meta-data prints metadata/$agent.xml unchanged"
    else
        not_ok "faultmon-ocf $agent meta-data prints metadata/$agent.xml unchanged"
        diff "$top_srcdir/metadata/$agent.xml" "$tmp/$agent.out" 2>&1 | head -20 | sed 's/^/# /'
        diag_file "$tmp/$agent.err"
    fi
done

# As ocf-tester runs it: from the DTD's directory, the output on stdin.
for agent in $agents; do
    if (cd "$(dirname "$dtd")" && "$program" "$agent" meta-data | xmllint --noout --valid - >"$tmp/lint" 2>&1); then
        ok "$agent meta-data output is valid the way ocf-tester checks it"
    else
        not_ok "$agent meta-data output is valid the way ocf-tester checks it"
        diag_file "$tmp/lint"
    fi
done

for agent in $agents; do
    man=$top_builddir/metadata/ocf_faultmon_$agent.7
    missing=""
    if [ -f "$man" ]; then
        for p in $(param_names "$top_srcdir/metadata/$agent.xml"); do
            grep -q "^\\\\fB$p\\\\fR" "$man" || missing="$missing $p"
        done
    else
        missing="(no man page $man)"
    fi
    is "$missing" "" "ocf_faultmon_$agent.7 describes every parameter"
done

for agent in $agents; do
    man=$top_builddir/metadata/ocf_faultmon_$agent.7
    if [ -f "$man" ] && command -v groff >/dev/null 2>&1; then
        warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
        is "$warnings" "" "ocf_faultmon_$agent.7 formats without groff warnings"
    else
        skip "ocf_faultmon_$agent.7 formats without groff warnings" "groff or the page is missing"
    fi
done

# Drop-in: every parameter of ocf:heartbeat:apache, with the same default
# where that agent's default is a value (its testregex default is a
# sentence, its configfile default depends on the machine).
if [ -x "$heartbeat_apache" ]; then
    OCF_ROOT=/usr/lib/ocf "$heartbeat_apache" meta-data >"$tmp/heartbeat.xml" 2>/dev/null
    missing=""
    differ=""
    for p in $(param_names "$tmp/heartbeat.xml"); do
        if ! param_names "$top_srcdir/metadata/apache.xml" | grep -qx "$p"; then
            missing="$missing $p"
            continue
        fi
        case $p in
            testregex | configfile) continue ;;
        esac
        theirs=$(param_default "$tmp/heartbeat.xml" "$p")
        ours=$(param_default "$top_srcdir/metadata/apache.xml" "$p")
        [ "$theirs" = "$ours" ] || differ="$differ $p($theirs/$ours)"
    done
    is "$missing" "" "apache.xml has every parameter of ocf:heartbeat:apache"
    is "$differ" "" "apache.xml has ocf:heartbeat:apache's defaults"
else
    skip "apache.xml has every parameter of ocf:heartbeat:apache" "resource-agents is not installed"
    skip "apache.xml has ocf:heartbeat:apache's defaults" "resource-agents is not installed"
fi

# Every probe and decision parameter: the names in src/runconf.c's
# fm_run_config_probe_names and src/decide.c's param_table.
core_names=$({
    sed -n '/fm_run_config_probe_names\[\] = {/,/};/p' "$top_srcdir/src/runconf.c" |
        grep -o '"[A-Za-z_]*"' | tr -d '"'
    sed -n '/param_table\[P__COUNT\] = {/,/^};/p' "$top_srcdir/src/decide.c" |
        sed -n 's/.*\] = { "\([A-Za-z_]*\)".*/\1/p'
} | sort -u)
missing=""
for p in $core_names; do
    param_names "$top_srcdir/metadata/apache.xml" | grep -qx "$p" || missing="$missing $p"
done
if [ -z "$core_names" ]; then
    missing="(no names found in src/runconf.c and src/decide.c)"
fi
is "$missing" "" "apache.xml has every parameter of the probe core and the decision engine"

# httpmon: the same, but Retry_count (it never restarts anything) and
# report_degraded (its monitor answers 0; the attribute carries the verdict).
missing=""
for p in $core_names; do
    case $p in Retry_count | report_degraded) continue ;; esac
    param_names "$top_srcdir/metadata/httpmon.xml" | grep -qx "$p" || missing="$missing $p"
done
is "$missing" "" "httpmon.xml has the probe and decision parameters that apply to it"

"$program" apache usage >/dev/null 2>&1
usage_rc=$?
"$program" apache frobnicate >/dev/null 2>&1
unknown_rc=$?
is "$usage_rc/$unknown_rc" "0/3" "usage answers 0, an unknown action 3 (OCF_ERR_UNIMPLEMENTED)"

tap_done
