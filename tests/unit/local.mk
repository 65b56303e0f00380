# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests (cmocka), one program per unit, linked against the same
# convenience library as the faultmon program.
if HAVE_CMOCKA
FM_UNIT_TESTS = \
	tests/unit/test_attrd \
	tests/unit/test_accesslog \
	tests/unit/test_clock \
	tests/unit/test_conv_parse \
	tests/unit/test_dns_judge \
	tests/unit/test_ev \
	tests/unit/test_grpc_reply \
	tests/unit/test_overload_status \
	tests/unit/test_accept_queue \
	tests/unit/test_fd_limit \
	tests/unit/test_history \
	tests/unit/test_http \
	tests/unit/test_http_judge \
	tests/unit/test_http_request \
	tests/unit/test_kvfile \
	tests/unit/test_metrics \
	tests/unit/test_ldap_ber \
	tests/unit/test_monitor \
	tests/unit/test_monitor_stand \
	tests/unit/test_mysql_wire \
	tests/unit/test_node_attrs \
	tests/unit/test_parse \
	tests/unit/test_pgsql_wire \
	tests/unit/test_pidfile \
	tests/unit/test_probe_opts \
	tests/unit/test_probe_params \
	tests/unit/test_probe_phase \
	tests/unit/test_recovery \
	tests/unit/test_regex_guard \
	tests/unit/test_regex_linear \
	tests/unit/test_resolve_cache \
	tests/unit/test_resolve_nss \
	tests/unit/test_result \
	tests/unit/test_runconf \
	tests/unit/test_run_timer \
	tests/unit/test_schedule \
	tests/unit/test_scheme \
	tests/unit/test_state \
	tests/unit/test_state_compat \
	tests/unit/test_state_forget \
	tests/unit/test_state_metrics \
	tests/unit/test_summary \
	tests/unit/test_target \
	tests/unit/test_trust \
	tests/unit/test_text \
	tests/unit/test_words \
	tests/unit/test_psi \
	tests/unit/test_loopback \
	tests/unit/test_deps \
	tests/unit/test_migrate \
	tests/unit/test_run_stay \
	tests/unit/test_corosync_links \
	tests/unit/test_spawn \
	tests/unit/test_xml_attr \
	tests/unit/test_tls_session
check_PROGRAMS += $(FM_UNIT_TESTS)
TESTS += $(FM_UNIT_TESTS)
FM_UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(LIBQB_CFLAGS) $(OPENSSL_CFLAGS)
FM_UNIT_LDADD = src/libfaultmon.la $(CMOCKA_LIBS)
tests_unit_test_attrd_SOURCES = tests/unit/test_attrd.c
tests_unit_test_attrd_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_attrd_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_accesslog_SOURCES = tests/unit/test_accesslog.c
tests_unit_test_accesslog_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_accesslog_LDADD = $(FM_UNIT_LDADD)

tests_unit_test_clock_SOURCES = tests/unit/test_clock.c
tests_unit_test_clock_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_clock_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_probe_phase_SOURCES = tests/unit/test_probe_phase.c
tests_unit_test_probe_phase_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_probe_phase_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_probe_phase_LDADD = $(FM_UNIT_LDADD) $(OPENSSL_LIBS)
# The loop's timer is the faultmon program's, not the library's.
tests_unit_test_run_timer_SOURCES = tests/unit/test_run_timer.c src/run/timer.c
tests_unit_test_run_timer_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/run
tests_unit_test_run_timer_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_run_timer_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_tls_session_SOURCES = tests/unit/test_tls_session.c
tests_unit_test_tls_session_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_tls_session_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_tls_session_LDADD = $(FM_UNIT_LDADD) $(OPENSSL_LIBS)
tests_unit_test_ev_SOURCES = tests/unit/test_ev.c
tests_unit_test_ev_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_ev_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_fd_limit_SOURCES = tests/unit/test_fd_limit.c
tests_unit_test_fd_limit_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_fd_limit_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_history_SOURCES = tests/unit/test_history.c
tests_unit_test_history_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_history_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_http_SOURCES = tests/unit/test_http.c
tests_unit_test_http_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_http_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_http_judge_SOURCES = tests/unit/test_http_judge.c
tests_unit_test_http_judge_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_http_judge_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_http_request_SOURCES = tests/unit/test_http_request.c
tests_unit_test_http_request_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_http_request_LDADD = $(FM_UNIT_LDADD)
# The codecs of the binary protocols (src/probe/wire.h), bytes in, verdict out.
tests_unit_test_overload_status_SOURCES = tests/unit/test_overload_status.c
tests_unit_test_overload_status_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_overload_status_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_accept_queue_SOURCES = tests/unit/test_accept_queue.c
tests_unit_test_accept_queue_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_accept_queue_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_dns_judge_SOURCES = tests/unit/test_dns_judge.c
tests_unit_test_dns_judge_CFLAGS = $(FM_UNIT_CFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_dns_judge_LDADD = $(FM_UNIT_LDADD)

tests_unit_test_grpc_reply_SOURCES = tests/unit/test_grpc_reply.c
tests_unit_test_grpc_reply_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_grpc_reply_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_ldap_ber_SOURCES = tests/unit/test_ldap_ber.c
tests_unit_test_ldap_ber_CFLAGS = $(FM_UNIT_CFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_ldap_ber_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_mysql_wire_SOURCES = tests/unit/test_mysql_wire.c
tests_unit_test_mysql_wire_CFLAGS = $(FM_UNIT_CFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_mysql_wire_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_pgsql_wire_SOURCES = tests/unit/test_pgsql_wire.c
tests_unit_test_pgsql_wire_CFLAGS = $(FM_UNIT_CFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_pgsql_wire_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_trust_SOURCES = tests/unit/test_trust.c tests/unit/ocf_tmpdir.h
tests_unit_test_trust_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_trust_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_kvfile_SOURCES = tests/unit/test_kvfile.c
tests_unit_test_kvfile_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_kvfile_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_metrics_SOURCES = tests/unit/test_metrics.c
tests_unit_test_metrics_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_metrics_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_pidfile_SOURCES = tests/unit/test_pidfile.c
tests_unit_test_pidfile_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_pidfile_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_node_attrs_SOURCES = tests/unit/test_node_attrs.c
tests_unit_test_node_attrs_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_node_attrs_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_monitor_SOURCES = tests/unit/test_monitor.c
tests_unit_test_monitor_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_monitor_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_parse_SOURCES = tests/unit/test_parse.c
tests_unit_test_parse_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_parse_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_recovery_SOURCES = tests/unit/test_recovery.c
tests_unit_test_recovery_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_recovery_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_regex_guard_SOURCES = tests/unit/test_regex_guard.c
tests_unit_test_regex_guard_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_regex_guard_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_regex_linear_SOURCES = tests/unit/test_regex_linear.c
tests_unit_test_regex_linear_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_regex_linear_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_probe_opts_SOURCES = tests/unit/test_probe_opts.c
tests_unit_test_probe_opts_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_probe_opts_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_probe_params_SOURCES = tests/unit/test_probe_params.c
tests_unit_test_probe_params_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_probe_params_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_conv_parse_SOURCES = tests/unit/test_conv_parse.c
tests_unit_test_conv_parse_CFLAGS = $(FM_UNIT_CFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_conv_parse_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_scheme_SOURCES = tests/unit/test_scheme.c
tests_unit_test_scheme_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_scheme_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_resolve_cache_SOURCES = tests/unit/test_resolve_cache.c
tests_unit_test_resolve_cache_CFLAGS = $(FM_UNIT_CFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_resolve_cache_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_resolve_nss_SOURCES = tests/unit/test_resolve_nss.c
tests_unit_test_resolve_nss_CFLAGS = $(FM_UNIT_CFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_resolve_nss_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_schedule_SOURCES = tests/unit/test_schedule.c
tests_unit_test_schedule_CFLAGS = $(FM_UNIT_CFLAGS) -I$(top_srcdir)/src/probe
tests_unit_test_schedule_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_result_SOURCES = tests/unit/test_result.c
tests_unit_test_result_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_result_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_runconf_SOURCES = tests/unit/test_runconf.c
tests_unit_test_runconf_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_runconf_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_state_SOURCES = tests/unit/test_state.c
tests_unit_test_state_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_state_LDADD = $(FM_UNIT_LDADD)
# The previous version's state reader and writer, frozen (compat/).
tests_unit_test_state_compat_SOURCES = tests/unit/test_state_compat.c \
	tests/unit/compat/state_v1.c tests/unit/compat/state_v1_metrics.c \
	tests/unit/compat/state_v1_int.h tests/unit/compat/state_v1_names.h
tests_unit_test_state_compat_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit/compat
tests_unit_test_state_compat_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_state_compat_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_state_metrics_SOURCES = tests/unit/test_state_metrics.c
tests_unit_test_state_metrics_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_state_metrics_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_state_forget_SOURCES = tests/unit/test_state_forget.c tests/unit/ocf_tmpdir.h
tests_unit_test_state_forget_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_state_forget_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_summary_SOURCES = tests/unit/test_summary.c
tests_unit_test_summary_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_summary_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_target_SOURCES = tests/unit/test_target.c
tests_unit_test_target_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_target_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_text_SOURCES = tests/unit/test_text.c
tests_unit_test_text_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_text_LDADD = $(FM_UNIT_LDADD)

tests_unit_test_migrate_SOURCES = tests/unit/test_migrate.c src/cmd/cmd_migrate_xml.c src/cmd/xml_load.c
tests_unit_test_migrate_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/cmd
tests_unit_test_migrate_CFLAGS = $(FM_UNIT_CFLAGS) $(LIBXML2_CFLAGS)
tests_unit_test_migrate_LDADD = $(FM_UNIT_LDADD) $(LIBXML2_LIBS)
tests_unit_test_xml_attr_SOURCES = tests/unit/test_xml_attr.c
tests_unit_test_xml_attr_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/pcmk
tests_unit_test_xml_attr_CFLAGS = $(FM_UNIT_CFLAGS) $(LIBXML2_CFLAGS)
tests_unit_test_xml_attr_LDADD = $(FM_UNIT_LDADD) $(LIBXML2_LIBS)
tests_unit_test_run_stay_SOURCES = tests/unit/test_run_stay.c src/run/stay.c
tests_unit_test_run_stay_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/run -DFM_ATTRD_UPDATER='"$(ATTRD_UPDATER)"'
tests_unit_test_run_stay_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_run_stay_LDADD = $(FM_UNIT_LDADD) $(PACEMAKER_LIBS)
tests_unit_test_monitor_stand_SOURCES = tests/unit/test_monitor_stand.c
tests_unit_test_monitor_stand_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_monitor_stand_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_deps_SOURCES = tests/unit/test_deps.c
tests_unit_test_deps_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_deps_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_loopback_SOURCES = tests/unit/test_loopback.c
tests_unit_test_loopback_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_loopback_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_corosync_links_SOURCES = tests/unit/test_corosync_links.c
tests_unit_test_corosync_links_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_corosync_links_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_spawn_SOURCES = tests/unit/test_spawn.c
tests_unit_test_spawn_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_spawn_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_psi_SOURCES = tests/unit/test_psi.c tests/unit/ocf_tmpdir.h
tests_unit_test_psi_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_psi_LDADD = $(FM_UNIT_LDADD)

tests_unit_test_words_SOURCES = tests/unit/test_words.c
tests_unit_test_words_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_words_LDADD = $(FM_UNIT_LDADD)
endif

# The decision engine (src/decide, in libfaultmon): the engine, adaptive
# response time, its words, its parameters and its persistence (the timelines
# of decide_fixture.c drive the engine with a fake clock); the OCF code of a decision (src/pcmk); and
# `faultmon simulate`.
if HAVE_CMOCKA
FM_DECIDE_TESTS = \
	tests/unit/test_decide_adaptive \
	tests/unit/test_decide_engine \
	tests/unit/test_decide_names \
	tests/unit/test_decide_overload \
	tests/unit/test_decide_params \
	tests/unit/test_decide_persist \
	tests/unit/test_ocf_rc
check_PROGRAMS += $(FM_DECIDE_TESTS)
TESTS += $(FM_DECIDE_TESTS)
tests_unit_test_decide_adaptive_SOURCES = tests/unit/test_decide_adaptive.c \
	tests/unit/decide_fixture.c tests/unit/decide_fixture.h
tests_unit_test_decide_adaptive_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_decide_adaptive_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_decide_engine_SOURCES = tests/unit/test_decide_engine.c \
	tests/unit/decide_fixture.c tests/unit/decide_fixture.h
tests_unit_test_decide_engine_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_decide_engine_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_decide_names_SOURCES = tests/unit/test_decide_names.c
tests_unit_test_decide_names_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_decide_names_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_decide_overload_SOURCES = tests/unit/test_decide_overload.c \
	tests/unit/decide_fixture.c tests/unit/decide_fixture.h
tests_unit_test_decide_overload_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_decide_overload_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_decide_params_SOURCES = tests/unit/test_decide_params.c
tests_unit_test_decide_params_CFLAGS = $(FM_UNIT_CFLAGS)
tests_unit_test_decide_params_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_decide_persist_SOURCES = tests/unit/test_decide_persist.c \
	tests/unit/decide_fixture.c tests/unit/decide_fixture.h
tests_unit_test_decide_persist_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_decide_persist_LDADD = $(FM_UNIT_LDADD)
tests_unit_test_ocf_rc_SOURCES = tests/unit/test_ocf_rc.c
tests_unit_test_ocf_rc_CFLAGS = $(FM_UNIT_CFLAGS) $(PACEMAKER_CFLAGS)
tests_unit_test_ocf_rc_LDADD = $(FM_UNIT_LDADD)
endif
TESTS += tests/unit/simulate.sh
dist_check_SCRIPTS += tests/unit/simulate.sh
TESTS += tests/unit/probe-timeout.sh
dist_check_SCRIPTS += tests/unit/probe-timeout.sh
TESTS += tests/unit/sizes.sh tests/unit/headers.sh tests/unit/toy-protocol.sh
dist_check_SCRIPTS += tests/unit/sizes.sh tests/unit/headers.sh tests/unit/toy-protocol.sh
EXTRA_DIST += tests/unit/toy/toy.c
TESTS += tests/unit/agent-nss.sh
dist_check_SCRIPTS += tests/unit/agent-nss.sh
TESTS += tests/unit/versions.sh
dist_check_SCRIPTS += tests/unit/versions.sh
TESTS += tests/unit/test-hygiene.sh
dist_check_SCRIPTS += tests/unit/test-hygiene.sh
TESTS += tests/unit/test-summarize.sh
dist_check_SCRIPTS += tests/unit/test-summarize.sh
EXTRA_DIST += tests/summarize.sh tests/minimums.txt tests/allowed-skips.txt tests/mutate.sh tests/mutate.README
EXTRA_DIST += doc/tests-keep-their-word.md
TESTS += tests/unit/doc-links.sh
dist_check_SCRIPTS += tests/unit/doc-links.sh
TESTS += tests/unit/cli-style.sh
dist_check_SCRIPTS += tests/unit/cli-style.sh
TESTS += tests/unit/doc-options.sh
dist_check_SCRIPTS += tests/unit/doc-options.sh
TESTS += tests/unit/licence.sh
dist_check_SCRIPTS += tests/unit/licence.sh
