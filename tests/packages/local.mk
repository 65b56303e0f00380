# rules for tests/packages (see Makefile.am)
#
# The packages: deb.sh builds faultmon_*.deb with dpkg-buildpackage, checks
# it with lintian, installs and purges it in a chroot on an overlay of /
# (never the real root file system); rpm.sh builds faultmon.spec with
# rpmbuild -bb --nodeps.  Each builds the project once (a minute or two).
# They need root, debhelper, lintian and rpm (tests/install-deps.sh) and
# skip without them.

FM_PACKAGE_TESTS = \
	tests/packages/deb.sh \
	tests/packages/rpm.sh

TESTS += $(FM_PACKAGE_TESTS)
EXTRA_DIST += $(FM_PACKAGE_TESTS) debian faultmon.spec
