#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ab-report.sh - the tables of ab.sh, rebuilt from its readings file, for a
# run that was cut short (its tables are printed only at its end) or to
# look at a kept run again.
#
# Usage: tests/bench/ab-report.sh READINGS
#   READINGS is the file `readings` of a run kept with KEEP=1 (ab.sh says
#   where), one line per contender and round:
#     LOAD CONTENDER round R: US_PER_CHECK CHECKS EXPECTED OWN US_FROM_TICKS OTHER_PCT
#     [RESUMED_PCT DIRTY_KIB]   (TLS loads: the checks over a resumed session;
#     the private dirty memory at the window's end; not tabled here)
# Prints, for every load measured: each contender's CPU per check, median
# [min-max] over its rounds, the checks per window, and the ratios taken
# round by round (faultmon-run / haproxy-1t and / its floor, faultmon-run-spread
# / haproxy-1t and / floor-timer, haproxy-1t / each floor), as ab.sh does.
# A load whose rounds are incomplete is printed with what it has, and says so.
set -u
export LC_ALL=C
[ $# -eq 1 ] && [ -r "$1" ] || { echo "usage: $0 READINGS (the readings file of a run kept with KEEP=1)" >&2; exit 64; }

awk '
function median(list,    n, v, i, j, t) {
    n = split(list, v, " ")
    if (n == 0) return "-"
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function range(list, d,    n, v, i, lo, hi, m) {
    n = split(list, v, " ")
    if (n == 0) return "-"
    lo = hi = v[1] + 0
    for (i = 2; i <= n; i++) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
    m = median(list)
    if (lo == hi) return sprintf("%.*f", d, m)
    return sprintf("%.*f [%.*f-%.*f]", d, m, d, lo, d, hi)
}
# $1 load, $2 contender, $4 "R:", $5 us, $6 checks, $7 expected, $8 own
$3 == "round" {
    load = $1; c = $2; r = $4; sub(/:$/, "", r)
    if (!(load in seen_load)) { seen_load[load] = 1; loads[++nl] = load }
    if (!((load, c) in seen_c)) { seen_c[load, c] = 1; cs[load, ++nc[load]] = c }
    if (r + 0 > rounds[load]) rounds[load] = r + 0
    us[load, c, r] = $5; ck[load, c] = ck[load, c] $6 "/" $7 " "
    if ($5 ~ /^[0-9.]+$/) vals[load, c] = vals[load, c] " " $5
}
function ratios(load, a, b,    r, out) {
    out = ""
    for (r = 1; r <= rounds[load]; r++)
        if (((load, a, r) in us) && ((load, b, r) in us) && us[load, a, r] ~ /^[0-9.]+$/ && us[load, b, r] + 0 > 0)
            out = out " " sprintf("%.3f", us[load, a, r] / us[load, b, r])
    return out
}
END {
    if (nl == 0) { print "no readings" > "/dev/stderr"; exit 1 }
    print "| load | contender | µs CPU per check, median [min-max] | rounds | checks per window: nginx / expected |"
    print "|---|---|---|---|---|"
    for (i = 1; i <= nl; i++) {
        load = loads[i]
        for (j = 1; j <= nc[load]; j++) {
            c = cs[load, j]
            n = split(vals[load, c], tmp, " ")
            printf "| %s | %s | %s | %d | %s|\n", load, c, range(vals[load, c], 1), n, ck[load, c]
        }
    }
    print ""
    print "Ratios of CPU per check, taken round by round: median [min-max]"
    print ""
    np = split("faultmon-run/haproxy-1t faultmon-run/floor-burst faultmon-run-spread/haproxy-1t faultmon-run-spread/floor-timer haproxy-1t/floor-timer haproxy-1t/floor-burst faultmon-probe/haproxy-1t faultmon-probe/floor-burst", pairs, " ")
    hdr = "| load |"; sep = "|---|"
    for (p = 1; p <= np; p++) { split(pairs[p], ab, "/"); hdr = hdr " " ab[1] " / " ab[2] " |"; sep = sep "---|" }
    print hdr; print sep
    for (i = 1; i <= nl; i++) {
        load = loads[i]; line = "| " load " |"
        for (p = 1; p <= np; p++) {
            split(pairs[p], ab, "/")
            rr = ratios(load, ab[1], ab[2])
            line = line " " ((rr == "") ? "-" : range(rr, 2) " (" split(rr, tmp, " ") ")") " |"
        }
        print line
    }
    print ""
    print "(n): rounds in which both contenders were measured."
}' "$1"
