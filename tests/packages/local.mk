# SPDX-License-Identifier: GPL-2.0-or-later
# rules for tests/packages (see Makefile.am)
#
# The packages, both built from make dist's tarball (tests/packages/dist.sh):
# deb.sh builds the source package and faultmon_*.deb with dpkg-buildpackage,
# checks them with lintian --pedantic, then in a chroot on an overlay of /
# (never the real root file system) installs the previous release (built
# from its commit in the git history: a clone, not a tarball), starts loops,
# upgrades under them, and purges; rpm.sh builds faultmon.spec with
# rpmbuild -tb --nodeps and checks it with rpmlint.  Each builds the project
# once (a minute or two).  They need root, debhelper, lintian, rpm and
# rpmlint (tests/install-deps.sh) and skip without them.

FM_PACKAGE_TESTS = \
	tests/packages/deb.sh \
	tests/packages/rpm.sh

TESTS += $(FM_PACKAGE_TESTS)
EXTRA_DIST += $(FM_PACKAGE_TESTS) tests/packages/dist.sh tests/packages/previous.sh \
	tests/packages/rpmlint-debian.rpmlintrc debian faultmon.spec faultmon.rpmlintrc NEWS

# The tests that need nothing outside the build tree (no root, no installed
# agents, no cluster, no web server): what debian/rules and faultmon.spec run
# in the package build.  `make distcheck` runs every test, and the agent and
# cluster tests use the system's /usr/lib/ocf, so check a tarball with
#   make distcheck TESTS='$(FM_SELF_CONTAINED_TESTS) $(FM_INTEGRATION_TESTS)'
FM_SELF_CONTAINED_TESTS = $(FM_UNIT_TESTS) $(FM_OCF_UNIT_TESTS) \
	metadata/check-metadata.sh tests/unit/simulate.sh
if HAVE_CMOCKA
FM_SELF_CONTAINED_TESTS += $(FM_DECIDE_TESTS)
endif
