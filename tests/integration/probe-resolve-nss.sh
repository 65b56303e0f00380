#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-resolve-nss.sh: a host name that only an NSS module knows.  c-ares
# reads /etc/hosts and resolv.conf; when /etc/nsswitch.conf lists more host
# sources than files and dns, a name c-ares does not find is asked of NSS
# (getaddrinfo, in a thread), so that a name the administrator's own tools
# resolve is never a false resolve-failed.  The module is this test's own
# (libnss_qfmtest, built here, found through LD_LIBRARY_PATH), in a private
# mount namespace with this test's nsswitch.conf and resolv.conf (a name
# server on 127.0.0.1, where none listens: refused at once): nothing of the
# machine changes, and nothing leaves it.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
    echo "1..0 # SKIP needs root and unshare -m (a private /etc/nsswitch.conf)"
    exit 0
fi
command -v "${CC:-cc}" >/dev/null 2>&1 || bail_out "no C compiler for the test's NSS module"
plan 7

fm_fault_server_start ok || bail_out "the fault server did not start"
OK_PORT=${FS_PORT[ok]}

# An NSS module that knows NAME.fmtest-nss as 127.0.0.1, and nothing else.
# Its name must not start with f or d: c-ares 1.18 takes the first letter of
# every source as files or dns, and reading /etc/hosts twice leaks a copy of
# the name in c-ares (a source named f... would fail the ASan build here).
cat >"$FM_TMP/nss_fmtest.c" <<'EOF'
#include <errno.h>
#include <netdb.h>
#include <nss.h>
#include <string.h>
#include <arpa/inet.h>

enum nss_status
_nss_qfmtest_gethostbyname2_r(const char *name, int af, struct hostent *h, char *buf,
                             size_t len, int *errnop, int *h_errnop)
{
    size_t n = strlen(name) + 1;
    const char *suffix = ".fmtest-nss";
    size_t sl = strlen(suffix);
    char **list = NULL;

    if (af != AF_INET || n - 1 <= sl || strcmp(name + n - 1 - sl, suffix) != 0
        || strncmp(name, "gone", 4) == 0) {
        *errnop = ENOENT;
        *h_errnop = HOST_NOT_FOUND;
        return NSS_STATUS_NOTFOUND;
    }
    if (len < n + 4 + 4 * sizeof(char *)) {
        *errnop = ERANGE;
        *h_errnop = NETDB_INTERNAL;
        return NSS_STATUS_TRYAGAIN;
    }
    list = (char **) buf;                    /* aliases: {NULL}; addrs: {a, NULL} */
    memcpy(buf + 4 * sizeof(char *), name, n);
    inet_pton(AF_INET, "127.0.0.1", buf + 4 * sizeof(char *) + n);
    list[0] = NULL;
    list[1] = buf + 4 * sizeof(char *) + n;
    list[2] = NULL;
    h->h_name = buf + 4 * sizeof(char *);
    h->h_aliases = &list[0];
    h->h_addrtype = AF_INET;
    h->h_length = 4;
    h->h_addr_list = &list[1];
    return NSS_STATUS_SUCCESS;
}

enum nss_status
_nss_qfmtest_gethostbyname_r(const char *name, struct hostent *h, char *buf, size_t len,
                            int *errnop, int *h_errnop)
{
    return _nss_qfmtest_gethostbyname2_r(name, AF_INET, h, buf, len, errnop, h_errnop);
}
EOF
"${CC:-cc}" -shared -fPIC -o "$FM_TMP/libnss_qfmtest.so.2" "$FM_TMP/nss_fmtest.c" 2>"$FM_TMP/cc.log" ||
    { diag_file "$FM_TMP/cc.log"; bail_out "the test's NSS module did not build"; }
printf '127.0.0.1 localhost\n' >"$FM_TMP/hosts"
printf 'hosts: files qfmtest\n' >"$FM_TMP/nsswitch-qfmtest.conf"
printf 'hosts: files\n' >"$FM_TMP/nsswitch-files.conf"
printf 'nameserver 127.0.0.1\n' >"$FM_TMP/resolv.conf"

# in_ns NSSWITCH ARGS...: `faultmon probe ARGS` with that nsswitch.conf and
# this test's /etc/hosts and resolv.conf.
in_ns() {
    local conf=$1 start end
    shift
    FM_LAST_CMD="faultmon probe $* ($(cat "$conf"))"
    start=$(fm_now_ms)
    fm_timeout 20 unshare -m "$BASH" -c '
        mount --bind "$1" /etc/nsswitch.conf && mount --bind "$2" /etc/hosts &&
            mount --bind "$3" /etc/resolv.conf || exit 99
        shift 3
        exec "$@"' in_ns "$conf" "$FM_TMP/hosts" "$FM_TMP/resolv.conf" \
        env LD_LIBRARY_PATH="$FM_TMP" "$FAULTMON" probe "$@" >"$FM_OUT" 2>"$FM_ERR" </dev/null
    FM_RC=$?
    end=$(fm_now_ms)
    FM_ELAPSED_MS=$((end - start))
}

in_ns "$FM_TMP/nsswitch-files.conf" --json --timeout 2000ms "http://web.fmtest-nss:$OK_PORT/"
fm_check_probe "hosts: files (what c-ares reads): a name only the module knows is resolve-failed" 2 \
    verdict=complete targets.0.reason=resolve-failed
in_ns "$FM_TMP/nsswitch-qfmtest.conf" --json --timeout 2000ms "http://web.fmtest-nss:$OK_PORT/"
fm_check_probe "hosts: files qfmtest: the name is found through NSS, and probed: ok" 0 \
    verdict=ok targets.0.reason=ok
in_ns "$FM_TMP/nsswitch-qfmtest.conf" --json --timeout 2000ms "http://localhost:$OK_PORT/"
fm_check_probe "  a name in /etc/hosts still comes from c-ares: ok" 0 verdict=ok
in_ns "$FM_TMP/nsswitch-qfmtest.conf" --json --timeout 2000ms "http://gone.fmtest-nss:$OK_PORT/"
fm_check_probe "  a name no source knows: resolve-failed, complete" 2 \
    verdict=complete targets.0.reason=resolve-failed
like "$(fm_json_get "$FM_OUT" targets.0.detail)" "c-ares and NSS" "  the detail says both were asked"
ok_if "$([ "$FM_ELAPSED_MS" -lt 1500 ]; echo $?)" "  and says it at once, not at the deadline ($FM_ELAPSED_MS ms)"
# A loop asks NSS once per kept answer (10 s without a TTL), not per cycle.
in_ns "$FM_TMP/nsswitch-qfmtest.conf" --count 3 --interval 200ms --timeout 2000ms -v -v \
    "http://web.fmtest-nss:$OK_PORT/" "tcp://web.fmtest-nss:$OK_PORT"
is "$FM_RC/$(grep -c '^verdict: ok (2 ok' "$FM_OUT")/$(grep -c 'asking NSS' "$FM_ERR")" "0/3/1" \
    "three cycles of two targets of the name: all ok, NSS asked once"

tap_done
