#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# toy-protocol.sh: "adding a protocol is one file and one table row" stays
# true (issue 32).  In a scratch copy of the tree and its build, a toy
# protocol (toy://HOST:PORT, healthy when it connects) is added by the
# recipe doc/development.md gives, the files it touched are counted against
# the number that text promises, the copy's faultmon is built, and the toy
# probe judges a listening port ok and a closed one complete.
#
# It needs the build directory inside the source tree (../configure run
# from a subdirectory, as doc/development.md builds) to copy both; otherwise
# it skips.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

TOP=$(cd "${FM_TOP_SRCDIR:-$FM_TEST_LIB/../..}" && pwd)
BUILD=$(cd "${FM_TOP_BUILDDIR:-$FM_TEST_LIB/../..}" && pwd)
TOY=$TOP/tests/unit/toy/toy.c

tap_watchdog 600
case "$BUILD" in
    "$TOP"/*) ;;
    *) skip_all "the build directory is not inside the source tree" ;;
esac
command -v automake > /dev/null || skip_all "automake is needed to rebuild src/local.mk"
command -v python3 > /dev/null || skip_all "python3 is needed for a listening port"
plan 6

scratch=$(mktemp -d "${TMPDIR:-/tmp}/fm-toy.XXXXXX")
fm_cleanup_add 'rm -rf "$scratch" "$scratch.orig"'
# The tree and its build as they are (timestamps kept, so that make rebuilds
# only what the toy touches), without the version control.
tar -C "$TOP" --exclude=./.git -cf - . | tar -C "$scratch" -xf -
copy=$scratch
build=$scratch/${BUILD#"$TOP"/}
mkdir -p "$scratch.orig" && tar -C "$copy" -cf - src include | tar -C "$scratch.orig" -xf -

# The recipe of doc/development.md, "Adding a protocol", step by step.
add_protocol()
{
    cp "$TOY" "$copy/src/probe/toy.c" &&
    # the protocol's kind, its name, and its row in fm_probe_protos[]
    sed -i 's|^    FM_PROBE__COUNT$|    FM_PROBE_TOY,\n    FM_PROBE__COUNT|' "$copy/include/faultmon/result.h" &&
    sed -i 's|^    \[FM_PROBE_EXEC\] = "exec",$|&\n    [FM_PROBE_TOY] = "toy",|' "$copy/src/core/result.c" &&
    sed -i 's|^extern const struct fm_probe_proto fm_probe_proto_exec;$|&\nextern const struct fm_probe_proto fm_probe_proto_toy;|' \
        "$copy/src/probe/probe_int.h" &&
    sed -i 's|^    \[FM_PROBE_EXEC\] = &fm_probe_proto_exec,$|&\n    [FM_PROBE_TOY] = \&fm_probe_proto_toy,|' \
        "$copy/src/probe/engine.c" &&
    # the scheme: its name in the enum and its row in the scheme table
    sed -i 's|^    FM_SCHEME__COUNT$|    FM_SCHEME_TOY,\n    FM_SCHEME__COUNT|' "$copy/include/faultmon/scheme.h" &&
    sed -i 's|^    \[FM_SCHEME_EXEC\] .*|    [FM_SCHEME_TOY]      = { "toy",      FM_SCHEME_TOY,      FM_PROBE_TOY,         0,   false, false,\n                             0, FM_QUERY_BIT(FM_QUERY_FAMILY) },\n&|' \
        "$copy/src/core/scheme.c" &&
    # the build
    sed -i 's|^\tsrc/probe/tcp.c \\$|\tsrc/probe/toy.c \\\n&|' "$copy/src/local.mk"
}
check "the toy protocol is added by the recipe" add_protocol

# What the recipe touched: every file that differs from the copy before it.
touched=$(diff -rq "$scratch.orig/src" "$copy/src" | wc -l)
touched=$(( touched + $(diff -rq "$scratch.orig/include" "$copy/include" | wc -l) ))
promised=$(grep -o -m1 'touches [0-9]* files' "$TOP/doc/development.md" | grep -o '[0-9]*')
check "the recipe touched $touched files, as doc/development.md says (${promised:-nothing})" \
    test "$touched" = "${promised:-none}"

# The files a protocol needs are exactly these (a new one would mean the
# recipe, and the text, must say it).
mapfile -t names < <({ diff -rq "$scratch.orig/src" "$copy/src"; diff -rq "$scratch.orig/include" "$copy/include"; } |
    sed -e 's|^Only in .*/src/probe: |src/probe/|' -e "s|^Files $scratch.orig/\\([^ ]*\\) and .*|\\1|" | sort)
want="include/faultmon/result.h include/faultmon/scheme.h src/core/result.c src/core/scheme.c src/local.mk src/probe/engine.c src/probe/probe_int.h src/probe/toy.c"
check "the files touched are the recipe's (${names[*]})" test "${names[*]}" = "$want"

build_copy()
{
    make -s -C "$build" -j2 src/faultmon > "$scratch/make.log" 2>&1 || { diag_file "$scratch/make.log"; return 1; }
}
check "the copy's faultmon builds with the toy protocol" build_copy

# A port that listens, for as long as the probe takes.
port_file=$scratch/port
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(20)
try:
    while True:
        c, _ = s.accept(); c.close()
except OSError:
    pass
' "$port_file" &
listener=$!
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
port=$(cat "$port_file" 2> /dev/null)
out=$("$build/src/faultmon" probe --timeout 2s "toy://127.0.0.1:${port:-1}" 2>&1)
check "toy:// to a listening port is ok ($out)" test "$?" -eq 0
kill "$listener" 2> /dev/null
wait "$listener" 2> /dev/null
out=$("$build/src/faultmon" probe --timeout 2s "toy://127.0.0.1:${port:-1}" 2>&1)
rc=$?
check "toy:// to the closed port fails ($rc: $out)" test "$rc" -ne 0
