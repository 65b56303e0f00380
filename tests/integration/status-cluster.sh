#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# status-cluster.sh: `faultmon status --cluster` reads every node's view of
# every faultmon resource and dependency from the CIB's status section.
# cibadmin is a stand-in (FAULTMON_CIBADMIN) that prints a status section
# of the form a real cluster's has (tests/cluster/deps-3node.sh asks the
# real one), then hostile replies: not XML, no <status>, a failing tool.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 30
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 10

reply=$FM_TMP/reply
rc_file=$FM_TMP/rc
printf '#!/bin/sh\ncat "%s"\nexit "$(cat "%s")"\n' "$reply" "$rc_file" >"$FM_TMP/cibadmin"
chmod 755 "$FM_TMP/cibadmin"
export FAULTMON_CIBADMIN=$FM_TMP/cibadmin
echo 0 >"$rc_file"

nv() { printf '<nvpair id="status-%s-%s" name="%s" value="%s"/>' "$1" "$2" "$2" "$3"; }
node() {
    local n=$1; shift
    printf '<node_state id="%s" uname="node%s" in_ccm="true" crmd="online"><transient_attributes id="%s"><instance_attributes id="status-%s">' "$n" "$n" "$n" "$n"
    printf '%s' "$@"
    printf '</instance_attributes></transient_attributes><lrm id="%s"><lrm_resources/></lrm></node_state>' "$n"
}
{
    # The CIB lists nodes in the order they joined: node3 first here.
    printf '<status>'
    node 3 "$(nv 3 faultmon-dep-tcp-db-5432 up)" "$(nv 3 faultmon-web-reason '')"
    node 1 "$(nv 1 faultmon-web-state up)" "$(nv 1 faultmon-web-weight 0)" \
        "$(nv 1 faultmon-dep-tcp-db-5432 up)" "$(nv 1 fail-count-web#monitor_10000 1)"
    node 2 "$(nv 2 faultmon-dep-tcp-db-5432 down)" "$(nv 2 '#health-faultmon' red)" \
        "$(nv 2 faultmon-db-2-weight 50)" "$(nv 2 faultmon-db-2-state degraded)"
    printf '</status>\n'
} >"$reply"

out=$("$FAULTMON" status --cluster 2>&1)
rc=$?
is "$rc" 0 "status --cluster: exit 0"
like "$(printf '%s\n' "$out" | head -n1)" ' node1 +node2 +node3' "the nodes head the columns, in the order of their names"
like "$(printf '%s\n' "$out" | grep '^resource *web ')" 'web +up \(0\) +- +-' \
    "a resource's state and weight on the node that runs it, '-' elsewhere"
like "$(printf '%s\n' "$out" | grep '^resource *db-2 ')" 'db-2 +- +degraded \(50\) +-' \
    "a resource id with a dash, its weight read before its state"
like "$(printf '%s\n' "$out" | grep '^dependency')" 'tcp-db-5432 +up +down +up' "each node's view of a dependency"
like "$(printf '%s\n' "$out" | grep '^node')" '#health-faultmon +- +red +-' "the node health attribute"
if printf '%s\n' "$out" | grep -q 'fail-count\|reason'; then
    not_ok "other attributes (fail-counts, an empty reason) are not shown"
    diag "$out"
else
    ok "other attributes (fail-counts, an empty reason) are not shown"
fi
json=$("$FAULTMON" status --cluster --json)
is "$json" '{"nodes":["node1","node2","node3"],"rows":[{"kind":"dependency","name":"tcp-db-5432","views":{"node1":"up","node2":"down","node3":"up"}},{"kind":"resource","name":"web","views":{"node1":"up (0)"}},{"kind":"node","name":"#health-faultmon","views":{"node2":"red"}},{"kind":"resource","name":"db-2","views":{"node2":"degraded (50)"}}]}' \
    "--json: the same, node by node"

# CIB text is anyone's who may set a node attribute: a newline, a CR, a C1
# CSI (U+009B) and a bidi override (U+202E) in a node name, an attribute
# name and values come out escaped, and the table keeps its lines (issue 30,
# item 12).
{
    printf '<status>'
    printf '<node_state id="1" uname="node1&#10;resource   web   up (0)"><transient_attributes id="1"><instance_attributes id="s1">'
    nv 1 'faultmon-web&#13;x-state' 'up&#10;resource   db  up'
    nv 1 faultmon-web-weight '0&#155;2J'
    nv 1 faultmon-dep-tcp-db-5432 'up&#8238;nwod'
    nv 1 '#health-faultmon' 'red&#13;node   #health-faultmon   green'
    printf '</instance_attributes></transient_attributes></node_state></status>\n'
} >"$reply"
echo 0 >"$rc_file"
out=$("$FAULTMON" status --cluster 2>&1)
json=$("$FAULTMON" status --cluster --json 2>&1)
why=""
[ "$(printf '%s\n' "$out" | wc -l)" = 5 ] || why="not 5 lines (a header, 4 rows)"
if printf '%s%s' "$out" "$json" | LC_ALL=C grep -q "$(printf '\r\|\302\233\|\342\200\256\|\033')"; then
    why="${why:+$why; }a raw CR, U+009B, U+202E or ESC"
fi
printf '%s\n' "$out" | grep -qF 'node1\x0aresource' || why="${why:+$why; }the node's newline is not shown as \\x0a"
printf '%s\n' "$out" | grep -qF 'up\xe2\x80\xaenwod' || why="${why:+$why; }U+202E not shown as \\xe2\\x80\\xae"
printf '%s\n' "$out" | grep -qF '\xc2\x9b' || why="${why:+$why; }U+009B not shown as \\xc2\\x9b"
if [ -z "$why" ]; then
    ok "CIB text with a newline, CR, U+009B, U+202E: escaped, the table keeps its lines (text and JSON)"
else
    not_ok "CIB text with a newline, CR, U+009B, U+202E: escaped, the table keeps its lines (text and JSON)"
    diag "$why" "$out" "$json"
fi

# Hostile replies: one line each, exit 4, never a table.
results=""
for case in notxml nostatus failing; do
    case $case in
        notxml) printf '<status><node_state uname="node1">' >"$reply"; echo 0 >"$rc_file" ;;
        nostatus) printf '<cib><status/></cib>\n' >"$reply"; echo 0 >"$rc_file" ;;
        failing) printf 'Could not connect to the CIB: Transport endpoint is not connected\n' >"$reply"; echo 102 >"$rc_file" ;;
    esac
    out=$("$FAULTMON" status --cluster 2>&1)
    rc=$?
    results="$results $case:$rc:$(printf '%s\n' "$out" | wc -l)"
done
is "$results" " notxml:4:1 nostatus:4:1 failing:4:1" "not XML, no <status>, a failing cibadmin: exit 4 and one line each"
tap_done
