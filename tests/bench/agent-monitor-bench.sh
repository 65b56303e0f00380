#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-monitor-bench.sh - what detecting a failure costs, ocf:faultmon:apache
# beside ocf:heartbeat:apache, in one run, on the same local Apache, with the
# same status URL: as pcs creates each by default, and at the same detection
# frequency.
#
# One Apache (a private configuration on a free loopback port, mod_status at
# /server-status) is started by ocf:faultmon:apache with
# statusurl=http://127.0.0.1:PORT/server-status; ocf:heartbeat:apache is
# pointed at the same configuration and the same statusurl, and sees the same
# httpd through its pid file.
#
# The headline is what an administrator runs by default, what `pcs resource
# create` makes of each agent's meta-data, per heartbeat's default monitor
# interval (its meta-data's, 10 s):
#   - heartbeat detects by its monitor action, at its meta-data's interval;
#   - faultmon detects by its loop (`faultmon run`, started by the agent),
#     which asks Pacemaker for recovery itself on a cluster node, at the
#     interval the start derives from the monitor's (min(interval / 2, 10 s),
#     at least 1 s: agents/web/ocf_web_timing.c), and Pacemaker calls its
#     monitor (a backstop: it reads the loop's state) at the meta-data's
#     interval (60 s): the loop's CPU over LOOP_WINDOW seconds, scaled, plus
#     the monitors in that time.  Not a Pacemaker Remote node's figure, where
#     recovery waits for the monitor and the resource wants a 10 s monitor.
# The second figure is at the same frequency, per DETECT_S (10 s): one
# monitor of each, and one cycle of the loop (its CPU per cycle at the
# derived interval; the same as measured when that is DETECT_S).
# The loop's CPU is its process CPU clock (every thread, ns; clock_gettime on
# the loop's CPU-time clock id) over the window, plus its reaped children's
# (in clock ticks), its cycles from `faultmon status --json`.  The state
# directory is on a tmpfs (STATE_BASE, /dev/shm), as /run is in production.  The ratio heartbeat / faultmon is the honest one; the cost
# of one monitor action alone (a state-file read against a real HTTP check) is
# printed too, marked as such.  Apache's own work for either check is in
# neither figure.
#
# For each agent, one monitor of the running resource:
#   - CPU time with children and wall time: the mean of RUNS runs, from
#     getrusage(RUSAGE_CHILDREN) around each run;
#   - user-space instructions: valgrind --tool=callgrind --trace-children=yes
#     --dump-before='*fork*', every "summary:" line of every output file
#     summed (without --dump-before a forked subshell counts its parent's work
#     again), the median of IRUNS runs; and the processes that ran.
#
# Usage: tests/bench/agent-monitor-bench.sh        (as root; after make)
# Knobs (environment):
#   RUNS=50 IRUNS=3          timed runs, callgrind runs per agent
#   DETECT_S=10              the same-frequency figure's interval
#                            (monitor and loop), s
#   BACKSTOP_S=              the faultmon monitor's interval in the headline,
#                            s [the meta-data's default monitor interval];
#                            the loop's is derived from it as the start does
#   LOOP_WINDOW=120          seconds over which the loop is measured
#   FLOOR=1                  also the least any agent could cost here (0: skip):
#                            tests/bench/floor.c at the same frequency on the
#                            same statusurl (-B -g PATH: the page fetched and
#                            read whole, nothing judged beyond the status, no
#                            state kept) over LOOP_WINDOW seconds, plus the
#                            exec of a static no-op program (the cheapest
#                            process Pacemaker can start for a monitor)
#   LEVEL10=1                also OCF_CHECK_LEVEL=10 (testurl, testregex10)
#   STATE_BASE=/dev/shm      a tmpfs for the state directory (else FA_TMP's)
#   BUILDDIR=...             where faultmon was built [build/ if it has one,
#                            else the source tree]
#   KEEP=1                   keep the temp dir
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${BUILDDIR:-}" ]; then
    BUILDDIR=$top
    [ -x "$top/build/src/faultmon" ] && BUILDDIR=$top/build
fi
DETECT_S=${DETECT_S:-10}
LOOP_WINDOW=${LOOP_WINDOW:-120}
case "$DETECT_S$LOOP_WINDOW" in *[!0-9]*) echo "agent-monitor-bench: DETECT_S and LOOP_WINDOW are whole seconds" >&2; exit 1 ;; esac
BACKSTOP_S=${BACKSTOP_S:-}
case "$BACKSTOP_S" in *[!0-9]* | 0) echo "agent-monitor-bench: BACKSTOP_S is whole seconds, above 0" >&2; exit 1 ;; esac
RUNS=${RUNS:-50}
IRUNS=${IRUNS:-3}
LEVEL10=${LEVEL10:-0}
FLOOR=${FLOOR:-1}
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
# The state directory where production has it: /run/faultmon is a tmpfs on
# every systemd system, so fsync and rename there touch no disk.  Where this
# machine's /tmp (or /run) is a disk, measuring the state writes on it would
# charge the loop for a device production does not have: use a tmpfs,
# STATE_BASE (/dev/shm by default), and say which.
STATE_BASE=${STATE_BASE:-/dev/shm}
if [ "$(stat -f -c %T "$STATE_BASE" 2>/dev/null)" = tmpfs ]; then
    FAULTMON_STATE_DIR=$(mktemp -d "$STATE_BASE/faultmon-bench.XXXXXX") || die "mktemp in $STATE_BASE failed"
    fm_cleanup_add "rm -rf '$FAULTMON_STATE_DIR'"
    export FAULTMON_STATE_DIR
fi
state_fs=$(stat -f -c %T "$FAULTMON_STATE_DIR" 2>/dev/null)
if [ "$KEEP" = 1 ]; then
    FM_CLEANUP_CMDS=("${FM_CLEANUP_CMDS[@]/rm -rf*/:}")
    echo "temp dir: $FA_TMP"
fi
fa_apache_setup || die "cannot write an Apache configuration"

# The monitor intervals pcs copies from each agent's meta-data, in s.
metadata_monitor_s() {
    OCF_ROOT=/usr/lib/ocf "$1" meta-data 2>/dev/null |
        sed -n 's/.*<action name="monitor"[^>]* interval="\([0-9]*\)s\{0,1\}".*/\1/p' | head -n 1
}
FM_MONITOR_S=$(metadata_monitor_s "$FA_APACHE")
HB_MONITOR_S=$(metadata_monitor_s "$HEARTBEAT")
[ -n "$FM_MONITOR_S" ] || die "no monitor interval in ocf:faultmon:apache's meta-data"
[ -n "$HB_MONITOR_S" ] || die "no monitor interval in $HEARTBEAT's meta-data"
[ -z "$BACKSTOP_S" ] || FM_MONITOR_S=$BACKSTOP_S
# The loop's interval as the agent's start derives it from the monitor's
# (fm_web_derived_probe_interval_ms(); there is no CIB here to read it from).
LOOP_MS=$((FM_MONITOR_S * 1000 / 2))
[ "$LOOP_MS" -le 10000 ] || LOOP_MS=10000
[ "$LOOP_MS" -ge 1000 ] || LOOP_MS=1000

status_url="http://127.0.0.1:$FA_PORT/server-status"
common_env() {
    fa_clear_params
    export OCF_ROOT=/usr/lib/ocf
    export OCF_RESKEY_configfile=$FA_CONF
    export OCF_RESKEY_statusurl=$status_url
    export OCF_RESKEY_CRM_meta_interval=$((DETECT_S * 1000))
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
    export OCF_RESKEY_Thorough_probe_interval=${LOOP_MS}ms
    export OCF_RESKEY_CRM_meta_interval=$((FM_MONITOR_S * 1000))
}
heartbeat_env() {
    common_env "${1:-0}"
    export OCF_RESOURCE_INSTANCE=hbbench
    export OCF_RESKEY_CRM_meta_interval=$((HB_MONITOR_S * 1000))
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

# The loop at the detection interval: its CPU over LOOP_WINDOW seconds, and
# its children's (a regexec() child, attrd_updater: counted, though only in
# clock ticks, /proc/PID/stat cutime + cstime).
# -> "cpu_ms_total window_s cycles children_ms"
loop_cpu() {
    local pid c0 c1 n0 n1 t0 t1 k0 k1
    pid=$(cat "$FAULTMON_STATE_DIR/fmbench/pid" 2>/dev/null)
    { [ -n "$pid" ] && [ -d "/proc/$pid" ]; } || die "no faultmon loop running for fmbench (pid file $FAULTMON_STATE_DIR/fmbench/pid)"
    t0=$(date +%s%N) c0=$(proc_cpu_ns "$pid") k0=$(children_ticks "$pid") n0=$(loop_cycles)
    sleep "$LOOP_WINDOW"
    t1=$(date +%s%N) c1=$(proc_cpu_ns "$pid") k1=$(children_ticks "$pid") n1=$(loop_cycles)
    { [ "$c1" != - ] && [ "$c0" != - ] && [ -n "$k1" ]; } || die "the faultmon loop exited during the window"
    awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v n=$((n1 - n0)) -v k=$((k1 - k0)) -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%.3f %.1f %d %.3f\n", c / 1e6, t / 1e9, n, k * 1000 / hz }'
}
children_ticks() { # CPU of the reaped children, clock ticks (fields 16, 17)
    sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $14 + $15 }'
}
proc_cpu_ns() { # the process CPU clock (every thread, exited ones too), ns
    "${PYTHON3:-python3}" -c 'import sys, time
try:
    print(time.clock_gettime_ns(((~int(sys.argv[1])) << 3) | 2))
except OSError:
    print("-")' "$1"
}
loop_cycles() {
    local out
    out=$(faultmon_env; timeout 5 "$FAULTMON" status fmbench --json 2>/dev/null | grep -o '"cycles":[0-9]*' | head -n 1)
    echo "${out#*:}"
}

echo "As pcs creates each by default (the meta-data's monitor), same Apache ($FA_CONF), statusurl=$status_url"
echo "faultmon: the loop (Thorough_probe_interval=${LOOP_MS}ms, derived) measured over ${LOOP_WINDOW} s, plus Pacemaker's monitor every ${FM_MONITOR_S} s${BACKSTOP_S:+ (BACKSTOP_S)};"
echo "heartbeat: its monitor every ${HB_MONITOR_S} s.  Then both at the same frequency, one check every ${DETECT_S} s."
echo "One monitor: CPU and wall the mean of $RUNS runs; instructions: callgrind, median of $IRUNS runs"
echo "$(date -u +%Y-%m-%dT%H:%MZ); load average $(cut -d' ' -f1-3 /proc/loadavg); faultmon $BUILDDIR/src/faultmon"
echo "state directory on ${state_fs:-?} ($FAULTMON_STATE_DIR; production: $(stat -f -c %T /run 2>/dev/null) /run here, a tmpfs on systemd systems)"
read -r loop_ms loop_s loop_cycles_n loop_kids_ms <<<"$(loop_cpu)"
echo "loop: $loop_ms ms CPU in $loop_s s, $loop_cycles_n probe cycles; its children $loop_kids_ms ms (in clock ticks)"
loop_ms=$(awk -v a="$loop_ms" -v b="$loop_kids_ms" 'BEGIN { printf "%.3f", a + b }')

# The floor at the same frequency: its CPU clock over LOOP_WINDOW seconds
# once it runs (its start-up, OpenSSL's included, is not counted), and its
# probes from the counters it prints on SIGUSR1.  -> "cpu_ms probes ok"
floor_cpu() {
    local pid c0 c1 log=$FA_TMP/floor.log
    "$FA_TMP/floor" -B -i $((DETECT_S * 1000)) -T 5000 -d $((LOOP_WINDOW + 30)) \
        -g "/${status_url#http://*/}" -f "$FA_TMP/floor.targets" 2>"$log" &
    pid=$!
    sleep 1
    kill -USR1 "$pid" 2>/dev/null
    c0=$(proc_cpu_ns "$pid")
    sleep "$LOOP_WINDOW"
    c1=$(proc_cpu_ns "$pid")
    kill -USR1 "$pid" 2>/dev/null
    sleep 0.2
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    { [ "$c0" != - ] && [ "$c1" != - ]; } || die "the floor exited during its window: $(cat "$log")"
    awk -v c=$((c1 - c0)) '/^floor stats/ {
            for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            n++; s[n] = v["started"]; o[n] = v["ok"]
        }
        END { printf "%.3f %d %d\n", c / 1e6, s[2] - s[1], o[2] - o[1] }' "$log"
}
floor_per=""
noop_cpu=""
if [ "$FLOOR" = 1 ]; then
    echo "${status_url#http://}" | sed 's|/.*||; s|^|http://|; s|$|/|' >"$FA_TMP/floor.targets"
    if ! cc -O2 -o "$FA_TMP/floor" "$top/tests/bench/floor.c" -lssl -lcrypto 2>"$FA_TMP/floor-cc.log"; then
        echo "floor: not built (cc failed: $(head -n 1 "$FA_TMP/floor-cc.log")): no floor figure"
    else
        read -r fl_ms fl_probes fl_ok <<<"$(floor_cpu)"
        if [ "${fl_probes:-0}" -le 0 ] || [ "$fl_ok" != "$fl_probes" ]; then
            die "the floor's probes of $status_url did not all succeed (${fl_ok:-?} of ${fl_probes:-?}): $(cat "$FA_TMP/floor.log")"
        fi
        floor_per=$(awk -v c="$fl_ms" -v n="$fl_probes" 'BEGIN { printf "%.3f", c / n }')
        echo "floor (tests/bench/floor.c -B -g: GET of the statusurl every ${DETECT_S} s, read whole): $fl_ms ms CPU in $LOOP_WINDOW s, $fl_probes probes: $floor_per ms a probe"
    fi
    if printf 'int main(void) { return 0; }\n' | cc -O2 -static -x c -o "$FA_TMP/noop-static" - 2>/dev/null; then
        noop_cpu=built
    else
        echo "no static no-op program (cc -static failed: libc6-dev's libc.a?)"
    fi
fi
echo
printf '%-34s %10s %10s %16s %10s %8s\n' "one monitor action" "CPU ms" "wall ms" "instructions" "processes" "errors"
# the least any monitor that Pacemaker starts as a process can cost here
read -r t_cpu t_wall _ <<<"$(timed /bin/true)"
printf '%-34s %10.2f %10.2f %16s %10d %8s\n' "(/bin/true: the cost of an exec)" "$t_cpu" "$t_wall" "-" 1 "-"
if [ -n "$noop_cpu" ]; then
    read -r noop_cpu noop_wall _ <<<"$(timed "$FA_TMP/noop-static")"
    printf '%-34s %10.2f %10.2f %16s %10d %8s\n' "(a static no-op: the least exec)" "$noop_cpu" "$noop_wall" "-" 1 "-"
fi
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
    "${PYTHON3:-python3}" - "$h_cpu" "$f_cpu" "$h_wall" "$f_wall" "$h_ins" "$f_ins" "$level" \
        "$loop_ms" "$loop_s" "$DETECT_S" "$FM_MONITOR_S" "$HB_MONITOR_S" "$LOOP_MS" \
        "${floor_per:--}" "${noop_cpu:--}" "$t_cpu" <<'EOF'
import sys
h_cpu, f_cpu, h_wall, f_wall, h_ins, f_ins = map(float, sys.argv[1:7])
level = sys.argv[7]
loop_ms, loop_s, detect_s, fm_mon_s, hb_mon_s, loop_interval_ms = map(float, sys.argv[8:14])
floor_per, noop_cpu, true_cpu = sys.argv[14], sys.argv[15], float(sys.argv[16])
def ratio(h, f):
    return "%.1fx" % (h / f) if f > 0 else "inf"
lv = " (level %s)" % level if level != "0" else ""
print("one monitor action alone%s, heartbeat/faultmon: CPU %s, wall %s, instructions %s"
      " (a state-file read against a real HTTP check: not a like-for-like figure)"
      % (lv, ratio(h_cpu, f_cpu), ratio(h_wall, f_wall), ratio(h_ins, f_ins)))
loop_rate = loop_ms / loop_s                    # ms of CPU a second
loop_cycle = loop_rate * loop_interval_ms / 1000  # ms of CPU a cycle
if level == "0":
    # The headline: each as pcs creates it, per heartbeat's default interval.
    d_loop = loop_rate * hb_mon_s
    d_mon = f_cpu * hb_mon_s / fm_mon_s
    d_per = d_loop + d_mon
    print("HEADLINE, as pcs creates each by default, per %g s (heartbeat's monitor every %g s; faultmon's loop"
          " every %g s, its monitor every %g s): faultmon %.2f ms (loop %.2f + monitor %.2f x %g/%g),"
          " heartbeat %.2f ms; heartbeat/faultmon %s"
          % (hb_mon_s, hb_mon_s, loop_interval_ms / 1000, fm_mon_s, d_per, d_loop, f_cpu, hb_mon_s, fm_mon_s,
             h_cpu, ratio(h_cpu, d_per)))
    print("goal (at least 30x less CPU than ocf:heartbeat:apache, as an administrator runs each by default): %s"
          % ("met" if d_per > 0 and h_cpu / d_per >= 30 else "NOT met"))
# The same frequency: one cycle of the loop and one monitor per detect_s.
f_per = loop_cycle + f_cpu
print("same frequency%s, per %g s (monitor and loop every %g s%s): faultmon %.2f ms (loop %.2f + monitor %.2f),"
      " heartbeat %.2f ms; heartbeat/faultmon %s"
      % (lv, detect_s, detect_s, "" if loop_interval_ms == detect_s * 1000
         else "; the loop's CPU a cycle measured every %g s" % (loop_interval_ms / 1000),
         f_per, loop_cycle, f_cpu, h_cpu, ratio(h_cpu, f_per)))
if level == "0" and floor_per != "-":
    # The least any agent that detects at this frequency can cost here:
    # a probe loop doing nothing but the fetch, and a monitor process
    # doing nothing at all.
    fl = float(floor_per)
    least = fl + (float(noop_cpu) if noop_cpu != "-" else true_cpu)
    print("the least per %g s here (the floor's probe %.2f + %s %.2f): %.2f ms; heartbeat/least %s,"
          " faultmon/least %.2fx; with /bin/true as the monitor %s"
          % (detect_s, fl, "a static no-op's exec" if noop_cpu != "-" else "/bin/true's exec",
             least - fl, least, ratio(h_cpu, least), f_per / least, ratio(h_cpu, fl + true_cpu)))
EOF
done
