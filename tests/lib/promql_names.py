#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The metric names the operator's kit queries, against those exported.

  promql_names.py check EXPOSITION KIT_FILE...

KIT_FILE is a Grafana dashboard (.json: every panel's targets, rows'
panels included, and the templating queries) or Prometheus rules (.yml:
every expr).  Prints "ok N" (the number of queries) when each query names
at least one metric and every metric it names is in EXPOSITION (a real
`faultmon metrics` output: its samples and its # TYPE lines) or is one of
Prometheus' own (up); else one line per fault, exit 1.
"""
import json
import re
import sys

PROMETHEUS_OWN = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
            "group_right", "bool", "offset", "inf", "nan"}
IDENT = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')


def names_in(expr):
    """The metric names an expression selects."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)   # strings
    e = re.sub(r'\{[^}]*\}', ' ', e)                                 # label matchers
    e = re.sub(r'\[[^\]]*\]', ' ', e)                                # ranges
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', ' ', e)
    e = re.sub(r'\$\{?\w+\}?', ' ', e)                               # Grafana's variables
    out = set()
    for m in IDENT.finditer(e):
        word, rest = m.group(0), e[m.end():].lstrip()
        if word.lower() in KEYWORDS or rest.startswith("(") or re.match(r'\d', word):
            continue
        if m.start() > 0 and (e[m.start() - 1].isdigit() or e[m.start() - 1] == '.'):
            continue                                                # 14e3, 1.5e
        out.add(word)
    return out


def dashboard_queries(path):
    with open(path, encoding="utf-8") as f:
        dash = json.load(f)
    out = []

    def walk(panels):
        for p in panels:
            walk(p.get("panels", []))
            if p.get("type") == "row":
                continue
            if not p.get("targets"):
                out.append(("panel %r" % p.get("title"), None))
            for t in p.get("targets", []):
                out.append(("panel %r" % p.get("title"), t.get("expr")))
    walk(dash.get("panels", []))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            m = re.match(r'label_values\((.*),\s*\w+\)$', q or "")
            out.append(("variable %r" % v.get("name"), m.group(1) if m else q))
    return out


def rules_queries(path):
    """Every expr of a rules file, single-line or a folded block (>-)."""
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        m = re.match(r'(\s*)expr:\s*(.*)$', line)
        if not m:
            continue
        if m.group(2) in (">-", ">", "|", "|-"):
            body, indent = [], len(m.group(1))
            for more in lines[i + 1:]:
                if more.strip() and len(more) - len(more.lstrip()) <= indent:
                    break
                body.append(more.strip())
            out.append(("rule at line %d" % (i + 1), " ".join(body)))
        else:
            out.append(("rule at line %d" % (i + 1), m.group(2).strip("'\"")))
    return out


def exported(path):
    names = set()
    for line in open(path, encoding="utf-8"):
        if line.startswith("# TYPE "):
            names.add(line.split()[2])
        elif line.strip() and not line.startswith("#"):
            names.add(IDENT.match(line).group(0))
    return names


def main(argv):
    if len(argv) < 4 or argv[1] != "check":
        sys.stderr.write("usage: promql_names.py check EXPOSITION KIT_FILE...\n")
        return 64
    known = exported(argv[2]) | PROMETHEUS_OWN
    faults, n = [], 0
    for path in argv[3:]:
        queries = dashboard_queries(path) if path.endswith(".json") else rules_queries(path)
        for where, expr in queries:
            n += 1
            names = names_in(expr or "")
            if not names:
                faults.append("%s: %s: names no metric: %r" % (path, where, expr))
            for name in sorted(names - known):
                faults.append("%s: %s: %s is not exported" % (path, where, name))
    for f in faults:
        print(f)
    if not faults:
        print("ok %d" % n)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
