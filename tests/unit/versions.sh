#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# versions.sh: one version everywhere an administrator reads one.
# configure.ac's AC_INIT is the source; the spec's Version, the upstream part
# of debian/changelog's newest entry, every agent's meta-data (which
# `crm_resource --show-metadata` and pcs show), `faultmon --version` and the
# man page's title line must
# say the same.  faultmon_build_info takes PACKAGE_VERSION from the build.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

TOP=${FM_TOP_SRCDIR:-$FM_TEST_LIB/../..}
BUILD=${FM_TOP_BUILDDIR:-$TOP}

tap_watchdog 30
plan 9

version=$(sed -n 's/^AC_INIT(\[faultmon\], \[\([^]]*\)\].*/\1/p' "$TOP/configure.ac")
check "configure.ac's AC_INIT has a version ($version)" test -n "$version"
is "$(sed -n 's/^Version:[[:space:]]*//p' "$TOP/faultmon.spec")" "$version" "faultmon.spec's Version"
is "$(sed -n '1s/^faultmon (\([^-)]*\).*/\1/p' "$TOP/debian/changelog")" "$version" \
    "debian/changelog's newest entry"
for agent in apache nginx httpmon guard; do
    is "$(sed -n 's/^<resource-agent name="[a-z]*" version="\([^"]*\)".*/\1/p' "$TOP/metadata/$agent.xml")" \
        "$version" "metadata/$agent.xml's version"
done
is "$("$BUILD/src/faultmon" --version 2>&1)" "faultmon $version" "faultmon --version"
is "$(sed -n 's/^\.TH FAULTMON 1 "[^"]*" "faultmon \([^"]*\)".*/\1/p' "$TOP/src/faultmon.1")" "$version" \
    "faultmon(1)'s title line"
