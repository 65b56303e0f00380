#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2317  # functions called through fm_ok
# tests/pacemaker3/versions.sh: with FM_CLUSTER_PACEMAKER=PREFIX (and
# FM_CLUSTER_FAULTMON=DESTDIR; tests/pacemaker3/cluster.sh sets both), a
# test cluster's node really runs that Pacemaker and that faultmon: its
# daemons, its tools and faultmon's programs are PREFIX's and DESTDIR's, no
# process of the node maps another Pacemaker's libcrmcommon, and the
# machine's own programs are unchanged.  Without the knob it skips.

[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/../cluster/lib.sh"

if [ -z "${FM_CLUSTER_PACEMAKER:-}" ] || [ -z "${FM_CLUSTER_FAULTMON:-}" ]; then
    echo "1..0 # SKIP FM_CLUSTER_PACEMAKER and FM_CLUSTER_FAULTMON not set (tests/pacemaker3/cluster.sh)"
    exit 0
fi
fm_skip_unless_runnable
pcmk=$FM_CLUSTER_PACEMAKER
want=$("$pcmk/sbin/pacemakerd" --version | head -n 1)
host_before=$(/usr/sbin/pacemakerd --version | head -n 1)

fm_plan 6
fm_cluster_start 1 || fm_bail "single-node cluster did not form"
fm_result 0 "a node on $want formed in ${FM_LAST_MS} ms"

got=$(fm_node_exec node1 pacemakerd --version | head -n 1)
fm_diag "in the node: $got"
[ "$got" = "$want" ]
fm_result $? "pacemakerd --version in the node says '$want'"

tools_ok() {
    local t v rc=0
    for t in crm_mon crm_resource crm_attribute attrd_updater cibadmin crmadmin crm_failcount; do
        v=$(fm_node_exec node1 "$t" --version 2>&1 | head -n 1)
        [ "$v" = "$want" ] || { fm_diag "$t --version: $v"; rc=1; }
    done
    return "$rc"
}
fm_ok "the tools in the node (crm_mon, crm_resource, crm_attribute, attrd_updater, cibadmin, ...) say '$want'" tools_ok

# shellcheck disable=SC2016   # expanded in the node
maps=$(fm_node_exec node1 sh -c 'for p in /proc/[0-9]*; do
    e=$(readlink "$p/exe" 2>/dev/null) || continue
    grep -o "[^ ]*libcrmcommon\.so[^ ]*" "$p/maps" 2>/dev/null | sort -u | sed "s|^|${e##*/} |"
done' | sort -u)
fm_diag "$maps"
daemons_ok() {
    local d
    for d in pacemakerd pacemaker-based pacemaker-fenced pacemaker-execd pacemaker-attrd \
             pacemaker-schedulerd pacemaker-controld; do
        grep -q "^$d $pcmk/lib/libcrmcommon\.so" <<<"$maps" || { fm_diag "$d does not map $pcmk's libcrmcommon"; return 1; }
    done
    ! grep -v " $pcmk/lib/" <<<"$maps" | grep -q .
}
fm_ok "every Pacemaker daemon of the node maps $pcmk/lib/libcrmcommon, no process another one" daemons_ok

fm_in_node_is_ours() {
    local fm agent
    fm=$(fm_node_exec node1 sh -c 'command -v faultmon') || return 1
    agent=$(fm_node_exec node1 readlink -f /usr/lib/ocf/resource.d/faultmon/apache) || return 1
    fm_node_exec node1 cmp -s "$fm" "$FM_CLUSTER_FAULTMON$fm" || { fm_diag "$fm is not the build's"; return 1; }
    fm_node_exec node1 cmp -s "$agent" "$FM_CLUSTER_FAULTMON$agent" || { fm_diag "$agent is not the build's"; return 1; }
    fm_node_exec node1 ldd "$fm" | grep -q "libcrmcommon.* => $pcmk/lib/" ||
        { fm_diag "$(fm_node_exec node1 ldd "$fm" | grep crm)"; return 1; }
}
fm_ok "faultmon and its agents in the node are the build's, linked to $pcmk's libcrmcommon" fm_in_node_is_ours

[ "$(/usr/sbin/pacemakerd --version | head -n 1)" = "$host_before" ] && [ "$host_before" != "$want" ]
fm_result $? "the machine's own pacemakerd is unchanged ($host_before)"
fm_done
