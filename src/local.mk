# SPDX-License-Identifier: GPL-2.0-or-later
# rules for src (see Makefile.am)
#
# The code is grouped into convenience libraries by concern; every source is
# compiled once, into exactly one of them:
#
#   src/util    libfmutil    libc only: clock and deadlines, text (escape,
#                            redact, base64, error messages), value parsing,
#                            the key=value file format (kvfile), the regex guard,
#                            pid files
#   src/core    libfmcore    libc only: results, target URIs, the run
#                            configuration, the state store (and what an
#                            offline reset or resume forgets in it), the
#                            OCF code of a decision and of a state (ocf_rc.c)
#   src/decide  libfmdecide  libc only: the decision engine (Sun's rules)
#   src/probe   libfmprobe   OpenSSL (dlopen() at the first TLS context), c-ares:
#                            the probe engine (epoll, one deadline)
#                            and one file per protocol
#   src/pcmk    libfmpcmk    libqb, and libcrmcommon loaded with dlopen() by
#                            the child that makes it: logging, the controller
#                            request
#   src/pcmk    libfmocf     libc only (Pacemaker's headers, not its
#                            libraries): the Pacemaker
#                            protocol the loop and the agents share (pending
#                            recovery, refusal, staleness, and every file
#                            they exchange: recovery.c; attrd_updater)
#   src/monitor libfmmonitor libc only: what the loop does with each outcome
#                            (summary, decision, state, actions)
#
# and the faultmon command itself: src/faultmon.c (main, alone), src/cmd/
# (the short commands and their shared CLI helpers) and src/run/ (faultmon
# run: the loop's wiring and its parts).
#
# The OCF agent program links only the libc-only ones (FM_LIBS_LIBC);
# the faultmon command and the tests link them all through libfaultmon.

noinst_LTLIBRARIES += src/util/libfmutil.la
src_util_libfmutil_la_SOURCES = \
	src/util/accesslog_parse.c \
	src/util/clock.c \
	src/util/ev.c \
	src/util/json.c \
	src/util/kvfile.c \
	src/util/loopback.c \
	src/util/parse.c \
	src/util/pidfd.c \
	src/util/pidfile.c \
	src/util/psi.c \
	src/util/regex_guard.c \
	src/util/spawn.c \
	src/util/spawn_tied.c \
	src/util/regex_linear.c \
	src/util/regex_linear_int.h \
	src/util/regex_linear_parse.c \
	src/util/text.c \
	src/util/words.c

noinst_LTLIBRARIES += src/core/libfmcore.la
src_core_libfmcore_la_SOURCES = \
	src/core/probe_opts.c \
	src/core/probe_opts_accesslog.c \
	src/core/probe_opts_maint.c \
	src/core/probe_opts_tls.c \
	src/core/probe_params.c \
	src/core/result.c \
	src/core/runconf.c \
	src/core/scheme.c \
	src/core/history.c \
	src/core/ocf_rc.c \
	src/core/state.c \
	src/core/state_accesslog.c \
	src/core/state_dir.c \
	src/core/state_forget.c \
	src/core/state_format.c \
	src/core/state_int.h \
	src/core/state_metrics.c \
	src/core/state_sources.c \
	src/core/status_set.c \
	src/core/summary.c \
	src/core/target.c \
	src/core/target_exec.c \
	src/core/target_secrets.c \
	src/core/trust.c
src_core_libfmcore_la_CFLAGS = $(AM_CFLAGS) $(PACEMAKER_CFLAGS)

noinst_LTLIBRARIES += src/decide/libfmdecide.la
src_decide_libfmdecide_la_SOURCES = \
	src/decide/adaptive.c \
	src/decide/decide.c \
	src/decide/decide_int.h \
	src/decide/excuse.c \
	src/decide/names.c \
	src/decide/overload.c \
	src/decide/params.c \
	src/decide/persist.c

noinst_LTLIBRARIES += src/probe/libfmprobe.la
src_probe_libfmprobe_la_SOURCES = \
	src/probe/conv.c \
	src/probe/conv.h \
	src/probe/conv_parse.c \
	src/probe/dns.c \
	src/probe/dns_judge.c \
	src/probe/engine.c \
	src/probe/engine_ev.c \
	src/probe/exec.c \
	src/probe/fd_limit.c \
	src/probe/ftp.c \
	src/probe/grpc.c \
	src/probe/grpc_reply.c \
	src/probe/h2.c \
	src/probe/h2_int.h \
	src/probe/h2_session.c \
	src/probe/http.c \
	src/probe/http_judge.c \
	src/probe/http_parse.c \
	src/probe/icmp.c \
	src/probe/imap.c \
	src/probe/ldap.c \
	src/probe/ldap_ber.c \
	src/probe/match.c \
	src/probe/overload_status.c \
	src/probe/accept_queue.c \
	src/probe/mysql.c \
	src/probe/mysql_wire.c \
	src/probe/pgsql_wire.c \
	src/probe/phase.c \
	src/probe/pop3.c \
	src/probe/postgres.c \
	src/probe/probe_int.h \
	src/probe/redis.c \
	src/probe/resolve.c \
	src/probe/resolve_cache.c \
	src/probe/resolve_nss.c \
	src/probe/schedule.c \
	src/probe/schedule.h \
	src/probe/smtp.c \
	src/probe/spread.c \
	src/probe/ssl_load.c \
	src/probe/ssl_load.h \
	src/probe/tcp.c \
	src/probe/tcp_send.c \
	src/probe/tls.c \
	src/probe/tls_client.c \
	src/probe/tls_session.c \
	src/probe/udp.c \
	src/probe/wait.c \
	src/probe/wire.c \
	src/probe/wire.h \
	src/probe/wire_conv.c \
	src/probe/wire_conv.h
src_probe_libfmprobe_la_CFLAGS = $(AM_CFLAGS) $(OPENSSL_CFLAGS) $(CARES_CFLAGS) $(NGHTTP2_CFLAGS)
# No $(OPENSSL_LIBS): libssl is loaded with dlopen() by the first TLS
# context (src/probe/ssl_load.h).
src_probe_libfmprobe_la_LIBADD = $(CARES_LIBS) $(NGHTTP2_LIBS)

# The Pacemaker layer's libc-only part, which the agent links: it includes
# <crm/common/results.h> for the OCF codes but links no Pacemaker library.
noinst_LTLIBRARIES += src/pcmk/libfmocf.la
src_pcmk_libfmocf_la_SOURCES = \
	src/pcmk/attrd.c \
	src/pcmk/recovery.c
src_pcmk_libfmocf_la_CFLAGS = $(AM_CFLAGS) $(PACEMAKER_CFLAGS)

noinst_LTLIBRARIES += src/pcmk/libfmpcmk.la
src_pcmk_libfmpcmk_la_SOURCES = \
	src/pcmk/crmcommon.c \
	src/pcmk/crmcommon.h \
	src/pcmk/log.c \
	src/pcmk/signal.c \
	src/pcmk/xml_attr.c \
	src/pcmk/xml_attr.h
src_pcmk_libfmpcmk_la_CFLAGS = $(AM_CFLAGS) $(LIBQB_CFLAGS) $(PACEMAKER_CFLAGS)
# No $(PACEMAKER_LIBS): see src/pcmk/crmcommon.h (dlopen() comes from LIBS).
src_pcmk_libfmpcmk_la_LIBADD = $(LIBQB_LIBS)

# The Prometheus text format of the state files, and what the exporter
# answers (libc only; never the probe path).
noinst_LTLIBRARIES += src/metrics/libfmmetrics.la
src_metrics_libfmmetrics_la_SOURCES = \
	src/metrics/http_serve.c \
	src/metrics/listen.c \
	src/metrics/render.c

noinst_LTLIBRARIES += src/monitor/libfmmonitor.la
src_monitor_libfmmonitor_la_SOURCES = \
	src/monitor/accesslog_window.c \
	src/monitor/corosync_links.c \
	src/monitor/history_note.c \
	src/monitor/monitor.c \
	src/monitor/monitor_int.h \
	src/monitor/node_attrs.c \
	src/monitor/node_budget.c \
	src/monitor/deps.c \
	src/monitor/observer.c
src_monitor_libfmmonitor_la_CFLAGS = $(AM_CFLAGS) $(PACEMAKER_CFLAGS)

# The libc-only libraries, in link order (each archive before those it uses:
# the Pacemaker protocol uses the state store, which uses the engine).
FM_LIBS_LIBC = src/pcmk/libfmocf.la src/core/libfmcore.la src/decide/libfmdecide.la \
	src/util/libfmutil.la
# Everything the faultmon command links, for the command, the unit tests and
# the fuzz harnesses.
noinst_LTLIBRARIES += src/libfaultmon.la
src_libfaultmon_la_SOURCES =
src_libfaultmon_la_LIBADD = src/metrics/libfmmetrics.la src/monitor/libfmmonitor.la src/probe/libfmprobe.la src/pcmk/libfmpcmk.la $(FM_LIBS_LIBC)

# faultmon-libs: linked with the libraries the faultmon program loads with
# dlopen(), so that packages still depend on them (src/faultmon-libs.c).
pkglibexec_PROGRAMS += src/faultmon-libs
src_faultmon_libs_SOURCES = src/faultmon-libs.c
src_faultmon_libs_CFLAGS = $(AM_CFLAGS) $(PACEMAKER_CFLAGS) $(LIBXML2_CFLAGS) $(OPENSSL_CFLAGS) \
	$(COROSYNC_CFG_CFLAGS)
src_faultmon_libs_LDADD = $(PACEMAKER_LIBS) $(LIBXML2_LIBS) $(OPENSSL_LIBS) $(COROSYNC_CFG_LIBS)

bin_PROGRAMS += src/faultmon
src_faultmon_SOURCES = \
	src/cmd/cli.c \
	src/cmd/cmd_exporter.c \
	src/cmd/cmd_metrics.c \
	src/cmd/cmd_migrate.c \
	src/cmd/cmd_migrate.h \
	src/cmd/cmd_migrate_xml.c \
	src/cmd/cmd_probe.c \
	src/cmd/cmd_probe_out.c \
	src/cmd/cmd_probe_out.h \
	src/cmd/cmd_replay.c \
	src/cmd/cmd_replay.h \
	src/cmd/cmd_replay_run.c \
	src/cmd/cmd_reset.c \
	src/cmd/cmd_simulate.c \
	src/cmd/cmd_status.c \
	src/cmd/cmd_status_cluster.c \
	src/cmd/xml_load.c \
	src/cmd/xml_load.h \
	src/run/args.c \
	src/run/args.h \
	src/run/attrs.c \
	src/run/attrs.h \
	src/run/jobs.c \
	src/run/jobs.h \
	src/run/lock.c \
	src/run/lock.h \
	src/run/loop.c \
	src/run/loop.h \
	src/run/observe.c \
	src/run/observe.h \
	src/run/observe_cfg.c \
	src/run/observe_cfg.h \
	src/run/corosync_load.c \
	src/run/corosync_load.h \
	src/run/request.c \
	src/run/request.h \
	src/run/run_accesslog.c \
	src/run/run_accesslog.h \
	src/run/run_deps.c \
	src/run/run_deps.h \
	src/run/run_history.c \
	src/run/run_history.h \
	src/run/run_overload.c \
	src/run/run_overload.h \
	src/run/stay.c \
	src/run/stay.h \
	src/run/timer.c \
	src/run/timer.h \
	src/run/watch.c \
	src/faultmon.c
src_faultmon_CFLAGS = $(AM_CFLAGS) $(LIBQB_CFLAGS) $(OPENSSL_CFLAGS) $(PACEMAKER_CFLAGS) $(LIBXML2_CFLAGS) \
	$(COROSYNC_CFG_CFLAGS)
src_faultmon_CPPFLAGS = $(AM_CPPFLAGS) -DFM_ATTRD_UPDATER='"$(ATTRD_UPDATER)"' \
	-DFM_COROSYNC_CFGTOOL='"$(COROSYNC_CFGTOOL)"'
# No $(PACEMAKER_LIBS), $(LIBXML2_LIBS) nor $(COROSYNC_CFG_LIBS): they are
# loaded with dlopen() where they are needed (src/pcmk/crmcommon.h,
# src/cmd/xml_load.h, src/run/corosync_load.h).
src_faultmon_LDADD = src/libfaultmon.la

# The headers are the project's own: nothing installs them, since no library
# is installed.
noinst_HEADERS = \
	include/faultmon/accesslog.h \
	include/faultmon/attrd.h \
	include/faultmon/clock.h \
	include/faultmon/commands.h \
	include/faultmon/corosync_links.h \
	include/faultmon/deadline.h \
	include/faultmon/decide.h \
	include/faultmon/decide_params.h \
	include/faultmon/decide_persist.h \
	include/faultmon/deps.h \
	include/faultmon/ev.h \
	include/faultmon/history.h \
	include/faultmon/grpc.h \
	include/faultmon/http.h \
	include/faultmon/json.h \
	include/faultmon/kvfile.h \
	include/faultmon/log.h \
	include/faultmon/loopback.h \
	include/faultmon/metrics.h \
	include/faultmon/monitor.h \
	include/faultmon/node_attrs.h \
	include/faultmon/observer.h \
	include/faultmon/ocf_rc.h \
	include/faultmon/parse.h \
	include/faultmon/pcmk.h \
	include/faultmon/pidfd.h \
	include/faultmon/pidfile.h \
	include/faultmon/probe.h \
	include/faultmon/probe_opts.h \
	include/faultmon/probe_params.h \
	include/faultmon/overload.h \
	include/faultmon/accept_queue.h \
	include/faultmon/psi.h \
	include/faultmon/recovery.h \
	include/faultmon/regex_guard.h \
	include/faultmon/regex_linear.h \
	include/faultmon/result.h \
	include/faultmon/runconf.h \
	include/faultmon/state.h \
	include/faultmon/status_set.h \
	include/faultmon/summary.h \
	include/faultmon/scheme.h \
	include/faultmon/spawn.h \
	include/faultmon/target.h \
	include/faultmon/target_exec.h \
	include/faultmon/text.h \
	include/faultmon/trust.h \
	include/faultmon/words.h

dist_man1_MANS = src/faultmon.1
