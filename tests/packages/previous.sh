# SPDX-License-Identifier: GPL-2.0-or-later
# tests/packages/previous.sh: the source of the release before this one,
# which the package tests upgrade from.
# shellcheck shell=bash
#
#   fm_pkg_previous_src WORK   # sets FM_PKG_PREVIOUS_SRC (its tree, in WORK)
#                              # and FM_PKG_PREVIOUS_VERSION (debian/changelog's)
#
# The release before this one is faultmon 0.2.0, and FM_PKG_PREVIOUS_COMMIT
# the last commit of its development.  Its tree is taken from the git
# history (git archive, into WORK only: nothing is cached elsewhere), so the
# test needs a clone that has that commit.  A tarball or a shallow clone
# without it is a failure with the reason, never a skip: an upgrade test
# that quietly upgrades from nothing proves nothing.  When the next release
# is made, this commit becomes that release's.

FM_PKG_PREVIOUS_COMMIT=661bb743e9fd391395fcdea77c8181ad956f3c79

# git in the source tree, even when root runs the test in a clone another
# user owns (git refuses such a repository without safe.directory).
fm_pkg_git() {
    git -c safe.directory="${top_srcdir:?}" -C "$top_srcdir" "$@"
}

# shellcheck disable=SC2034 # FM_PKG_PREVIOUS_* are for the caller
fm_pkg_previous_src() {
    local work=$1 commit=$FM_PKG_PREVIOUS_COMMIT
    FM_PKG_PREVIOUS_ERROR=""
    if ! fm_pkg_git rev-parse --git-dir > /dev/null 2>&1; then
        FM_PKG_PREVIOUS_ERROR="${top_srcdir:?} is no git clone: the previous release's source is commit $commit of its history"
        return 1
    fi
    if ! fm_pkg_git cat-file -e "$commit^{commit}" 2> /dev/null; then
        if [ "$(fm_pkg_git rev-parse --is-shallow-repository)" = true ]; then
            FM_PKG_PREVIOUS_ERROR="a shallow clone without commit $commit (the previous release's source): git fetch --unshallow"
        else
            FM_PKG_PREVIOUS_ERROR="commit $commit (the previous release's source) is not in the git history"
        fi
        return 1
    fi
    rm -rf "$work/previous-src"
    mkdir -p "$work/previous-src/faultmon" || return 1
    if ! fm_pkg_git archive --format=tar "$commit" | tar -x -C "$work/previous-src/faultmon"; then
        FM_PKG_PREVIOUS_ERROR="git archive $commit failed"
        return 1
    fi
    FM_PKG_PREVIOUS_SRC=$work/previous-src/faultmon
    FM_PKG_PREVIOUS_VERSION=$(sed -n '1s/^faultmon (\([^)]*\)).*/\1/p' "$FM_PKG_PREVIOUS_SRC/debian/changelog")
    [ -n "$FM_PKG_PREVIOUS_VERSION" ] || FM_PKG_PREVIOUS_ERROR="no version in $commit's debian/changelog"
    [ -n "$FM_PKG_PREVIOUS_VERSION" ]
}
