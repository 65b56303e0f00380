#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# licence.sh: the tree states its licence (GPL-2.0-or-later) everywhere a
# distributor looks: COPYING holds the GPL version 2, the packages say it
# (debian/copyright in machine-readable form, the spec's License tag), and
# every source, script, build and meta-data file names it in an SPDX line
# within its first three lines.  Documentation, fuzz corpora and JSON (which
# has no comments) are not searched.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

TOP=${FM_TOP_SRCDIR:-$FM_TEST_LIB/../..}
SPDX='SPDX-License-Identifier: GPL-2.0-or-later'

tap_watchdog 30
# The files that carry the line: by kind, in the folders of the tree (a
# release tarball has no .git, so the tree is searched, not git's index).
mapfile -t files < <(cd "$TOP" && {
    find src agents include metadata tests contrib doc -path 'tests/fuzz/corpus' -prune -o \
        -type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.mk' \
        -o -name '*.xml' -o -name '*.xsl' -o -name '*.yml' -o -name '*.1' \) -print 2>/dev/null
    for f in configure.ac Makefile.am faultmon.spec .ci/run debian/rules debian/postrm; do
        [ -f "$f" ] && echo "$f"
    done
} | sort)
plan $(( ${#files[@]} + 5 ))

check "found the sources (${#files[@]})" test "${#files[@]}" -gt 200
check "COPYING is the GNU GPL version 2" \
    grep -q 'GNU GENERAL PUBLIC LICENSE' "$TOP/COPYING"
check "COPYING is version 2" grep -q 'Version 2, June 1991' "$TOP/COPYING"
check "the spec's License is GPL-2.0-or-later" \
    grep -Eq '^License:[[:space:]]+GPL-2.0-or-later$' "$TOP/faultmon.spec"
check "debian/copyright names GPL-2+ for every file (DEP-5)" \
    grep -Pzq 'Files: \*\nCopyright: [^\n]+\nLicense: GPL-2\+\n' "$TOP/debian/copyright"

for f in "${files[@]}"; do
    if head -n 3 "$TOP/$f" | grep -qF "$SPDX"; then
        ok "$f"
    else
        not_ok "$f: no '$SPDX' in its first 3 lines"
    fi
done
