#!/bin/bash
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
plan 9

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
