# SPDX-License-Identifier: GPL-2.0-or-later
# rules for metadata (see Makefile.am)
#
# The meta-data of the OCF agents: one XML file per agent, the single source
# of the agent's `meta-data` output (compiled into the agent program by
# agents/local.mk) and of its man page, made here with xsltproc and
# metadata/ra2man.xsl.  metadata/check-metadata.sh validates both files
# against resource-agents' ra-api-1.dtd (the DTD ocf-tester uses) and checks
# that the agent prints them unchanged.  The meta-data is short, for pcs and
# crm; metadata/*-details.xml holds the rest of each man page.

FM_METADATA_XML = metadata/apache.xml metadata/nginx.xml metadata/httpmon.xml metadata/guard.xml

fmmetadatadir = $(pkgdatadir)/ocf
dist_fmmetadata_DATA = $(FM_METADATA_XML)

FM_METADATA_MANS = metadata/ocf_faultmon_apache.7 metadata/ocf_faultmon_nginx.7 \
	metadata/ocf_faultmon_httpmon.7 metadata/ocf_faultmon_guard.7
man7_MANS += $(FM_METADATA_MANS)
CLEANFILES += $(FM_METADATA_MANS)
EXTRA_DIST += metadata/ra2man.xsl metadata/apache-details.xml metadata/nginx-details.xml \
	metadata/httpmon-details.xml metadata/guard-details.xml \
	metadata/pcs-describe.py metadata/pcs-validate.py

FM_RA2MAN = $(XSLTPROC) --novalid --nonet --stringparam provider faultmon \
	--stringparam version '$(PACKAGE_VERSION)'

metadata/ocf_faultmon_apache.7: metadata/apache.xml metadata/apache-details.xml metadata/ra2man.xsl
	$(AM_V_GEN)$(MKDIR_P) metadata && \
	$(FM_RA2MAN) --stringparam details '$(abs_top_srcdir)/metadata/apache-details.xml' \
		-o $@-t $(srcdir)/metadata/ra2man.xsl $(srcdir)/metadata/apache.xml && \
	mv -f $@-t $@

metadata/ocf_faultmon_nginx.7: metadata/nginx.xml metadata/nginx-details.xml metadata/ra2man.xsl
	$(AM_V_GEN)$(MKDIR_P) metadata && \
	$(FM_RA2MAN) --stringparam details '$(abs_top_srcdir)/metadata/nginx-details.xml' \
		-o $@-t $(srcdir)/metadata/ra2man.xsl $(srcdir)/metadata/nginx.xml && \
	mv -f $@-t $@

metadata/ocf_faultmon_httpmon.7: metadata/httpmon.xml metadata/httpmon-details.xml metadata/ra2man.xsl
	$(AM_V_GEN)$(MKDIR_P) metadata && \
	$(FM_RA2MAN) --stringparam details '$(abs_top_srcdir)/metadata/httpmon-details.xml' \
		-o $@-t $(srcdir)/metadata/ra2man.xsl $(srcdir)/metadata/httpmon.xml && \
	mv -f $@-t $@

metadata/ocf_faultmon_guard.7: metadata/guard.xml metadata/guard-details.xml metadata/ra2man.xsl
	$(AM_V_GEN)$(MKDIR_P) metadata && \
	$(FM_RA2MAN) --stringparam details '$(abs_top_srcdir)/metadata/guard-details.xml' \
		-o $@-t $(srcdir)/metadata/ra2man.xsl $(srcdir)/metadata/guard.xml && \
	mv -f $@-t $@

FM_METADATA_TESTS = metadata/check-metadata.sh
TESTS += $(FM_METADATA_TESTS)
EXTRA_DIST += $(FM_METADATA_TESTS)
