#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deb.sh: the Debian package.  Builds the source package and
# faultmon_*.deb from make dist's tarball (as faultmon_VERSION.orig.tar.gz)
# with dpkg-buildpackage, checks them with lintian --pedantic (any tag not
# overridden fails) and dpkg-deb.  Then builds the previous release
# (0.2.0) from its source in the git history (tests/packages/previous.sh),
# installs it, starts two loops with its httpmon agent against an HTTP
# server (one up, one unhealthy), upgrades to this build with `apt install
# ./faultmon_*.deb` and checks that the loops ran on untouched (same
# processes, the previous program), that the new agent's monitor and
# faultmon status read their state as the previous release did (verdict,
# exit status, reason), and that the new agent reloads, stops and starts
# loops the previous one started; asks Pacemaker's tools for the agents'
# meta-data, stops the loops, purges the package, and checks that the purge
# left nothing behind.
#
# The install never touches this machine's root file system: it happens in a
# chroot whose root is an overlay of / (upper layer in the test's temporary
# directory), mounted in a private mount namespace (unshare) that exists only
# while the inner half of this script (`deb.sh --inside WORKDIR`) runs.
# Every file the install, the tools and the purge write lands in the upper
# layer, so "nothing left behind" is a diff of that layer before the install
# and after the purge.  A faultmon installed from source (make install) is
# hidden inside the overlay first, as on a machine that never had one.
#
# Size: one test, the Debian package's life from its build to its purge; the
# inner half shares the outer half's helpers and counts.
#
# Needs root, dpkg-dev, debhelper, lintian, the build dependencies in
# debian/control, apt, crm_resource (pacemaker-cli-utils), python3 and overlayfs;
# without one of them it prints "1..0 # SKIP why".  pcs is optional.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/packages/dist.sh
. "$(dirname "$0")/dist.sh"
# shellcheck source=tests/packages/previous.sh
. "$(dirname "$0")/previous.sh"
top_srcdir=${FM_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}

# Package-manager bookkeeping that any install and purge rewrites; every
# other path the purge leaves in the overlay's upper layer is a leftover.
FM_DEB_BOOKKEEPING='^(var/lib/dpkg|var/lib/apt|var/cache/apt|var/cache/debconf|var/cache/man|var/cache/ldconfig|var/log|etc/ld\.so\.cache|tmp)(/|$)'

# --- the inner half: runs in the private mount namespace ------------------

# List the upper layer: one line per path, whiteouts (files deleted from the
# lower layer) marked as such.
fm_deb_list_upper() {
    (cd "$1" && find . -mindepth 1 \( -type c -printf 'deleted %P\n' \) -o \
        \( ! -type d -printf 'file %P\n' \) -o \( -type d -printf 'dir %P\n' \)) | sort
}

# The loops the upgrade must leave alone: two ocf:faultmon:httpmon
# resources started by the previous release's agent as Pacemaker would (an
# OCF environment; attrd_updater replaced by a recorder, there is no
# cluster here), watching a small HTTP server in the chroot: fmupgrade-a a
# page that is there (up), fmupgrade-b one that is not (HTTP 404: the loop
# judges the service unhealthy, with a reason the new readers must read).
# And fmupgrade-c, a loop of the apache agent's kind (restarts, failover,
# an OCF code in its state), run by the previous program as that agent runs
# it, without Pacemaker and Apache (--no-pacemaker, the missing page): it
# goes to failing-over.  Their state is in /run/faultmon, where the packaged
# agents keep it.
FM_DEB_LOOPS="fmupgrade-a fmupgrade-b"
FM_DEB_ALL_LOOPS="$FM_DEB_LOOPS fmupgrade-c"

# fm_deb_agent ROOT NAME ACTION [VAR=VALUE...]: run the installed httpmon
# agent in the chroot, with NAME's parameters (and VAR=VALUE besides); its
# attribute is NAME-up.
fm_deb_agent() {
    local r=$1 name=$2 action=$3 uri=/
    shift 3
    [ "$name" = fmupgrade-b ] && uri=/fm-missing
    fm_timeout 60 chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE="$name" OCF_RESKEY_name="$name-up" \
        OCF_RESKEY_Monitor_Uri_List="http://127.0.0.1:$FM_DEB_HTTP_PORT$uri" \
        OCF_RESKEY_Thorough_probe_interval=1s OCF_RESKEY_Probe_timeout=1s \
        FAULTMON_OCF_ATTRD_UPDATER=/tmp/fm-attrd-recorder "$@" \
        /usr/lib/ocf/resource.d/faultmon/httpmon "$action"
}

# The recorder's last value of attribute NAME ("deleted", "" if none).
fm_deb_attr() {
    awk -v name="$2" '
        $1 == "-n" && $2 == name && $3 == "-U" { v = $4 }
        $1 == "-n" && $2 == name && $3 == "-D" { v = "deleted" }
        END { print v }' "$1/tmp/fm-attrd.log" 2> /dev/null
}

# "PID STARTTIME" of NAME's loop, or "none": each process `faultmon run NAME`
# rooted in the chroot but its children (not a pid file, whose name a version
# may change); the start time shows a new process under a reused PID.
fm_deb_loop_id() {
    local r name=$2 p args pids="" out="" ppid
    r=$(readlink -f "$1")
    for p in /proc/[0-9]*; do
        args=$({ tr '\0' ' ' < "$p/cmdline"; } 2> /dev/null) || continue
        case " $args" in *" run $name "*) ;; *) continue ;; esac
        [ "$(readlink "$p/root" 2> /dev/null)" = "$r" ] || continue
        pids="$pids ${p#/proc/}"
    done
    for p in $pids; do
        ppid=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2> /dev/null)
        case " $pids " in *" $ppid "*) continue ;; esac
        out="$out${out:+ }$p $(sed 's/.*) //' "/proc/$p/stat" 2> /dev/null | cut -d' ' -f20)"
    done
    echo "${out:-none}"
}

# faultmon status NAME in the chroot (with PROGRAM, the installed faultmon
# by default): "EXIT|first line|reason line|window line".
fm_deb_status() {
    local out status
    out=$(fm_timeout 10 chroot "$1" "${3:-faultmon}" status "$2" 2>&1)
    status=$?
    printf '%s|%s|%s|%s' "$status" "$(printf '%s\n' "$out" | head -1)" \
        "$(printf '%s\n' "$out" | sed -n 's/^ *reason: *//p' | head -1)" \
        "$(printf '%s\n' "$out" | sed -n 's/^ *window: *//p' | head -1)"
}

# fm_deb_status_all ROOT [PROGRAM]: fm_deb_status of every loop, " ~ " between.
fm_deb_status_all() {
    local name out=""
    for name in $FM_DEB_ALL_LOOPS; do
        out="$out${out:+ ~ }$(fm_deb_status "$1" "$name" "${2:-}")"
    done
    printf '%s' "$out"
}

# The exit statuses in fm_deb_status_all's answer on stdin: "0/2/2".
fm_deb_exits() {
    awk -F' ~ ' '{ for (i = 1; i <= NF; i++) { split($i, f, "|"); printf "%s%s", (i > 1)? "/" : "", f[1] } }'
}

# fm_deb_ids ROOT: fm_deb_loop_id of every loop.
fm_deb_ids() {
    local name
    for name in $FM_DEB_ALL_LOOPS; do
        printf ' %s' "$(fm_deb_loop_id "$1" "$name")"
    done
}

# Install the previous release and start the loops with its agent; wait
# until its faultmon status sees fmupgrade-a up and fmupgrade-b unhealthy.
# Its program is kept in the chroot's /tmp, to read the loops' state beside
# the new one after the upgrade.
fm_deb_start_previous() {
    local work=$1 r=$1/root name status waited
    fm_timeout 120 chroot "$r" apt-get install -y --no-install-recommends /tmp/faultmon-previous.deb \
        > "$work/apt-previous.log" 2>&1
    status=$?
    ok_if "$status" "apt install the previous release $FM_DEB_PREVIOUS (in the overlay)"
    [ "$status" -eq 0 ] || diag_file "$work/apt-previous.log"
    cp "$r/usr/bin/faultmon" "$r/tmp/faultmon-previous"

    printf '#!/bin/sh\necho "$*" >> /tmp/fm-attrd.log\n' > "$r/tmp/fm-attrd-recorder"
    chmod 755 "$r/tmp/fm-attrd-recorder"
    mkdir -p "$r/tmp/fm-www"
    echo ok > "$r/tmp/fm-www/index.html"
    FM_DEB_HTTP_PORT=$(fm_free_port) || bail_out "no free port"
    chroot "$r" python3 -m http.server --bind 127.0.0.1 --directory /tmp/fm-www \
        "$FM_DEB_HTTP_PORT" > "$work/http.log" 2>&1 &
    FM_DEB_HTTP_PID=$!
    fm_cleanup_add "fm_signal TERM $FM_DEB_HTTP_PID --child > /dev/null"
    fm_wait_port 127.0.0.1 "$FM_DEB_HTTP_PORT" 10 || bail_out "the chroot's HTTP server did not start"

    status=""
    for name in $FM_DEB_LOOPS; do
        fm_deb_agent "$r" "$name" start > "$work/start-$name.log" 2>&1
        status="$status $?"
        # Whatever happens below, no loop outlives the test.
        fm_cleanup_add "fm_deb_kill_loop '$r' '$name'"
    done
    chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin OCF_ROOT=/usr/lib/ocf \
        OCF_RESOURCE_INSTANCE=fmupgrade-c OCF_RESKEY_Thorough_probe_interval=1s \
        OCF_RESKEY_Probe_timeout=1s OCF_RESKEY_Monitor_Uri_List="http://127.0.0.1:$FM_DEB_HTTP_PORT/fm-missing" \
        faultmon run fmupgrade-c --no-pacemaker > "$work/run-c.log" 2>&1 &
    fm_cleanup_add "fm_deb_kill_loop '$r' fmupgrade-c"
    is "$status" " 0 0" "the previous release's httpmon agent starts two loops (start: 0)"
    [ "$status" = " 0 0" ] || diag_file "$work"/start-*.log

    # fmupgrade-c restarts (as asked, in vain) before it fails over, where
    # it stays.
    waited=0
    status=$(fm_deb_status_all "$r")
    while { [ "$(printf '%s' "$status" | fm_deb_exits)" != 0/2/2 ] ||
        [ "${status#*fmupgrade-c: failing-over|}" = "$status" ]; } && [ "$waited" -lt 40 ]; do
        sleep 0.5
        waited=$((waited + 1))
        status=$(fm_deb_status_all "$r")
    done
    diag "the previous release's faultmon status (exit|first line|reason|window): $status"
    like "$status" '^0\|fmupgrade-a: up\|ok\|.* ~ 2\|fmupgrade-b: unhealthy\|.*complete failure.*unhealthy\|.* ~ 2\|fmupgrade-c: failing-over\|.*failing over' \
        "the previous release's faultmon status: fmupgrade-a up (0), -b unhealthy (2), -c failing-over (2), with their reasons"
}

# shellcheck disable=SC2317 # called through fm_cleanup_add
fm_deb_kill_loop() {
    local id
    for id in $(fm_deb_loop_id "$1" "$2" | awk '{ for (i = 1; i <= NF; i += 2) print $i }'); do
        fm_signal "${3:-KILL}" "$id" "(^| )run $2( |\$)" > /dev/null
    done
}

# Upgrade to this build with the loops running; they must run on, untouched.
fm_deb_upgrade() {
    local work=$1 r=$1/root deb=$2 name before after status mtime waited exe before_status after_status
    before=$(fm_deb_ids "$r")
    FM_DEB_IDS_BEFORE=$before
    : > "$r/tmp/fm-attrd.log"
    fm_timeout 120 chroot "$r" apt-get install -y --no-install-recommends "/tmp/$deb" \
        > "$work/apt-install.log" 2>&1
    status=$?
    # shellcheck disable=SC2016 # a dpkg-query format, not the shell's
    is "$status/$(chroot "$r" dpkg-query -W -f='${Version}' faultmon 2> /dev/null)" \
        "0/$(dpkg-deb -f "$work/$deb" Version)" "apt install ./$deb upgrades $FM_DEB_PREVIOUS (in the overlay)"
    [ "$status" -eq 0 ] || diag_file "$work/apt-install.log"

    after=$(fm_deb_ids "$r")
    if [ "$after" = "$before" ] && [ "${before#* none}" = "$before" ]; then
        ok "the loops run on through the upgrade: same PIDs, same start times"
    else
        not_ok "the loops run on through the upgrade: same PIDs, same start times"
        diag "before:$before" "after: $after"
    fi
    # They run the previous release's program, which the upgrade replaced.
    exe=""
    for name in $FM_DEB_ALL_LOOPS; do
        exe="$exe $(readlink "/proc/$(fm_deb_loop_id "$r" "$name" | cut -d' ' -f1)/exe" 2> /dev/null)"
    done
    like "$exe" '^( [^ ]*/usr/bin/faultmon \(deleted\)){3}$' \
        "the loops that run on are the previous release's program (the upgrade replaced /usr/bin/faultmon)"
    # Running, not just present: the old loop still writes its state.
    name=${FM_DEB_LOOPS%% *}
    mtime=$(stat -c %y "$r/run/faultmon/$name/state" 2> /dev/null)
    waited=0
    while [ "$(stat -c %y "$r/run/faultmon/$name/state" 2> /dev/null)" = "$mtime" ] && [ "$waited" -lt 100 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    ok_if "$((waited >= 100))" "the old loop keeps writing its state after the upgrade"
    is "$(grep -c -- ' -D' "$r/tmp/fm-attrd.log")" 0 "the upgrade deleted no attribute (no agent stop ran)"

    # The new agent's monitor reads the old loops' verdicts: it answers 0
    # with no exit reason (a state it could not read is 8, "no verdict", and
    # a missing one publishes nothing) and publishes up for fmupgrade-a and
    # down for fmupgrade-b.
    status=""
    for name in $FM_DEB_LOOPS; do
        fm_deb_agent "$r" "$name" monitor > "$work/monitor-$name.log" 2>&1
        status="$status $? $(grep -c 'ocf-exit-reason' "$work/monitor-$name.log")"
    done
    is "$status/$(fm_deb_attr "$r" fmupgrade-a-up)/$(fm_deb_attr "$r" fmupgrade-b-up)" " 0 0 0 0/1/0" \
        "the new agent's monitor reads the old loops' verdicts (monitor: 0, no exit reason; attribute 1 up, 0 unhealthy)"
    [ "$status" = " 0 0 0 0" ] || diag_file "$work"/monitor-*.log
    # The previous and the new faultmon status on the same state, read one
    # after the other (again when a loop wrote a new verdict in between).
    waited=0
    before_status="" after_status=x
    while [ "$after_status" != "$before_status" ] && [ "$waited" -lt 4 ]; do
        before_status=$(fm_deb_status_all "$r" /tmp/faultmon-previous)
        after_status=$(fm_deb_status_all "$r")
        waited=$((waited + 1))
    done
    if [ "$after_status" = "$before_status" ] &&
        [ "$(printf '%s' "$after_status" | fm_deb_exits)" = 0/2/2 ]; then
        ok "the new faultmon status reads the old loops' state as the previous one does (exit 0, 2, 2, status, reason, window)"
    else
        not_ok "the new faultmon status reads the old loops' state as the previous one does (exit 0, 2, 2, status, reason, window)"
        diag "previous: $before_status" "new:      $after_status"
    fi
    is "$(fm_deb_ids "$r")" "$before" "the new agent's monitor and status restarted no loop"
}

# The new agent acts on loops the previous release's agent started: a
# reload of fmupgrade-a with a new multiplier replaces its loop by one of
# the new program and never deletes the attribute; a stop of fmupgrade-b
# ends its old loop and deletes its attribute; a start runs a new one.
fm_deb_new_agent_acts() {
    local work=$1 r=$1/root id_a id_b status
    id_a=$(echo "$FM_DEB_IDS_BEFORE" | cut -d' ' -f2-3)
    id_b=$(echo "$FM_DEB_IDS_BEFORE" | cut -d' ' -f4-5)
    : > "$r/tmp/fm-attrd.log"
    fm_deb_agent "$r" fmupgrade-a reload OCF_RESKEY_multiplier=50 > "$work/reload.log" 2>&1
    status=$?
    is "$status/$(fm_deb_attr "$r" fmupgrade-a-up)/$(grep -c -- ' -D' "$r/tmp/fm-attrd.log")" "0/50/0" \
        "the new agent's reload of an old loop: 0, the attribute 50 at once, never deleted"
    [ "$status" -eq 0 ] || diag_file "$work/reload.log"
    status=$(fm_deb_loop_id "$r" fmupgrade-a)
    if [ "$status" != none ] && [ "$status" != "$id_a" ] && [ "${status#* * }" = "$status" ] &&
        [ "$(readlink "/proc/${status%% *}/exe")" = "$(readlink -f "$r")/usr/bin/faultmon" ]; then
        ok "the reload replaced the old loop by one loop of the new program"
    else
        not_ok "the reload replaced the old loop by one loop of the new program"
        diag "before: $id_a" "after:  $status ($(readlink "/proc/${status%% *}/exe" 2> /dev/null))"
    fi

    : > "$r/tmp/fm-attrd.log"
    fm_deb_agent "$r" fmupgrade-b stop > "$work/stop-old.log" 2>&1
    status=$?
    is "$status/$(fm_deb_loop_id "$r" fmupgrade-b)/$(fm_deb_attr "$r" fmupgrade-b-up)" "0/none/deleted" \
        "the new agent's stop of an old loop: 0, the loop ends, its attribute is deleted"
    [ "$status" -eq 0 ] || diag_file "$work/stop-old.log"
    fm_deb_agent "$r" fmupgrade-b start > "$work/start-new.log" 2>&1
    status="$? $(fm_deb_loop_id "$r" fmupgrade-b)"
    if [ "${status%% *}" = 0 ] && [ "${status#0 }" != none ] && [ "${status#0 }" != "$id_b" ]; then
        ok "the new agent starts it again: 0, a new loop"
    else
        not_ok "the new agent starts it again: 0, a new loop"
        diag "start and loop: $status (the old one: $id_b)"
        diag_file "$work/start-new.log"
    fi
}

# The administrator's stop, with the new agent: the loops end.
fm_deb_stop_loops() {
    local r=$1/root name status="" left="" waited
    for name in $FM_DEB_LOOPS; do
        fm_deb_agent "$r" "$name" stop > "$1/stop-$name.log" 2>&1
        status="$status $?"
        [ "$(fm_deb_loop_id "$r" "$name")" = none ] || left="$left $name"
    done
    # fmupgrade-c, which no agent started, ends as the loop does on SIGTERM.
    fm_deb_kill_loop "$r" fmupgrade-c TERM
    waited=0
    while [ "$(fm_deb_loop_id "$r" fmupgrade-c)" != none ] && [ "$waited" -lt 50 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    [ "$(fm_deb_loop_id "$r" fmupgrade-c)" = none ] || left="$left fmupgrade-c"
    is "$status/$left" " 0 0/" "the new agent's stop ends the loops (stop: 0), SIGTERM the previous program's fmupgrade-c"
    fm_signal TERM "$FM_DEB_HTTP_PID" --child > /dev/null
}

fm_deb_inside() {
    local work=$1 r=$1/root deb names p out missing
    read -r TAP_COUNT TAP_FAILED < "$work/tap-count"
    FM_DEB_COUNT_FILE=$work/tap-count
    trap 'fm_cleanup_run; echo "$TAP_COUNT $TAP_FAILED" > "$FM_DEB_COUNT_FILE"' EXIT

    mount -t overlay overlay -o "lowerdir=/,upperdir=$work/upper,workdir=$work/ovl-work" "$r" ||
        bail_out "cannot mount the overlay of /"
    # Everything below writes through "$r" only; make sure it is the overlay.
    [ "$(findmnt -n -o FSTYPE --mountpoint "$r")" = overlay ] || bail_out "$r is not the overlay"
    if ! { mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
        mount --rbind /sys "$r/sys" && mount -t tmpfs tmpfs "$r/run"; }; then
        bail_out "cannot mount /dev, /proc, /sys and /run in the overlay"
    fi

    # Hide a faultmon installed from source (make install, under /usr/local
    # or /usr), so that the tools find only the package's agents and program
    # and the purge's diff sees no file of the lower layer deleted.
    rm -rf "$r/usr/lib/ocf/resource.d/faultmon"
    find "$r/usr/local" -xdev -name '*faultmon*' -prune -exec rm -rf {} +
    deb=$(cd "$work" && find . -maxdepth 1 -name 'faultmon_*.deb' -printf '%f\n' | head -1)
    for p in "$work/$deb" "$work/previous.deb"; do
        dpkg-deb --fsys-tarfile "$p" | tar -t | sed -n 's|^\./||p'
    done | while read -r p; do
        if [ -n "$p" ] && { [ -f "$r/$p" ] || [ -L "$r/$p" ]; } && [ ! -d "$r/$p" ]; then
            rm -f "$r/$p"
        fi
    done
    for p in usr/libexec/faultmon usr/share/faultmon usr/share/doc/faultmon; do
        rm -rf "${r:?}/$p"
    done

    # The package goes into the overlay's /tmp: $work may be on a file system
    # the overlay of / does not show (a tmpfs /tmp).
    cp "$work/$deb" "$r/tmp/$deb"
    cp "$work/previous.deb" "$r/tmp/faultmon-previous.deb"
    fm_deb_list_upper "$work/upper" > "$work/upper-before"

    # The dependencies are on this machine already (apt-get's --no-download
    # would say so, but it cannot install a local file).
    export DEBIAN_FRONTEND=noninteractive
    fm_deb_start_previous "$work"
    fm_deb_upgrade "$work" "$deb"
    fm_deb_new_agent_acts "$work"
    chroot "$r" dpkg-query -L faultmon > "$work/installed-paths" 2>&1

    for agent in apache nginx httpmon guard; do
        if fm_timeout 30 chroot "$r" crm_resource --show-metadata "ocf:faultmon:$agent" 2>&1 |
            cmp -s - "$top_srcdir/metadata/$agent.xml"; then
            ok "crm_resource --show-metadata ocf:faultmon:$agent prints the packaged agent's meta-data"
        else
            not_ok "crm_resource --show-metadata ocf:faultmon:$agent prints the packaged agent's meta-data"
            diag "$(fm_timeout 30 chroot "$r" crm_resource --show-metadata "ocf:faultmon:$agent" 2>&1 | head -5)"
        fi
    done

    if chroot "$r" sh -c 'command -v pcs' > /dev/null 2>&1; then
        names=$(xmllint --xpath '//parameter/@name' "$top_srcdir/metadata/apache.xml" |
            tr ' ' '\n' | sed -n 's/^name="\(.*\)"$/\1/p')
        out=$(fm_timeout 90 chroot "$r" sh -c 'cd / && pcs resource describe --full ocf:faultmon:apache' 2>&1)
        missing=""
        for p in $names; do
            printf '%s\n' "$out" | grep -Eq "^  $p( \\(.*\\))?:" || missing="$missing $p"
        done
        is "$missing" "" "pcs resource describe --full ocf:faultmon:apache shows every parameter"
    else
        skip "pcs resource describe --full ocf:faultmon:apache shows every parameter" "pcs is not installed"
    fi

    is "$(chroot "$r" sh -c 'command -v faultmon && faultmon --version' 2>&1 | tr '\n' ' ')" \
        "/usr/bin/faultmon faultmon $FM_DEB_VERSION " "faultmon on PATH is the packaged /usr/bin/faultmon"

    # The loops end by the administrator's stop; what they and the agents
    # leave at run time stays for the purge to remove.
    fm_deb_stop_loops "$work"
    mkdir -p "$r/run/faultmon/web"
    echo state > "$r/run/faultmon/web/state"
    fm_deb_purge "$work"
}

# Purge the package; nothing it installed or made may stay.
fm_deb_purge() {
    local work=$1 r=$1/root status missing p kind
    fm_timeout 120 chroot "$r" apt-get purge -y faultmon > "$work/apt-purge.log" 2>&1
    status=$?
    ok_if "$status" "apt purge faultmon (in the overlay)"
    [ "$status" -eq 0 ] || diag_file "$work/apt-purge.log"

    # dpkg-query prints nothing (and fails) for a package it never heard of.
    # shellcheck disable=SC2016 # a dpkg-query format, not the shell's
    status=$(chroot "$r" dpkg-query -W -f='${db:Status-Status}' faultmon 2>/dev/null)
    is "${status:-not-installed}" "not-installed" "dpkg knows faultmon no more after the purge"

    # Shared directories (/usr/share/man/man1, lintian's overrides, ...)
    # stay; anything named faultmon must go.
    missing=""
    while read -r p; do
        case $p in /*) ;; *) continue ;; esac
        if [ -d "$r$p" ] && [ ! -L "$r$p" ] && [ "${p#*faultmon}" = "$p" ]; then
            continue
        fi
        if [ -e "$r$p" ] || [ -L "$r$p" ]; then
            missing="$missing $p"
        fi
    done < "$work/installed-paths"
    is "$missing" "" "every path the package installed is gone"
    [ -s "$work/installed-paths" ] || diag "dpkg-query -L faultmon listed nothing"

    if [ -e "$r/run/faultmon" ]; then
        not_ok "the purge removes the run-time state in /run/faultmon"
    else
        ok "the purge removes the run-time state in /run/faultmon"
    fi

    fm_deb_list_upper "$work/upper" > "$work/upper-after"
    # Lines only in the "after" list, outside the package manager's files;
    # a directory already in the lower layer (copied up) is no leftover.
    comm -13 "$work/upper-before" "$work/upper-after" | while read -r kind p; do
        if printf '%s\n' "$p" | grep -Eq "$FM_DEB_BOOKKEEPING"; then
            continue
        fi
        if [ "$kind" = dir ] && [ -d "/$p" ]; then
            continue
        fi
        echo "$kind $p"
    done > "$work/leftovers"
    if [ -s "$work/leftovers" ]; then
        not_ok "install and purge leave nothing behind (diff of the overlay's upper layer)"
        diag_file "$work/leftovers"
    else
        ok "install and purge leave nothing behind (diff of the overlay's upper layer)"
    fi
    if grep -rlsI faultmon "$work/upper/var/lib/dpkg/info" "$work/upper/etc" > "$work/leftover-mentions"; then
        not_ok "no dpkg or /etc file names faultmon after the purge"
        diag_file "$work/leftover-mentions"
    else
        ok "no dpkg or /etc file names faultmon after the purge"
    fi
}

if [ "${1:-}" = "--inside" ]; then
    FM_TOP_SRCDIR=$top_srcdir
    fm_deb_inside "$2"
    exit 0
fi

# --- the outer half: skips, the build and the package's contents ---------

[ "$(id -u)" -eq 0 ] || {
    echo "1..0 # SKIP needs root (mounts an overlay of / in a private mount namespace)"
    exit 0
}
for tool in dpkg-buildpackage dpkg-checkbuilddeps dh lintian apt-get unshare chroot findmnt \
    crm_resource xmllint python3; do
    command -v "$tool" > /dev/null 2>&1 || {
        echo "1..0 # SKIP $tool is not installed (bash tests/install-deps.sh)"
        exit 0
    }
done
[ -f "$top_srcdir/debian/control" ] || {
    echo "1..0 # SKIP no debian/ directory in $top_srcdir"
    exit 0
}
if ! deps=$(cd "$top_srcdir" && dpkg-checkbuilddeps 2>&1); then
    echo "1..0 # SKIP ${deps##*: } (bash tests/install-deps.sh)"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-deb.XXXXXX") || bail_out "mktemp failed"
# The mounts live only in the inner process's namespace, never here; still,
# never let rm cross into another file system.
fm_cleanup_add "rm -rf --one-file-system '$work'"
mkdir -p "$work/upper" "$work/ovl-work" "$work/root" "$work/probe-upper" "$work/probe-work"
if ! unshare --mount --propagation private mount -t overlay overlay \
    -o "lowerdir=/,upperdir=$work/probe-upper,workdir=$work/probe-work" "$work/root" 2> "$work/probe.log"; then
    echo "1..0 # SKIP cannot mount an overlay of / here: $(head -1 "$work/probe.log")"
    exit 0
fi

tap_watchdog 1200
plan 35

FM_DEB_VERSION=$(sed -n '1s/^faultmon (\([^-)]*\).*/\1/p' "$top_srcdir/debian/changelog")
export FM_DEB_VERSION
is "$FM_DEB_VERSION" "$(sed -n 's/^AC_INIT(\[faultmon\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")" \
    "debian/changelog's upstream version is configure.ac's"

# The release tarball (make dist), as faultmon_VERSION.orig.tar.gz beside
# its unpacked tree: dpkg-buildpackage builds the source package (.dsc) and
# the binary one from it, as a distribution's builder would.
fm_pkg_dist "$work" || {
    diag_file "$work/dist.log"
    bail_out "make dist failed"
}
mkdir -p "$work/src"
cp "$FM_PKG_TARBALL" "$work/src/faultmon_$FM_DEB_VERSION.orig.tar.gz"
tar -C "$work/src" -xzf "$FM_PKG_TARBALL"
src=$work/src/faultmon-$FM_DEB_VERSION
[ -f "$src/debian/control" ] || bail_out "make dist's tarball has no debian/control"

# The suite runs the package's own tests elsewhere; here only the build,
# at the lowest CPU priority: the timing tests that make check runs beside
# it must not lose their deadlines to a compiler.
start_ms=$(fm_now_ms)
(cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=2" fm_timeout 900 \
    nice -n 19 dpkg-buildpackage -us -uc) > "$work/build.log" 2>&1
status=$?
diag "dpkg-buildpackage took $(($(fm_now_ms) - start_ms)) ms"
deb=$(cd "$work/src" && find . -maxdepth 1 -name 'faultmon_*.deb' -printf '%f\n' | head -1)
changes=$(cd "$work/src" && find . -maxdepth 1 -name 'faultmon_*.changes' -printf '%f\n' | head -1)
if [ "$status" -eq 0 ] && [ -n "$deb" ] && [ -n "$changes" ]; then
    ok "dpkg-buildpackage -us -uc builds $deb and the source package from make dist's tarball"
else
    not_ok "dpkg-buildpackage -us -uc builds faultmon_*.deb and the source package from make dist's tarball"
    tail -n 40 "$work/build.log" | sed 's/^/#   /'
    bail_out "no package to check"
fi
cp "$work/src/$deb" "$work/"

# The previous build, to upgrade from: the release before this one, built
# from its source (tests/packages/previous.sh: git archive of its commit)
# by its own debian/rules, the way this build is built above; binary only
# (-b: that release's source package was checked when it was made).  Its
# loops run the previous program and write the previous state format, which
# the new agents and faultmon status must read after the upgrade.
if fm_pkg_previous_src "$work"; then
    start_ms=$(fm_now_ms)
    (cd "$FM_PKG_PREVIOUS_SRC" && DEB_BUILD_OPTIONS="nocheck parallel=2" fm_timeout 900 \
        nice -n 19 dpkg-buildpackage -us -uc -b) > "$work/build-previous.log" 2>&1
    status=$?
    diag "dpkg-buildpackage of the previous release took $(($(fm_now_ms) - start_ms)) ms"
    previous=$(cd "$work/previous-src" && find . -maxdepth 1 -name "faultmon_${FM_PKG_PREVIOUS_VERSION}_*.deb" -printf '%f\n' | head -1)
else
    status=1 previous=""
fi
FM_DEB_PREVIOUS=$FM_PKG_PREVIOUS_VERSION
export FM_DEB_PREVIOUS
if [ "$status" -eq 0 ] && [ -n "$previous" ]; then
    ok "dpkg-buildpackage -b builds $previous from the previous release's source (commit ${FM_PKG_PREVIOUS_COMMIT:0:7})"
    cp "$work/previous-src/$previous" "$work/previous.deb"
else
    not_ok "dpkg-buildpackage -b builds the previous release's package from its source (commit ${FM_PKG_PREVIOUS_COMMIT:0:7})"
    [ -z "$FM_PKG_PREVIOUS_ERROR" ] || diag "$FM_PKG_PREVIOUS_ERROR"
    [ ! -s "$work/build-previous.log" ] || tail -n 40 "$work/build-previous.log" | sed 's/^/#   /'
    bail_out "no previous build to upgrade from"
fi
dpkg --compare-versions "$FM_DEB_PREVIOUS" lt "$(dpkg-deb -f "$work/$deb" Version)" ||
    bail_out "the previous release's version $FM_DEB_PREVIOUS is not older than $(dpkg-deb -f "$work/$deb" Version)"

# lintian --pedantic on the .changes (the .dsc, the .deb and its -dbgsym):
# every tag fails, whatever its level (error, warning, info, pedantic; not
# lintian's experimental checks); a tag kept is overridden, with its reason, in
# debian/faultmon.lintian-overrides or debian/source/lintian-overrides.
fm_timeout 300 lintian --pedantic --display-info --fail-on error,warning,info,pedantic \
    "$work/src/$changes" > "$work/lintian.log" 2>&1
status=$?
grep -E '^[EWIP]: ' "$work/lintian.log" > "$work/lintian-tags"
if [ "$status" -eq 0 ] && [ ! -s "$work/lintian-tags" ]; then
    ok "lintian --pedantic reports no tag that is not overridden (.deb, .dsc, .changes)"
else
    not_ok "lintian --pedantic reports no tag that is not overridden (.deb, .dsc, .changes)"
    diag_file "$work/lintian.log"
fi

dpkg-deb -x "$work/$deb" "$work/x"
missing=""
for p in usr/bin/faultmon usr/libexec/faultmon/faultmon-ocf usr/libexec/faultmon/faultmon-ocf-probe usr/libexec/faultmon/faultmon-libs \
    usr/share/man/man1/faultmon.1.gz usr/share/man/man7/ocf_faultmon_apache.7.gz \
    usr/share/man/man7/ocf_faultmon_nginx.7.gz usr/share/man/man7/ocf_faultmon_httpmon.7.gz \
    usr/share/man/man7/ocf_faultmon_guard.7.gz \
    usr/share/doc/faultmon/README.md.gz usr/share/doc/faultmon/NEWS.gz usr/share/doc/faultmon/copyright usr/share/faultmon/ocf/apache.xml \
    usr/share/faultmon/ocf/nginx.xml usr/share/faultmon/ocf/httpmon.xml usr/share/faultmon/ocf/guard.xml \
    usr/share/faultmon/prometheus/faultmon-alerts.yml usr/share/faultmon/grafana/faultmon.json; do
    [ -f "$work/x/$p" ] || missing="$missing $p"
done
is "$missing" "" "the package holds the program, the agent programs, man pages, README, meta-data and the operator's kit"
missing=""
for agent in apache nginx httpmon guard; do
    link=$work/x/usr/lib/ocf/resource.d/faultmon/$agent
    # A relative link that resolves inside the package tree.
    if [ ! -L "$link" ] || [ "$(readlink -f "$link")" != "$work/x/usr/libexec/faultmon/faultmon-ocf" ]; then
        missing="$missing $agent"
    fi
done
is "$missing" "" "the agents are links from /usr/lib/ocf/resource.d/faultmon/ to the agent program"
is "$(find "$work/x/usr" -path '*/include*' -o -path '*/local*' | head -3)" "" \
    "no headers and nothing under /usr/local in the package"

# The install and purge, in the overlay.  The inner half numbers its TAP
# lines after these.
echo "$TAP_COUNT $TAP_FAILED" > "$work/tap-count"
fm_timeout 600 unshare --mount --propagation private "$BASH" "$0" --inside "$work"
read -r TAP_COUNT TAP_FAILED < "$work/tap-count"

tap_done
