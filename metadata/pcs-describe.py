# SPDX-License-Identifier: GPL-2.0-or-later
"""Print what `pcs resource describe ocf:faultmon:AGENT [--full]` prints for
the meta-data in XML_FILE, through pcs's own parser, transforms and text
formatter, as on a terminal of $COLUMNS columns (default 80), without
installing the agent.  Run it with the Python that runs pcs.

Usage: pcs-describe.py XML_FILE AGENT [--full]
Exit status: 0, or 3 when pcs's modules cannot be imported.
"""
import os
import sys

try:
    from pcs.cli.common import output as pcs_output
    from pcs.cli.resource.output import resource_agent_metadata_to_text
    from pcs.lib.cib.resource.agent import get_default_operations
    from pcs.lib.resource_agent import xml as ra_xml
    from pcs.lib.resource_agent.ocf_transform import ocf_version_to_ocf_unified
    from pcs.lib.resource_agent.pcs_transform import ocf_unified_to_pcs
    from pcs.lib.resource_agent.types import ResourceAgentName
except ImportError as e:
    print("pcs-describe.py: cannot import pcs: %s" % e, file=sys.stderr)
    sys.exit(3)


def main():
    path, agent = sys.argv[1], sys.argv[2]
    full = "--full" in sys.argv[3:]
    columns = int(os.environ.get("COLUMNS", "80"))
    # pcs wraps its text only on a terminal: wrap as one of `columns` would.
    pcs_output.sys.stdout.isatty = lambda: True
    pcs_output.get_terminal_size = lambda: os.terminal_size((columns, 24))
    with open(path, encoding="utf-8") as f:
        # The same validation (pcs's OCF RelaxNG) as for an installed agent.
        dom = ra_xml._metadata_xml_to_dom(f.read())
    name = ResourceAgentName("ocf", "faultmon", agent)
    metadata = ocf_unified_to_pcs(
        ocf_version_to_ocf_unified(ra_xml.parse_metadata(name, dom))
    )
    lines = resource_agent_metadata_to_text(
        metadata.to_dto(), get_default_operations(metadata), verbose=full
    )
    print("\n".join(pcs_output.smart_wrap_text(lines)))


main()
