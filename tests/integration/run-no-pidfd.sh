#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-no-pidfd.sh: without a pidfd (kernels before 5.3) the loop still
# never sleeps.  A preloaded shim makes pidfd_open fail with ENOSYS, as such
# a kernel does (skipped where it cannot be built or preloaded, as under
# ASan):
#
#  - the exec probe of a program that closes its output and exits 0.4 s
#    later: the verdict is its exit status, and the loop's process made no
#    nanosleep call (the fallback was a sleep of 1 ms steps on the loop);
#  - the loop's children (a stand-in attrd_updater): every child started
#    is seen to end (waitpid(WNOHANG) on the loop's timer);
#  - the watched process (FAULTMON_WATCH_PIDFILE, httpd's parent as the
#    agent passes it): its exit is still seen long before the next probe
#    (a timer fd that looks at /proc), and named in the decision.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 7

shim=$FM_TMP/nopidfd.so
cat >"$FM_TMP/nopidfd.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>

long
syscall(long n, ...)
{
    static long (*real)(long, ...);
    long a[6];
    va_list ap;

    va_start(ap, n);
    for (int i = 0; i < 6; i++) {
        a[i] = va_arg(ap, long);
    }
    va_end(ap);
    if (n == SYS_pidfd_open) {
        errno = ENOSYS;
        return -1;
    }
    if (real == NULL) {
        real = (long (*)(long, ...)) dlsym(RTLD_NEXT, "syscall");
    }
    return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int
pidfd_open(pid_t pid, unsigned int flags)
{
    (void) pid;
    (void) flags;
    errno = ENOSYS;
    return -1;
}
EOF
if ! "${CC:-cc}" -shared -fPIC -o "$shim" "$FM_TMP/nopidfd.c" -ldl 2>"$FM_TMP/cc.err" \
   || ! LD_PRELOAD=$shim "$FAULTMON" --version >/dev/null 2>&1 || ! command -v strace >/dev/null; then
    for _ in 1 2 3 4 5 6 7; do skip "pidfd_open refused by a shim" "no shim (no C compiler, a sanitizer build, or no strace)"; done
    tap_done
fi
export FAULTMON_STATE_DIR=$FM_TMP/state

# 1-3: the exec probe.
late="/bin/sh -c 'exec >/dev/null 2>&1; sleep 0.4; exit 0'"
# LeakSanitizer cannot run under ptrace: off for the traced run.
LD_PRELOAD=$shim ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -qq -c -o "$FM_TMP/exec.strace" -e trace=nanosleep,clock_nanosleep,pidfd_open \
    "$FAULTMON" run late --no-env --no-pacemaker --cycles 2 --param "Probe_command=$late" \
    --param Thorough_probe_interval=1s --param Probe_timeout=2s 2>"$FM_TMP/late.err"
is "$?" 0 "a program that closed its output 0.4 s before it exits: the loop runs 2 cycles, exit 0"
like "$("$FAULTMON" status late 2>&1)" "exit 0' +ok +ok +4[0-9][0-9]\\.[0-9]+ ms" \
    "its verdict is its exit status 0, given when it exited (after 0.4 s)"
calls=$(awk '$NF ~ /nanosleep/ { n += $4 } END { print n + 0 }' "$FM_TMP/exec.strace")
pidfds=$(awk '$NF == "pidfd_open" { n += $4 } END { print n + 0 }' "$FM_TMP/exec.strace")
ok_if "$([ "$calls" -eq 0 ] && [ "$pidfds" -eq 0 ]; echo $?)" \
    "no pidfd_open reached the kernel, and the loop never slept ($calls nanosleep calls)"
[ "$calls" -eq 0 ] || diag_file "$FM_TMP/exec.strace"

# 4-5: the loop's children.
cat >"$FM_TMP/attrd_updater" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$FM_TMP/attrd.calls"
EOF
chmod +x "$FM_TMP/attrd_updater"
FAULTMON_ATTRD_UPDATER=$FM_TMP/attrd_updater OCF_RESOURCE_INSTANCE=kids OCF_RESOURCE_TYPE=apache \
    LD_PRELOAD=$shim fm_timeout 20 "$FAULTMON" run kids --no-env -v -v --cycles 3 \
    --param "Probe_command=/bin/sh -c 'exit 0'" --param Thorough_probe_interval=500ms \
    --param Probe_timeout=400ms 2>"$FM_TMP/kids.err"
is "$?" 0 "the loop with attrd_updater children and no pidfd: 3 cycles, exit 0"
started=$(grep -c 'child [0-9]* started' "$FM_TMP/kids.err")
ended=$(grep -c 'child [0-9]* ended: status 0' "$FM_TMP/kids.err")
ok_if "$([ "$started" -ge 3 ] && [ "$started" -eq "$ended" ]; echo $?)" \
    "every child started was reaped, status 0 ($started started, $ended ended)"

# 6-7: the watched process, its next probe 60 s away.
sleep 60 &
spid=$!
echo "$spid" >"$FM_TMP/watched.pid"
FAULTMON_WATCH_PIDFILE=$FM_TMP/watched.pid FAULTMON_WATCH_NAME=sleep LD_PRELOAD=$shim \
    "$FAULTMON" run watched -v --no-env --no-pacemaker --param "Probe_command=/bin/sh -c 'exit 0'" \
    --param Thorough_probe_interval=60 2>"$FM_TMP/watched.err" &
loop=$!
fm_cleanup_add "kill -TERM $loop 2>/dev/null; kill -KILL $spid 2>/dev/null"
for _ in $(seq 1 50); do [ -s "$FAULTMON_STATE_DIR/watched/state" ] && break; sleep 0.1; done
sleep 0.3                               # a tick or two of the watch's timer
start=$(fm_now_ms)
kill -KILL "$spid"
wait "$spid" 2>/dev/null
pending() { "$FAULTMON" status watched --json 2>/dev/null | grep -o '"pending": *"[a-z]*"' | grep -o '[a-z]*"$' | tr -d '"'; }
for _ in $(seq 1 40); do [ "$(pending)" = restart ] && break; sleep 0.05; done
elapsed=$(($(fm_now_ms) - start))
is "$(pending)" restart "the watched process exits without a pidfd: restart decided after ${elapsed} ms (the next probe was 60 s away)"
like "$(grep -m1 'restart asked' "$FM_TMP/watched.err")" "sleep \\(pid $spid\\) exited" \
    "the decision names the watched process"
kill -TERM "$loop"
wait "$loop" 2>/dev/null
tap_done
