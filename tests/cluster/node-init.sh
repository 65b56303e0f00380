#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# node-init.sh NODEDIR NAME
# node-init.sh --mount-agent NODEDIR PROVIDER DIR
#
# The "init" of one test cluster node.  tests/cluster/lib.sh starts it as
# PID 1 of fresh mount, UTS, IPC and PID namespaces, inside the node's network
# namespace:
#
#   setsid ip netns exec NS unshare --mount --uts --ipc --pid --fork \
#       --kill-child --mount-proc --propagation private node-init.sh DIR NAME
#
# It boots the node the way a machine would: hostname, private copies of the
# cluster's state directories bind-mounted over the real paths (the content
# lives in NODEDIR/root/... on the host and survives a restart of the node,
# like a disk), a fresh /run and /dev/shm (lost on restart, like tmpfs), the
# OCF agent providers listed in NODEDIR/agents, then corosync and pacemakerd;
# or, for a Pacemaker Remote node (NODEDIR/remoted names the daemon), that
# daemon alone, listening on the node's address (NODEDIR/addr).  The
# cluster's shared Pacemaker Remote key, when lib.sh made one
# (NODEDIR/../pacemaker-etc), is bound over /etc/pacemaker in every node.
# SIGTERM stops the node cleanly: pacemakerd first (it stops the node's
# resources), then corosync; pacemaker-remoted asks the cluster to stop the
# node's resources before it exits.  A crash is SIGKILL of the unshare
# process above us: the kernel then kills the whole PID namespace.
#
# With --mount-agent (run inside a live node by lib.sh's fm_install_agents)
# it only makes DIR the OCF provider PROVIDER in the node's mount namespace.
#
# Progress goes to stdout (lib.sh sends it to NODEDIR/init.log); the state the
# harness polls is written to NODEDIR/state: booting, corosync, running,
# stopping, stopped, failed.
#
# Nothing here writes outside NODEDIR and the node's own mounts.

# shellcheck disable=SC2317   # stop_node runs from the trap
set -u
PATH=${PATH:-/usr/sbin:/usr/bin:/sbin:/bin}    # lib.sh passes FM_NODE_PATH in front
export PATH LC_ALL=C
ocf=/usr/lib/ocf/resource.d

# mount_agent NODEDIR PROVIDER DIR: bind DIR over $ocf/PROVIDER.  When the
# machine has no such provider directory (creating one would change the
# machine), the provider list itself is replaced by a node-private tmpfs
# first, with the machine's providers bound back into it.
mount_agent() {
    local host=$1/ocf-host prov=$2 dir=$3 p
    if [ ! -d "$ocf/$prov" ]; then
        if ! mountpoint -q "$host"; then
            mkdir -p "$host" || return 1
            mount --bind "$ocf" "$host" || return 1
            mount -t tmpfs -o mode=0755 tmpfs "$ocf" || return 1
            for p in "$host"/*; do
                [ -d "$p" ] || continue
                mkdir "$ocf/${p##*/}" && mount --bind "$p" "$ocf/${p##*/}" || return 1
            done
        fi
        mkdir -p "$ocf/$prov" || return 1
    fi
    if mountpoint -q "$ocf/$prov"; then umount "$ocf/$prov" || return 1; fi
    mount --bind "$dir" "$ocf/$prov"
}

if [ "${1:-}" = --mount-agent ]; then
    mount_agent "$2" "$3" "$4"
    exit
fi

nodedir=$1
name=$2

log() { printf '%s %s: %s\n' "$(date +%T.%3N)" "$name" "$*"; }
state() { printf '%s\n' "$1" >"$nodedir/state.tmp" && mv -f "$nodedir/state.tmp" "$nodedir/state"; }
die() { log "FATAL: $*"; state failed; exit 1; }

cpid="" ppid=""
stop_node() {
    trap '' TERM INT
    state stopping
    log "stopping"
    if [ -n "$ppid" ] && kill -0 "$ppid" 2>/dev/null; then
        kill -TERM "$ppid"
        # pacemakerd stops the node's resources first; bounded by FM_STOP_TIMEOUT.
        local i=0 max=$(( ${FM_STOP_TIMEOUT:-60} * 10 ))
        while kill -0 "$ppid" 2>/dev/null && [ $i -lt $max ]; do sleep 0.1; i=$((i + 1)); done
        kill -0 "$ppid" 2>/dev/null && { log "pacemakerd did not stop, killing"; kill -KILL "$ppid"; }
    fi
    if [ -n "$cpid" ] && kill -0 "$cpid" 2>/dev/null; then
        kill -TERM "$cpid"
        local j=0
        while kill -0 "$cpid" 2>/dev/null && [ $j -lt 100 ]; do sleep 0.1; j=$((j + 1)); done
    fi
    log "stopped"
    state stopped
    exit 0      # PID 1 exits: the kernel kills whatever is left in the node
}
trap stop_node TERM INT

state booting
hostname "$name" || die "hostname"

# Private state directories.  The first group must exist on the host (they are
# the mount points); the second is privatised only when present, so that
# pcs and crmsh logs of the test do not land in the host's files.
required="/etc/corosync /var/lib/corosync /var/log/corosync /var/lib/pacemaker"
required="$required /var/log/pacemaker /var/lib/heartbeat /srv"
optional="/var/log/crmsh /var/lib/pcsd /var/log/pcsd /var/log/apache2 /var/cache/crm"
r=$nodedir/root
for d in $required $optional; do
    [ -d "$d" ] || { case " $required " in *" $d "*) die "$d missing on this machine";; esac; continue; }
    mkdir -p "$r$d" || die "mkdir $r$d"
done
# Skeleton with the owners and modes the Debian packages use (idempotent).
install -d -m 0755 "$r/etc/corosync/uidgid.d"
install -d -m 0750 -o hacluster -g haclient "$r/var/lib/pacemaker/cib" \
    "$r/var/lib/pacemaker/pengine" "$r/var/lib/pacemaker/blackbox" "$r/var/lib/pacemaker/cores"
chown hacluster:haclient "$r/var/log/pacemaker" && chmod 0770 "$r/var/log/pacemaker"
install -d -m 0755 "$r/var/lib/heartbeat/cores" "$r/var/lib/heartbeat/lrm"
[ -d "$r/var/log/crmsh" ] && chown hacluster:haclient "$r/var/log/crmsh" && chmod 0775 "$r/var/log/crmsh"
chmod 0755 "$r/srv"

for d in $required $optional; do
    [ -d "$r$d" ] || continue
    mount --bind "$r$d" "$d" || die "bind mount $d"
done
if [ -d "$nodedir/../pacemaker-etc" ]; then
    mount --bind "$nodedir/../pacemaker-etc" /etc/pacemaker || die "bind mount /etc/pacemaker"
fi
# A node in a cgroup of its own (lib.sh's FM_NODE_CGROUPS=1) sees the
# cgroup v2 hierarchy as a machine does, so that what it runs finds its
# cgroup, and reads its own pressure there: `ip netns exec` gave the node a
# sysfs of its network namespace, without the machine's cgroup mounts.
if [ "${FM_NODE_CGROUPS:-0}" = 1 ] && ! awk '$3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
    mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 /sys/fs/cgroup || die "mount cgroup2 at /sys/fs/cgroup"
fi
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm || die "tmpfs /dev/shm"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run || die "tmpfs /run"
# /run as a boot rebuilds it (systemd-tmpfiles of the Debian packages).
install -d -m 1777 /run/lock
install -d -m 0750 -o hacluster -g haclient /run/crm
install -d -m 0755 /run/resource-agents /run/pacemaker
ip link set lo up
# OCF providers given to fm_install_agents (for every node, then for this
# one), mounted before Pacemaker can probe anything
for f in "$nodedir/../agents" "$nodedir/agents"; do
    [ -f "$f" ] || continue
    while read -r prov dir; do
        mount_agent "$nodedir" "$prov" "$dir" || die "cannot install OCF provider $prov from $dir"
        log "OCF provider $prov: $dir"
    done < "$f"
done
# Opt-in (lib.sh's FM_CLUSTER_PACEMAKER, FM_CLUSTER_FAULTMON): another
# Pacemaker build's daemons, tools, schemas and agents, and a faultmon built
# against it, bound over the machine's in this node's mounts only.  Its
# libraries have their own sonames and run path: nothing to bind there.
bind_over() {   # bind_over SRC DST: bind SRC over DST when both exist
    [ -e "$1" ] && [ -e "$2" ] || return 0
    mount --bind "$1" "$2" || die "cannot bind $1 over $2"
}
if [ -n "${FM_CLUSTER_PACEMAKER:-}" ]; then
    for f in "$FM_CLUSTER_PACEMAKER"/sbin/* "$FM_CLUSTER_PACEMAKER"/bin/*; do
        bind_over "$f" "/usr/sbin/${f##*/}"
        bind_over "$f" "/usr/bin/${f##*/}"
    done
    bind_over "$FM_CLUSTER_PACEMAKER/libexec/pacemaker" /usr/lib/pacemaker
    bind_over "$FM_CLUSTER_PACEMAKER/share/pacemaker" /usr/share/pacemaker
    bind_over "$FM_CLUSTER_PACEMAKER/lib/ocf/resource.d/pacemaker" "$ocf/pacemaker"
    log "Pacemaker from $FM_CLUSTER_PACEMAKER: $(pacemakerd --version | head -n 1)"
fi
# faultmon's programs: each directory of them in the DESTDIR is laid over
# the machine's (a read-only overlay), not bound file by file: a `make
# install` on the machine meanwhile replaces the files, and the kernel then
# detaches a bind mount on a replaced file in every namespace.
if [ -n "${FM_CLUSTER_FAULTMON:-}" ]; then     # a DESTDIR of faultmon's make install
    while read -r d; do
        t=${d#"$FM_CLUSTER_FAULTMON"}
        [ -d "$t" ] || continue
        mount -t overlay overlay -o "lowerdir=$d:$t" "$t" || die "cannot lay $d over $t"
    done < <(find "$FM_CLUSTER_FAULTMON" -type f -perm -u+x -printf '%h\n' | sort -u)
    log "faultmon from $FM_CLUSTER_FAULTMON"
fi

log "private mounts ready"

# listening PORT: a TCP socket of this node's network listens on PORT
listening() {
    local hex
    hex=$(printf '%04X' "$1")
    grep -qE "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:[0-9A-F]+ 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

remoted=$(cat "$nodedir/remoted" 2>/dev/null)
if [ -n "$remoted" ]; then
    # on the node's IPv4 address (PCMK_remote_address): the daemon's default
    # is every address of both families, and the node's IPv6 is off
    PCMK_logfacility=none PCMK_logfile=/var/log/pacemaker/pacemaker.log \
        PCMK_remote_address=$(cat "$nodedir/addr") "$remoted" &
    ppid=$!
    n=0
    until listening 3121; do
        kill -0 "$ppid" 2>/dev/null || die "pacemaker-remoted exited (see /var/log/pacemaker/pacemaker.log)"
        [ $n -ge 300 ] && die "pacemaker-remoted not listening after 30 s"
        sleep 0.1; n=$((n + 1))
    done
    state running
    log "pacemaker-remoted started (pid $ppid)"
    while kill -0 "$ppid" 2>/dev/null; do
        wait "$ppid"
    done
    log "pacemaker-remoted exited on its own"
    state failed
    exit 1
fi

corosync -f &
cpid=$!
n=0
until corosync-cfgtool -s >/dev/null 2>&1; do
    kill -0 "$cpid" 2>/dev/null || die "corosync exited (see /var/log/corosync/corosync.log)"
    [ $n -ge 300 ] && die "corosync not answering after 30 s"
    sleep 0.1; n=$((n + 1))
done
state corosync
log "corosync up (pid $cpid)"

# Pacemaker logs only to its private log file, never to the host's syslog.
# FM_NODE_PCMK_DEBUG: PCMK_debug for the node (faultmon: the loops' debug
# lines; the daemons and agents inherit it).
env ${FM_NODE_PCMK_DEBUG:+PCMK_debug="$FM_NODE_PCMK_DEBUG"} \
    PCMK_logfacility=none PCMK_logfile=/var/log/pacemaker/pacemaker.log pacemakerd &
ppid=$!
state running
log "pacemakerd started (pid $ppid)"

# Wait for pacemakerd; as PID 1 the shell also reaps every orphan (daemons
# started by the resource agents are re-parented to us).
while kill -0 "$ppid" 2>/dev/null; do
    wait "$ppid"
done
log "pacemakerd exited on its own"
kill -TERM "$cpid" 2>/dev/null
wait "$cpid"
state failed
exit 1
