#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rpm.sh: faultmon.spec builds with `rpmbuild -tb` from make dist's tarball
# here.  This is a Debian machine, so the spec's BuildRequires (Fedora and
# SUSE package names) are not checked (--nodeps), nor is %check run
# (--without check: the package build would need cmocka's -devel names);
# what is checked is that %build, %install and %files agree with `make
# install`: no file missing, none left unpackaged (rpmbuild fails on either),
# the agents' links, the scriptlets (none stops or restarts a loop) and the
# version; then rpmlint on the spec and the RPM, with every finding kept
# filtered with its reason (faultmon.rpmlintrc).  Needs rpmbuild (Debian
# package rpm) and rpmlint; skips without rpmbuild.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/packages/dist.sh
. "$(dirname "$0")/dist.sh"
top_srcdir=${FM_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}

for tool in rpmbuild rpm; do
    command -v "$tool" > /dev/null 2>&1 || {
        echo "1..0 # SKIP $tool is not installed (apt-get install rpm)"
        exit 0
    }
done
[ -f "$top_srcdir/faultmon.spec" ] || {
    echo "1..0 # SKIP no faultmon.spec in $top_srcdir"
    exit 0
}

tap_watchdog 900
plan 8

work=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-rpm.XXXXXX") || bail_out "mktemp failed"
fm_cleanup_add "rm -rf --one-file-system '$work'"

spec_version=$(sed -n 's/^Version:[[:space:]]*//p' "$top_srcdir/faultmon.spec")
ac_version=$(sed -n 's/^AC_INIT(\[faultmon\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
is "$spec_version" "$ac_version" "faultmon.spec's Version is configure.ac's"

# Source0 is the release tarball (make dist), built with rpmbuild -tb as
# `rpmbuild -ta faultmon-VERSION.tar.gz` would: the spec is the tarball's.
name=faultmon-$spec_version
mkdir -p "$work/SOURCES"
fm_pkg_dist "$work" || {
    diag_file "$work/dist.log"
    bail_out "make dist failed"
}
[ "${FM_PKG_TARBALL##*/}" = "$name.tar.gz" ] || bail_out "make dist wrote ${FM_PKG_TARBALL##*/}, not $name.tar.gz"
cp "$FM_PKG_TARBALL" "$work/SOURCES/"

# At the lowest CPU priority: the timing tests that make check runs beside
# it must not lose their deadlines to a compiler.
start_ms=$(fm_now_ms)
fm_timeout 800 nice -n 19 rpmbuild -tb --nodeps --without check --define "_topdir $work" \
    --define "_smp_mflags -j2" "$work/SOURCES/$name.tar.gz" > "$work/rpmbuild.log" 2>&1
status=$?
diag "rpmbuild took $(($(fm_now_ms) - start_ms)) ms"
rpmfile=$(find "$work/RPMS" -name "faultmon-$spec_version-*.rpm" 2> /dev/null | head -1)
if [ "$status" -eq 0 ] && [ -n "$rpmfile" ]; then
    ok "rpmbuild -tb --nodeps builds ${rpmfile##*/} from make dist's tarball"
else
    not_ok "rpmbuild -tb --nodeps builds faultmon-$spec_version-*.rpm from make dist's tarball"
    tail -n 40 "$work/rpmbuild.log" | sed 's/^/#   /'
    bail_out "no package to check"
fi
# rpmbuild's own warnings (absolute links, files listed twice, ...).
if sed -n '/^RPM build warnings:/,$p' "$work/rpmbuild.log" | grep -q .; then
    not_ok "rpmbuild gives no warning"
    sed -n '/^RPM build warnings:/,$p' "$work/rpmbuild.log" | sed 's/^/#   /'
else
    ok "rpmbuild gives no warning"
fi

rpm -qlp "$rpmfile" > "$work/files" 2> /dev/null
missing=""
for p in /usr/bin/faultmon /usr/libexec/faultmon/faultmon-ocf /usr/libexec/faultmon/faultmon-ocf-probe /usr/libexec/faultmon/faultmon-libs \
    /usr/lib/ocf/resource.d/faultmon/apache /usr/lib/ocf/resource.d/faultmon/httpmon \
    /usr/lib/ocf/resource.d/faultmon/nginx /usr/lib/ocf/resource.d/faultmon/guard \
    /usr/share/man/man1/faultmon.1 /usr/share/man/man7/ocf_faultmon_apache.7 \
    /usr/share/man/man7/ocf_faultmon_nginx.7 /usr/share/man/man7/ocf_faultmon_httpmon.7 \
    /usr/share/man/man7/ocf_faultmon_guard.7 /usr/share/faultmon/ocf/guard.xml \
    /usr/share/faultmon/ocf/apache.xml /usr/share/faultmon/ocf/nginx.xml \
    /usr/share/faultmon/prometheus/faultmon-alerts.yml /usr/share/faultmon/grafana/faultmon.json; do
    grep -q "^$p" "$work/files" || missing="$missing $p"
done
grep -q '/README.md$' "$work/files" || missing="$missing README.md"
grep -q '/NEWS$' "$work/files" || missing="$missing NEWS"
grep -q '^/usr/include' "$work/files" && missing="$missing (has /usr/include)"
is "$missing" "" "the package holds the program, agents, man pages, README and meta-data, no headers"

links=$(rpm -qlvp "$rpmfile" 2> /dev/null | sed -n 's|.*/usr/lib/ocf/resource.d/faultmon/\([a-z]*\) -> |\1 -> |p' | sort | tr '\n' ';')
is "$links" "apache -> ../../../../libexec/faultmon/faultmon-ocf;guard -> ../../../../libexec/faultmon/faultmon-ocf;httpmon -> ../../../../libexec/faultmon/faultmon-ocf;nginx -> ../../../../libexec/faultmon/faultmon-ocf;" \
    "the agents are relative links to the agent program"

# shellcheck disable=SC2016 # "$1" is the scriptlet's
like "$(rpm -qp --scripts "$rpmfile" 2> /dev/null | tr '\n' ' ')" \
    'postuninstall scriptlet.*"\$1" -eq 0.*rm -rf /run/faultmon' \
    "erasing the package removes the run-time state in /run/faultmon"

# Upgrading never stops, restarts or signals a running loop (doc/admin-
# guide.md, "Upgrading and downgrading"); only an erase removes the state.
unlike_scripts=$(rpm -qp --scripts "$rpmfile" 2> /dev/null | grep -v '^[[:space:]]*#' |
    grep -E 'kill|systemctl|service |crm_resource|faultmon (run|stop)|/resource\.d/' || true)
is "$unlike_scripts" "" "no scriptlet stops, restarts or signals a loop or a resource"

# rpmlint on the spec and the package: every error and warning fails but
# those faultmon.rpmlintrc keeps with their reasons, and those of this
# Debian build environment (tests/packages/rpmlint-debian.rpmlintrc).
if command -v rpmlint > /dev/null 2>&1; then
    cat "$top_srcdir/faultmon.rpmlintrc" "$top_srcdir/tests/packages/rpmlint-debian.rpmlintrc" \
        > "$work/all.rpmlintrc"
    fm_timeout 120 rpmlint -r "$work/all.rpmlintrc" "$top_srcdir/faultmon.spec" "$rpmfile" \
        > "$work/rpmlint.log" 2>&1
    status=$?
    if [ "$status" -eq 0 ] && ! grep -qE ': [EW]: ' "$work/rpmlint.log" &&
        grep -q ' 0 errors, 0 warnings' "$work/rpmlint.log"; then
        ok "rpmlint reports no error or warning that is not filtered with a reason"
    else
        not_ok "rpmlint reports no error or warning that is not filtered with a reason"
        grep -E ': [EW]: |errors,' "$work/rpmlint.log" | head -40 | sed 's/^/#   /'
    fi
else
    skip "rpmlint reports no error or warning that is not filtered with a reason" \
        "rpmlint is not installed (bash tests/install-deps.sh)"
fi

tap_done
