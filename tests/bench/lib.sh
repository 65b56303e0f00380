# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/lib.sh: what the benchmark scripts share (sourced, bash).
# shellcheck shell=bash
#
# Each script starts its own nginx with a stub_status server on
# $ADMIN_ADDR:$STUB_PORT that answers /id with the script's $token, and runs
# its contenders under `timeout` (and `taskset`).

# bench_child_of PID: the process a `timeout` started, once it runs the
# command (not timeout, taskset or a shell on the way).
bench_child_of() {
	local c i comm
	for ((i = 0; i < 200; i++)); do
		c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
		c=${c%% *}
		if [ -n "$c" ]; then
			comm=$(cat "/proc/$c/comm" 2>/dev/null)
			case $comm in "" | timeout | taskset | bash) ;; *) echo "$c"; return ;; esac
		fi
		sleep 0.02
	done
}

# bench_stub_get PATH: the reply of our nginx's stub server to GET PATH
# (fails when nothing listens there).
bench_stub_get() {
	{ exec 3<>"/dev/tcp/$ADMIN_ADDR/$STUB_PORT"; } 2>/dev/null || return 1
	printf 'GET %s HTTP/1.0\r\n\r\n' "$1" >&3
	timeout 5 cat <&3
	exec 3<&-
}

# nginx_alive: our nginx (the one at $nginx_pid) answers with our $token.
nginx_alive() {
	local resp
	resp=$(bench_stub_get /id) || return 1
	[[ $resp == *"$token"* ]] && kill -0 "$nginx_pid" 2>/dev/null
}

# bench_nginx_counts: "accepts handled requests" from stub_status.
bench_nginx_counts() {
	bench_stub_get / | awk '/^server accepts/ { getline; print $1, $2, $3; exit }'
}

# bench_cpu PID [CPU]: one reading of a process, all at one instant:
# "ns ticks child_ticks t_ns busy_ticks": its process CPU clock (every
# thread, the exited ones included; ns), utime+stime and cutime+cstime of
# /proc/PID/stat (clock ticks), the monotonic time (ns), and the ticks CPU
# (cpuN, when given) was busy (user nice system irq softirq steal; "-"
# without). "- - -" for a process that is gone.
bench_cpu() {
	python3 - "$1" "${2:-}" <<'PYEOF'
import os, sys, time
pid = int(sys.argv[1])
def busy():
    if sys.argv[2] == "":
        return "-"
    for line in open("/proc/stat"):
        f = line.split()
        if f[0] == "cpu" + sys.argv[2]:
            return str(sum(int(x) for x in (f[1], f[2], f[3], f[6], f[7], f[8])))
    return "-"
try:
    ns = time.clock_gettime_ns(((~pid) << 3) | 2)   # CPUCLOCK_SCHED of the process
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    print(ns, int(f[11]) + int(f[12]), int(f[13]) + int(f[14]), time.monotonic_ns(), busy())
except (OSError, ValueError):
    print("- - -", time.monotonic_ns(), busy())
PYEOF
}
