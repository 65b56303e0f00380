#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-nss.sh: the OCF agent program (agents/faultmon-ocf) calls no NSS
# lookup (user, group, host, service names).  Built with
# --enable-static-agent it is a static program, whose glibc loads the NSS
# modules of the system (libnss_systemd, sssd, ldap) that link the shared
# libc: a static getpwnam() for a user not in /etc/passwd crashes.  The agent
# hands every such lookup to a program instead (chown(1) for APACHE_RUN_USER).
# Checked on the default, dynamic build, whose imports nm lists.  (wordexp
# expands ~user through NSS; glob() does only with GLOB_TILDE, which the
# agent does not pass: not seen here.)

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

AGENT=${FM_TOP_BUILDDIR:-$FM_TEST_LIB/../..}/agents/faultmon-ocf
NSS_CALLS='getpwnam getpwnam_r getpwuid getpwuid_r getpwent getpwent_r getgrnam getgrnam_r getgrgid
getgrgid_r getgrent getgrouplist initgroups getspnam getspnam_r getlogin getlogin_r getaddrinfo
getnameinfo gethostbyname gethostbyname2 gethostbyname_r gethostbyname2_r gethostbyaddr
gethostbyaddr_r gethostent getservbyname getservbyname_r getservbyport getservbyport_r
getprotobyname getprotobyname_r getprotobynumber getnetbyname getnetbyaddr getrpcbyname
getrpcbynumber ether_hostton ether_ntohost innetgr setnetgrent getnetgrent wordexp'

tap_watchdog 30
if [ ! -x "$AGENT" ]; then
    echo "1..0 # SKIP $AGENT is not built"
    exit 0
fi
if ! command -v nm >/dev/null; then
    echo "1..0 # SKIP nm is not installed (binutils)"
    exit 0
fi
imports=$(nm -D --undefined-only "$AGENT" 2>/dev/null | awk '{ sub(/@.*/, "", $NF); print $NF }')
if [ -z "$imports" ]; then
    echo "1..0 # SKIP $AGENT imports nothing: a static build (--enable-static-agent)"
    exit 0
fi
plan 2
# Whether nm sees the imports at all: a libc function every build calls.
check "nm lists the agent's imports (execve among them)" grep -qx execve <<<"$imports"
found=""
for f in $NSS_CALLS; do
    if grep -qx -- "$f" <<<"$imports"; then
        found="$found $f"
    fi
done
if [ -z "$found" ]; then
    ok "the agent calls no NSS lookup"
else
    not_ok "the agent calls no NSS lookup"
    diag "it imports:$found (a static agent would load the system's NSS modules: hand the lookup to a program)"
fi
tap_done
