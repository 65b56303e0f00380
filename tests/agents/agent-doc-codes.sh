#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-doc-codes.sh: the exit codes the agents' man pages document are the
# codes the agents give.  For each documented case (a file a parameter names
# missing on this node, a port or URL out of range), the code named in that
# parameter's description in metadata/AGENT-details.xml (from which the man
# pages are made) is what validate-all answers.  Runs no service.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

METADATA=$(cd "$(dirname "$0")/../../metadata" && pwd)
PYTHON3=${PYTHON3:-python3}

tap_watchdog 120
fa_agents_setup
plan 15

# documented AGENT PARAM: the OCF code (a number) the parameter's description
# names for validate-all, or "none".
documented() {
    "$PYTHON3" - "$METADATA/$1-details.xml" "$2" <<'PY'
import re, sys
import xml.etree.ElementTree as ET
CODES = {"OCF_ERR_GENERIC": 1, "OCF_ERR_ARGS": 2, "OCF_ERR_UNIMPLEMENTED": 3,
         "OCF_ERR_PERM": 4, "OCF_ERR_INSTALLED": 5, "OCF_ERR_CONFIGURED": 6}
for p in ET.parse(sys.argv[1]).getroot().iter("parameter"):
    if p.get("name") == sys.argv[2]:
        text = " ".join("".join(p.itertext()).split())
        m = re.search(r"validate-all[^.]*?(OCF_ERR_[A-Z]+)|(OCF_ERR_[A-Z]+) \(\d\)", text)
        if m:
            name = m.group(1) or m.group(2)
            n = re.search(re.escape(name) + r" \((\d)\)", text)
            if n and int(n.group(1)) != CODES[name]:
                print("mismatch:%s(%s)" % (name, n.group(1)))
                sys.exit(0)
            print(CODES[name])
            sys.exit(0)
print("none")
PY
}

# doc_case AGENT PARAM VALUE [NAME=VALUE...]: validate-all with PARAM=VALUE
# (and the others) answers the code the description of PARAM names.
doc_case() {
    local agent=$1 param=$2 value=$3 want
    shift 3
    want=$(documented "$agent" "$param")
    fa_clear_params
    export OCF_RESOURCE_INSTANCE=doc-$agent
    export "OCF_RESKEY_$param=$value"
    for kv in "$@"; do
        export "OCF_RESKEY_$kv"
    done
    fa_agent "$agent" validate-all
    is "$FA_RC" "$want" "$agent: $param=$value: validate-all answers the documented code ($want)"
}

MISSING=$FA_TMP/no-such-file.pem
GUARD=(resource=some-resource Port_list=127.0.0.1:1)
for agent in apache nginx httpmon guard; do
    extra=()
    [ "$agent" = guard ] && extra=("${GUARD[@]}")
    doc_case "$agent" tls_ca_file "$MISSING" "${extra[@]}"
    doc_case "$agent" tls_cert_file "$MISSING" "${extra[@]}"
done
doc_case apache configfile "$FA_TMP/no-such.conf"
doc_case apache testconffile "$FA_TMP/no-such-test.conf"
doc_case nginx port 70000
doc_case nginx status10url ftp://example.test/

# Every agent page documents tls_ca_file's code (a page that stops saying
# it would otherwise pass the cases above unchecked).
n=0
for agent in apache nginx httpmon guard; do
    [ "$(documented "$agent" tls_ca_file)" != none ] && n=$((n + 1))
done
is_count "$n" 4 "every agent's page names the code of a missing tls_ca_file"
n=0
for agent in apache nginx httpmon guard; do
    [ "$(documented "$agent" tls_cert_file)" != none ] && n=$((n + 1))
done
is_count "$n" 4 "every agent's page names the code of a missing tls_cert_file"
n=0
for p in configfile testconffile; do
    [ "$(documented apache $p)" != none ] && n=$((n + 1))
done
is_count "$n" 2 "the apache page names the code of a missing configfile and testconffile"

tap_done
