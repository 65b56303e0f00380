#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# migrate-check.sh: `faultmon migrate`'s checks before it changes anything,
# on the built program, with stand-ins for cibadmin and crm_mon (a CIB this
# script writes; every call recorded) and the built agent as
# OCF_ROOT/resource.d/faultmon/apache.  Each case that cannot be migrated
# safely is refused with its reason, exit 1, and nothing is modified.
# tests/cluster/migrate-1node.sh proves the migration on a real cluster.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
AGENT=$(cd "$(dirname "$FAULTMON")/../agents" 2>/dev/null && pwd)/faultmon-ocf
[ -x "$AGENT" ] || bail_out "no built agent at $AGENT"
plan 12

calls=$FM_TMP/calls
cib=$FM_TMP/cib.xml
mkdir -p "$FM_TMP/ocf/resource.d/faultmon"
ln -s "$AGENT" "$FM_TMP/ocf/resource.d/faultmon/apache"
cat >"$FM_TMP/cibadmin" <<EOF2
#!/bin/sh
echo "cibadmin \$*" >>"$calls"
case "\$1" in
    --query) [ -f "$FM_TMP/cib-fails" ] && { echo "Could not connect to the CIB: Transport endpoint is not connected"; exit 102; }
             cat "$cib" ;;
esac
exit 0
EOF2
cat >"$FM_TMP/crm_mon" <<EOF2
#!/bin/sh
echo "crm_mon \$*" >>"$calls"
echo '<pacemaker-result><resources/></pacemaker-result>'
EOF2
chmod 755 "$FM_TMP/cibadmin" "$FM_TMP/crm_mon"
export FAULTMON_CIBADMIN=$FM_TMP/cibadmin FAULTMON_CRM_MON=$FM_TMP/crm_mon OCF_ROOT=$FM_TMP/ocf

# cib_with PRIMITIVE-XML [WRAPPER-OPEN WRAPPER-CLOSE]
cib_with() {
    printf '<cib><configuration><crm_config/><resources>%s%s%s</resources><constraints/></configuration><status/></cib>\n' \
        "${2:-}" "$1" "${3:-}" >"$cib"
}
prim() {    # prim ID PROVIDER TYPE [NVPAIRS]
    printf '<primitive id="%s" class="ocf" provider="%s" type="%s"><instance_attributes id="%s-ia">%s</instance_attributes></primitive>' \
        "$1" "$2" "$3" "$1" "${4:-}"
}
nv() { printf '<nvpair id="nv-%s" name="%s" value="%s"/>' "$1" "$1" "$2"; }
migrate() { out=$("$FAULTMON" migrate "$@" 2>&1); st=$?; }
unchanged() { ! grep -q -- "--modify\|crm_resource" "$calls"; }

migrate
is "$st" 64 "no resource named: usage, exit 64"
migrate web --timeout 0
is "$st" 64 "--timeout 0: usage, exit 64 ($out)"

cib_with "$(prim web heartbeat apache "$(nv configfile /nonexistent/httpd.conf)")"
migrate nosuch --dry-run
like "$st: $out" "^1: faultmon migrate: nosuch: refused: no primitive nosuch in the CIB$" "a resource not in the CIB: refused"

touch "$FM_TMP/cib-fails"
migrate web
like "$st: $out" "^1: .*refused: cannot read the CIB: .*status 102: Could not connect" "the CIB unreadable: refused, with cibadmin's reason"
rm -f "$FM_TMP/cib-fails"

cib_with "$(prim ip heartbeat IPaddr2)"
migrate ip
like "$st: $out" "^1: .*refused: ip is ocf:heartbeat:IPaddr2: only ocf:heartbeat:apache and ocf:heartbeat:nginx" \
    "another agent: refused"

cib_with "$(prim web heartbeat apache)" '<clone id="web-clone">' '</clone>'
migrate web
like "$st: $out" "^1: .*refused: web is in clone web-clone: not supported" "a clone: refused"

cib_with '<primitive id="web" class="ocf" provider="heartbeat" type="apache"><instance_attributes id="r"><rule id="r1" score="0"/></instance_attributes></primitive>'
migrate web
like "$st: $out" "^1: .*refused: web has instance attributes under a rule" "parameters under a rule: refused"

cib_with "$(prim web heartbeat apache "$(nv configfile /etc/httpd.conf)$(nv no_such_param 1)")"
migrate web
like "$st: $out" "^1: .*refused: parameter no_such_param=1 is not one ocf:faultmon:apache takes" \
    "a parameter faultmon's agent does not take: refused"

cib_with "$(prim web heartbeat apache "$(nv configfile /nonexistent/httpd.conf)")"
migrate web
like "$st: $out" "^1: .*refused: ocf:faultmon:apache validate-all with web's parameters: exit [1-9]" \
    "faultmon's validate-all refuses the resource's parameters: refused, with its reason"
diag "$out"

cib_with "$(prim web faultmon apache)"
migrate web
like "$st: $out" "^0: web: already ocf:faultmon:apache: nothing to do$" "already faultmon's: nothing to do, exit 0"

ok_if "$(unchanged; echo $?)" "no case above modified the CIB or a resource"
"$FAULTMON" --help 2>&1 | grep -q "^  migrate "
ok_if $? "faultmon --help lists migrate"
tap_done
