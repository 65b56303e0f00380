#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-exec.sh: external programs as probes (--exec, Probe_command): the
# exit status is the verdict (0 ok, 1 partial, 2 and any other status or a
# signal complete), the first line of the output its detail; a program
# that outlives the deadline is killed with its whole process group; no
# shell ever runs the command, and the program sees only the environment
# faultmon gives it.  Real checks too: Monitoring Plugins' check_tcp and
# check_dummy (Debian's monitoring-plugins-basic), against a listener here.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"

tap_watchdog 90
fm_require_faultmon
plan 50

sh_exec() {
    printf '/bin/sh -c %q' "$1"
}

PROTO_EXTRA=("targets.0.kind=exec")
proto_case "exit 0: ok" 0 ok none ok fast -- --exec "$(sh_exec 'echo all good; echo more')"
proto_detail_like "the detail is the status and the first line" '^exit 0: all good$'
proto_case "exit 1: partial" 1 partial status exec-partial fast -- \
    --exec "$(sh_exec 'echo WARNING: slow replies; exit 1')"
proto_detail_like "the detail says why" '^exit 1: WARNING: slow replies$'
proto_case "exit 2: complete" 2 complete status exec-failed fast -- \
    --exec "$(sh_exec 'echo CRITICAL: down >&2; exit 2')"
proto_detail_like "stderr is read as well" '^exit 2: CRITICAL: down$'
proto_case "exit 3 (a Nagios UNKNOWN): complete" 2 complete status exec-failed fast -- \
    --exec "$(sh_exec 'exit 3')"
proto_case "killed by a signal: complete" 2 complete status exec-failed fast -- \
    --exec "$(sh_exec 'kill -SEGV $$')"
proto_detail_like "the detail names the signal" '^killed by signal 11'

# Past the deadline: partial (a timeout while reading), and nothing of its
# process group survives, neither the program nor what it started.
pids=$FM_TMP/exec-pids
proto_case "still running at the deadline: partial" 1 partial read read-timeout deadline -- \
    --exec "$(sh_exec "sleep 60 & echo \$\$ \$! > $pids; wait")"
proto_detail_like "the detail says it was killed" 'process group were killed'
alive=""
for _ in $(seq 1 40); do
    alive=""
    for pid in $(cat "$pids" 2>/dev/null); do
        if kill -0 "$pid" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
            alive="$alive $pid"
        fi
    done
    [ -z "$alive" ] && break
    sleep 0.05
done
if [ -s "$pids" ] && [ -z "$alive" ]; then
    ok "the program and the child it started are gone"
else
    not_ok "the program and the child it started are gone"
    diag "pids '$(cat "$pids" 2>/dev/null)', alive:$alive"
fi

# A program that exits but leaves a child holding its output open: its exit
# is the verdict, at once, and the child is killed with the group.
proto_case "exit 0 with a child still holding the output: ok at once" 0 ok none ok fast -- \
    --exec "$(sh_exec "(sleep 60 & echo \$! > $pids.child); echo done")"
for _ in $(seq 1 40); do
    kill -0 "$(cat "$pids.child")" 2>/dev/null || break
    sleep 0.05
done
if [ -s "$pids.child" ] && ! kill -0 "$(cat "$pids.child")" 2>/dev/null; then
    ok "the child left behind is killed"
else
    not_ok "the child left behind is killed"
fi

# A flood of output is read to the end (the program never blocks on a full
# pipe) and only its first line is kept.
proto_case "10 MB of output: ok, not blocked" 0 ok none ok fast -- \
    --exec "$(sh_exec 'head -c 10000000 /dev/zero | tr "\0" x; echo; exit 0')"

# No shell: words stay words, nothing is expanded; the environment is ours.
marker=$FM_TMP/exec-no-shell
fm_probe --json --exec "/bin/echo \$(touch $marker) \`touch $marker\`"
is "$FM_RC" 64 "shell syntax outside quotes is refused (64)"
like "$(cat "$FM_ERR")" "no shell runs it" "the error says no shell runs the command"
fm_probe --json --exec "/bin/echo '\$(touch $marker)' \"a b\" c\\ d"
is "$FM_RC" 0 "quoted shell syntax is an argument like any other"
proto_detail_like "and is passed as it was written" '^exit 0: \$\(touch .*\) a b c d$'
[ ! -e "$marker" ]
ok_if $? "no shell ran: nothing was touched"
env_out=$FM_TMP/exec-env
SECRET_OF_THE_LOOP=hunter2 fm_probe --json --exec "$(sh_exec "env > $env_out")"
is "$FM_RC" 0 "env runs"
if [ -s "$env_out" ] && ! grep -q SECRET_OF_THE_LOOP "$env_out" &&
    grep -qx 'LC_ALL=C' "$env_out" && grep -q '^FAULTMON_TIMEOUT_MS=[0-9]' "$env_out" &&
    [ "$(wc -l <"$env_out")" -le 5 ]; then
    ok "the environment is PATH, LC_ALL and FAULTMON_TIMEOUT_MS only (a small shell adds PWD)"
else
    not_ok "the environment is PATH, LC_ALL and FAULTMON_TIMEOUT_MS only (a small shell adds PWD)"
    diag "$(cat "$env_out" 2>/dev/null)"
fi
stdin_out=$FM_TMP/exec-stdin
# (fm_probe gives faultmon /dev/null: here it gets a pipe with bytes in it)
echo "from the terminal" | fm_timeout 20 "$FAULTMON" probe --exec "$(sh_exec "cat > $stdin_out")" \
    >"$FM_OUT" 2>"$FM_ERR"
rc=$?
if [ "$rc" = 0 ] && [ -e "$stdin_out" ] && [ ! -s "$stdin_out" ]; then
    ok "stdin is /dev/null"
else
    not_ok "stdin is /dev/null"
fi
# What faultmon blocks, ignores or holds open is not the program's: here
# faultmon starts with SIGPIPE and SIGHUP ignored and a descriptor 7 that
# is not close-on-exec, as a careless parent could give it.  (grep is the
# witness: mawk ignores SIGPIPE itself.)
sigs_out=$FM_TMP/exec-sigs
( trap '' PIPE HUP
  fm_timeout 20 "$FAULTMON" probe --exec "$(sh_exec "grep -E '^Sig(Blk|Ign):' /proc/self/status | tr -d '\\t' > $sigs_out; [ -e /proc/\$\$/fd/7 ] && echo fd7 >> $sigs_out; exit 0")" \
      7<"$stdin_out" >"$FM_OUT" 2>"$FM_ERR" )
if [ "$(tr '\n' ' ' < "$sigs_out" 2>/dev/null)" = "SigBlk:0000000000000000 SigIgn:0000000000000000 " ]; then
    ok "the program starts with no signal blocked or ignored"
else
    not_ok "the program starts with no signal blocked or ignored"
    diag "$(cat "$sigs_out" 2>/dev/null)"
fi
ok_if "$(grep -qx fd7 "$sigs_out" 2>/dev/null && echo 1 || echo 0)" "faultmon's descriptor 7 (not close-on-exec) is closed in the program"

PROTO_EXTRA=("targets.0.kind=exec")
proto_case "a bare name not in the search path: complete" 2 complete status exec-failed fast -- \
    --exec "no-such-check-program-$$"
proto_detail_like "the detail says where it was looked for" 'not in /usr/local/sbin'

# Real checks from Monitoring Plugins, when installed.
plugins=/usr/lib/nagios/plugins
if [ -x "$plugins/check_tcp" ] && [ -x "$plugins/check_dummy" ]; then
    port_file=$FM_TMP/exec-listen
    "$PYTHON3" - "$port_file" <<'PY' &
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
end = time.time() + 80
s.settimeout(1)
while time.time() < end:
    try:
        c, _ = s.accept()
        c.close()
    except socket.timeout:
        pass
PY
    listener=$!
    fm_cleanup_add "kill $listener 2>/dev/null"
    for _ in $(seq 1 100); do
        [ -s "$port_file" ] && break
        sleep 0.05
    done
    port=$(cat "$port_file")
    closed=$("$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    PROTO_EXTRA=("targets.0.kind=exec")
    proto_case "check_tcp of a listening port: ok" 0 ok none ok fast -- \
        --exec "$plugins/check_tcp -H 127.0.0.1 -p $port"
    proto_detail_like "the plugin's own line is the detail" '^exit 0: TCP OK'
    PROTO_EXTRA=("targets.0.kind=exec")
    proto_case "check_tcp of a closed port: complete (CRITICAL)" 2 complete status exec-failed fast -- \
        --exec "$plugins/check_tcp -H 127.0.0.1 -p $closed"
    PROTO_EXTRA=("targets.0.kind=exec")
    proto_case "check_dummy 1 (WARNING): partial" 1 partial status exec-partial fast -- \
        --exec "$plugins/check_dummy 1 'replica lag 30 s'"
    proto_detail_like "its text is the detail" \
        '^exit 1: WARNING: replica lag 30 s$'
else
    for _ in $(seq 1 8); do
        skip "Monitoring Plugins' checks" "monitoring-plugins-basic is not installed"
    done
fi

# Beside other targets, under the one deadline.
fm_probe --json --timeout 1000ms --exec /bin/true "$(printf 'tcp://127.0.0.1:%s' "${closed:-1}")"
fm_check_probe "an exec and a tcp target in one run: complete, each its own verdict" 2 \
    "targets.length=2" "targets.0.kind=tcp-connect" "targets.0.verdict=complete" \
    "targets.1.kind=exec" "targets.1.verdict=ok"

# The program dies with faultmon: a probe killed with SIGKILL (as Pacemaker's
# executor kills an agent that overran) leaves no check running on.  The
# program is faultmon's child, found by its parent and its unique argument;
# nothing but the faultmon started here is sent a signal.
"$FAULTMON" probe --timeout 20000ms --exec "/bin/sleep 37.25" >/dev/null 2>&1 &
fm_pid=$!
prog=''
for _ in $(seq 1 100); do
    prog=$(pgrep -P "$fm_pid" -f '^/bin/sleep 37\.25$' | head -n 1)
    [ -n "$prog" ] && break
    sleep 0.05
done
ok_if "$([ -n "$prog" ] && echo 0 || echo 1)" "a probe's program runs as faultmon's child (${prog:-none found})"
kill -KILL "$fm_pid" 2>/dev/null
wait "$fm_pid" 2>/dev/null
gone=1
for _ in $(seq 1 40); do
    # gone, another process by now, or a zombie
    if [ -n "$prog" ] && { [ "$(tr '\0' ' ' < "/proc/$prog/cmdline" 2>/dev/null)" != "/bin/sleep 37.25 " ] \
        || [ "$(awk '{ print $3 }' "/proc/$prog/stat" 2>/dev/null)" = Z ]; }; then
        gone=0
        break
    fi
    sleep 0.05
done
ok_if "$gone" "faultmon killed with SIGKILL: its program died with it (PR_SET_PDEATHSIG)"
# A program that cannot be run is reported with execve's reason.
PROTO_EXTRA=("targets.0.kind=exec")
proto_case "a program that is not executable: complete" 2 complete status exec-failed fast -- \
    --exec "$stdin_out"
proto_detail_like "the detail is execve's reason" 'Permission denied'
tap_done
