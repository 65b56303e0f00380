# SPDX-License-Identifier: GPL-2.0-or-later
# tests/packages/dist.sh: the release tarball the package tests build from.
# shellcheck shell=bash
#
#   fm_pkg_dist WORK      # sets FM_PKG_TARBALL: WORK/faultmon-VERSION.tar.gz
#
# The packages are built from what `make dist` puts in the tarball, not from
# the git tree: a file the tarball leaves out breaks the package build here,
# not at a distribution's builder.  The tarball is made from a copy of the
# source tree (without build directories, version control or autom4te
# caches), configured out of tree in WORK, so the source tree and the build
# tree under test are left as they are.

fm_pkg_dist() {
    local work=$1 top=${top_srcdir:?} entry
    mkdir -p "$work/dist-src" "$work/dist-build" || return 1
    for entry in "$top"/* "$top"/.[!.]*; do
        [ -e "$entry" ] || continue
        case ${entry##*/} in .git | autom4te.cache) continue ;; esac
        [ -d "$entry" ] && [ -e "$entry/config.status" ] && continue
        cp -a "$entry" "$work/dist-src/" || return 1
    done
    # A distcheck's source tree is read-only.
    chmod -R u+w "$work/dist-src"
    # An in-tree build leaves a config.status and objects: configure out of
    # tree refuses such a source tree.
    if [ -f "$work/dist-src/config.status" ]; then
        make -C "$work/dist-src" -s distclean > /dev/null 2>&1
    fi
    if [ ! -x "$work/dist-src/configure" ]; then
        (cd "$work/dist-src" && autoreconf -fi) > "$work/dist.log" 2>&1 || return 1
    fi
    (cd "$work/dist-build" && ../dist-src/configure -q && make -s dist) >> "$work/dist.log" 2>&1 ||
        return 1
    FM_PKG_TARBALL=$(find "$work/dist-build" -maxdepth 1 -name 'faultmon-*.tar.gz' | head -1)
    [ -n "$FM_PKG_TARBALL" ]
}
