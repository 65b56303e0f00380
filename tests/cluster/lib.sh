# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/lib.sh: real Pacemaker clusters on one machine, for TAP tests.
# shellcheck shell=bash disable=SC2013,SC2016,SC2034,SC2317
# (SC2034: FM_APACHE_* are for the tests; SC2317: functions called through fm_poll)
#
# Source it from a bash test script:   . "$(dirname "$0")/lib.sh"
# (tests/cluster/smoke.sh is a complete example).
#
# Every node of a test cluster runs as PID 1 of its own network, mount, UTS,
# IPC and PID namespaces (tests/cluster/node-init.sh), with private copies of
# /etc/corosync, /var/lib/corosync, /var/log/corosync, /var/lib/pacemaker,
# /var/log/pacemaker, /var/lib/heartbeat and /srv (the node's "disk": kept
# in the run directory across restarts of the node), a fresh tmpfs on /run
# and /dev/shm at each boot, and its own corosync (knet) and pacemakerd.
# Files outside those paths (/usr, /etc, /tmp...) are the machine's, shared.
#  - 1 node ("loopback" layout): node1 alone in its own network namespace,
#    corosync on 127.0.0.1.  The machine's /etc/corosync, and any cluster
#    already running on the machine, are never touched; both layouts use
#    the same node init.
#  - N >= 2 nodes: a hub namespace holds a bridge (SUBNET.254/24), nodeI has
#    eth0 = SUBNET.(10+I), its veth peer is in the hub.  Nothing is created
#    in the root network namespace except the named namespaces themselves
#    (fmc-PID-node1..., fmc-PID-hub).
# Cluster options are seeded into the CIB before the first start:
# stonith-enabled=false, dc-deadtime=2s, cluster-recheck-interval=1min,
# no-quorum-policy=ignore for 1 or 2 nodes (two_node for 2) and stop for 3+;
# corosync token 1000 ms.  A cluster is online, with an idle DC, in 5-7 s.
# Everything else keeps Pacemaker's defaults (resource-stickiness 0,
# migration-threshold INFINITY...): set what a scenario needs with pcs/crm.
#
# Everything a test starts is stopped by PID and deleted at exit (EXIT trap),
# also when the test fails half-way or is interrupted.  A watchdog process
# bounds the whole test (FM_WATCHDOG seconds): when it fires it makes the
# test print "Bail out!", kills the nodes (which ends any command running
# inside one) and the test's stuck children, and the teardown runs; it also
# cleans up if the test process is SIGKILLed.  Namespaces and run
# directories of an earlier run killed together with its watchdog are
# removed by fm_init.  Do not install EXIT/INT/TERM traps: use fm_at_exit.
# Do not leave background jobs writing to stdout (the TAP driver waits for
# its end).
#
# Requirements (Debian 12), and root: pacemaker pacemaker-cli-utils corosync
# resource-agents apache2 curl libxml2-utils, plus pcs and crmsh for tests that
# configure with them (iproute2 util-linux procps are in every installation).
# fm_skip_unless_runnable turns a missing piece into "1..0 # SKIP".
#
# ---------------------------------------------------------------------------
# API (functions return 0 for success; "echo" = the result is on stdout)
#
# Setup and teardown
#   fm_skip_unless_runnable [PROG...]
#                       print "1..0 # SKIP why" and exit 0 unless root, with
#                       every program the library needs (and PROGs), /srv,
#                       the hacluster user, and network namespaces available
#   fm_init             create the run directory, install the traps, start
#                       the watchdog (fm_cluster_start calls it if needed)
#   fm_at_exit CMD...   run CMD at exit, before the teardown (nodes still up)
#   fm_cluster_start N [PROP=VALUE...]
#                       start an N-node cluster (N=1: loopback layout); the
#                       PROP=VALUE pairs are added to (or override) the seeded
#                       crm_config options; waits until fm_wait_cluster_ready;
#                       FM_LAST_MS = formation time in ms.  One cluster at a
#                       time per test; fm_cluster_destroy before another.
#   fm_cluster_destroy  SIGKILL every node by PID, delete the namespaces; the
#                       run directory stays until exit
#   fm_install_agents PROVIDER DIR [NODE...]
#                       make DIR the OCF provider PROVIDER in the nodes (all
#                       of them, including those started later, when no NODE
#                       is named): a bind mount over
#                       /usr/lib/ocf/resource.d/PROVIDER in each node's mount
#                       namespace (when the machine has no such directory,
#                       over a node-private tmpfs copy of the provider list);
#                       the machine's files are never changed.  May be called
#                       before fm_cluster_start; redone at every boot of a
#                       node, before Pacemaker starts.  Not needed when the
#                       agents are installed on the machine (make install):
#                       the nodes see /usr/lib/ocf/resource.d as it is.
#   fm_agent_dir FILE[=NAME]...
#                       echo a new directory of symbolic links NAME -> FILE
#                       (NAME defaults to FILE's basename), for
#                       fm_install_agents when the agents sit among other files
#                       (call fm_init before using it inside "$(...)")
#
# Nodes (node1 ... nodeN)
#   fm_nodes            echo the nodes of the current cluster
#   fm_live_nodes       echo the nodes whose init is running
#   fm_node_addr NODE   echo the node's address (127.0.0.1 for 1 node)
#   fm_node_dir NODE    echo the node's directory on the machine; the node's
#                       /srv is $(fm_node_dir NODE)/root/srv, its logs are
#                       init.log and root/var/log/{pacemaker,corosync}/
#   fm_node_pid NODE    echo the machine PID of the node's init (for nsenter)
#   fm_node_exec NODE CMD...
#                       run CMD inside the node (all its namespaces; HOME is
#                       a node-private directory), bounded by FM_CMD_TIMEOUT;
#                       stdin, stdout, stderr and exit status pass through.
#                       Every cluster command (crm_mon, crm, pcs,
#                       crm_resource, attrd_updater, faultmon) must run so.
#   fm_hub_exec CMD...  run CMD in the hub network namespace (N >= 2 only):
#                       a client outside every node
#   fm_node_crash NODE  SIGKILL the node's whole PID namespace (a power cut);
#                       returns when every process of the node is gone
#   fm_node_stop NODE   clean shutdown: pacemakerd stops the node's resources
#                       (the cluster moves them), then corosync stops
#   fm_node_start NODE  boot a stopped or crashed node again (same disk, new
#                       /run); returns once corosync and pacemakerd run: then
#                       fm_wait_cluster_ready.  After fm_node_crash, first
#                       fm_wait_node_state NODE offline: a node that reboots
#                       within the token timeout is never seen gone.
#
# Pacemaker Remote nodes (remote1 ... remoteN; opt-in, beside the cluster)
#   fm_skip_unless_remote   "1..0 # SKIP" without pacemaker-remoted or
#                       /etc/pacemaker (fm_skip_unless_runnable first)
#   fm_remote_start N   (after fm_cluster_start with 2 nodes or more) start N
#                       more remote nodes: each a namespace set of its own on
#                       the hub's bridge, eth0 = SUBNET.(100+K), the same
#                       private directories and /run as a cluster node,
#                       pacemaker-remoted (port 3121) instead of corosync and
#                       pacemakerd; one shared /etc/pacemaker/authkey (a
#                       directory of the run bound over /etc/pacemaker in
#                       every node, cluster nodes included); the connection
#                       resource remoteK (ocf:pacemaker:remote server=ADDR,
#                       monitor FM_REMOTE_MONITOR, start timeout
#                       FM_REMOTE_START_TIMEOUT) created in the CIB; returns
#                       once fm_wait_cluster_ready sees them online.
#                       FM_LAST_MS = the time that took.
#   fm_remote_nodes     echo the remote nodes started
#   fm_node_exec, fm_node_addr, fm_node_dir, fm_node_crash, fm_node_stop
#   (SIGTERM: pacemaker-remoted asks the cluster to stop the node's
#   resources first; no test of this library exercises it yet),
#   fm_apache_setup NODE..., fm_http_remote and the log saving take remote
#   nodes too; fm_install_agents without NODE reaches them; the teardown and
#   the watchdog kill them.  fm_nodes and fm_live_nodes stay the cluster
#   nodes (cluster commands run there).  fm_node_start boots a remote node
#   again; its connection resource, if it failed meanwhile, needs
#   fm_cleanup remoteK before fm_wait_cluster_ready.
#
# Cluster state (asked of a live node, from crm_mon -1 --output-as=xml)
#   fm_crm_mon [NODE]   echo crm_mon's XML
#   fm_wait_cluster_ready [TIMEOUT_S]
#                       every node started and not crashed or stopped since is
#                       online and not pending, a DC is elected, and the
#                       cluster is idle (fm_wait_idle); fails at once if a
#                       node's init died
#   fm_wait_idle [TIMEOUT_S]
#                       the DC is in S_IDLE and the scheduler has no action
#                       left (what crm_resource --wait checks, without its 2 s
#                       sleeps)
#   fm_dc               echo the DC's name
#   fm_node_state NODE  echo online, offline, pending, unclean or standby
#   fm_wait_node_state NODE STATE [TIMEOUT_S]
#   fm_resource_nodes RSC
#                       echo the nodes where RSC (or an instance of clone
#                       RSC) is active, Started/Promoted/Unpromoted and not
#                       failed, one per line, sorted
#   fm_wait_resource RSC WHERE [TIMEOUT_S]
#                       wait until RSC runs on NODE, !NODE (some other node),
#                       any (some node) or none (no node); echo its node(s)
#   fm_failcount RSC NODE   echo the fail-count (0 when none, INFINITY)
#   fm_failures [RSC]   echo the failed operations crm_mon shows (the last one
#                       of each operation on each node), oldest first, one per
#                       line, tab-separated: rsc node task interval_ms exitcode
#                       exitstatus exitreason last-rc-change
#   fm_exit_reason RSC [NODE]   echo the exit reason of RSC's latest failure
#   fm_cleanup RSC      crm_resource --cleanup -r RSC (fail-counts, history)
#
# Apache (one per node, started by a resource agent from the node's /run)
#   fm_apache_setup [NODE...]
#                       (after fm_cluster_start) write a minimal Apache
#                       configuration, document root
#                       (index.html, /health: 200 "ok NODE") and error log
#                       into each node's private /srv.  The paths are the same
#                       on every node (the content is the node's):
#                       FM_APACHE_CONF       /srv/apache/httpd.conf
#                       FM_APACHE_STATUSURL  http://127.0.0.1/server-status
#                       FM_APACHE_PIDFILE    /var/run/apache-fm/httpd.pid
#                       Listen 80 (every address of the node), mod_status for
#                       127.0.0.1: what ocf:heartbeat:apache's monitor greps.
#                       e.g. crm configure primitive web ocf:heartbeat:apache \
#                         params configfile=$FM_APACHE_CONF \
#                         statusurl=$FM_APACHE_STATUSURL op monitor interval=10s
#   fm_http NODE [PATH] [TIMEOUT_S]
#                       echo the HTTP status of http://127.0.0.1PATH fetched
#                       inside NODE (000: no answer within TIMEOUT_S, 1 s)
#   fm_http_remote NODE [PATH] [TIMEOUT_S]
#                       the same from the hub, to the node's address (inside
#                       the node for 1 node)
#   fm_wait_serving NODE [PATH] [TIMEOUT_S]   poll fm_http_remote until 200
#   fm_httpd_kill NODE [SIGNAL]   send SIGNAL (KILL) to every httpd of NODE
#
# Time and polling
#   fm_now_ms           echo wall-clock milliseconds
#   fm_since_ms T0      echo milliseconds since T0 (a fm_now_ms value)
#   fm_poll TIMEOUT_S CMD...   run CMD every FM_POLL_S s until it succeeds;
#                       1 on timeout (CMD may be a function of the test)
#   fm_timing NAME VALUE [NOTE]  record a timing (VALUE in ms, or "-")
#   fm_timings_report [FILE]    print the timings as "# " lines and write
#                       them to FILE (default FM_TIMINGS_FILE)
#
# TAP
#   fm_plan N; fm_ok DESC CMD... (runs CMD); fm_result STATUS DESC;
#   fm_skip DESC WHY; fm_diag TEXT...; fm_bail TEXT; fm_done (exits 0 when
#   every test passed).  A failed test prints crm_mon's view as diagnostics;
#   at exit after a failure the nodes' logs are copied to FM_LOG_DIR.
#
# Settings (environment)
#   FM_WATCHDOG=280     hard limit of the whole test, seconds
#   FM_FORM_TIMEOUT=60  cluster formation limit, seconds
#   FM_CMD_TIMEOUT=60   limit of one fm_node_exec, seconds
#   FM_STOP_TIMEOUT=60  limit of a clean node stop, seconds
#   FM_TOKEN=1000       corosync token, ms
#   FM_SUBNET=192.168.234   hub subnet (exists only inside the namespaces)
#   FM_NODE_PATH        directories put before PATH in the nodes' daemons
#                       (and so in the resource agents they run)
#   FM_NODE_CGROUPS=1   each node's processes in a cgroup v2 of their own
#                       (CGROUP2/fmc-PID/NODE), so that a node feels its
#                       own pressure (PSI) as a machine does; with it,
#                       fm_node_cgroup NODE echoes that cgroup's directory
#                       and fm_node_exec_cg NODE CMD... runs CMD inside the
#                       node and its cgroup (fm_node_exec keeps the caller's)
#   FM_CLUSTER_PACEMAKER=PREFIX   (off by default) run the nodes on another
#                       Pacemaker build installed under PREFIX
#                       (tests/pacemaker3/build-pacemaker.sh): node-init.sh
#                       binds its daemons, tools, schemas and OCF agents over
#                       the machine's in each node's mount namespace only
#   FM_CLUSTER_FAULTMON=DESTDIR   (off by default) the same for the faultmon
#                       programs of a `make install DESTDIR=...` (one built
#                       against that Pacemaker: tests/pacemaker3/cluster.sh)
#   FM_NODE_PCMK_DEBUG  PCMK_debug for the nodes' pacemakerd (and so for
#                       the agents and faultmon's loops: "faultmon" logs
#                       the loops' debug lines, such as each cycle's delay)
#   FM_PACEMAKER_REMOTED    the pacemaker-remoted to run (default: PATH,
#                       then what tests/install-deps.sh unpacked)
#   FM_REMOTE_MONITOR=5s, FM_REMOTE_START_TIMEOUT=8s   the connections' ops
#   FM_POLL_S=0.1       polling period, seconds
#   FM_KEEP=1           keep the run directory at exit (debugging)
#   FM_TOP_BUILDDIR     where results go (default: the current directory)
#   FM_TIMINGS_FILE     default $FM_TOP_BUILDDIR/tests/cluster/NAME-timings.txt
#   FM_LOG_DIR          default $FM_TOP_BUILDDIR/tests/cluster/NAME-logs
#   (NAME: the test script's name without .sh)
# ---------------------------------------------------------------------------

[ -n "${BASH_VERSION:-}" ] || { echo "lib.sh needs bash" >&2; exit 2; }

FM_LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FM_TEST_NAME=${FM_TEST_NAME:-$(basename "$0" .sh)}
: "${FM_WATCHDOG:=280}"
: "${FM_FORM_TIMEOUT:=60}"
: "${FM_CMD_TIMEOUT:=60}"
: "${FM_STOP_TIMEOUT:=60}"
: "${FM_TOKEN:=1000}"
: "${FM_SUBNET:=192.168.234}"
: "${FM_POLL_S:=0.1}"
FM__START_PWD=$PWD
FM__TMP=${TMPDIR:-/tmp}; FM__TMP=${FM__TMP%/}; FM__TMP=${FM__TMP:-/}   # run directories: FM__TMP/fmc-PID.XXXXXX
# FM_TOP_BUILDDIR, FM_TIMINGS_FILE, FM_LOG_DIR are read when used (a test may set them after sourcing)
fm__timings_file() { echo "${FM_TIMINGS_FILE:-${FM_TOP_BUILDDIR:-$FM__START_PWD}/tests/cluster/$FM_TEST_NAME-timings.txt}"; }
fm__log_dir() { echo "${FM_LOG_DIR:-${FM_TOP_BUILDDIR:-$FM__START_PWD}/tests/cluster/$FM_TEST_NAME-logs}"; }

FM_APACHE_CONF=/srv/apache/httpd.conf
FM_APACHE_STATUSURL=http://127.0.0.1/server-status
FM_APACHE_PIDFILE=/var/run/apache-fm/httpd.pid   # ocf_mkstatedir wants /var/run
FM_OCF_DIR=/usr/lib/ocf/resource.d
FM_NS_PREFIX=fmc-$$-            # netns names: fmc-<pid of the test>-node1, -hub
FM_RUN=""                       # run directory (set by fm_init)
FM_LAST_MS=""
FM_TAP_N=0
FM_TAP_FAILED=0
FM_TIMINGS=()
FM_AT_EXIT=()

# ---------------------------------------------------------------- utilities

fm_now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; echo $(( t / 1000 )); }
fm_since_ms() { echo $(( $(fm_now_ms) - $1 )); }

# fm__log TEXT: progress on stderr (goes to the test's .log under make)
fm__log() { printf '%s %s\n' "$(date +%T.%3N)" "$*" >&2; }

fm_poll() {
    local timeout=$1; shift
    local deadline=$(( $(fm_now_ms) + ${timeout%.*} * 1000 ))
    while :; do
        "$@" && return 0
        (( $(fm_now_ms) >= deadline )) && return 1
        sleep "$FM_POLL_S"
    done
}

# fm__alive PID: the process exists and is not a zombie
fm__alive() {
    local s
    [ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] || return 1
    read -r s < "/proc/$1/stat" 2>/dev/null || return 1
    s=${s##*) }
    [ "${s%% *}" != Z ]
}

fm__xpath() {   # fm__xpath XPATH < XML: string value, empty when none
    xmllint --xpath "string($1)" - 2>/dev/null
}

fm__xpath_attrs() {     # fm__xpath_attrs XPATH-to-attributes < XML: one value per line
    xmllint --xpath "$1" - 2>/dev/null | sed -n 's/^ *[a-zA-Z_-]*="\(.*\)"$/\1/p'
}

# ---------------------------------------------------------------------- TAP

fm_plan() { echo "1..$1"; }
fm_diag() { local l; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done; }
fm_result() {
    local st=$1; shift
    FM_TAP_N=$((FM_TAP_N + 1))
    if [ "$st" -eq 0 ]; then
        echo "ok $FM_TAP_N - $*"
    else
        echo "not ok $FM_TAP_N - $*"
        FM_TAP_FAILED=$((FM_TAP_FAILED + 1))
        fm__diag_state
    fi
    return "$st"
}
fm_ok() { local d=$1; shift; "$@"; fm_result $? "$d"; }
fm_skip() { FM_TAP_N=$((FM_TAP_N + 1)); echo "ok $FM_TAP_N - $1 # SKIP ${2:-}"; }
fm_bail() { echo "Bail out! $*"; FM_TAP_FAILED=$((FM_TAP_FAILED + 1)); exit 1; }
fm_done() { [ "$FM_TAP_FAILED" -eq 0 ]; exit $?; }
fm__diag_state() {
    [ -n "$FM_RUN" ] && [ -n "$(fm_live_nodes)" ] || return 0
    local n; n=$(fm_live_nodes | head -n1)
    fm_diag "crm_mon on $n:"
    fm_diag "$(fm_node_exec "$n" timeout 10 crm_mon -1 -r -f 2>&1 | head -n 40)"
}

fm_skip_unless_runnable() {
    local p missing=""
    [ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP cluster tests need root"; exit 0; }
    for p in corosync corosync-cfgtool pacemakerd crm_mon crm_resource crm_attribute \
             crm_failcount crm_simulate crmadmin cibadmin ip unshare nsenter setsid timeout pgrep \
             mountpoint xmllint curl "$@"; do
        command -v "$p" >/dev/null 2>&1 || PATH=/usr/sbin:/sbin:$PATH command -v "$p" >/dev/null 2>&1 \
            || missing="$missing $p"
    done
    [ -z "$missing" ] || { echo "1..0 # SKIP missing:$missing"; exit 0; }
    [ -d /srv ] || { echo "1..0 # SKIP no /srv directory to use as the nodes' private mount point"; exit 0; }
    id hacluster >/dev/null 2>&1 || { echo "1..0 # SKIP no hacluster user (pacemaker not installed?)"; exit 0; }
    if ip netns add "${FM_NS_PREFIX}probe" 2>/dev/null; then
        ip netns del "${FM_NS_PREFIX}probe"
    else
        echo "1..0 # SKIP cannot create network namespaces here"; exit 0
    fi
}

# ---------------------------------------------------------------- lifecycle

fm_at_exit() { FM_AT_EXIT+=("$*"); }

fm_init() {
    [ -n "$FM_RUN" ] && return 0
    if [ "$BASHPID" != $$ ]; then     # e.g. inside "$(...)": its traps would end it at once
        fm__log "fm_init must run in the test's shell, not in a subshell (call fm_init first)"
        return 1
    fi
    PATH=/usr/sbin:/sbin:$PATH
    export PATH
    fm__reap_stale
    FM_RUN=$(mktemp -d "$FM__TMP/fmc-$$.XXXXXX") || fm_bail "mktemp failed"
    chmod 0755 "$FM_RUN"        # daemons running as hacluster/www-data walk into it
    : > "$FM_RUN/netns"
    : > "$FM_RUN/nodes"
    trap 'fm__on_exit' EXIT
    trap 'fm__on_signal INT' INT
    trap 'fm__on_signal TERM' TERM
    trap 'fm__on_signal HUP' HUP
    fm__watchdog "$$" "$FM_WATCHDOG" "$FM_RUN" >&2 </dev/null &
    FM_WATCHDOG_PID=$!
}

fm__on_signal() {
    if [ -e "$FM_RUN/watchdog-fired" ]; then
        fm__bail_watchdog
    else
        echo "Bail out! interrupted by SIG$1"
    fi
    FM_TAP_FAILED=$((FM_TAP_FAILED + 1))
    exit 1
}

fm__bail_watchdog() {
    [ -n "${FM_WATCHDOG_REPORTED:-}" ] && return 0
    FM_WATCHDOG_REPORTED=1
    echo "Bail out! watchdog: the test ran longer than FM_WATCHDOG=${FM_WATCHDOG}s"
}

fm__on_exit() {
    local rc=$? c
    trap - EXIT INT TERM HUP
    # the watchdog may fire while the test is ending on its own: a test that
    # outlived FM_WATCHDOG fails whatever it printed
    if [ -n "$FM_RUN" ] && [ -e "$FM_RUN/watchdog-fired" ]; then
        fm__bail_watchdog
        [ "$rc" -ne 0 ] || rc=1
    fi
    [ -n "${FM_WATCHDOG_PID:-}" ] && kill -TERM "$FM_WATCHDOG_PID" 2>/dev/null
    for c in "${FM_AT_EXIT[@]}"; do eval "$c" || true; done
    if [ -n "$FM_RUN" ] && [ -d "$FM_RUN" ]; then
        if [ "$rc" -ne 0 ] || [ "$FM_TAP_FAILED" -ne 0 ]; then fm__save_logs; fi
        fm__teardown "$FM_RUN"
        if [ -n "${FM_KEEP:-}" ]; then
            fm__log "FM_KEEP: run directory kept: $FM_RUN"
        else
            fm__rm_run "$FM_RUN"
        fi
    fi
    [ -n "${FM_WATCHDOG_PID:-}" ] && wait "$FM_WATCHDOG_PID" 2>/dev/null
    exit "$rc"
}

fm__rm_run() {  # remove a run directory of ours (never a path we did not make)
    case $1 in
        "$FM__TMP"/fmc-[0-9]*.*) rm -rf --one-file-system -- "$1" ;;
        *) fm__log "refusing to remove $1" ;;
    esac
}

# fm__kill_node_pid SIGNAL PID RUNDIR: signal PID only while it is still a
# process of one of RUNDIR's namespaces.  A node's PID in its upid/ipid file
# outlives the node, and with pid_max 32768 the number comes back soon, for
# a process of anything, another cluster test's node included (make -j2 runs
# two cluster tests at once): a stale number must never be signalled.
fm__kill_node_pid() {
    local sig=$1 p=$2 run=$3 ns
    ns=$(ip netns identify "$p" 2>/dev/null) || return 1
    [ -n "$ns" ] && grep -qxF "$ns" "$run/netns" 2>/dev/null || return 1
    kill "-$sig" "$p" 2>/dev/null
}

# fm__teardown RUNDIR: kill every node by PID, delete the namespaces.  Reads
# only files of RUNDIR, so the watchdog (a forked copy) can run it too.
fm__teardown() {
    local run=$1 n p ns pids=""
    [ -d "$run" ] || return 0
    for n in $(cat "$run/nodes" "$run/remotes" 2>/dev/null); do
        for p in $(cat "$run/$n/upid" "$run/$n/ipid" 2>/dev/null); do
            fm__kill_node_pid KILL "$p" "$run" && pids="$pids $p"
        done
        rm -f "$run/$n/upid" "$run/$n/ipid"
    done
    for p in $pids; do
        local i=0
        while fm__alive "$p" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    done
    for ns in $(cat "$run/netns" 2>/dev/null); do
        # processes left in the namespace (e.g. an fm_node_exec in flight)
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    # shellcheck disable=SC2046   # one directory per line, no blanks
    fm__cgroups_remove $(cat "$run/cgroups" 2>/dev/null)
    : > "$run/netns"
    : > "$run/nodes"
    : > "$run/remotes"
    : > "$run/cgroups"
}

# fm__reap_stale: remove namespaces and run directories left by a test run
# whose process is gone (killed together with its watchdog).
fm__reap_stale() {
    local ns pid p d
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^fmc-[0-9]+-'); do
        pid=${ns#fmc-}; pid=${pid%%-*}
        fm__alive "$pid" && continue
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null && fm__log "removed stale namespace $ns"
    done
    local mnt; mnt=$(fm__cgroup2_mount)
    for d in ${mnt:+"$mnt"/fmc-[0-9]*}; do
        [ -d "$d" ] || continue
        pid=${d##*/fmc-}
        fm__alive "$pid" && continue
        fm__cgroups_remove "$d"
    done
    for d in "$FM__TMP"/fmc-[0-9]*.*; do
        [ -d "$d" ] || continue
        pid=${d##*/fmc-}; pid=${pid%%.*}
        fm__alive "$pid" && continue
        fm__rm_run "$d" && fm__log "removed stale run directory $d"
    done
}

fm__watchdog() {
    local main=$1 secs=$2 run=$3 start=$SECONDS nap="" n p i
    trap - EXIT INT HUP
    trap '[ -n "$nap" ] && { kill "$nap"; wait "$nap"; } 2>/dev/null; exit 0' TERM
    while fm__alive "$main"; do
        if (( SECONDS - start >= secs )); then
            : > "$run/watchdog-fired"
            fm__log "watchdog: ${secs}s elapsed, stopping the test and killing the cluster"
            # TERM first: the test's trap then runs as soon as its current
            # command ends, which killing the nodes makes happen at once for
            # any command running inside a node
            kill -TERM "$main" 2>/dev/null
            for n in $(cat "$run/nodes" "$run/remotes" 2>/dev/null); do
                for p in $(cat "$run/$n/upid" "$run/$n/ipid" 2>/dev/null); do fm__kill_node_pid KILL "$p" "$run"; done
            done
            i=0
            while fm__alive "$main" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
            # still there: it waits for a command on the machine itself
            if fm__alive "$main"; then
                for p in $(pgrep -P "$main"); do [ "$p" = "$BASHPID" ] || kill -KILL "$p" 2>/dev/null; done
                i=0
                while fm__alive "$main" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
            fi
            if fm__alive "$main"; then
                fm__log "watchdog: the test does not end, SIGKILL"
                kill -KILL "$main" 2>/dev/null
            fi
            break
        fi
        sleep 1 & nap=$!
        wait "$nap"
        nap=""
    done
    # the test is gone; if it could not clean up (SIGKILL), do it here
    if [ -d "$run" ] && { [ -s "$run/nodes" ] || [ -s "$run/netns" ]; }; then
        fm__log "watchdog: cleaning up after the test"
        fm__teardown "$run"
        [ -z "${FM_KEEP:-}" ] && fm__rm_run "$run"
    fi
    exit 0
}

fm__save_logs() {   # copy the nodes' logs (also of earlier clusters: oldK/) to the log directory
    local n d f dir
    [ -n "$(ls -d "$FM_RUN"/node* "$FM_RUN"/old*/node* "$FM_RUN"/remote[0-9]* 2>/dev/null)" ] || return 0
    dir=$(fm__log_dir)
    rm -rf "$dir"
    mkdir -p "$dir" 2>/dev/null || return 0
    for d in "$FM_RUN"/old*/node* "$FM_RUN"/old*/remote[0-9]* "$FM_RUN"/node* "$FM_RUN"/remote[0-9]*; do
        [ -d "$d" ] || continue
        n=${d#"$FM_RUN"/}
        mkdir -p "$dir/$n"
        for f in init.log root/var/log/pacemaker/pacemaker.log root/var/log/corosync/corosync.log \
                 root/srv/apache/error.log; do
            [ -f "$d/$f" ] && cp "$d/$f" "$dir/$n/" 2>/dev/null
        done
    done
    fm__log "node logs saved in $dir"
}

# ------------------------------------------------------------------ cluster

fm_nodes() { cat "$FM_RUN/nodes" 2>/dev/null; }
fm_live_nodes() {
    local n
    for n in $(fm_nodes); do fm__alive "$(cat "$FM_RUN/$n/ipid" 2>/dev/null)" && echo "$n"; done
}
fm_node_dir() { echo "$FM_RUN/$1"; }
fm_node_pid() { cat "$FM_RUN/$1/ipid" 2>/dev/null; }
fm_node_addr() { cat "$FM_RUN/$1/addr"; }
fm__ns() { echo "${FM_NS_PREFIX}$1"; }

fm__seed_cib() {     # fm__seed_cib FILE N [PROP=VALUE...]
    local f=$1 n=$2 kv; shift 2
    local nqp=stop
    [ "$n" -le 2 ] && nqp=ignore
    # FM_CLUSTER_PACEMAKER: a CIB of that Pacemaker's, with its name of the
    # option (3.0.2 deprecated stonith-enabled, and crmsh refuses to commit
    # while crm_verify warns about a deprecated name)
    local tools="${FM_CLUSTER_PACEMAKER:+$FM_CLUSTER_PACEMAKER/sbin/}" fencing=stonith-enabled
    "${tools}crm_attribute" --list-options=cluster --all 2>/dev/null | grep -q " fencing-enabled:" && fencing=fencing-enabled
    "${tools}cibadmin" --empty > "$f" || return 1
    for kv in $fencing=false no-quorum-policy=$nqp dc-deadtime=2s \
              cluster-recheck-interval=1min "$@"; do
        CIB_file=$f "${tools}crm_attribute" -t crm_config -n "${kv%%=*}" -v "${kv#*=}" || return 1
    done
}

fm__corosync_conf() {    # fm__corosync_conf N ADDR... > corosync.conf
    local n=$1 i=1 a; shift
    cat <<EOF
# written by faultmon's tests/cluster/lib.sh
totem {
	version: 2
	cluster_name: fmtest
	transport: knet
	ip_version: ipv4
	crypto_cipher: none
	crypto_hash: none
	token: $FM_TOKEN
	token_coefficient: 0
}
logging {
	to_stderr: no
	to_syslog: no
	to_logfile: yes
	logfile: /var/log/corosync/corosync.log
	timestamp: hires
}
quorum {
	provider: corosync_votequorum
EOF
    [ "$n" -eq 2 ] && printf '\ttwo_node: 1\n'
    printf '}\nnodelist {\n'
    for a in "$@"; do
        printf '\tnode {\n\t\tname: node%d\n\t\tnodeid: %d\n\t\tring0_addr: %s\n\t}\n' "$i" "$i" "$a"
        i=$((i + 1))
    done
    printf '}\n'
}

# A node that dies while the cluster forms (seen in CI rehearsals while
# another cluster test ran beside it: its init SIGKILLed from outside, no
# faultmon resource in the cluster yet, twice in a row once) is the
# harness's trouble, not the tested program's: the whole cluster is torn
# down and formed again, at most twice, a moment later each time.  Each
# death is logged with its evidence (fm__death_evidence).
fm_cluster_start() {
    local attempt
    fm__cluster_start_once "$@" && return 0
    for attempt in 2 3; do
        [ -n "${FM_RUN:-}" ] && [ -s "$FM_RUN/nodes" ] || return 1
        fm__log "the cluster did not form; tearing it down and forming it again (attempt $attempt of 3)"
        fm__teardown "$FM_RUN"
        sleep $((attempt - 1))
        fm__cluster_start_once "$@" && return 0
    done
    return 1
}

fm__cluster_start_once() {
    local n=$1; shift
    local t0 i node ns addrs=() hub
    fm_init || return 1
    [ -s "$FM_RUN/nodes" ] && { fm__log "a cluster is already running"; return 1; }
    [ "$n" -ge 1 ] 2>/dev/null || { fm__log "fm_cluster_start: bad node count '$n'"; return 1; }
    t0=$(fm_now_ms)
    # the node directories of an earlier cluster of this test: set aside (a
    # new cluster starts from empty disks), kept for the logs until exit
    local old k=1
    for old in "$FM_RUN"/node* "$FM_RUN"/remote[0-9]*; do
        [ -d "$old" ] || continue
        while [ -e "$FM_RUN/old$k" ] && [ -e "$FM_RUN/old$k/${old##*/}" ]; do k=$((k + 1)); done
        mkdir -p "$FM_RUN/old$k" && mv "$old" "$FM_RUN/old$k/"
    done
    # network
    if [ "$n" -eq 1 ]; then
        addrs=(127.0.0.1)
    else
        hub=$(fm__ns hub)
        ip netns add "$hub" || return 1
        echo "$hub" >> "$FM_RUN/netns"
        ip netns exec "$hub" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
        ip -n "$hub" link set lo up
        ip -n "$hub" link add br0 type bridge forward_delay 0 stp_state 0 || return 1
        ip -n "$hub" addr add "$FM_SUBNET.254/24" dev br0
        ip -n "$hub" link set br0 up
        for ((i = 1; i <= n; i++)); do addrs+=("$FM_SUBNET.$((10 + i))"); done
    fi
    local conf; conf=$(fm__corosync_conf "$n" "${addrs[@]}")
    fm__seed_cib "$FM_RUN/seed.xml" "$n" "$@" || { fm__log "cannot seed the CIB"; return 1; }
    for ((i = 1; i <= n; i++)); do
        node=node$i ns=$(fm__ns "$node")
        ip netns add "$ns" || return 1
        echo "$ns" >> "$FM_RUN/netns"
        echo "$node" >> "$FM_RUN/nodes"
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
        ip -n "$ns" link set lo up
        if [ "$n" -gt 1 ]; then
            ip link add eth0 netns "$ns" type veth peer name "vn$i" netns "$hub" || return 1
            ip -n "$hub" link set "vn$i" master br0 up
            ip -n "$ns" addr add "${addrs[i - 1]}/24" dev eth0
            ip -n "$ns" link set eth0 up
        fi
        local d=$FM_RUN/$node
        mkdir -p "$d/home" "$d/root/etc/corosync" "$d/root/var/lib/pacemaker/cib"
        echo "${addrs[i - 1]}" > "$d/addr"
        printf '%s\n' "$conf" > "$d/root/etc/corosync/corosync.conf"
        install -o hacluster -g haclient -m 0600 "$FM_RUN/seed.xml" "$d/root/var/lib/pacemaker/cib/cib.xml"
        chown hacluster:haclient "$d/root/var/lib/pacemaker/cib"; chmod 0750 "$d/root/var/lib/pacemaker/cib"
    done
    for node in $(fm_nodes); do fm__node_launch "$node" || return 1; done
    for node in $(fm_nodes); do fm__node_wait_booted "$node" || return 1; done
    fm_wait_cluster_ready "$FM_FORM_TIMEOUT" || return 1
    FM_LAST_MS=$(fm_since_ms "$t0")
    fm__log "cluster of $n node(s) ready in ${FM_LAST_MS} ms"
}

fm_cluster_destroy() {
    [ -n "$FM_RUN" ] || return 0
    fm__teardown "$FM_RUN"
}

fm__node_launch() {
    local node=$1 d=$FM_RUN/$1 upid ipid="" i=0 join=()
    rm -f "$d/state" "$d/upid" "$d/ipid"
    : > "$d/wanted"
    if [ "${FM_NODE_CGROUPS:-0}" = 1 ]; then
        local cg
        cg=$(fm__node_cgroup_make "$node") || return 1
        # the node joins its cgroup before its first process starts, so
        # that everything it runs (the daemons, the agents, faultmon's
        # loops) is counted there; before `ip netns exec`, which gives
        # what it runs a sysfs of the namespace's, without the cgroup
        # mounts (node-init.sh mounts the cgroup2 hierarchy again)
        # shellcheck disable=SC2016   # expanded by that sh
        join=(sh -c 'echo 0 >"$0/cgroup.procs" && exec "$@"' "$cg")
    fi
    setsid "${join[@]}" ip netns exec "$(fm__ns "$node")" \
        unshare --mount --uts --ipc --pid --fork --kill-child --mount-proc --propagation private \
        env -i PATH="${FM_NODE_PATH:+$FM_NODE_PATH:}/usr/sbin:/usr/bin:/sbin:/bin" LANG=C.UTF-8 FM_STOP_TIMEOUT="$FM_STOP_TIMEOUT" \
        FM_NODE_CGROUPS="${FM_NODE_CGROUPS:-0}" FM_CLUSTER_PACEMAKER="${FM_CLUSTER_PACEMAKER:-}" \
        FM_NODE_PCMK_DEBUG="${FM_NODE_PCMK_DEBUG:-}" \
        FM_CLUSTER_FAULTMON="${FM_CLUSTER_FAULTMON:-}" bash "$FM_LIBDIR/node-init.sh" "$d" "$node" </dev/null >>"$d/init.log" 2>&1 &
    upid=$!
    disown "$upid"  # no "Killed" job notices; the PIDs are tracked in files
    echo "$upid" > "$d/upid"
    # the init is unshare's only child
    while [ -z "$ipid" ]; do
        ipid=$(pgrep -P "$upid" 2>/dev/null | head -n1)
        [ -n "$ipid" ] && break
        fm__alive "$upid" || { fm__log "$node: unshare exited at once (see $d/init.log)"; return 1; }
        [ $i -ge 100 ] && { fm__log "$node: no init process after 10 s"; return 1; }
        sleep 0.05; i=$((i + 1))
    done
    echo "$ipid" > "$d/ipid"
}

# fm__cgroup2_mount: where the cgroup v2 hierarchy is mounted (a hybrid
# machine has it at /sys/fs/cgroup/unified, a v2-only one at /sys/fs/cgroup)
fm__cgroup2_mount() { awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts; }

# fm__node_cgroup_make NODE: create NODE's cgroup (directly under the
# hierarchy's root, which may hold processes whatever controllers are on)
fm__node_cgroup_make() {
    local mnt cg
    mnt=$(fm__cgroup2_mount)
    [ -n "$mnt" ] || { fm__log "FM_NODE_CGROUPS=1: no cgroup2 hierarchy is mounted"; return 1; }
    cg=$mnt/fmc-$$/$1
    mkdir -p "$cg" || { fm__log "cannot create the cgroup $cg"; return 1; }
    grep -qxF "$mnt/fmc-$$" "$FM_RUN/cgroups" 2>/dev/null || echo "$mnt/fmc-$$" >> "$FM_RUN/cgroups"
    echo "$cg" > "$FM_RUN/$1/cgroup"
    echo "$cg"
}

fm_node_cgroup() { cat "$FM_RUN/$1/cgroup" 2>/dev/null; }

fm_node_exec_cg() {
    local node=$1 cg; shift
    cg=$(fm_node_cgroup "$node")
    [ -n "$cg" ] || { echo "fm_node_exec_cg: $node has no cgroup (FM_NODE_CGROUPS=1)" >&2; return 125; }
    # joined here, by a subshell whose children inherit it: inside the
    # node the hierarchy is mounted elsewhere (node-init.sh)
    ( echo 0 >"$cg/cgroup.procs" || exit 125; fm_node_exec "$node" "$@" )
}

# fm__cgroups_remove DIR...: remove the nodes' cgroups (empty once their
# processes are gone: an exiting process may take a moment)
fm__cgroups_remove() {
    local base c i
    for base in "$@"; do
        case $base in */fmc-[0-9]*) ;; *) continue ;; esac
        [ -d "$base" ] || continue
        for c in "$base"/*/; do
            [ -d "$c" ] || continue
            i=0
            until rmdir "$c" 2>/dev/null || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
        done
        rmdir "$base" 2>/dev/null || fm__log "cannot remove the cgroup $base"
    done
}

fm__node_wait_booted() {   # until the init says corosync and pacemakerd run
    local d=$FM_RUN/$1 s
    fm__node_booted() { s=$(cat "$d/state" 2>/dev/null); [ "$s" = running ] || [ "$s" = failed ]; }
    fm_poll 40 fm__node_booted
    if [ "$s" != running ]; then
        fm__log "$1: node did not boot (state '${s:-none}'):"
        tail -n 20 "$d/init.log" >&2
        return 1
    fi
}

fm_node_start() {
    local node=$1
    fm__alive "$(fm_node_pid "$node")" && { fm__log "$node is already running"; return 1; }
    fm__node_launch "$node" && fm__node_wait_booted "$node"
}

fm_node_crash() {
    local d=$FM_RUN/$1 p pids
    rm -f "$d/wanted"
    pids=$(cat "$d/upid" "$d/ipid" 2>/dev/null)
    for p in $pids; do fm__kill_node_pid KILL "$p" "$FM_RUN"; done
    for p in $pids; do
        local i=0
        while fm__alive "$p" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
        fm__alive "$p" && { fm__log "$1: pid $p survived SIGKILL"; return 1; }
    done
    rm -f "$d/upid" "$d/ipid"     # gone: never signal these numbers again
    return 0
}

fm_node_stop() {
    local d=$FM_RUN/$1 ipid upid
    ipid=$(cat "$d/ipid" 2>/dev/null) upid=$(cat "$d/upid" 2>/dev/null)
    rm -f "$d/wanted"
    fm__alive "$ipid" || return 0
    fm__kill_node_pid TERM "$ipid" "$FM_RUN" || return 0
    local i=0 max=$(( (FM_STOP_TIMEOUT + 15) * 10 ))
    while fm__alive "$upid" && [ $i -lt $max ]; do sleep 0.1; i=$((i + 1)); done
    if fm__alive "$upid"; then
        fm__log "$1: clean stop timed out, crashing it"
        fm_node_crash "$1"
        return 1
    fi
    wait "$upid" 2>/dev/null
    rm -f "$d/upid" "$d/ipid"     # gone: never signal these numbers again
    return 0
}

fm_node_exec() {
    local node=$1; shift
    local pid; pid=$(fm_node_pid "$node")
    fm__alive "$pid" || { echo "fm_node_exec: $node is not running (init pid '$pid')" >&2; return 125; }
    # the caller's CIB_* variables would point the cluster tools elsewhere
    nsenter -t "$pid" -m -u -i -n -p -- \
        env -u CIB_file -u CIB_shadow -u CIB_shadow_dir -u CIB_server -u CIB_port -u CIB_user \
        HOME="$FM_RUN/$node/home" timeout -k 5 "$FM_CMD_TIMEOUT" "$@"
}

fm_hub_exec() {
    grep -qx "$(fm__ns hub)" "$FM_RUN/netns" || { echo "fm_hub_exec: no hub (1 node)" >&2; return 125; }
    ip netns exec "$(fm__ns hub)" timeout -k 5 "$FM_CMD_TIMEOUT" "$@"
}

# --------------------------------------------------- pacemaker_remote nodes

# Debian's pacemaker-remote conflicts with pacemaker (a real host is a full
# node or a remote node, never both), so tests/install-deps.sh unpacks that
# package's daemon here instead of installing it; a pacemaker-remoted on
# PATH (a distribution that installs both) is taken first.
FM_REMOTED_UNPACKED=/usr/local/lib/faultmon-tests/pacemaker-remote
: "${FM_REMOTE_MONITOR:=5s}"
: "${FM_REMOTE_START_TIMEOUT:=8s}"

fm_remote_nodes() { cat "$FM_RUN/remotes" 2>/dev/null; }

fm__remoted() {
    local p
    for p in "${FM_PACEMAKER_REMOTED:-}" "${FM_CLUSTER_PACEMAKER:+$FM_CLUSTER_PACEMAKER/sbin/pacemaker-remoted}" \
             "$(command -v pacemaker-remoted 2>/dev/null)" \
             /usr/sbin/pacemaker-remoted "$FM_REMOTED_UNPACKED/usr/sbin/pacemaker-remoted"; do
        [ -n "$p" ] && [ -x "$p" ] && { echo "$p"; return 0; }
    done
    return 1
}

fm_skip_unless_remote() {
    fm__remoted >/dev/null || {
        echo "1..0 # SKIP no pacemaker-remoted (tests/install-deps.sh unpacks Debian's pacemaker-remote into $FM_REMOTED_UNPACKED; or set FM_PACEMAKER_REMOTED)"
        exit 0
    }
    [ -d /etc/pacemaker ] || { echo "1..0 # SKIP no /etc/pacemaker to use as the nodes' mount point"; exit 0; }
}

# The key every cluster node and remote node shares (/etc/pacemaker/authkey
# in each of them): a directory of the run, bound over /etc/pacemaker, so
# that the machine's own key is neither read nor changed.
fm__remote_key() {
    local d=$FM_RUN/pacemaker-etc
    [ -s "$d/authkey" ] && return 0
    install -d -m 0755 "$d" || return 1
    ( umask 077; head -c 4096 /dev/urandom > "$d/authkey" ) || return 1
    chown hacluster:haclient "$d/authkey" && chmod 0640 "$d/authkey"
}

fm_remote_start() {
    local n=$1 t0 i k node ns hub d addr remoted x new=()
    if [ -z "$FM_RUN" ] || [ ! -s "$FM_RUN/nodes" ]; then fm__log "fm_remote_start: start the cluster first"; return 1; fi
    [ "$n" -ge 1 ] 2>/dev/null || { fm__log "fm_remote_start: bad node count '$n'"; return 1; }
    hub=$(fm__ns hub)
    grep -qx "$hub" "$FM_RUN/netns" || { fm__log "fm_remote_start: needs a cluster of 2 nodes or more (a hub)"; return 1; }
    remoted=$(fm__remoted) || { fm__log "fm_remote_start: no pacemaker-remoted"; return 1; }
    t0=$(fm_now_ms)
    fm__remote_key || { fm__log "cannot create the shared authkey"; return 1; }
    # the cluster nodes already running get the key where their controller
    # looks (a node booted later binds it in node-init.sh)
    for node in $(fm_live_nodes); do
        fm_node_exec "$node" sh -c 'mountpoint -q /etc/pacemaker || mount --bind "$0" /etc/pacemaker' \
            "$FM_RUN/pacemaker-etc" || { fm__log "$node: cannot bind the authkey's directory"; return 1; }
    done
    k=$(fm_remote_nodes | wc -l)
    for ((i = 1; i <= n; i++)); do
        k=$((k + 1))
        node=remote$k addr=$FM_SUBNET.$((100 + k))
        ns=$(fm__ns "$node")
        ip netns add "$ns" || return 1
        echo "$ns" >> "$FM_RUN/netns"
        echo "$node" >> "$FM_RUN/remotes"
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
        ip -n "$ns" link set lo up
        ip link add eth0 netns "$ns" type veth peer name "vr$k" netns "$hub" || return 1
        ip -n "$hub" link set "vr$k" master br0 up
        ip -n "$ns" addr add "$addr/24" dev eth0
        ip -n "$ns" link set eth0 up
        d=$FM_RUN/$node
        mkdir -p "$d/home" "$d/root"
        echo "$addr" > "$d/addr"
        echo "$remoted" > "$d/remoted"     # node-init.sh: a remote node, this daemon
        new+=("$node")
    done
    for node in "${new[@]}"; do fm__node_launch "$node" || return 1; done
    for node in "${new[@]}"; do fm__node_wait_booted "$node" || return 1; done
    # pcs's "cluster node add-remote" needs pcsd, and "resource create"
    # refuses ocf:pacemaker:remote without --force: the CIB directly.  A
    # short start timeout: the controller retries a refused connection
    # until then, and a transition waits for it.
    for node in "${new[@]}"; do
        addr=$(fm_node_addr "$node")
        x="<primitive id=\"$node\" class=\"ocf\" provider=\"pacemaker\" type=\"remote\">"
        x+="<instance_attributes id=\"$node-ia\"><nvpair id=\"$node-ia-server\" name=\"server\" value=\"$addr\"/></instance_attributes>"
        x+="<operations><op id=\"$node-monitor\" name=\"monitor\" interval=\"$FM_REMOTE_MONITOR\" timeout=\"15s\"/>"
        x+="<op id=\"$node-start\" name=\"start\" interval=\"0s\" timeout=\"$FM_REMOTE_START_TIMEOUT\"/></operations></primitive>"
        fm_node_exec "$(fm__any_live_node)" cibadmin --create -o resources -X "$x" >/dev/null \
            || { fm__log "cannot create the connection resource $node"; return 1; }
    done
    fm_wait_cluster_ready "$FM_FORM_TIMEOUT" || return 1
    FM_LAST_MS=$(fm_since_ms "$t0")
    fm__log "$n remote node(s) online in ${FM_LAST_MS} ms: ${new[*]}"
}

# ----------------------------------------------------------------- agents

# fm_install_agents PROVIDER DIR [NODE...]
fm_install_agents() {
    local prov=$1 dir node f; shift
    dir=$(cd "$1" && pwd) || return 1; shift
    fm_init || return 1
    # what a node mounts when it boots: RUN/agents (every node), then
    # RUN/NODE/agents (that node), one "PROVIDER DIR" per line
    if [ $# -eq 0 ]; then
        # shellcheck disable=SC2046
        set -- $(fm_nodes) $(fm_remote_nodes)
        fm__set_agent "$FM_RUN/agents" "$prov" "$dir"
        for node in "$@"; do fm__set_agent "$FM_RUN/$node/agents" "$prov" ""; done
    else
        for node in "$@"; do fm__set_agent "$FM_RUN/$node/agents" "$prov" "$dir"; done
    fi
    for node in "$@"; do
        fm__live "$node" || continue
        fm_node_exec "$node" bash "$FM_LIBDIR/node-init.sh" --mount-agent "$FM_RUN/$node" "$prov" "$dir" \
            || { fm__log "cannot install OCF provider $prov in $node"; return 1; }
    done
}

fm__set_agent() {   # fm__set_agent FILE PROVIDER DIR: set (or with DIR "" drop) a line
    local f=$1
    mkdir -p "${f%/*}"
    { [ -f "$f" ] && grep -v "^$2 " "$f"; [ -n "$3" ] && echo "$2 $3"; } > "$f.tmp"
    mv -f "$f.tmp" "$f"
}
fm__live() { fm__alive "$(fm_node_pid "$1")"; }

# fm_agent_dir FILE[=NAME]...: echo a new directory (in the run directory)
# holding symbolic links NAME -> FILE (NAME defaults to FILE's basename), to
# pass to fm_install_agents when the agents are files among others, e.g.
#   fm_init; fm_install_agents faultmon "$(fm_agent_dir "$B/agents/apache" "$B/agents/httpmon")"
# (fm_init first: "$(...)" is a subshell, which cannot create the run directory)
fm_agent_dir() {
    local d a src name
    fm_init || return 1
    d=$(mktemp -d "$FM_RUN/agents.XXXXXX") || return 1
    chmod 0755 "$d"
    for a in "$@"; do
        src=${a%%=*} name=${a#*=}
        [ "$name" = "$a" ] && name=${src##*/}
        src=$(cd "$(dirname "$src")" && pwd)/${src##*/}
        [ -e "$src" ] || { fm__log "fm_agent_dir: $src does not exist"; return 1; }
        ln -s "$src" "$d/$name" || return 1
    done
    echo "$d"
}


# ---------------------------------------------------------- cluster state

fm__any_live_node() { fm_live_nodes | head -n1; }

fm_crm_mon() {
    local node=${1:-$(fm__any_live_node)}
    [ -n "$node" ] || return 1
    fm_node_exec "$node" timeout 10 crm_mon -1 --output-as=xml 2>/dev/null
}

fm__ready() {   # every node meant to be up is online, not pending; a DC is elected and idle
    local x n got dc
    x=$(fm_crm_mon) || return 1
    [ "$(fm__xpath '//current_dc/@present' <<<"$x")" = true ] || return 1
    dc=$(fm__xpath '//current_dc/@name' <<<"$x")
    for n in $(fm__wanted_nodes); do
        got=$(fm__xpath "count(//nodes/node[@name='$n' and @online='true' and @pending='false' and @unclean='false'])" <<<"$x")
        [ "$got" = 1 ] || return 1
    done
    fm__idle "$dc"
}

# fm__idle [DC]: the DC's controller has no transition in flight and the
# scheduler, run on the live CIB, has nothing left to do.  (crm_resource
# --wait checks the same but sleeps 2 s before its first check.)
fm__idle() {
    local node dc=${1:-}
    node=$(fm__any_live_node)
    [ -n "$dc" ] || dc=$(fm_crm_mon "$node" | fm__xpath '//current_dc/@name')
    [ -n "$dc" ] || return 1
    fm_node_exec "$node" timeout 5 crmadmin -q -S "$dc" 2>&1 | grep -q S_IDLE || return 1
    [ "$(fm_node_exec "$node" timeout 10 crm_simulate -LS --output-as=xml 2>/dev/null |
         fm__xpath 'count(//actions/*)')" = 0 ]
}

fm__wanted_nodes() {    # nodes started and not crashed or stopped since (remote ones too)
    local n
    for n in $(fm_nodes) $(fm_remote_nodes); do [ -e "$FM_RUN/$n/wanted" ] && echo "$n"; done
}

# fm__death_evidence NODE: who sent SIGKILL to NODE's unshare or init, from
# the kernel's signal trace when CI enabled it (.ci/run), and what runs on
# the machine now.  Read only.  The trace's clock is the uptime's.
fm__death_evidence() {
    local d=$FM_RUN/$1 t=/sys/kernel/tracing/trace u i
    u=$(cat "$d/upid" 2>/dev/null) i=$(cat "$d/ipid" 2>/dev/null)
    [ -r "$t" ] && grep -q 'signal_generate' "$t" 2>/dev/null || return 0
    fm__log "$1: SIGKILLs to its unshare ($u) or init ($i), trace clock now $(cut -d' ' -f1 /proc/uptime):"
    grep -E "signal_generate: sig=9 .* pid=(${u:-x}|${i:-x}) " "$t" 2>/dev/null | tail -n 10 >&2
    fm__log "the last 15 SIGKILLs on the machine:"
    grep 'signal_generate: sig=9 ' "$t" 2>/dev/null | tail -n 15 >&2
    ps -eo pid,ppid,pgid,etimes,args --sort=start_time 2>/dev/null | tail -n 25 >&2
}

fm_wait_cluster_ready() {
    local t=${1:-$FM_FORM_TIMEOUT} deadline n
    deadline=$(( $(fm_now_ms) + t * 1000 ))
    while :; do
        for n in $(fm__wanted_nodes); do
            fm__live "$n" && continue
            fm__log "$n died (state '$(cat "$FM_RUN/$n/state" 2>/dev/null)'); its init.log ends with:"
            tail -n 5 "$FM_RUN/$n/init.log" >&2
            fm__death_evidence "$n"
            return 1
        done
        fm__ready && return 0
        (( $(fm_now_ms) >= deadline )) && break
        sleep "$FM_POLL_S"
    done
    fm__log "cluster not ready after ${t}s"
    return 1
}

fm_wait_idle() { fm_poll "${1:-60}" fm__idle; }

fm_dc() { fm_crm_mon | fm__xpath '//current_dc/@name'; }

fm_node_state() {
    local x; x=$(fm_crm_mon "${2:-}") || { echo unknown; return 1; }
    local q="//nodes/node[@name='$1']"
    if [ "$(fm__xpath "count($q)" <<<"$x")" != 1 ]; then echo offline; return 0; fi
    if [ "$(fm__xpath "$q/@unclean" <<<"$x")" = true ]; then echo unclean
    elif [ "$(fm__xpath "$q/@online" <<<"$x")" != true ]; then echo offline
    elif [ "$(fm__xpath "$q/@pending" <<<"$x")" = true ]; then echo pending
    elif [ "$(fm__xpath "$q/@standby" <<<"$x")" = true ]; then echo standby
    else echo online
    fi
}

fm_wait_node_state() {
    local node=$1 want=$2 t=${3:-30}
    fm__node_state_is() { [ "$(fm_node_state "$node")" = "$want" ]; }
    fm_poll "$t" fm__node_state_is
}

fm__rsc_xpath() {
    echo "//resources//resource[(@id='$1' or starts-with(@id,'$1:')) and @active='true' and @failed='false' and (@role='Started' or @role='Promoted' or @role='Unpromoted' or @role='Master' or @role='Slave')]/node/@name"
}

fm_resource_nodes() {
    fm_crm_mon | fm__xpath_attrs "$(fm__rsc_xpath "$1")" | sort -u
}

fm_wait_resource() {
    local rsc=$1 where=$2 t=${3:-30} got=""
    fm__rsc_is() {
        got=$(fm_resource_nodes "$rsc" | tr '\n' ' '); got=${got% }
        case $where in
            any) [ -n "$got" ] ;;
            none) [ -z "$got" ] ;;
            !*) [ -n "$got" ] && [[ " $got " != *" ${where#!} "* ]] ;;
            *) [[ " $got " == *" $where "* ]] ;;
        esac
    }
    if fm_poll "$t" fm__rsc_is; then echo "$got"; return 0; fi
    fm__log "fm_wait_resource $rsc $where: timed out after ${t}s (on: '${got}')"
    return 1
}

fm_failcount() {
    local v node
    node=$(fm__any_live_node)
    v=$(fm_node_exec "$node" crm_failcount --query -r "$1" -N "$2" 2>/dev/null | sed -n 's/.*value=\([0-9A-Za-z]*\).*/\1/p')
    case $v in ""|"(null)") echo 0 ;; *) echo "$v" ;; esac
}

fm_failures() {
    local x i count f k line want=${1:-} T=$'\t'
    x=$(fm_crm_mon) || return 1
    count=$(fm__xpath 'count(//failures/failure)' <<<"$x")
    for ((i = 1; i <= ${count:-0}; i++)); do
        f="(//failures/failure)[$i]"
        line=$(fm__xpath "concat($f/@op_key,'$T',$f/@node,'$T',$f/@task,'$T',$f/@interval,'$T',$f/@exitcode,'$T',$f/@exitstatus,'$T',$f/@exitreason,'$T',$f/@last-rc-change)" <<<"$x")
        k=${line%%"$T"*}; k=${k%_*_*}      # op_key is RSC_TASK_INTERVAL
        [ -z "$want" ] || [ "$k" = "$want" ] || [[ $k == "$want":* ]] || continue
        printf '%s\t%s\n' "$k" "${line#*"$T"}"
    done | sort -t "$T" -k8,8 -s
}

fm_exit_reason() {
    local line
    line=$(fm_failures "$1" | awk -F'\t' -v n="${2:-}" 'n == "" || $2 == n' | tail -n1)
    [ -n "$line" ] || return 1
    printf '%s\n' "$line" | cut -f7
}

fm_cleanup() {
    fm_node_exec "$(fm__any_live_node)" crm_resource --cleanup -r "$1" >/dev/null 2>&1
}

# ------------------------------------------------------------------ apache

fm_apache_setup() {
    local node nodes="${*:-$(fm_nodes)}" s
    [ -n "$FM_RUN" ] && [ -s "$FM_RUN/nodes" ] || { fm__log "fm_apache_setup: start the cluster first"; return 1; }
    for node in $nodes; do
        s=$FM_RUN/$node/root/srv
        mkdir -p "$s/apache" "$s/www"
        chmod 0755 "$s" "$s/apache" "$s/www"
        printf '<!DOCTYPE html>\n<html><head><title>faultmon test</title></head><body><p>%s</p></body></html>\n' \
            "$node" > "$s/www/index.html"
        printf 'ok %s\n' "$node" > "$s/www/health"
        chmod 0644 "$s/www/index.html" "$s/www/health"
        cat > "$s/apache/httpd.conf" <<EOF
# Minimal Apache for faultmon's cluster tests (written by tests/cluster/lib.sh).
# The same path on every node; the content is the node's (private /srv).
ServerRoot /srv/apache
ServerName $node
Listen 80
PidFile $FM_APACHE_PIDFILE
DefaultRuntimeDir ${FM_APACHE_PIDFILE%/*}
ErrorLog /srv/apache/error.log
LogLevel warn
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule authz_host_module /usr/lib/apache2/modules/mod_authz_host.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
LoadModule status_module /usr/lib/apache2/modules/mod_status.so
User www-data
Group www-data
StartServers 2
MinSpareServers 1
MaxSpareServers 4
MaxRequestWorkers 20
KeepAlive Off
Timeout 10
TypesConfig /etc/mime.types
DocumentRoot /srv/www
DirectoryIndex index.html
<Directory />
    Require all denied
</Directory>
<Directory /srv/www>
    Require all granted
</Directory>
# ocf:heartbeat:apache's monitor fetches statusurl from 127.0.0.1 and greps
# it for "</ *html *>": mod_status's page ends with </html>.
ExtendedStatus On
<Location /server-status>
    SetHandler server-status
    Require ip 127.0.0.1
</Location>
EOF
    done
}

fm_http() {
    fm_node_exec "$1" curl -s -o /dev/null -w '%{http_code}' --noproxy '*' -m "${3:-1}" \
        "http://127.0.0.1${2:-/}" 2>/dev/null || true
}

fm_http_remote() {
    if grep -qx "$(fm__ns hub)" "$FM_RUN/netns" 2>/dev/null; then
        fm_hub_exec curl -s -o /dev/null -w '%{http_code}' --noproxy '*' -m "${3:-1}" \
            "http://$(fm_node_addr "$1")${2:-/}" 2>/dev/null || true
    else
        fm_http "$@"
    fi
}

fm_wait_serving() {
    local node=$1 path=${2:-/} t=${3:-30}
    fm__serving() { [ "$(fm_http_remote "$node" "$path")" = 200 ]; }
    fm_poll "$t" fm__serving
}

fm_httpd_kill() {
    fm_node_exec "$1" pkill "-${2:-KILL}" -x apache2
}

# ----------------------------------------------------------------- timings

fm_timing() {
    FM_TIMINGS+=("$1"$'\t'"$2"$'\t'"${3:-}")
    fm__log "timing: $1 = $2 ms ${3:-}"
}

fm_timings_report() {
    local f=${1:-$(fm__timings_file)} row name val note
    local out
    out=$( {
        printf '%-58s %10s  %s\n' "what" "ms" "note"
        for row in "${FM_TIMINGS[@]}"; do
            IFS=$'\t' read -r name val note <<<"$row"
            printf '%-58s %10s  %s\n' "$name" "$val" "$note"
        done
    } )
    fm_diag "$out"
    mkdir -p "$(dirname "$f")" 2>/dev/null
    { echo "# $FM_TEST_NAME timings, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n)"; echo "$out"; } > "$f" \
        && fm__log "timings written to $f"
}
