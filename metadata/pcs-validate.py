# SPDX-License-Identifier: GPL-2.0-or-later
"""Print what pcs's own checks of an agent's parameters say of a documented
`pcs resource create|update RESOURCE [AGENT] NAME=VALUE...` line, for the
meta-data in XML_FILE, without installing the agent (pcs reads an installed
agent's meta-data the same way).  The line is split as a shell would split
it; its NAME=VALUE words before any `op` or `meta` are the parameters.  One
line a report, "SEVERITY: message" (pcs's own words); nothing when pcs takes
the line as it is.  Run it with the Python that runs pcs.

Usage: pcs-validate.py XML_FILE AGENT 'pcs resource update web advanced=...'
       pcs-validate.py --doc-lines SRCDIR
The second form prints the documented lines to check, "FILE:LINE<TAB>AGENT
<TAB>LINE": every `pcs resource create` of an ocf:faultmon agent and every
`update` with parameters in README.md and doc/ (a sh block's line with its
continuations joined, or an inline span); an update's agent is that of the
last create of the resource in the same file, else apache.
Exit status: 0, 2 for a line that is not such a pcs line, or 3 when pcs's
modules cannot be imported.
"""
import glob
import os
import re
import shlex
import sys

try:
    from pcs.cli.reports.output import report_item_msg_from_dto
    from pcs.lib import validate
    from pcs.lib.resource_agent import xml as ra_xml
    from pcs.lib.resource_agent.facade import ResourceAgentFacade
    from pcs.lib.resource_agent.ocf_transform import ocf_version_to_ocf_unified
    from pcs.lib.resource_agent.types import ResourceAgentName
except ImportError as e:
    print("pcs-validate.py: cannot import pcs: %s" % e, file=sys.stderr)
    sys.exit(3)


def parameters(line):
    words = shlex.split(line)
    if words[:2] != ["pcs", "resource"] or len(words) < 4 \
            or words[2] not in ("create", "update"):
        return None
    params = {}
    for word in words[4:]:
        if word in ("op", "meta", "--"):
            break
        if "=" in word:
            name, value = word.split("=", 1)
            params[name] = value
    return params


def doc_lines(src):
    files = [os.path.join(src, "README.md")] \
        + sorted(glob.glob(os.path.join(src, "doc", "*.md"))) \
        + sorted(glob.glob(os.path.join(src, "doc", "reference", "*.md")))
    cmd = re.compile(r"^pcs resource (create|update) (\S+)(.*)$")
    for path in files:
        agent_of = {}
        lines = open(path, encoding="utf-8").read().split("\n")
        block, i = False, 0
        while i < len(lines):
            where = "%s:%d" % (os.path.relpath(path, src), i + 1)
            line = lines[i].strip()
            i += 1
            if line.startswith("```"):
                block = not block
                continue
            if block:
                while line.endswith("\\") and i < len(lines):
                    line = line[:-1] + " " + lines[i].strip()
                    i += 1
                found = [re.sub(r"\s+#.*$", "", line)]
            else:
                found = re.findall(r"`(pcs resource (?:create|update) [^`]*)`", line)
            for text in found:
                m = cmd.match(text)
                if not m or "=" not in m.group(3):
                    continue
                agent = re.search(r"\bocf:faultmon:(\w+)", text)
                if m.group(1) == "create" and agent:
                    agent_of[m.group(2)] = agent.group(1)
                    print("%s\t%s\t%s" % (where, agent.group(1), text))
                elif m.group(1) == "update" and not agent:
                    print("%s\t%s\t%s" % (where, agent_of.get(m.group(2), "apache"), text))


def main():
    if sys.argv[1] == "--doc-lines":
        doc_lines(sys.argv[2])
        return 0
    path, agent, line = sys.argv[1], sys.argv[2], sys.argv[3]
    params = parameters(line)
    if not params:
        print("pcs-validate.py: not a pcs resource create or update line "
              "with parameters: %s" % line, file=sys.stderr)
        return 2
    with open(path, encoding="utf-8") as f:
        dom = ra_xml._metadata_xml_to_dom(f.read())
    name = ResourceAgentName("ocf", "faultmon", agent)
    facade = ResourceAgentFacade(
        ocf_version_to_ocf_unified(ra_xml.parse_metadata(name, dom))
    )
    # What `pcs resource create` and `update` check of the parameters.
    validators = facade.get_validators_allowed_parameters() \
        + facade.get_validators_deprecated_parameters()
    for report in validate.ValidatorAll(validators).validate(params):
        message = report_item_msg_from_dto(report.to_dto().message).message
        print("%s: %s" % (report.severity.level, message))
    return 0


if __name__ == "__main__":
    sys.exit(main())
