#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-metadata.sh: the agents' meta-data.  Each XML file validates against
# resource-agents' ra-api-1.dtd (the DTD ocf-tester uses), the agent prints
# them unchanged, the man pages describe every parameter, ocf:faultmon:apache
# and nginx have every parameter of their ocf:heartbeat agent with its
# default, and every
# parameter of the probe core (with the default of its table, printed by
# `faultmon probe --list-params`) and of the decision engine.

top_srcdir=${FM_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${FM_TOP_BUILDDIR:-$top_srcdir}
# shellcheck source=tests/lib/tap.sh
. "$top_srcdir/tests/lib/tap.sh"

dtd=${FA_DTD:-/usr/share/resource-agents/ra-api-1.dtd}
program=$top_builddir/agents/faultmon-ocf
faultmon=${FAULTMON:-$top_builddir/src/faultmon}
heartbeat_apache=/usr/lib/ocf/resource.d/heartbeat/apache
heartbeat_nginx=/usr/lib/ocf/resource.d/heartbeat/nginx
agents="apache nginx httpmon guard"

if ! command -v xmllint >/dev/null 2>&1; then
    echo "1..0 # SKIP xmllint is not installed (apt-get install libxml2-utils)"
    exit 0
fi
if [ ! -f "$dtd" ]; then
    echo "1..0 # SKIP $dtd is missing (apt-get install resource-agents)"
    exit 0
fi
tap_watchdog 60
plan 43

tmp=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-metadata.XXXXXX") || bail_out "mktemp failed"
fm_cleanup_add "rm -rf '$tmp'"

# Parameter names of a meta-data document, one a line.
param_names() {
    xmllint --xpath '//parameter/@name' "$1" 2>/dev/null | tr ' ' '\n' |
        sed -n 's/^name="\(.*\)"$/\1/p'
}

# param_list_short XML: a note when param_names found no names, or fewer or
# more than the document has <parameter> elements (a loop over an empty list
# would check nothing and pass); "" otherwise.
param_list_short() {
    local n_names n_xml
    n_names=$(param_names "$1" | wc -l)
    n_xml=$(fm_xml_param_count "$1")
    if [ "$n_xml" -eq 0 ] || [ "$n_names" -ne "$n_xml" ]; then
        echo " (parsed $n_names of $n_xml parameter names in ${1##*/})"
    fi
}

# The default of one parameter ("" when none).
param_default() {
    xmllint --xpath "string(//parameter[@name='$2']/content/@default)" "$1" 2>/dev/null
}

for agent in $agents; do
    xml=$top_srcdir/metadata/$agent.xml
    # --valid, not --dtdvalid: the DOCTYPE's internal subset declares the
    # deprecated attribute (pcs's OCF 1.0 schema has it, ra-api-1.dtd not).
    if out=$(xmllint --noout --nonet --path "$(dirname "$dtd")" --valid "$xml" 2>&1) &&
        grep -q '^<!DOCTYPE resource-agent SYSTEM "ra-api-1.dtd"' "$xml"; then
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
    missing=$(param_list_short "$top_srcdir/metadata/$agent.xml")
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
# sentence, its configfile default depends on the machine, and its httpd
# default /usr/sbin/httpd is not what it runs: unset, it searches a list,
# which apache.xml says instead).
if [ -x "$heartbeat_apache" ]; then
    OCF_ROOT=/usr/lib/ocf "$heartbeat_apache" meta-data >"$tmp/heartbeat.xml" 2>/dev/null
    missing=$(param_list_short "$tmp/heartbeat.xml")
    differ=$missing
    for p in $(param_names "$tmp/heartbeat.xml"); do
        if ! param_names "$top_srcdir/metadata/apache.xml" | grep -qx "$p"; then
            missing="$missing $p"
            continue
        fi
        case $p in
            testregex | configfile | httpd) continue ;;
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

# The same for ocf:heartbeat:nginx (its configfile has no default: nginx -V
# says; its httpd default /usr/sbin/httpd is kept, and means its search).
if [ -x "$heartbeat_nginx" ]; then
    OCF_ROOT=/usr/lib/ocf "$heartbeat_nginx" meta-data >"$tmp/heartbeat-nginx.xml" 2>/dev/null
    missing=$(param_list_short "$tmp/heartbeat-nginx.xml")
    differ=$missing
    for p in $(param_names "$tmp/heartbeat-nginx.xml"); do
        if ! param_names "$top_srcdir/metadata/nginx.xml" | grep -qx "$p"; then
            missing="$missing $p"
            continue
        fi
        theirs=$(param_default "$tmp/heartbeat-nginx.xml" "$p")
        ours=$(param_default "$top_srcdir/metadata/nginx.xml" "$p")
        [ "$theirs" = "$ours" ] || differ="$differ $p($theirs/$ours)"
    done
    is "$missing" "" "nginx.xml has every parameter of ocf:heartbeat:nginx"
    is "$differ" "" "nginx.xml has ocf:heartbeat:nginx's defaults"
    theirs=$(param_names "$tmp/heartbeat-nginx.xml" | tr '\n' ' ')
    ours=$(param_names "$top_srcdir/metadata/nginx.xml" | head -n "$(param_names "$tmp/heartbeat-nginx.xml" | wc -l)" |
        tr '\n' ' ')
    is "$ours" "$theirs" "nginx.xml lists ocf:heartbeat:nginx's parameters first, in its order"
else
    skip "nginx.xml has every parameter of ocf:heartbeat:nginx" "resource-agents is not installed"
    skip "nginx.xml has ocf:heartbeat:nginx's defaults" "resource-agents is not installed"
    skip "nginx.xml lists ocf:heartbeat:nginx's parameters first, in its order" "resource-agents is not installed"
fi

# Every probe and decision parameter: the names in the probe parameter table
# (src/core/probe_params.c, as `faultmon probe --list-params` prints it:
# NAME, DEFAULT, HELP separated by tabs) and src/decide/params.c's param_table.
"$faultmon" probe --list-params >"$tmp/probe-params" 2>"$tmp/probe-params.err"
core_names=$({
    cut -f1 "$tmp/probe-params"
    sed -n '/param_table\[P__COUNT\] = {/,/^};/p' "$top_srcdir/src/decide/params.c" |
        sed -n 's/.*\] = { "\([A-Za-z_]*\)".*/\1/p'
} | sort -u)
for agent in apache nginx; do
    missing=""
    for p in $core_names; do
        param_names "$top_srcdir/metadata/$agent.xml" | grep -qx "$p" || missing="$missing $p"
    done
    if [ -z "$core_names" ]; then
        missing="(no names found in faultmon probe --list-params and src/decide/params.c)"
    fi
    is "$missing" "" "$agent.xml has every parameter of the probe core and the decision engine"
done

# The probe parameters' defaults: the meta-data says what the table does.
differ=""
if [ ! -s "$tmp/probe-params" ]; then
    differ="(faultmon probe --list-params printed nothing: $(head -c 300 "$tmp/probe-params.err"))"
fi
while IFS= read -r line; do
    # Not "read p dflt": a tab is blank to read, and an empty default between
    # two would vanish.
    p=${line%%$'\t'*}
    dflt=${line#*$'\t'}
    dflt=${dflt%%$'\t'*}
    for agent in $agents; do
        xml=$top_srcdir/metadata/$agent.xml
        ours=$(param_default "$xml" "$p")
        [ "$ours" = "$dflt" ] || differ="$differ $agent:$p($ours/$dflt)"
    done
done <"$tmp/probe-params"
is "$differ" "" "every agent's meta-data gives each probe parameter its table's default"

# httpmon: the same, but Retry_count (it never restarts anything) and
# report_degraded (its monitor answers 0; the attribute carries the verdict).
missing=""
if [ -z "$core_names" ]; then
    missing="(no names found in faultmon probe --list-params and src/decide/params.c)"
fi
for p in $core_names; do
    case $p in Retry_count | report_degraded) continue ;; esac
    param_names "$top_srcdir/metadata/httpmon.xml" | grep -qx "$p" || missing="$missing $p"
done
is "$missing" "" "httpmon.xml has the probe and decision parameters that apply to it"

# guard: every probe and decision parameter (it recovers, as apache does).
missing=""
if [ -z "$core_names" ]; then
    missing="(no names found in faultmon probe --list-params and src/decide/params.c)"
fi
for p in $core_names; do
    param_names "$top_srcdir/metadata/guard.xml" | grep -qx "$p" || missing="$missing $p"
done
is "$missing" "" "guard.xml has every parameter of the probe core and the decision engine"

# What an administrator reads.  pcs (0.11) hides only a deprecated parameter
# of an OCF agent in `pcs resource describe` (it honours "advanced" only in
# Pacemaker's own daemon meta-data), and prints each parameter's longdesc:
# one line of 80 columns for the agent's longdesc and for each parameter
# (with --full a deprecated one may wrap);
# the details are in metadata/AGENT-details.xml, for the man page.
too_long=""
for agent in $agents; do
    xml=$top_srcdir/metadata/$agent.xml
    line=$(xmllint --xpath 'normalize-space(/resource-agent/longdesc)' "$xml")
    [ "${#line}" -le 80 ] || too_long="$too_long $agent(${#line})"
    for p in $(param_names "$xml"); do
        flag=""
        [ "$(xmllint --xpath "string(//parameter[@name='$p']/@unique)" "$xml")" = 1 ] && flag=" (unique)"
        line="  $p$flag: $(xmllint --xpath "normalize-space(//parameter[@name='$p']/longdesc)" "$xml")"
        [ "${#line}" -le 80 ] || too_long="$too_long $agent:$p(${#line})"
    done
done
is "$too_long" "" "the agents' longdesc and each parameter's fit one line of 80 columns"

# Every parameter keeps its full text in the man page: AGENT-details.xml
# has one for each parameter of AGENT.xml, and none for another.
differ=""
for agent in $agents; do
    ours=$(param_names "$top_srcdir/metadata/$agent.xml" | sort)
    theirs=$(param_names "$top_srcdir/metadata/$agent-details.xml" | sort)
    [ -n "$ours" ] && [ "$ours" = "$theirs" ] || differ="$differ $agent"
done
is "$differ" "" "metadata/*-details.xml has the full text of every parameter, and no other"

# Heartbeat's parameters first, in its order; the faultmon parameters an
# administrator sets first after them; the others marked for advanced use.
if [ -s "$tmp/heartbeat.xml" ]; then
    theirs=$(param_names "$tmp/heartbeat.xml" | tr '\n' ' ')
    ours=$(param_names "$top_srcdir/metadata/apache.xml" | head -n "$(param_names "$tmp/heartbeat.xml" | wc -l)" |
        tr '\n' ' ')
    is "$ours" "$theirs" "apache.xml lists ocf:heartbeat:apache's parameters first, in its order"
else
    skip "apache.xml lists ocf:heartbeat:apache's parameters first, in its order" "resource-agents is not installed"
fi
# The parameters pcs shows without --full: those an administrator sets
# first, then `advanced`, which holds the others as NAME=VALUE words.  Each
# other one is deprecated="1" (pcs hides it, and still accepts it by name for
# a configuration that sets it so), and its shortdesc says what replaces it:
# "Set in advanced: ", or "Ignored: " for heartbeat's client programs.
shown=""
replaced=""
for agent in $agents; do
    xml=$top_srcdir/metadata/$agent.xml
    shown="$shown $agent:"$(xmllint --xpath '//parameter[not(@deprecated="1")]/@name' "$xml" 2>/dev/null |
        sed -n 's/ *name="\([^"]*\)"/\1,/gp' | tr -d '\n')
    replaced="$replaced$(xmllint --xpath '//parameter[@deprecated="1"]/shortdesc[not(starts-with(., "Set in advanced: ")) and not(starts-with(., "Ignored: "))]/../@name' \
        "$xml" 2>/dev/null | sed "s/^/ $agent:/")"
done
common="Port_list,Monitor_Uri_List,Probe_command,Dependency_list,Probe_timeout,Thorough_probe_interval,Retry_count,Retry_interval,expect_status,tls_verify,tls_ca_file,manual_resume,advanced,"
is "$shown" " apache:configfile,httpd,port,statusurl,testregex,testurl,testregex10,testconffile,testname,options,envfiles,use_ipv6,$common nginx:configfile,httpd,port,status10url,status10regex,test20url,test20regex,test20conffile,test20name,external_monitor30_cmd,options,$common httpmon:name,dampen,multiplier,health_attribute,${common/Retry_count,/} guard:resource,$common" \
    "pcs shows the parameters an administrator sets first, and advanced (the others are deprecated)"
is "$replaced" "" "each deprecated parameter's shortdesc says what replaces it"

# pcs's own rendering of the XML on a terminal of 80 columns: all of
# `pcs resource describe` (the operations too) fits one screen of 80x60.
pcs_python=$(head -n 1 "$(command -v pcs 2>/dev/null || echo /nonexistent)" 2>/dev/null | sed -n 's/^#! *\([^ ]*\).*/\1/p')
for agent in $agents; do
    if [ -n "$pcs_python" ] && COLUMNS=80 "$pcs_python" "$top_srcdir/metadata/pcs-describe.py" \
        "$top_srcdir/metadata/$agent.xml" "$agent" >"$tmp/describe" 2>"$tmp/describe.err"; then
        n=$(wc -l <"$tmp/describe")
        wide=$(awk 'length($0) > 80' "$tmp/describe" | wc -l)
        if [ "$n" -le 60 ] && [ "$wide" -eq 0 ]; then
            ok "pcs resource describe ocf:faultmon:$agent fits 80x60 ($n lines)"
        else
            not_ok "pcs resource describe ocf:faultmon:$agent fits 80x60 ($n lines, $wide wider than 80 columns)"
            diag_file "$tmp/describe"
        fi
    else
        skip "pcs resource describe ocf:faultmon:$agent fits 80x60" "pcs's modules are not available"
    fi
done

# The documented pcs lines (README.md and doc/: every `pcs resource create`
# of an ocf:faultmon agent and `update` with parameters) pass pcs's own
# checks of the parameters against this meta-data with no error and no
# warning: no example sets by its name a parameter folded into advanced,
# and advanced's examples are taken as they are.  A folded parameter set by
# its name still works, with pcs's deprecation warning (quoted in NEWS).
if [ -n "$pcs_python" ] && "$pcs_python" -c 'import pcs.lib.resource_agent.facade' 2>/dev/null; then
    "$pcs_python" "$top_srcdir/metadata/pcs-validate.py" --doc-lines "$top_srcdir" >"$tmp/pcs-lines"
    bad=""
    while IFS=$'\t' read -r where agent line; do
        said=$("$pcs_python" "$top_srcdir/metadata/pcs-validate.py" \
            "$top_srcdir/metadata/$agent.xml" "$agent" "$line" 2>&1)
        [ -z "$said" ] || bad="$bad $where ($agent): $said;"
    done <"$tmp/pcs-lines"
    n=$(wc -l <"$tmp/pcs-lines")
    if [ "$n" -ge 8 ] && grep -q 'advanced=' "$tmp/pcs-lines"; then
        is "$bad" "" "the $n documented pcs create and update lines pass pcs's checks with no warning (advanced's among them)"
    else
        not_ok "the documented pcs create and update lines were found ($n, advanced's among them)"
    fi
    said=$("$pcs_python" "$top_srcdir/metadata/pcs-validate.py" \
        "$top_srcdir/metadata/apache.xml" apache "pcs resource update web rise=3" 2>&1)
    is "$said" "WARNING: resource option 'rise' is deprecated and should not be used, use  instead" \
        "a folded parameter set by its name still works, with pcs's deprecation warning"
else
    skip "the documented pcs create and update lines pass pcs's checks" "pcs's modules are not available"
    skip "a folded parameter set by its name still works, with pcs's deprecation warning" "pcs's modules are not available"
fi

# One recurring monitor per agent (level 0): a deeper one listed in the
# meta-data is created by a plain `pcs resource create` and fails without
# the parameters it needs (heartbeat's nginx lists three).
monitors=""
for agent in $agents; do
    monitors="$monitors $agent:$(xmllint --xpath 'count(//actions/action[@name="monitor"])' \
        "$top_srcdir/metadata/$agent.xml")"
done
is "$monitors" " apache:1 nginx:1 httpmon:1 guard:1" \
    "each agent's meta-data lists one monitor (no deeper one created unless asked)"

"$program" apache usage >/dev/null 2>&1
usage_rc=$?
"$program" apache frobnicate >/dev/null 2>&1
unknown_rc=$?
is "$usage_rc/$unknown_rc" "0/3" "usage answers 0, an unknown action 3 (OCF_ERR_UNIMPLEMENTED)"

tap_done
