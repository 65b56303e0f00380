#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-overload-noqueue.sh: where the kernel refuses its look at the accept
# queue (a container without NETLINK_SOCK_DIAG: a preloaded shim makes that
# socket fail with EACCES), a loop whose overload_status_url is
# tcp://HOST:PORT (the kernel only) still never spins.  Its probe of a
# server that never answers is slow, so half a Probe_timeout before the
# deadline the loop tries the kernel's look once; before this test it tried
# again at every wake-up, each with a wait of 0 ms, until the deadline:
# thousands of epoll_wait calls a cycle (src/run/run_overload.c, `tried`).
# No overload is claimed without the kernel's word: a timeout, judged as one.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 5

shim=$FM_TMP/nodiag.so
cat >"$FM_TMP/nodiag.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int
socket(int domain, int type, int protocol)
{
    static int (*real)(int, int, int);

    if (domain == AF_NETLINK && protocol == NETLINK_SOCK_DIAG) {
        const char *log = getenv("NODIAG_LOG");   /* one byte a refusal */
        int fd = (log != NULL)? open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;

        if (fd >= 0) {
            if (write(fd, "x", 1) != 1) {
                /* the count is short: the case says so */
            }
            close(fd);
        }
        errno = EACCES;
        return -1;
    }
    if (real == NULL) {
        real = (int (*)(int, int, int)) dlsym(RTLD_NEXT, "socket");
    }
    return real(domain, type, protocol);
}
EOF
if ! "${CC:-cc}" -shared -fPIC -o "$shim" "$FM_TMP/nodiag.c" -ldl 2>"$FM_TMP/cc.err" \
   || ! LD_PRELOAD=$shim "$FAULTMON" --version >/dev/null 2>&1 || ! command -v strace >/dev/null; then
    for _ in 1 2 3 4 5; do skip "the kernel's look refused by a shim" "no shim (no C compiler, a sanitizer build, or no strace)"; done
    tap_done
fi
export FAULTMON_STATE_DIR=$FM_TMP/state
fm_fault_server_start silent || bail_out "the fault server did not start"
port=${FS_PORT[silent]}
CYCLES=2

# Two cycles of 1 s each, traced (LeakSanitizer off: it cannot run under
# ptrace), the shim preloaded into the loop only (strace's own netlink is
# not refused: it uses none).
fm_timeout 30 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -qq -e trace=epoll_wait,epoll_pwait,socket -o "$FM_TMP/loop.strace" \
    env LD_PRELOAD="$shim" NODIAG_LOG="$FM_TMP/refused" "$FAULTMON" run noqueue --no-env --no-pacemaker -v --cycles $CYCLES \
    --param "Monitor_Uri_List=http://127.0.0.1:$port/" --param Thorough_probe_interval=1s \
    --param Probe_timeout=1s --param "overload_status_url=tcp://127.0.0.1:$port" >/dev/null 2>"$FM_TMP/loop.err"
rc=$?
is "$rc" 0 "$CYCLES cycles of a probe that times out, the kernel's look refused: exit 0"
[ "$rc" = 0 ] || diag_file "$FM_TMP/loop.err"

# The loop asked for the kernel's look and the shim refused it: once in
# each slow cycle, not at every wake-up (none reached the kernel).
refused=$(stat -c %s "$FM_TMP/refused" 2>/dev/null || echo 0)
looks=$(grep -c 'socket(AF_NETLINK.*NETLINK_SOCK_DIAG' "$FM_TMP/loop.strace")
ok_if "$([ "$refused" -ge 1 ] && [ "$refused" -le $((2 * CYCLES)) ] && [ "$looks" -eq 0 ] && echo 0 || echo 1)" \
    "the kernel's look asked and refused $refused times in $CYCLES cycles (1 to $((2 * CYCLES))), $looks reached the kernel"

waits=$(grep -Ec 'epoll_p?wait\(' "$FM_TMP/loop.strace")
zero=$(grep -Ec 'epoll_p?wait\([0-9]*, .*, 0(, NULL, 8)?\) ' "$FM_TMP/loop.strace")
ok_if "$([ "$waits" -ge $CYCLES ] && [ "$waits" -le 40 ] && echo 0 || echo 1)" \
    "no spin: $waits epoll_wait calls in $CYCLES cycles ($CYCLES to 40)"
ok_if "$([ "$zero" -le 10 ] && echo 0 || echo 1)" \
    "no spin: $zero waits of 0 ms in $CYCLES cycles (at most 10)"

reason=$("$FAULTMON" status noqueue --json 2>/dev/null |
    "$PYTHON3" -c "import json,sys; r=json.load(sys.stdin)['resources'][0]; print(r['targets'][0]['reason'], 'overload' in r['reason'])" 2>/dev/null)
is "$reason" "read-timeout False" "no overload claimed without the kernel's word: a timeout, judged as one"

tap_done
