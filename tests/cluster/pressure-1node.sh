#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/pressure-1node.sh: the observer as a suspect on a real
# cluster (issue 15: "a node under CPU pressure (stress inside its
# namespace) with a slow service: no action while impaired, action after the
# bound").  The node runs in a cgroup v2 of its own (FM_NODE_CGROUPS=1), as
# a machine's services run in theirs, so its pressure is its own: stress-ng
# (nice 19, more workers than CPUs) in that cgroup makes its cpu.pressure
# high without starving anything else of the machine.  The service is then
# made slow (an HTB class on the node's loopback limits every reply from
# port 80 to a trickle: each probe times out).  ocf:faultmon:apache with
# observer_pressure=40 and observer_hold=20s must then:
#   - read the pressure of its own cgroup (the loop runs in the node's);
#   - hold the recovery its failures ask for: state degraded with the
#     evidence in the reason and in pacemaker.log, httpd not restarted, no
#     failed operation, fail-count 0;
#   - restart it once observer_hold has passed since the first held
#     recovery (a sick node cannot hold a dead service forever);
#   - serve again and be up once the fault and the pressure are gone;
#   - and, with stress-ng outside the node's cgroup (the machine's pressure
#     high, the node's low), restart the same slow service at once: the
#     pressure that counts is the loop's own cgroup's;
#   - hold it again while the node thrashes (its memory too small for what
#     it reads: memory pressure, and the io and cpu pressure it brings).
#
# Needs root, the packages of lib.sh, stress-ng, tc, a cgroup2 hierarchy
# with PSI, and the agents installed (make install); otherwise
# "1..0 # SKIP".  About 3 minutes.

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=300}"
# shellcheck disable=SC2034  # read by lib.sh
FM_NODE_CGROUPS=1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs apache2 tc stress-ng
sc_skip_unless_agents
mnt=$(fm__cgroup2_mount)
if [ -z "$mnt" ] || [ ! -r "$mnt/cpu.pressure" ]; then
    echo "1..0 # SKIP no cgroup2 hierarchy with pressure files (PSI) is mounted"
    exit 0
fi

N=node1
R=fmp
TPI=2           # Thorough_probe_interval, s
HOLD=20         # observer_hold, s
LIMIT=40        # observer_pressure, %
LOG=""

fm_plan 14

fm_cluster_start 1 || fm_bail "single-node cluster did not form"
CG=$(fm_node_cgroup "$N")
fm_result 0 "single-node cluster formed in ${FM_LAST_MS} ms, the node in the cgroup ${CG#"$mnt"}"
fm_apache_setup "$N"
LOG=$(fm_node_dir "$N")/root/var/log/pacemaker/pacemaker.log

fm_node_exec "$N" pcs resource create "$R" ocf:faultmon:apache configfile="$FM_APACHE_CONF" \
    Thorough_probe_interval=$TPI Probe_timeout=1 Retry_count=2 Retry_interval=300 \
    observer_pressure=$LIMIT observer_hold=${HOLD}s op monitor interval=10s >/dev/null 2>&1
st=$?
fm_wait_resource "$R" "$N" 30 >/dev/null && fm_wait_serving "$N" /health 10
fm_result $((st || $?)) "pcs resource create $R ocf:faultmon:apache observer_pressure=$LIMIT observer_hold=${HOLD}s: started and serving"

loop=$(fm_node_exec "$N" pgrep -f "faultmon run $R\$" | head -n1)
loop_cg=$(fm_node_exec "$N" sed -n 's/^0:://p' "/proc/${loop:-0}/cgroup" 2>/dev/null)
ok=$([ -n "$loop" ] && [ "$mnt$loop_cg" = "$CG" ]; echo $?)
fm_result "$ok" "the loop (pid ${loop:-none} in the node) runs in the node's cgroup (${loop_cg:-none})"

# some avg10 of a cpu.pressure file, as a whole number of percent
psi10() { sed -n 's/^some avg10=\([0-9]*\).*/\1/p' "$1/cpu.pressure" 2>/dev/null; }
pressed() { local v; v=$(psi10 "$CG"); [ "${v:-0}" -ge $((LIMIT + 10)) ]; }
httpd0=$(sc_httpd_pid "$N")
fc0=$(fm_failcount "$R" "$N")
# two workers a CPU: every CPU has one waiting (PSI's "some" is the share
# of non-idle CPU time in which a task of the cgroup waited)
fm_node_exec_cg "$N" nice -n 19 stress-ng --cpu "$(( 2 * $(nproc) ))" --timeout 120s --quiet >/dev/null 2>&1 &
fm_poll 40 pressed
fm_result $? "stress-ng in the node's cgroup: its cpu.pressure some avg10 $(psi10 "$CG") % (the machine's: $(psi10 "$mnt") %)"

# The slow service: every reply from port 80 at 1 kbit/s, far past
# Probe_timeout.  The first failed cycle is partial (weight 50), the second
# asks for a restart: held.
t0=$(fm_now_ms)
sc_slow_on "$N" 1kbit
held() { sc_fm_field "$N" "$R" reason | grep -q "this node is impaired (cpu pressure [0-9.]*% over 10 s, observer_pressure $LIMIT%): recovery held"; }
fm_poll 30 held
st=$?
d_held=$(fm_since_ms "$t0")
t_held=$(fm_now_ms)
reason=$(sc_fm_field "$N" "$R" reason)
fm_result "$st" "slow service under pressure: the recovery is held after $d_held ms (state $(sc_fm_field "$N" "$R" state): '$reason')"
fm_timing "slow service under CPU pressure -> recovery held" "$d_held" "observer_pressure=$LIMIT"

# While held (half the hold): nothing is recovered.
sleep $((HOLD / 2))
ok=$([ "$(sc_httpd_pid "$N")" = "$httpd0" ] && ! sc_has_failure "$R" asyncmon \
     && [ "$(fm_failcount "$R" "$N")" = "$fc0" ] && [ "$(sc_fm_field "$N" "$R" state)" = degraded ] \
     && [ "$(sc_fm_field "$N" "$R" restarts_in_window)" = 0 ]; echo $?)
fm_result "$ok" "$((HOLD / 2)) s into the hold: httpd not restarted (pid $(sc_httpd_pid "$N")), no fail request, fail-count $(fm_failcount "$R" "$N"), restarts_in_window $(sc_fm_field "$N" "$R" restarts_in_window), state $(sc_fm_field "$N" "$R" state)"
grep -qE "faultmon.*: $R: this node may be impaired: cpu pressure [0-9.]+% over 10 s, observer_pressure $LIMIT%" "$LOG"
fm_result $? "the evidence is in pacemaker.log: '$(grep -oE "$R: this node may be impaired: .*" "$LOG" | head -n1)'"

# After the hold: the rules apply, a restart is asked (the fault is mended
# at once, so that the restarted service is judged on its own).
asked() { [ "$(grep -cE "faultmon.*: $R: state [a-z-]+ -> [a-z-]+, restart asked" "$LOG")" -gt "$1" ]; }
fm_poll $((HOLD + 20)) asked 0
st=$?
d_act=$(fm_since_ms "$t_held")
sc_slow_off "$N"
restarted() { local p; p=$(sc_httpd_pid "$N"); [ "$p" != "$httpd0" ] && [ "$p" != 0 ]; }
fm_poll 30 restarted
st=$((st || $?))
lo=$((HOLD * 1000 - 2 * TPI * 1000)) hi=$((HOLD * 1000 + 4 * TPI * 1000))
ok=$([ "$st" = 0 ] && [ "$d_act" -ge "$lo" ] && [ "$d_act" -le "$hi" ]; echo $?)
fm_result "$ok" "after observer_hold the recovery is made: restart asked $d_act ms after the first held one (expected $lo-$hi ms), httpd restarted (pid $(sc_httpd_pid "$N"))"
fm_timing "first held recovery -> restart (observer_hold ${HOLD}s)" "$d_act"
grep -qE "faultmon.*: $R: state [a-z-]+ -> [a-z-]+, restart asked" "$LOG"
fm_result $? "the restart is logged: '$(grep -oE "$R: state [a-z-]+ -> [a-z-]+, restart asked.*" "$LOG" | tail -n1)'"

# The fault and the pressure gone: serving, and up again.
fm_node_exec "$N" pkill -x stress-ng >/dev/null 2>&1
upstate() { [ "$(sc_fm_field "$N" "$R" state)" = up ]; }
fm_wait_resource "$R" "$N" 30 >/dev/null && fm_wait_serving "$N" /health 20 && fm_poll 30 upstate
fm_result $? "with the fault and the pressure gone: running, serving, state $(sc_fm_field "$N" "$R" state)"

# Pressure elsewhere on the machine (stress-ng outside the node's cgroup)
# is not this node's: the same slow service is restarted at once.
calm() { local v; v=$(psi10 "$CG"); [ "${v:-100}" -lt $((LIMIT / 2)) ]; }
nice -n 19 stress-ng --cpu "$(( 2 * $(nproc) ))" --timeout 60s --quiet >/dev/null 2>&1 &
host_stress=$!
fm_at_exit "kill $host_stress 2>/dev/null"
host_pressed() { local v; v=$(psi10 "$mnt"); [ "${v:-0}" -ge $((LIMIT + 10)) ] && calm; }
fm_poll 40 host_pressed
st=$?
httpd1=$(sc_httpd_pid "$N")
asked1=$(grep -cE "faultmon.*: $R: state [a-z-]+ -> [a-z-]+, restart asked" "$LOG")
held1=$(grep -c "$R: this node may be impaired" "$LOG")
t0=$(fm_now_ms)
sc_slow_on "$N" 1kbit
fm_poll 30 asked "$asked1"
st2=$?
d_at_once=$(fm_since_ms "$t0")
sc_slow_off "$N"
restarted2() { local p; p=$(sc_httpd_pid "$N"); [ "$p" != "$httpd1" ] && [ "$p" != 0 ]; }
fm_poll 30 restarted2
st2=$((st2 || $?))
held2=$(grep -c "$R: this node may be impaired" "$LOG")
kill "$host_stress" 2>/dev/null
ok=$([ "$st" = 0 ] && [ "$st2" = 0 ] && [ "$d_at_once" -lt $((HOLD * 1000 / 2)) ] && [ "$held2" = "$held1" ]; echo $?)
fm_result "$ok" "stress outside the node (the machine's cpu.pressure high, the node's low): the slow service's restart is asked after $d_at_once ms, with no hold (impaired-node lines $held1 -> $held2)"
fm_timing "slow service, pressure elsewhere on the machine -> restart" "$d_at_once"
fm_wait_resource "$R" "$N" 30 >/dev/null && fm_wait_serving "$N" /health 20 && fm_poll 30 upstate
fm_result $? "and it serves again, state $(sc_fm_field "$N" "$R" state)"

# Memory: the node thrashes (readers whose files do not fit in a memory
# cgroup of 32 MiB: every read reclaims and refaults page cache), which is
# memory pressure with the io and cpu pressure that come with it, all in the
# node's cgroup v2 (the kernel charges the stalls of a task to its cgroup
# v2; the limit is a v1 memory cgroup here, since this machine's cgroup v2
# has no memory controller).  The slow service is held again.
memcg=""
[ -w /sys/fs/cgroup/memory/cgroup.procs ] && memcg=/sys/fs/cgroup/memory/fm-pressure-$$
# some avg10 of KIND's pressure in cgroup DIR, a whole number of percent
psi10_of() { sed -n 's/^some avg10=\([0-9]*\).*/\1/p' "$1/$2.pressure" 2>/dev/null; }
if [ -n "$memcg" ] && mkdir "$memcg" 2>/dev/null && echo 32M >"$memcg/memory.limit_in_bytes"; then
    fm_at_exit "rmdir $memcg 2>/dev/null"
    thrash=$(fm_node_dir "$N")/thrash
    mkdir -p "$thrash"
    dd if=/dev/urandom of="$thrash/data" bs=1M count=80 conv=fsync status=none
    # out of the page cache, where dd's pages (charged elsewhere) would
    # serve every read without a fault
    python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$thrash/data"
    thrashers=""
    for k in 1 2 3 4 5 6; do
        (
            echo "$BASHPID" >"$CG/cgroup.procs" && echo "$BASHPID" >"$memcg/cgroup.procs" || exit 1
            end=$((SECONDS + 90))
            while [ "$SECONDS" -lt "$end" ]; do nice -n 19 cat "$thrash/data" >/dev/null; done
        ) &
        thrashers="$thrashers $!"
    done
    fm_at_exit "kill$thrashers 2>/dev/null"
    mem_pressed() { [ "$(psi10_of "$CG" memory)" -ge 20 ] && pressed_any; }
    pressed_any() { local k v; for k in cpu memory io; do v=$(psi10_of "$CG" $k); [ "${v:-0}" -ge $((LIMIT + 5)) ] && return 0; done; return 1; }
    fm_poll 60 mem_pressed
    st=$?
    httpd2=$(sc_httpd_pid "$N")
    fc2=$(fm_failcount "$R" "$N")
    held3=$(grep -c "$R: this node may be impaired" "$LOG")
    t0=$(fm_now_ms)
    sc_slow_on "$N" 1kbit
    held_any() { sc_fm_field "$N" "$R" reason | grep -qE "this node is impaired \((cpu|memory|io) pressure [0-9.]*% over 10 s, observer_pressure $LIMIT%\): recovery held"; }
    fm_poll 30 held_any
    st=$((st || $?))
    d_held_mem=$(fm_since_ms "$t0")
    seen="memory $(psi10_of "$CG" memory) %, io $(psi10_of "$CG" io) %, cpu $(psi10_of "$CG" cpu) %"
    fm_result "$st" "the node thrashing (6 readers, 80 MiB each, in 32 MiB; its pressure: $seen): the slow service's recovery is held after $d_held_mem ms: '$(sc_fm_field "$N" "$R" reason)'"
    fm_timing "slow service, node thrashing (memory pressure) -> recovery held" "$d_held_mem" "observer_pressure=$LIMIT"
    kill $thrashers 2>/dev/null
    wait $thrashers 2>/dev/null
    sc_slow_off "$N"
    ok=$([ "$(sc_httpd_pid "$N")" = "$httpd2" ] && [ "$(fm_failcount "$R" "$N")" = "$fc2" ] \
         && [ "$(grep -c "$R: this node may be impaired" "$LOG")" -gt "$held3" ]; echo $?)
    fm_result "$ok" "while it thrashed: httpd not restarted (pid $(sc_httpd_pid "$N")), fail-count $(fm_failcount "$R" "$N"), the evidence logged"
    rm -rf "$thrash"
    rmdir "$memcg" 2>/dev/null
else
    fm_skip "the node thrashing: recovery held" "no writable v1 memory cgroup to limit the node's memory"
    fm_skip "while it thrashed: nothing restarted" "no v1 memory cgroup"
fi

fm_timings_report
fm_done
