#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build-libcrmcommon.sh PREFIX: builds Pacemaker 3.0.2's libcrmcommon (and
# the headers and pkg-config files a build of faultmon needs) from the
# vendored release tarball and installs it under PREFIX, so that faultmon can
# be configured against it with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig.
#
# The tarball is the one beside the project (shared/vendor, see its README),
# or FM_PCMK3_TARBALL; its SHA-256 is checked first.  The build dependencies
# are in tests/install-deps.sh.  About a minute on two cores.
set -euo pipefail

prefix=${1:?usage: build-libcrmcommon.sh PREFIX}
top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${FM_PCMK3_TARBALL:-$top/../shared/vendor/pacemaker-3.0.2.tar.gz}
sha256=219cafb828c8df36a0c2b53da793b74be563a7163e3550ec35432586b4009c83

[ -f "$tarball" ] || { echo "no Pacemaker 3.0.2 tarball at $tarball (FM_PCMK3_TARBALL)" >&2; exit 2; }
echo "$sha256  $tarball" | sha256sum -c --quiet - ||
    { echo "$tarball is not Pacemaker 3.0.2's release tarball (SHA-256)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
cd "$work/pacemaker-3.0.2"
./autogen.sh
./configure --prefix="$prefix" --disable-fatal-warnings
make -j2 -C lib/common
make -C lib/common install
make -C include install
make -C lib install-pkgconfigDATA
PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --modversion pacemaker
