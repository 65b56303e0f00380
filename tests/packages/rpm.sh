#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rpm.sh: faultmon.spec builds with `rpmbuild -tb` from make dist's tarball
# here.  This is a Debian machine, so the spec's BuildRequires (Fedora and
# SUSE package names) are not checked (--nodeps), nor is %check run
# (--without check: the package build would need cmocka's -devel names);
# what is checked is that %build, %install and %files agree with `make
# install`: no file missing, none left unpackaged (rpmbuild fails on either),
# the agents' links, the scriptlets (none stops or restarts a loop; run in
# their own namespaces as `rpm -U` from the previous release's package and
# `rpm -e` would run them, they leave a running loop and its state alone,
# and the erase removes the state) and the version; then rpmlint on the
# spec and the RPM, with every finding kept filtered with its reason
# (faultmon.rpmlintrc).  Needs rpmbuild and rpmspec (Debian package rpm),
# unshare, the git history (previous.sh) and rpmlint; skips without
# rpmbuild.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/packages/dist.sh
. "$(dirname "$0")/dist.sh"
# shellcheck source=tests/packages/previous.sh
. "$(dirname "$0")/previous.sh"
top_srcdir=${FM_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}

for tool in rpmbuild rpm rpmspec unshare; do
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
plan 11

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

# The upgrade from the previous release, as `rpm -U` runs its scriptlets:
# this package's %pretrans, %pre and %post with 2, the previous release's
# %preun and %postun with 1 (taken from its spec in the git history with
# rpmspec, tests/packages/previous.sh: its RPM is not built here), then
# this package's %posttrans; then an erase, this package's %preun and
# %postun with 0.  They run in their own PID and mount namespaces, with a
# fresh /run holding a loop's state and a process standing for the loop,
# never this machine's.  This proves what the scriptlets do to running
# loops and their state; not rpm's file-level upgrade (no previous RPM, no
# rpm database), nor the real loops' state compatibility (deb.sh).
fm_rpm_scriptlets() {
    local dir=$1 from=$2 tag
    shift 2
    mkdir -p "$dir"
    for tag in PRETRANS PREIN POSTIN PREUN POSTUN POSTTRANS; do
        "$@" --qf "%{${tag}PROG}\\n" "$from" > "$dir/$tag.prog" 2> /dev/null
        "$@" --qf "%{$tag}" "$from" > "$dir/$tag" 2> /dev/null
        if [ "$(cat "$dir/$tag")" = "(none)" ]; then
            : > "$dir/$tag"
        fi
    done
    # Triggers would run too; this check does not emulate them.
    "$@" --qf '%{TRIGGERSCRIPTS}%{FILETRIGGERSCRIPTS}%{TRANSFILETRIGGERSCRIPTS}' "$from" \
        > "$dir/triggers" 2> /dev/null
}
if fm_pkg_previous_src "$work"; then
    fm_rpm_scriptlets "$work/scripts-new" "$rpmfile" rpm -qp
    fm_rpm_scriptlets "$work/scripts-old" "$FM_PKG_PREVIOUS_SRC/faultmon.spec" rpmspec -q
    progs=$(cat "$work"/scripts-*/*.prog | sort -u | grep -vx -e '(none)' -e /bin/sh | tr '\n' ' ')
    is "$(cat "$work"/scripts-*/triggers | tr -d '\n')/$progs" "(none)(none)(none)(none)(none)(none)/" \
        "this package and the previous release (${FM_PKG_PREVIOUS_COMMIT:0:7}) have no triggers and only /bin/sh scriptlets"
    cat > "$work/upgrade-scriptlets.sh" << 'EOS'
# Runs as PID 1 of its own PID namespace, in its own mount namespace.
work=$1
mount -t tmpfs tmpfs /run || exit 1
mkdir -p /run/faultmon/fmupgrade "$work/stand-in"
printf '#!/bin/sh\nwhile :; do sleep 1; done\n' > "$work/stand-in/faultmon"
chmod 755 "$work/stand-in/faultmon"
"$work/stand-in/faultmon" run fmupgrade --kind=httpmon > /dev/null 2>&1 &
echo $! > /run/faultmon/fmupgrade/pid
printf 'faultmon-state 1\nend\n' > /run/faultmon/fmupgrade/state
ident() {
    echo "$(sed 's/.*) //' "/proc/$(cat "$work/stand-in.pid")/stat" 2> /dev/null | cut -d' ' -f20)" \
        "$(find /run/faultmon -type f -exec md5sum {} + 2> /dev/null | sort | md5sum)"
}
cp /run/faultmon/fmupgrade/pid "$work/stand-in.pid"
before=$(ident)
run() {
    local script=$1 arg=$2
    [ -s "$script" ] || return 0
    echo "--- ${script#"$work"/} $arg" >> "$work/scriptlets.log"
    sh -x "$script" "$arg" >> "$work/scriptlets.log" 2>&1 || echo "failed: ${script#"$work"/} $arg"
}
run "$work/scripts-new/PRETRANS" 2
run "$work/scripts-new/PREIN" 2
run "$work/scripts-new/POSTIN" 2
run "$work/scripts-old/PREUN" 1
run "$work/scripts-old/POSTUN" 1
run "$work/scripts-new/POSTTRANS" 2
if [ "$(ident)" = "$before" ] && [ -n "${before%% *}" ]; then
    echo "upgrade: loop and state untouched"
else
    echo "upgrade: before '$before', after '$(ident)'"
fi
run "$work/scripts-new/PREUN" 0
run "$work/scripts-new/POSTUN" 0
if [ -e /run/faultmon ]; then echo "erase: /run/faultmon stays"; else echo "erase: /run/faultmon gone"; fi
EOS
    out=$(fm_timeout 60 unshare --pid --fork --mount-proc --propagation private \
        bash "$work/upgrade-scriptlets.sh" "$work" 2>&1 | tr '\n' ';')
    is "${out%%;erase*}" "upgrade: loop and state untouched" \
        "rpm -U's scriptlets from the previous release to this one stop no loop and keep its state"
    [ "${out%%;erase*}" = "upgrade: loop and state untouched" ] || diag_file "$work/scriptlets.log"
    is "${out#*erase: }" "/run/faultmon gone;" "rpm -e's scriptlets then remove /run/faultmon"
else
    not_ok "the previous release's scriptlets can be read from its spec (commit ${FM_PKG_PREVIOUS_COMMIT:0:7})"
    diag "$FM_PKG_PREVIOUS_ERROR"
    skip "rpm -U's scriptlets from the previous release to this one stop no loop and keep its state" \
        "no previous release"
    skip "rpm -e's scriptlets then remove /run/faultmon" "no previous release"
fi

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
