#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job on its built-in default, on a fresh Debian 12 machine (root):
# install the dependencies, build and install faultmon, make sure a web
# server answers on 127.0.0.1:80 (Debian's Apache, started if nothing
# listens there), probe it, and show what Retry_count/Retry_interval do.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tests/install-deps.sh
autoreconf -fi >/dev/null 2>&1
mkdir -p build
(cd build && ../configure -q && make -j2 >/dev/null && make install >/dev/null)

if ! faultmon probe --timeout 1s tcp://127.0.0.1:80 >/dev/null 2>&1; then
    echo "# nothing answers on 127.0.0.1:80: starting Debian's Apache"
    apache2ctl start
fi

echo "# faultmon probe (default target http://127.0.0.1/)"
faultmon probe
echo
echo "# faultmon simulate: complete failures at 0, 60 and 120 s with Retry_count=2, Retry_interval=300"
printf '0 complete\n60 complete\n120 complete\n' | faultmon simulate --retry-count 2 --retry-interval 300
