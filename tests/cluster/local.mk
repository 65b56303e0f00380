# SPDX-License-Identifier: GPL-2.0-or-later
# rules for tests/cluster (see Makefile.am)
#
# End-to-end tests against real Pacemaker clusters started by
# tests/cluster/lib.sh: one node on loopback, or 3 nodes each in its own
# network, mount, UTS, IPC and PID namespaces (tests/cluster/node-init.sh).
# They need root and the Debian packages pacemaker pacemaker-cli-utils
# corosync pcs crmsh resource-agents apache2 curl libxml2-utils (and, for
# remote-nodes.sh, pacemaker-remoted: tests/install-deps.sh); without
# them each test prints "1..0 # SKIP why".  Every test leaves the machine as
# it found it (namespaces and processes removed by PID, also on failure), is
# bounded by a watchdog (FM_WATCHDOG, 280 s by default), and writes its
# timings to tests/cluster/NAME-timings.txt in the build directory; after a
# failure the nodes' logs are copied to tests/cluster/NAME-logs/.

FM_CLUSTER_TESTS = \
	tests/cluster/smoke.sh

TESTS += $(FM_CLUSTER_TESTS)
EXTRA_DIST += $(FM_CLUSTER_TESTS) tests/cluster/lib.sh tests/cluster/node-init.sh \
	tests/cluster/corosync-links.sh
CLEANFILES += $(FM_CLUSTER_TESTS:.sh=-timings.txt)

clean-local: fm-clean-cluster-logs
.PHONY: fm-clean-cluster-logs
fm-clean-cluster-logs:
	-rm -rf $(FM_CLUSTER_TESTS:.sh=-logs)

# The end-to-end scenarios of faultmon's agents (issue 5), and of the agent
# as a drop-in for ocf:heartbeat:apache (issue 9: dropin-*.sh); each a few
# minutes; helpers in scenario-lib.sh.  Each appends
# its results table to tests/cluster/scenario-results.txt in the build
# directory.  They skip unless the agents are installed (make install).
FM_SCENARIO_TESTS = \
	tests/cluster/scenarios-1node.sh \
	tests/cluster/scenarios-3node.sh \
	tests/cluster/dropin-1node.sh \
	tests/cluster/dropin-3node.sh \
	tests/cluster/guard-3node.sh \
	tests/cluster/deps-3node.sh \
	tests/cluster/deps-alone.sh \
	tests/cluster/migrate-1node.sh \
	tests/cluster/restart-inplace-3node.sh \
	tests/cluster/nginx-3node.sh \
	tests/cluster/budget-3node.sh \
	tests/cluster/remote-nodes.sh \
	tests/cluster/remote-faults.sh \
	tests/cluster/remote-stand.sh \
	tests/cluster/pressure-1node.sh \
	tests/cluster/guard-pgsql-1node.sh \
	tests/cluster/frozen-daemons.sh

TESTS += $(FM_SCENARIO_TESTS)
EXTRA_DIST += $(FM_SCENARIO_TESTS) tests/cluster/scenario-lib.sh
CLEANFILES += tests/cluster/scenario-results.txt

clean-local: fm-clean-scenario-logs
.PHONY: fm-clean-scenario-logs
fm-clean-scenario-logs:
	-rm -rf $(FM_SCENARIO_TESTS:.sh=-logs)
