#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# doc-examples.sh: the shell examples of README.md and doc/*.md are run, or
# say why not.  Every fenced sh block is preceded by a marker:
#   <!-- not run: REASON -->   (a cluster, packages, the system's files...)
#   <!-- run: WHAT -->         the block's `faultmon probe` and `faultmon
#                              simulate` lines are run here
# A run line's targets are pointed at a local nginx (http, tcp: its HTTP
# port; https, tls: its HTTPS port), a --count above 2 is cut to 2 (time);
# a probe must give a verdict (exit 0, 1 or 2), never a usage error (64), and
# a simulate must exit 0.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

SRC=$(cd "$(dirname "$0")/../.." && pwd)
plan 3
tap_watchdog 240
fm_require_faultmon
ws_nginx_start || bail_out "nginx did not start"

# Every block marked, and the lines to run, one per line: "FILE:LINE<TAB>LINE".
"$PYTHON3" - "$SRC" >"$FM_TMP/blocks" <<'PY'
import glob, os, re, sys
src = sys.argv[1]
files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "doc", "*.md"))) \
    + sorted(glob.glob(os.path.join(src, "doc", "reference", "*.md")))
for path in files:
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if re.match(r"^\s*```sh\s*$", lines[i]):
            k = i - 1
            while k >= 0 and lines[k].strip() == "":
                k -= 1
            marker = lines[k].strip() if k >= 0 else ""
            j = i + 1
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            where = "%s:%d" % (os.path.relpath(path, src), i + 1)
            if re.match(r"^<!-- not run: \S.* -->$", marker):
                print("skip\t%s" % where)
            elif re.match(r"^<!-- run: \S.* -->$", marker):
                n = 0
                for l in lines[i + 1:j]:
                    if re.search(r"(^|\| *)faultmon (probe|simulate)\b", l.strip()) and "--replay" not in l:
                        print("run\t%s\t%s" % (where, l.strip()))
                        n += 1
                if n == 0:
                    print("empty\t%s" % where)
            else:
                print("unmarked\t%s" % where)
            i = j
        i += 1
PY
unmarked=$(awk -F'\t' '$1 == "unmarked" || $1 == "empty" { printf "%s ", $2 }' "$FM_TMP/blocks")
is "$unmarked" "" "every sh block of README.md and doc/ is run or marked <!-- not run: REASON -->"
n_run=$(grep -c '^run' "$FM_TMP/blocks")
ok_if "$(( n_run < 8 ))" "the marked blocks have faultmon probe and simulate lines to run ($n_run)"

# Run each line: no shell; argv from the line (shlex), targets made local.
mkdir -p "$FM_TMP/cwd"
printf 'http://127.0.0.1:%s/\n' "$WS_HTTP_PORT" >"$FM_TMP/cwd/list"
bad=$(cd "$FM_TMP/cwd" && "$PYTHON3" - "$FM_TMP/blocks" "$FAULTMON" "$WS_HTTP_PORT" "$WS_HTTPS_PORT" \
    "$WS_CERT" <<'PY'
import re, shlex, subprocess, sys
blocks, faultmon, http, https, cert = sys.argv[1:6]
def local(arg):
    m = re.match(r"^(https?|tcp|tls)://(\[[^]]*\]|[^/:]+)(:\d+)?(/.*)?$", arg)
    if not m:
        return arg
    scheme, path = m.group(1), m.group(4) or ""
    port = https if scheme in ("https", "tls") else http
    return "%s://127.0.0.1:%s%s" % (scheme, port, path if scheme in ("http", "https") else "")
bad = []
for row in open(blocks, encoding="utf-8"):
    kind, *rest = row.rstrip("\n").split("\t")
    if kind != "run":
        continue
    where, line = rest
    words = shlex.split(line, comments=True)
    stdin = None
    if "|" in words:
        left, words = words[:words.index("|")], words[words.index("|") + 1:]
        if left[0] != "printf":
            bad.append("%s: cannot run %r" % (where, line))
            continue
        stdin = left[1].encode().decode("unicode_escape").encode()
    argv = [faultmon]
    for k, w in enumerate(words[1:]):
        prev = words[k]
        if prev in ("--count", "-c") and w.isdigit() and int(w) > 2:
            w = "2"
        elif prev == "--tls-ca-file":
            w = cert
        argv.append(local(w))
    try:
        p = subprocess.run(argv, input=stdin, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        bad.append("%s: timed out: %s" % (where, line))
        continue
    ok = (p.returncode in (0, 1, 2)) if argv[1] == "probe" else (p.returncode == 0)
    if not ok:
        bad.append("%s: exit %d: %s: %s" % (where, p.returncode, line,
                                            p.stderr.decode(errors="replace").strip()[:200]))
print("\n".join(bad))
PY
)
is "$bad" "" "every faultmon probe and simulate example runs (a verdict, never a usage error)"

tap_done
