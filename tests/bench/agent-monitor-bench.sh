#!/bin/bash
# agent-monitor-bench.sh - the cost of one monitor action: ocf:faultmon:apache
# beside ocf:heartbeat:apache, in one run, on the same local Apache, with the
# same status URL.
#
# One Apache (a private configuration on a free loopback port, mod_status at
# /server-status) is started by ocf:faultmon:apache with
# statusurl=http://127.0.0.1:PORT/server-status; ocf:heartbeat:apache is
# pointed at the same configuration and the same statusurl, and sees the same
# httpd through its pid file.  For each agent, one monitor of the running
# resource (OCF_RESKEY_CRM_meta_interval=10000, as Pacemaker's recurring
# monitor):
#   - CPU time with children and wall time: the mean of RUNS runs, from
#     getrusage(RUSAGE_CHILDREN) around each run;
#   - user-space instructions: valgrind --tool=callgrind --trace-children=yes
#     --dump-before='*fork*', every "summary:" line of every output file
#     summed (without --dump-before a forked subshell counts its parent's work
#     again), the median of IRUNS runs; and the processes that ran.
# Then the ratios, heartbeat / faultmon.  The loop runs beside the resource
# (Thorough_probe_interval 60s, so it idles) as it would in production; its
# own cost is the loop benchmark's business.
#
# Usage: tests/bench/agent-monitor-bench.sh        (as root; after make)
# Knobs (environment):
#   RUNS=50 IRUNS=3          timed runs, callgrind runs per agent
#   LEVEL10=1                also OCF_CHECK_LEVEL=10 (testurl, testregex10)
#   BUILDDIR=...             where faultmon was built [the source tree]
#   KEEP=1                   keep the temp dir
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILDDIR=${BUILDDIR:-$top}
RUNS=${RUNS:-50}
IRUNS=${IRUNS:-3}
LEVEL10=${LEVEL10:-0}
KEEP=${KEEP:-0}
HEARTBEAT=${HEARTBEAT:-/usr/lib/ocf/resource.d/heartbeat/apache}

FM_TOP_BUILDDIR=$BUILDDIR
export FM_TOP_BUILDDIR
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$top/tests/lib/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$top/tests/agents/lib.sh"

die() {
    echo "agent-monitor-bench: $*" >&2
    exit 1
}

[ "$(id -u)" = 0 ] || die "run as root (it starts Apache)"
ws_have_apache || die "Apache is not installed (apt-get install apache2)"
[ -x "$HEARTBEAT" ] || die "$HEARTBEAT is missing (apt-get install resource-agents)"
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
command -v wget >/dev/null || command -v curl >/dev/null ||
    die "ocf:heartbeat:apache needs wget or curl (apt-get install wget)"
[ -x "$BUILDDIR/agents/faultmon-ocf" ] || die "$BUILDDIR/agents/faultmon-ocf is not built (make; or set BUILDDIR)"
[ -x "$BUILDDIR/src/faultmon" ] || die "$BUILDDIR/src/faultmon is not built"

export FAULTMON=$BUILDDIR/src/faultmon
fa_agents_setup
if [ "$KEEP" = 1 ]; then
    FM_CLEANUP_CMDS=("${FM_CLEANUP_CMDS[@]/rm -rf*/:}")
    echo "temp dir: $FA_TMP"
fi
fa_apache_setup || die "cannot write an Apache configuration"

status_url="http://127.0.0.1:$FA_PORT/server-status"
common_env() {
    fa_clear_params
    export OCF_ROOT=/usr/lib/ocf
    export OCF_RESKEY_configfile=$FA_CONF
    export OCF_RESKEY_statusurl=$status_url
    export OCF_RESKEY_CRM_meta_interval=10000
    export OCF_RESKEY_CRM_meta_timeout=20000
    if [ "${1:-0}" = 10 ]; then
        export OCF_CHECK_LEVEL=10
        export OCF_RESKEY_testurl=http://127.0.0.1:$FA_PORT/health
        export OCF_RESKEY_testregex10=$WS_HEALTH_MARKER
    fi
}
faultmon_env() {
    common_env "${1:-0}"
    export OCF_RESOURCE_INSTANCE=fmbench
    export OCF_RESKEY_envfiles=""
    export OCF_RESKEY_Thorough_probe_interval=60s
}
heartbeat_env() {
    common_env "${1:-0}"
    export OCF_RESOURCE_INSTANCE=hbbench
}

faultmon_env
"$FA_APACHE" start >"$FA_TMP/start.log" 2>&1 || {
    cat "$FA_TMP/start.log" >&2
    die "ocf:faultmon:apache start failed"
}
fm_cleanup_add "faultmon_env; '$FA_APACHE' stop >/dev/null 2>&1"

# timed AGENT-PATH: "cpu_ms wall_ms" per run, the mean of RUNS runs.
timed() {
    "${PYTHON3:-python3}" - "$RUNS" "$@" <<'EOF'
import os, resource, subprocess, sys, time
runs = int(sys.argv[1])
cmd = sys.argv[2:]
cpu = wall = 0.0
bad = 0
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall += time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    bad += rc != 0
print("%.3f %.3f %d" % (cpu * 1000 / runs, wall * 1000 / runs, bad))
EOF
}

# instructions AGENT-PATH: "instructions processes", the median of IRUNS runs.
instructions() {
    local i dir total procs results=()
    for i in $(seq 1 "$IRUNS"); do
        dir=$FA_TMP/cg.$i.$RANDOM
        mkdir -p "$dir"
        valgrind --tool=callgrind --trace-children=yes --dump-before='*fork*' \
            --callgrind-out-file="$dir/cg.%p" "$@" >/dev/null 2>"$dir/valgrind.log"
        total=$(cat "$dir"/cg.* 2>/dev/null | awk '/^summary:/ { s += $2 } END { printf "%d", s }')
        procs=$(find "$dir" -type f -name 'cg.*' | sed 's/.*cg\.\([0-9]*\).*/\1/' | sort -u | wc -l)
        results+=("$total $procs")
        rm -rf "$dir"
    done
    printf '%s\n' "${results[@]}" | sort -n | sed -n "$(((IRUNS + 1) / 2))p"
}

# Check that both answer 0 before measuring anything.
faultmon_env
"$FA_APACHE" monitor >/dev/null 2>&1 || die "ocf:faultmon:apache monitor does not answer 0"
heartbeat_env
"$HEARTBEAT" monitor >/dev/null 2>&1 || die "ocf:heartbeat:apache monitor does not answer 0 (statusurl $status_url)"

echo "One monitor action, same Apache ($FA_CONF), statusurl=$status_url"
echo "CPU and wall: mean of $RUNS runs; instructions: callgrind, median of $IRUNS runs"
printf '%-34s %10s %10s %16s %10s %8s\n' "agent" "CPU ms" "wall ms" "instructions" "processes" "errors"

levels=0
[ "$LEVEL10" = 1 ] && levels="0 10"
for level in $levels; do
    faultmon_env "$level"
    read -r f_cpu f_wall f_bad <<<"$(timed "$FA_APACHE" monitor)"
    read -r f_ins f_procs <<<"$(instructions "$FA_APACHE" monitor)"
    heartbeat_env "$level"
    read -r h_cpu h_wall h_bad <<<"$(timed "$HEARTBEAT" monitor)"
    read -r h_ins h_procs <<<"$(instructions "$HEARTBEAT" monitor)"
    for agent in faultmon heartbeat; do
        bad=$f_bad
        [ "$agent" = heartbeat ] && bad=$h_bad
        if [ "$bad" != 0 ]; then
            "${agent}_env" "$level"
            if [ "$agent" = faultmon ]; then out=$("$FA_APACHE" monitor 2>&1); else out=$("$HEARTBEAT" monitor 2>&1); fi
            echo "ocf:$agent:apache monitor failed (status $?): $out" >&2
        fi
    done
    suffix=""
    [ "$level" = 10 ] && suffix=" (OCF_CHECK_LEVEL=10)"
    printf '%-34s %10.2f %10.2f %16d %10d %8d\n' "ocf:heartbeat:apache$suffix" "$h_cpu" "$h_wall" "$h_ins" "$h_procs" "$h_bad"
    printf '%-34s %10.2f %10.2f %16d %10d %8d\n' "ocf:faultmon:apache$suffix" "$f_cpu" "$f_wall" "$f_ins" "$f_procs" "$f_bad"
    "${PYTHON3:-python3}" - "$h_cpu" "$f_cpu" "$h_wall" "$f_wall" "$h_ins" "$f_ins" "$level" <<'EOF'
import sys
h_cpu, f_cpu, h_wall, f_wall, h_ins, f_ins = map(float, sys.argv[1:7])
level = sys.argv[7]
def ratio(h, f):
    return "%.1fx" % (h / f) if f > 0 else "inf"
print("ratio heartbeat/faultmon%s: CPU %s, wall %s, instructions %s"
      % (" (level %s)" % level if level != "0" else "", ratio(h_cpu, f_cpu), ratio(h_wall, f_wall),
         ratio(h_ins, f_ins)))
if level == "0":
    goal = all(f > 0 and h / f >= 20 for h, f in ((h_cpu, f_cpu), (h_ins, f_ins)))
    print("goal (at most 1/20 of heartbeat by CPU and instructions): %s" % ("met" if goal else "NOT met"))
EOF
done
