#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install everything faultmon's build and tests need on Debian 12 (as root).
set -euo pipefail

packages=(
    # build
    build-essential autoconf automake libtool pkg-config
    pacemaker-dev libqb-dev libssl-dev libxml2-dev libglib2.0-dev libc-ares-dev
    # optional: corosync's links through libcfg, not corosync-cfgtool (observer_corosync)
    libcfg-dev libcmap-dev
    libnghttp2-dev
    libcmocka-dev xsltproc libxml2-utils xxd
    # integration tests: real web servers, TLS tooling, the fault server
    nginx-light apache2 openssl python3 curl iproute2 procps psmisc
    # overload tests: ab, the load generator that fills every worker
    apache2-utils
    # metrics tests: promtool and a real Prometheus (skipped without them)
    prometheus
    # protocol tests (issue 12): real servers, started by the tests themselves
    redis-server postfix dovecot-imapd dovecot-pop3d vsftpd
    postgresql mariadb-server slapd dnsmasq-base unbound
    # HTTP/2 and gRPC health (issue 35): nghttpd, and a gRPC server in Python
    nghttp2-server python3-grpcio
    # exec probes: real checks (check_tcp, check_dummy) from Monitoring Plugins
    monitoring-plugins-basic
    # the cluster: real Pacemaker, Corosync, pcs, crmsh, ocf-tester
    pacemaker pacemaker-cli-utils corosync pcs crmsh resource-agents
    # the observer under pressure (tests/cluster/pressure-1node.sh)
    stress-ng
    # packages: tests/packages (dpkg-buildpackage, lintian, rpmbuild)
    dpkg-dev debhelper lintian rpm rpmlint fakeroot
    # fuzzing (tests/fuzz): clang with libFuzzer and the sanitizer runtimes
    clang libclang-rt-dev
    # Pacemaker 3.0.2's libcrmcommon, built from shared/vendor for the
    # tests against Pacemaker 3.0 (tests/pacemaker3/build-libcrmcommon.sh)
    libltdl-dev libxslt1-dev libgnutls28-dev uuid-dev libbz2-dev libpam0g-dev
    libncurses-dev libcpg-dev libcfg-dev libcmap-dev libquorum-dev gettext autopoint
    libdbus-1-dev
    # benchmarks
    haproxy valgrind
    # the loop's timer test (tests/integration/run-timer.sh) counts system calls
    strace
)

export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    apt-get update -qq
    # policy-rc.d keeps the packages' init scripts from starting daemons:
    # the tests start the servers they use, on ports they choose.
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
    rm -f /usr/sbin/policy-rc.d
fi

# Pacemaker Remote nodes (tests/cluster/remote-nodes.sh): Debian's
# pacemaker-remote conflicts with pacemaker, since a real host is a full node
# or a remote node; the test cluster runs both kinds on one machine, so the
# pacemaker-remote package of the installed Pacemaker version is unpacked
# beside it (its daemon uses the libraries pacemaker already installed), not
# installed.  tests/cluster/lib.sh looks for it there.
remote_dir=/usr/local/lib/faultmon-tests/pacemaker-remote
if ! command -v pacemaker-remoted >/dev/null 2>&1 && [ ! -x "$remote_dir/usr/sbin/pacemaker-remoted" ]; then
    version=$(dpkg-query -W -f='${Version}' pacemaker)
    tmp=$(mktemp -d)
    chown _apt "$tmp" 2>/dev/null || true   # apt downloads as its user _apt
    # (the package lists may be missing when every package above was there)
    (cd "$tmp" && apt-get download -qq "pacemaker-remote=$version") \
        || { apt-get update -qq && (cd "$tmp" && apt-get download -qq "pacemaker-remote=$version"); }
    mkdir -p "$remote_dir"
    dpkg-deb -x "$tmp"/pacemaker-remote_*.deb "$remote_dir"
    rm -rf "$tmp"
fi
