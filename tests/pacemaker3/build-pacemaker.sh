#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build-pacemaker.sh PREFIX: builds all of Pacemaker 3.0.2 (daemons, tools,
# libraries, schemas, its own OCF agents) from the vendored release tarball
# and installs it under PREFIX only, for a cluster of Pacemaker 3.0.2's own
# daemons in the cluster tests (tests/cluster/lib.sh, FM_CLUSTER_PACEMAKER).
#
# The daemons are configured with the paths a node uses at run time, the
# same as Debian's packages: state in /var (/var/lib/pacemaker/cib...), /run
# (/run/crm), logs in /var/log/pacemaker, /etc for corosync.conf and the
# Pacemaker Remote key, OCF agents under /usr/lib/ocf, and the daemon user
# hacluster:haclient.  Everything that is installed, though, lands under
# PREFIX: `make install` goes to a staging directory and only its PREFIX
# part is copied (what lies outside, e.g. logrotate and tmpfiles snippets,
# is listed and dropped), so the machine's own files are never written.
# The libraries have other sonames than 2.1's (libcrmcommon.so.68, not .34):
# Pacemaker's programs find them through their run path (PREFIX/lib).
#
# The tarball is the one beside the project (shared/vendor, see its README),
# or FM_PCMK3_TARBALL; its SHA-256 is checked first.  The build dependencies
# are in tests/install-deps.sh.  FM_MAKE_JOBS (2) parallel jobs; about 15
# minutes on two shared cores.
set -euo pipefail

prefix=${1:?usage: build-pacemaker.sh PREFIX}
case $prefix in /*) ;; *) echo "PREFIX must be an absolute path" >&2; exit 2;; esac
case $prefix in /usr | /usr/* | /etc | /etc/* | /var | /var/* | /) \
    echo "PREFIX $prefix is the system's: choose one outside it (e.g. /opt/pcmk3-full)" >&2; exit 2;; esac
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
# --without-... nothing: corosync, systemd resource support and the
# deprecated libraries are as Debian builds them ("try" finds them).
./configure --prefix="$prefix" \
    --sysconfdir=/etc --localstatedir=/var --runstatedir=/run \
    --with-logdir=/var/log --with-configdir=/etc/default \
    --with-daemon-user=hacluster --with-daemon-group=haclient \
    --with-ocfdir=/usr/lib/ocf --with-ocfrapath=/usr/lib/ocf/resource.d \
    --with-ocfrainstalldir="$prefix/lib/ocf/resource.d" \
    --with-initdir=no --with-systemdsystemunitdir="$prefix/lib/systemd/system" \
    --disable-fatal-warnings
make -j"${FM_MAKE_JOBS:-2}"
make install DESTDIR="$work/stage"
mkdir -p "$prefix"
cp -a "$work/stage$prefix/." "$prefix/"
outside=$(cd "$work/stage" && find . \( -type f -o -type l \) | sed 's/^\.//' | { grep -v "^$prefix/" || true; })
[ -z "$outside" ] || printf 'not installed (outside %s):\n%s\n' "$prefix" "$outside"
"$prefix/sbin/pacemakerd" --version
