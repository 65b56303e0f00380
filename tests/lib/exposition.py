#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Read a Prometheus text exposition (version 0.0.4) whole, for the tests.

  exposition.py unique FILE   "ok N" when every sample line parses and no two
                              have the same name and labels (across every
                              family), else one line per fault and exit 1
  exposition.py names FILE    the metric names of the samples, one a line

promtool check metrics says nothing of two samples with identical labels
(issue 29 #9), and Prometheus silently keeps one of them: hence this.
"""
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"')
VALUE = re.compile(r' (\S+)( -?[0-9]+)?$')


def parse_line(line):
    """(name, ((label, value), ...) sorted, value) of a sample line."""
    m = NAME.match(line)
    if not m:
        raise ValueError("no metric name")
    name, pos, labels = m.group(0), m.end(), {}
    if line[pos:pos + 1] == "{":
        pos += 1
        while line[pos:pos + 1] != "}":
            lm = LABEL.match(line, pos)
            if not lm:
                raise ValueError("bad label at column %d" % (pos + 1))
            if lm.group(1) in labels:
                raise ValueError("label %s twice" % lm.group(1))
            labels[lm.group(1)] = lm.group(2)
            pos = lm.end()
            if line[pos:pos + 1] == ",":
                pos += 1
        pos += 1
    vm = VALUE.match(line, pos)
    if not vm:
        raise ValueError("bad value")
    float(vm.group(1))
    return name, tuple(sorted(labels.items())), vm.group(1)


def samples(text):
    """Every sample of the text; ValueError names the first bad line."""
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        if line == "" or line.startswith("#"):
            continue
        try:
            out.append(parse_line(line))
        except ValueError as e:
            raise ValueError("line %d: %s: %s" % (n, e, line))
    return out


def main(argv):
    if len(argv) != 3 or argv[1] not in ("unique", "names"):
        sys.stderr.write("usage: exposition.py unique|names FILE\n")
        return 64
    with open(argv[2], encoding="utf-8") as f:
        text = f.read()
    try:
        got = samples(text)
    except ValueError as e:
        print("no: %s" % e)
        return 1
    if argv[1] == "names":
        for name in sorted({s[0] for s in got}):
            print(name)
        return 0
    seen, faults = set(), []
    for name, labels, _ in got:
        if (name, labels) in seen:
            faults.append("duplicate: %s{%s}" % (name, ",".join('%s="%s"' % kv for kv in labels)))
        seen.add((name, labels))
    for f in faults:
        print(f)
    if not faults:
        print("ok %d" % len(got))
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
