#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-describe.sh: the administrators' tools describe the installed
# agents: `pcs resource describe` fits one screen of 80x60 (the parameters an
# administrator sets first; the others, folded into `advanced`, are
# deprecated in the meta-data, which pcs shows only with --full), --full and
# `crm ra info` show every parameter (both read the agent's meta-data;
# neither needs a running cluster), and a plain `pcs resource create` on a
# CIB file creates one recurring monitor (no deeper one unless asked).
#
# FM_INSTALLED_OCF_DIR (with FM_INSTALLED_OCF and FM_INSTALLED_FAULTMON)
# points it at agents installed elsewhere: the provider is the directory's
# name, e.g. /usr/lib/ocf/resource.d/faultmon-test holding links to a build.

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
provider=${FA_INSTALLED_DIR##*/}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-describe.XXXXXX") || bail_out "mktemp failed"
fm_cleanup_add "rm -rf '$tmp'"

# One screen: what `pcs resource describe` prints without --full, on a
# terminal of 80 columns and 60 lines.
max_lines=60
max_columns=80

# Parameter names of a meta-data file, one a line; with "shown", only those
# pcs shows without --full (not deprecated).
param_names() {
    local xpath='//parameter/@name'
    [ "${2:-}" = shown ] && xpath='//parameter[not(@deprecated="1")]/@name'
    xmllint --xpath "$xpath" "$1" | tr ' ' '\n' | sed -n 's/^name="\(.*\)"$/\1/p'
}

plan 22

for agent in apache nginx httpmon guard; do
    # An install older than ocf:faultmon:nginx has no link for it.
    if [ ! -e "$FA_INSTALLED_DIR/$agent" ]; then
        for what in "is this build's" "in pcs resource describe --full" "in pcs, one screen" \
            "in pcs resource create" "in crm ra info"; do
            skip "ocf:$provider:$agent $what" "not installed in $FA_INSTALLED_DIR"
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
    names=$(param_names "$top_srcdir/metadata/$agent.xml")
    shown=$(param_names "$top_srcdir/metadata/$agent.xml" shown)
    # An empty or cut-short list would find nothing missing.
    n_names=$(echo "$names" | wc -w)
    n_xml=$(fm_xml_param_count "$top_srcdir/metadata/$agent.xml")
    short=""
    if [ "$n_xml" -eq 0 ] || [ "$n_names" -ne "$n_xml" ]; then
        short=" (parsed $n_names of $n_xml parameter names)"
    fi
    if command -v pcs >/dev/null 2>&1; then
        out=$(cd / && fm_timeout 90 pcs resource describe --full "ocf:$provider:$agent" 2>&1)
        missing=$short
        for p in $names; do
            printf '%s\n' "$out" | grep -Eq "^  $p( \\(.*\\))?:" || missing="$missing $p"
        done
        is "$missing" "" "pcs resource describe --full ocf:$provider:$agent shows every parameter"
        # Off a terminal pcs does not wrap: with no line wider than 80
        # columns, a terminal of 80 shows exactly these lines.  All of it
        # counts, the operations too.
        out=$(cd / && fm_timeout 90 pcs resource describe "ocf:$provider:$agent" 2>&1)
        lines=$(printf '%s\n' "$out" | grep -vc '^Assumed agent name')
        wide=$(printf '%s\n' "$out" | awk -v m="$max_columns" 'length($0) > m' | head -n 3)
        missing=""
        for p in $shown; do
            printf '%s\n' "$out" | grep -Eq "^  $p( \\(.*\\))?:" || missing="$missing $p"
        done
        if ! $this_build; then
            skip "pcs resource describe ocf:$provider:$agent fits one screen" "the installed agent is not this build's"
        elif [ "$lines" -le "$max_lines" ] && [ -z "$wide" ] && [ -z "$missing" ]; then
            ok "pcs resource describe ocf:$provider:$agent fits one screen ($lines lines of at most $max_columns columns, $(echo "$shown" | wc -w) parameters)"
        else
            not_ok "pcs resource describe ocf:$provider:$agent fits one screen ($lines lines, at most $max_lines; parameters missing:${missing:- none})"
            [ -z "$wide" ] || diag "$wide"
        fi
        # A plain create on a CIB file (pcs -f works offline): the
        # operations pcs copies from the meta-data hold one recurring
        # monitor, at depth 0.
        cib=$tmp/$agent-cib.xml
        required=""
        [ "$agent" = guard ] && required="resource=guarded"
        if cibadmin --empty >"$cib" 2>"$tmp/err" &&
            (cd / && fm_timeout 90 pcs -f "$cib" resource create "fm-$agent" "ocf:$provider:$agent" \
                $required) >"$tmp/err" 2>&1; then
            monitors=$(xmllint --xpath 'count(//primitive/operations/op[@name="monitor"])' "$cib")
            depths=$(xmllint --xpath 'count(//primitive/operations/op//nvpair[@name="OCF_CHECK_LEVEL"])' "$cib")
            every=$(xmllint --xpath 'string(//primitive/operations/op[@name="monitor"]/@interval)' "$cib")
            # The web agents' loop asks for recovery itself: their monitor
            # is a backstop, every 60 s (the loop probes every 10 s).
            want_every=10s
            case $agent in apache | nginx) want_every=60s ;; esac
            is "$monitors/$depths/$every" "1/0/$want_every" \
                "pcs -f CIB resource create ocf:$provider:$agent creates one monitor, every $want_every, no deeper one"
        else
            not_ok "pcs -f CIB resource create ocf:$provider:$agent creates one monitor, no deeper one"
            diag_file "$tmp/err"
        fi
    else
        skip "pcs resource describe --full ocf:$provider:$agent shows every parameter" "pcs is not installed"
        skip "pcs resource describe ocf:$provider:$agent fits one screen" "pcs is not installed"
        skip "pcs -f CIB resource create ocf:$provider:$agent creates one monitor" "pcs is not installed"
    fi
    if command -v crm >/dev/null 2>&1; then
        out=$(cd / && fm_timeout 90 crm ra info "ocf:$provider:$agent" 2>&1)
        missing=$short
        for p in $names; do
            printf '%s\n' "$out" | grep -Eq "^$p\\*? \\(" || missing="$missing $p"
        done
        is "$missing" "" "crm ra info ocf:$provider:$agent shows every parameter"
    else
        skip "crm ra info ocf:$provider:$agent shows every parameter" "crmsh is not installed"
    fi
done

# doc_lines TOOL: the TOOL lines (continuations joined, comments left out) of
# the sh block of doc/agents.md marked as run here, one a line.
doc_lines() {
    awk -v tool="$1" '
        /<!-- not run: .*agent-describe.sh runs its pcs and crm lines/ { marked = 1; next }
        marked && /^ *```sh *$/ { inside = 1; next }
        inside && /^ *``` *$/ { exit }
        inside {
            sub(/^ +/, ""); line = line $0
            if (sub(/\\$/, "", line)) { next }
            if (line ~ "^" tool " ") { print line }
            line = ""
        }' "$top_srcdir/doc/agents.md"
}

# run_doc_lines TOOL CIB: run them on CIB, the provider made ours; no shell
# (the lines have no quotes to honour: refused if they do).
run_doc_lines() {
    local tool=$1 cib=$2 line words n=0
    while IFS= read -r line; do
        case $line in *[\"\']*) echo "quotes in: $line"; return 1 ;; esac
        read -r -a words <<<"${line//ocf:faultmon:/ocf:$provider:}"
        if [ "$tool" = pcs ]; then
            (cd / && fm_timeout 90 pcs -f "$cib" "${words[@]:1}") || return 1
        else
            (cd / && CIB_file=$cib fm_timeout 90 "${words[@]}") || return 1
        fi
        n=$((n + 1))
    done < <(doc_lines "$tool")
    [ "$n" -gt 0 ] || { echo "no $tool line found in doc/agents.md"; return 1; }
}

# What the lines made: the monitors, as INTERVAL/LEVEL, sorted.
monitors_of() {
    local cib=$1 i n
    n=$(xmllint --xpath 'count(//primitive/operations/op[@name="monitor"])' "$cib")
    for ((i = 1; i <= n; i++)); do
        printf '%s/%s\n' \
            "$(xmllint --xpath "string((//primitive/operations/op[@name='monitor'])[$i]/@interval)" "$cib")" \
            "$(xmllint --xpath "string((//primitive/operations/op[@name='monitor'])[$i]//nvpair[@name='OCF_CHECK_LEVEL']/@value)" "$cib")"
    done | sort | tr '\n' ' '
}

if [ ! -e "$FA_INSTALLED_DIR/nginx" ]; then
    skip "doc/agents.md's pcs lines add a monitor at OCF_CHECK_LEVEL=10" "nginx is not installed"
    skip "doc/agents.md's crm lines add a monitor at OCF_CHECK_LEVEL=10" "nginx is not installed"
else
    for tool in pcs crm; do
        cib=$tmp/doc-$tool.xml
        if ! command -v "$tool" >/dev/null 2>&1; then
            skip "doc/agents.md's $tool lines add a monitor at OCF_CHECK_LEVEL=10" "$tool is not installed"
        # crm commits only a configuration that crm_verify accepts.
        elif cibadmin --empty >"$cib" &&
            CIB_file=$cib crm_attribute --type crm_config --name stonith-enabled --update false &&
            run_doc_lines "$tool" "$cib" >"$tmp/err" 2>&1; then
            is "$(monitors_of "$cib")" "30s/10 60s/ " \
                "doc/agents.md's $tool lines add a monitor at OCF_CHECK_LEVEL=10 (beside the level-0 one)"
        else
            not_ok "doc/agents.md's $tool lines add a monitor at OCF_CHECK_LEVEL=10"
            diag_file "$tmp/err"
        fi
    done
fi

tap_done
