# SPDX-License-Identifier: GPL-2.0-or-later
# rules for agents (see Makefile.am)
#
# The OCF resource agents ocf:faultmon:apache, ocf:faultmon:nginx,
# ocf:faultmon:httpmon and ocf:faultmon:guard are one program, faultmon-ocf,
# installed in $(pkglibexecdir) and linked under each name (FM_OCF_AGENTS)
# into $(OCF_ROOT)/resource.d/faultmon/; it dispatches on the name it is
# called by.  It links nothing but libc, so that a monitor costs a process
# start and a few file reads: only the libc-only parts of the probe core are
# linked into it (src/util, src/core, src/decide).  Probing in the agent's own process (OCF_CHECK_LEVEL=10)
# needs OpenSSL, so it is the helper faultmon-ocf-probe, which links the
# whole probe core.

# The meta-data is compiled in from metadata/*.xml (agents/ocf_metadata.c is
# generated), so that the XML files stay the one source.

# Pacemaker's attrd_updater, for ocf:faultmon:httpmon.
FM_ATTRD_UPDATER = $(ATTRD_UPDATER)

pkglibexec_PROGRAMS += agents/faultmon-ocf agents/faultmon-ocf-probe

# The OCF plumbing both agents share (ocf_common.h), one file per concern;
# the unit tests and the fuzz harnesses compile the same list.
FM_OCF_COMMON_SOURCES = \
	agents/ocf/ocf_attrd.c \
	agents/ocf/ocf_cib.c \
	agents/ocf/ocf_common.h \
	agents/ocf/ocf_conf_chain.c \
	agents/ocf/ocf_conf_chain.h \
	agents/ocf/ocf_conf_glob.c \
	agents/ocf/ocf_env.c \
	agents/ocf/ocf_halog.c \
	agents/ocf/ocf_log.c \
	agents/ocf/ocf_loop.c \
	agents/ocf/ocf_policy.c \
	agents/ocf/ocf_proc.c \
	agents/ocf/ocf_record.c \
	agents/ocf/ocf_regex.c \
	agents/ocf/ocf_text.c

# The web agents' shared part: the actions (start, stop, reload, monitor),
# the parameters both servers handle alike and validate-all, the server's
# processes, heartbeat's monitor tests, and what a configuration gives
# (ocf_web.h, ocf_web_conf.h).
FM_OCF_WEB_SOURCES = \
	agents/web/ocf_web.c \
	agents/web/ocf_web.h \
	agents/web/ocf_web_conf.c \
	agents/web/ocf_web_conf.h \
	agents/web/ocf_web_leveltest.c \
	agents/web/ocf_web_monitor.c \
	agents/web/ocf_web_params.c \
	agents/web/ocf_web_server.c \
	agents/web/ocf_web_timing.c

# ocf:faultmon:apache: its struct fm_web_ops and httpd's command line
# (ocf_apache.c), its parameters, its level-10 test and its configuration
# reader (ocf_apache.h).
FM_OCF_APACHE_SOURCES = \
	agents/web/ocf_apache.c \
	agents/web/ocf_apache.h \
	agents/web/ocf_apache_conf.c \
	agents/web/ocf_apache_level10.c \
	agents/web/ocf_apache_params.c

# ocf:faultmon:nginx: its struct fm_web_ops, command line and monitor tests
# (ocf_nginx.c), its parameters, and its configuration reader (ocf_nginx.h).
FM_OCF_NGINX_SOURCES = \
	agents/web/ocf_nginx.c \
	agents/web/ocf_nginx.h \
	agents/web/ocf_nginx_conf.c \
	agents/web/ocf_nginx_params.c

# Both: overload_status_url=auto from the server's configuration.
FM_OCF_WEB_OVERLOAD_SOURCES = \
	agents/web/ocf_web_overload.c \
	agents/web/ocf_web_overload.h

agents_faultmon_ocf_SOURCES = \
	agents/faultmon_ocf.c \
	$(FM_OCF_COMMON_SOURCES) \
	$(FM_OCF_WEB_SOURCES) \
	$(FM_OCF_APACHE_SOURCES) \
	agents/ocf_guard.c \
	agents/ocf_guard.h \
	agents/ocf_guard_monitor.c \
	$(FM_OCF_NGINX_SOURCES) \
	$(FM_OCF_WEB_OVERLOAD_SOURCES) \
	agents/ocf_httpmon.c \
	agents/ocf_httpmon.h \
	agents/ocf_metadata.h
nodist_agents_faultmon_ocf_SOURCES = agents/ocf_metadata.c
agents_faultmon_ocf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/agents -I$(top_srcdir)/agents/ocf -I$(top_srcdir)/agents/web \
	-DFM_OCF_FAULTMON_BIN='"$(bindir)/faultmon"' \
	-DFM_OCF_ATTRD_UPDATER='"$(FM_ATTRD_UPDATER)"'
agents_faultmon_ocf_CFLAGS = $(AM_CFLAGS) $(PACEMAKER_CFLAGS)
agents_faultmon_ocf_LDADD = $(FM_LIBS_LIBC)
# --enable-static-agent: a static PIE, without the dynamic loader (configure.ac).
agents_faultmon_ocf_LDFLAGS = $(FM_AGENT_LDFLAGS)

agents_faultmon_ocf_probe_SOURCES = agents/ocf_probe.c
agents_faultmon_ocf_probe_CFLAGS = $(AM_CFLAGS) $(LIBQB_CFLAGS) $(OPENSSL_CFLAGS) $(PACEMAKER_CFLAGS)
agents_faultmon_ocf_probe_LDADD = src/libfaultmon.la

BUILT_SOURCES += agents/ocf_metadata.c
CLEANFILES += agents/ocf_metadata.c

# Each line of the XML becomes a C string literal line.
agents/ocf_metadata.c: metadata/apache.xml metadata/nginx.xml metadata/httpmon.xml metadata/guard.xml \
		agents/local.mk
	$(AM_V_GEN)$(MKDIR_P) agents && { \
	  echo '/* Generated from metadata/AGENT.xml by agents/local.mk. */'; \
	  echo '#include "ocf_metadata.h"'; \
	  for agent in $(FM_OCF_AGENTS); do \
	    echo "const char fm_ocf_metadata_$$agent[] ="; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
	      $(srcdir)/metadata/$$agent.xml || exit 1; \
	    echo ';'; \
	  done; \
	} > $@-t && mv -f $@-t $@

FM_OCF_AGENT_DIR = $(OCF_ROOT)/resource.d/faultmon
FM_OCF_AGENTS = apache nginx httpmon guard

install-exec-hook: fm-install-ocf-agents
uninstall-hook: fm-uninstall-ocf-agents

fm-install-ocf-agents:
	$(MKDIR_P) '$(DESTDIR)$(FM_OCF_AGENT_DIR)'
	for agent in $(FM_OCF_AGENTS); do \
	  rm -f "$(DESTDIR)$(FM_OCF_AGENT_DIR)/$$agent" && \
	  ln -s '$(pkglibexecdir)/faultmon-ocf' "$(DESTDIR)$(FM_OCF_AGENT_DIR)/$$agent" || exit 1; \
	done

fm-uninstall-ocf-agents:
	for agent in $(FM_OCF_AGENTS); do \
	  rm -f "$(DESTDIR)$(FM_OCF_AGENT_DIR)/$$agent"; \
	done

.PHONY: fm-install-ocf-agents fm-uninstall-ocf-agents

FM_AGENT_TESTS = \
	tests/agents/agent-validate.sh \
	tests/agents/agent-doc-codes.sh \
	tests/agents/agent-safety.sh \
	tests/agents/agent-secrets.sh \
	tests/agents/agent-apache.sh \
	tests/agents/agent-nginx.sh \
	tests/agents/agent-nginx-differential.sh \
	tests/agents/agent-httpmon.sh \
	tests/agents/agent-guard.sh \
	tests/agents/agent-crm-resource.sh \
	tests/agents/agent-describe.sh \
	tests/agents/agent-differential.sh \
	tests/agents/agent-state.sh \
	tests/agents/agent-policy.sh \
	tests/agents/agent-leftovers.sh \
	tests/agents/agent-overload-url.sh \
	tests/agents/agent-monitor-default.sh

TESTS += $(FM_AGENT_TESTS)
EXTRA_DIST += $(FM_AGENT_TESTS) tests/agents/lib.sh tests/agents/differential-lib.sh

# Unit tests of the agents' own code, built from the same sources and flags
# as the agent program.
if HAVE_CMOCKA
FM_OCF_UNIT_SOURCES = \
	agents/web/ocf_apache_conf.c \
	agents/web/ocf_nginx_conf.c \
	agents/web/ocf_web_conf.c \
	$(FM_OCF_COMMON_SOURCES)
FM_OCF_UNIT_TESTS = \
	tests/unit/test_ocf_apache_conf \
	tests/unit/test_ocf_common \
	tests/unit/test_ocf_env \
	tests/unit/test_ocf_halog \
	tests/unit/test_ocf_nginx_conf \
	tests/unit/test_ocf_proc \
	tests/unit/test_ocf_record \
	tests/unit/test_ocf_web_timing
FM_OCF_UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(PACEMAKER_CFLAGS)
FM_OCF_UNIT_LDADD = $(FM_LIBS_LIBC) $(CMOCKA_LIBS)
check_PROGRAMS += $(FM_OCF_UNIT_TESTS)
TESTS += $(FM_OCF_UNIT_TESTS)
tests_unit_test_ocf_common_SOURCES = tests/unit/test_ocf_common.c $(FM_OCF_UNIT_SOURCES)
tests_unit_test_ocf_common_CPPFLAGS = $(agents_faultmon_ocf_CPPFLAGS)
tests_unit_test_ocf_common_CFLAGS = $(FM_OCF_UNIT_CFLAGS)
tests_unit_test_ocf_common_LDADD = $(FM_OCF_UNIT_LDADD)
tests_unit_test_ocf_apache_conf_SOURCES = tests/unit/test_ocf_apache_conf.c $(FM_OCF_UNIT_SOURCES)
tests_unit_test_ocf_apache_conf_CPPFLAGS = $(agents_faultmon_ocf_CPPFLAGS)
tests_unit_test_ocf_apache_conf_CFLAGS = $(FM_OCF_UNIT_CFLAGS)
tests_unit_test_ocf_apache_conf_LDADD = $(FM_OCF_UNIT_LDADD)
tests_unit_test_ocf_env_SOURCES = tests/unit/test_ocf_env.c $(FM_OCF_UNIT_SOURCES)
tests_unit_test_ocf_env_CPPFLAGS = $(agents_faultmon_ocf_CPPFLAGS)
tests_unit_test_ocf_env_CFLAGS = $(FM_OCF_UNIT_CFLAGS)
tests_unit_test_ocf_env_LDADD = $(FM_OCF_UNIT_LDADD)
tests_unit_test_ocf_halog_SOURCES = tests/unit/test_ocf_halog.c tests/unit/ocf_tmpdir.h $(FM_OCF_UNIT_SOURCES)
tests_unit_test_ocf_halog_CPPFLAGS = $(agents_faultmon_ocf_CPPFLAGS)
tests_unit_test_ocf_halog_CFLAGS = $(FM_OCF_UNIT_CFLAGS)
tests_unit_test_ocf_halog_LDADD = $(FM_OCF_UNIT_LDADD)
tests_unit_test_ocf_nginx_conf_SOURCES = tests/unit/test_ocf_nginx_conf.c $(FM_OCF_UNIT_SOURCES)
tests_unit_test_ocf_nginx_conf_CPPFLAGS = $(agents_faultmon_ocf_CPPFLAGS)
tests_unit_test_ocf_nginx_conf_CFLAGS = $(FM_OCF_UNIT_CFLAGS)
tests_unit_test_ocf_nginx_conf_LDADD = $(FM_OCF_UNIT_LDADD)
tests_unit_test_ocf_proc_SOURCES = tests/unit/test_ocf_proc.c tests/unit/ocf_tmpdir.h $(FM_OCF_UNIT_SOURCES)
tests_unit_test_ocf_proc_CPPFLAGS = $(agents_faultmon_ocf_CPPFLAGS)
tests_unit_test_ocf_proc_CFLAGS = $(FM_OCF_UNIT_CFLAGS)
tests_unit_test_ocf_proc_LDADD = $(FM_OCF_UNIT_LDADD)
tests_unit_test_ocf_record_SOURCES = tests/unit/test_ocf_record.c tests/unit/ocf_tmpdir.h $(FM_OCF_UNIT_SOURCES)
tests_unit_test_ocf_record_CPPFLAGS = $(agents_faultmon_ocf_CPPFLAGS)
tests_unit_test_ocf_record_CFLAGS = $(FM_OCF_UNIT_CFLAGS)
tests_unit_test_ocf_record_LDADD = $(FM_OCF_UNIT_LDADD)
tests_unit_test_ocf_web_timing_SOURCES = tests/unit/test_ocf_web_timing.c agents/web/ocf_web_timing.c
tests_unit_test_ocf_web_timing_CPPFLAGS = $(agents_faultmon_ocf_CPPFLAGS)
tests_unit_test_ocf_web_timing_CFLAGS = $(FM_OCF_UNIT_CFLAGS)
tests_unit_test_ocf_web_timing_LDADD = $(FM_OCF_UNIT_LDADD)
endif
