#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# doc-options.sh: faultmon(1) and the commands' --help cannot drift apart.
# Every long option a command's --help lists (probe's and simulate's are
# built from the parameter tables the code parses with) is in faultmon(1),
# and every faultmon option faultmon(1) names is in some command's --help;
# every metric family the exporter renders and every agent is in faultmon(1).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

FAULTMON=${FAULTMON:-$FM_TEST_LIB/../../src/faultmon}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
MAN=$SRC/src/faultmon.1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-doc-options.XXXXXX") || exit 1
# shellcheck disable=SC2016 # expanded when the cleanup runs
fm_cleanup_add 'rm -rf "$TMP"'
COMMANDS="probe run status resume reset migrate simulate metrics exporter"

plan 13
tap_watchdog 60
if [ ! -x "$FAULTMON" ]; then
    bail_out "no faultmon binary at $FAULTMON (build it, or set FAULTMON)"
fi

# Long options, folded as the commands fold them (--Retry_Count is
# --retry-count), one a line, sorted.
options() {
    grep -oE -- '--[A-Za-z][A-Za-z0-9_-]+' | tr 'A-Z_' 'a-z-' | sort -u
}

for c in $COMMANDS; do
    "$FAULTMON" "$c" --help
done | grep -vE 'cibadmin|crm_mon' | options >"$TMP/help"
# The man page's text, without roff's escapes; other tools' options (in
# "cibadmin --query", "crm_mon --output-as") are not faultmon's.
sed 's/\\-/-/g; s/\\f[BIRP]//g' "$MAN" | grep -vE 'cibadmin|crm_mon' | options >"$TMP/man"

ok_if "$(( $(wc -l <"$TMP/help") < 50 ))" "the commands' --help list options ($(wc -l <"$TMP/help"))"
is "$(comm -23 "$TMP/help" "$TMP/man" | tr '\n' ' ')" "" \
    "every option of every command's --help is in faultmon(1)"
is "$(comm -13 "$TMP/help" "$TMP/man" | tr '\n' ' ')" "" \
    "every option faultmon(1) names is in some command's --help"
for c in probe simulate; do
    n=$("$FAULTMON" "$c" --help | options | wc -l)
    ok_if "$(( n < 20 ))" "$c --help lists its table's options ($n)"
done

# Metric families: the exporter's table (src/metrics) and faultmon(1).
grep -rhoE '"faultmon_[a-z_]+' "$SRC"/src/metrics/*.c | tr -d '"' | sort -u >"$TMP/metrics"
sed 's/\\f[BIRP]//g' "$MAN" | grep -oE 'faultmon_[a-z_]+' | sort -u >"$TMP/man-metrics"
ok_if "$(( $(wc -l <"$TMP/metrics") < 10 ))" "the exporter's table has metric families ($(wc -l <"$TMP/metrics"))"
is "$(comm -23 "$TMP/metrics" "$TMP/man-metrics" | tr '\n' ' ')" "" \
    "every metric family the exporter renders is in faultmon(1)"

# Agents: each metadata/AGENT.xml has its page named in faultmon(1).
n=0
for xml in "$SRC"/metadata/*-details.xml; do
    agent=$(basename "$xml" -details.xml)
    grep -q "^\.BR ocf_faultmon_$agent (7)" "$MAN"
    ok_if $? "faultmon(1) names ocf_faultmon_$agent(7)"
    n=$((n + 1))
done
is_count "$n" 4 "the four agents were looked for"

# Files: every file faultmon(1) lists in the state directory is one the
# code writes (or reads) by that name.
files=$(sed -n '/^\.I \/run\/faultmon\/RESOURCE\//,/^\.TP/p' "$MAN" | grep -oE '\\fI[a-z.0-9]+\\fR' |
    sed 's/\\f[IR]//g' | sort -u)
missing=
for f in $files; do
    grep -rqE "\"(%s/)?$f\"" "$SRC"/src "$SRC"/include "$SRC"/agents || missing="$missing $f"
done
is "$missing" "" "every file faultmon(1) lists in the state directory is named in the code"

tap_done
