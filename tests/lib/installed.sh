# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib/installed.sh: are the installed faultmon programs this build's?
# shellcheck shell=bash
#
# The agent and cluster tests run the installed agents (Pacemaker and the
# administrators' tools find them only there), and the agents run the
# installed faultmon.  When `make check` runs before `make install`, or
# after a build that was never installed, those are whatever an earlier
# install left: the tests would pass or fail for a program that is not the
# one under test.  So each such test compares the installed files with the
# build's, byte for byte (`make install` copies them unchanged), and fails
# loudly when they differ.
#
#   . tests/lib/installed.sh
#   why=$(fm_installed_stale BUILDDIR) || bail_out "stale install: $why"
#
# make check exports where this build installs (FM_INSTALLED_OCF_DIR,
# FM_INSTALLED_OCF, FM_INSTALLED_FAULTMON); run by hand, the paths follow
# the installed agent's symbolic link (PREFIX/libexec/faultmon/faultmon-ocf,
# PREFIX/bin/faultmon).

# fm_installed_stale BUILDDIR: print one line per installed program that is
# missing or differs from BUILDDIR's and return 1; print nothing and return
# 0 when every one is the build's.
fm_installed_stale() {
    local builddir=$1 agent_dir ocf libexec prefix faultmon agent real stale=0
    agent_dir=${FM_INSTALLED_OCF_DIR:-/usr/lib/ocf/resource.d/faultmon}
    ocf=${FM_INSTALLED_OCF:-$(readlink -f "$agent_dir/apache")}
    libexec=${ocf%/*}
    prefix=${libexec%/*}
    prefix=${prefix%/*}
    faultmon=${FM_INSTALLED_FAULTMON:-$prefix/bin/faultmon}

    for agent in apache nginx httpmon guard; do
        real=$(readlink -f "$agent_dir/$agent" 2>/dev/null)
        if [ "$real" != "$(readlink -f "$ocf")" ]; then
            echo "$agent_dir/$agent leads to '${real:-nothing}', not to $ocf"
            stale=1
        fi
    done
    fm__installed_cmp "$ocf" "$builddir/agents/faultmon-ocf" || stale=1
    fm__installed_cmp "$libexec/faultmon-ocf-probe" "$builddir/agents/faultmon-ocf-probe" || stale=1
    fm__installed_cmp "$faultmon" "$builddir/src/faultmon" || stale=1
    return "$stale"
}

fm__installed_cmp() {
    if [ ! -f "$1" ]; then
        echo "$1 is not installed (make install)"
        return 1
    fi
    if [ ! -f "$2" ]; then
        echo "$2 is not built"
        return 1
    fi
    if ! cmp -s "$1" "$2"; then
        echo "$1 is not this build's $2 (run make install before the tests)"
        return 1
    fi
    return 0
}
