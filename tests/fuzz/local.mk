# SPDX-License-Identifier: GPL-2.0-or-later
# rules for tests/fuzz (see Makefile.am)
#
# libFuzzer harnesses for every parser of outside input, built with
# ./configure CC=clang --enable-fuzzing (which instruments the whole build
# for coverage and ASan/UBSan).  `make fuzz-smoke` runs each harness for a
# short fixed time on a copy of its checked-in corpus
# (tests/fuzz/corpus/<harness>/) and fails on any crash, leak, UB report or
# broken property; tests/fuzz/README.md says how to run them longer.

FM_FUZZ_HARNESSES = \
	tests/fuzz/fuzz_http \
	tests/fuzz/fuzz_target \
	tests/fuzz/fuzz_values \
	tests/fuzz/fuzz_state \
	tests/fuzz/fuzz_runconf \
	tests/fuzz/fuzz_record \
	tests/fuzz/fuzz_apache_conf \
	tests/fuzz/fuzz_nginx_conf \
	tests/fuzz/fuzz_decide \
	tests/fuzz/fuzz_history \
	tests/fuzz/fuzz_regex \
	tests/fuzz/fuzz_conv \
	tests/fuzz/fuzz_wire \
	tests/fuzz/fuzz_grpc \
	tests/fuzz/fuzz_exporter \
	tests/fuzz/fuzz_accesslog \
	tests/fuzz/fuzz_overload

# Dictionaries of the tokens a harness's input is made of.
FM_FUZZ_DICTS = \
	tests/fuzz/fuzz_apache_conf.dict \
	tests/fuzz/fuzz_decide.dict \
	tests/fuzz/fuzz_http.dict \
	tests/fuzz/fuzz_nginx_conf.dict \
	tests/fuzz/fuzz_regex.dict \
	tests/fuzz/fuzz_runconf.dict \
	tests/fuzz/fuzz_state.dict \
	tests/fuzz/fuzz_values.dict \
	tests/fuzz/fuzz_wire.dict

FM_FUZZ_CFLAGS = $(AM_CFLAGS) $(LIBQB_CFLAGS) $(OPENSSL_CFLAGS) $(PACEMAKER_CFLAGS)
FM_FUZZ_LIBS = src/libfaultmon.la $(PACEMAKER_LIBS)

if FM_FUZZING
noinst_PROGRAMS += $(FM_FUZZ_HARNESSES)
endif
EXTRA_PROGRAMS = $(FM_FUZZ_HARNESSES)

# The HTTP probe is driven through its protocol table (src/probe/probe_int.h)
# on a connection slot without a socket: recv() is the harness's, and
# logging a no-op.
tests_fuzz_fuzz_http_SOURCES = tests/fuzz/fuzz_http.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_http_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/probe
tests_fuzz_fuzz_http_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_http_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS) -Wl,--wrap=recv -Wl,--wrap=fm_log_msg
tests_fuzz_fuzz_http_LDADD = $(FM_FUZZ_LIBS)

# Harnesses of the probe core link its library; those that reach into the
# agents' code compile the agents' files with the agent program's flags and
# take the rest (the libc-only modules the agent program also compiles in)
# from the library.
FM_FUZZ_OCF_SOURCES = \
	agents/web/ocf_apache_conf.c \
	agents/web/ocf_nginx_conf.c \
	agents/web/ocf_web_conf.c \
	$(FM_OCF_COMMON_SOURCES)
FM_FUZZ_OCF_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/agents -I$(top_srcdir)/agents/ocf -I$(top_srcdir)/agents/web \
	-DFM_OCF_FAULTMON_BIN='"$(bindir)/faultmon"' \
	-DFM_OCF_ATTRD_UPDATER='"$(ATTRD_UPDATER)"'

tests_fuzz_fuzz_target_SOURCES = tests/fuzz/fuzz_target.c tests/fuzz/fuzz_common.h $(FM_FUZZ_OCF_SOURCES)
tests_fuzz_fuzz_target_CPPFLAGS = $(FM_FUZZ_OCF_CPPFLAGS)
tests_fuzz_fuzz_target_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_target_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_target_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_values_SOURCES = tests/fuzz/fuzz_values.c tests/fuzz/fuzz_common.h $(FM_FUZZ_OCF_SOURCES)
tests_fuzz_fuzz_values_CPPFLAGS = $(FM_FUZZ_OCF_CPPFLAGS)
tests_fuzz_fuzz_values_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_values_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_values_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_accesslog_SOURCES = tests/fuzz/fuzz_accesslog.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_accesslog_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_accesslog_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_accesslog_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_state_SOURCES = tests/fuzz/fuzz_state.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_state_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_state_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_state_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_runconf_SOURCES = tests/fuzz/fuzz_runconf.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_runconf_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_runconf_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_runconf_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_record_SOURCES = tests/fuzz/fuzz_record.c tests/fuzz/fuzz_common.h $(FM_FUZZ_OCF_SOURCES)
tests_fuzz_fuzz_record_CPPFLAGS = $(FM_FUZZ_OCF_CPPFLAGS)
tests_fuzz_fuzz_record_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_record_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_record_LDADD = $(FM_FUZZ_LIBS)

# The reader opens, lists and globs only inside the harness's tree.
tests_fuzz_fuzz_apache_conf_SOURCES = tests/fuzz/fuzz_apache_conf.c tests/fuzz/fuzz_common.h \
	tests/fuzz/fuzz_conf_tree.h $(FM_FUZZ_OCF_SOURCES)
tests_fuzz_fuzz_apache_conf_CPPFLAGS = $(FM_FUZZ_OCF_CPPFLAGS)
tests_fuzz_fuzz_apache_conf_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_apache_conf_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS) \
	-Wl,--wrap=fopen,--wrap=stat,--wrap=lstat,--wrap=scandir,--wrap=opendir,--wrap=glob
tests_fuzz_fuzz_apache_conf_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_nginx_conf_SOURCES = tests/fuzz/fuzz_nginx_conf.c tests/fuzz/fuzz_common.h \
	tests/fuzz/fuzz_conf_tree.h $(FM_FUZZ_OCF_SOURCES)
tests_fuzz_fuzz_nginx_conf_CPPFLAGS = $(FM_FUZZ_OCF_CPPFLAGS)
tests_fuzz_fuzz_nginx_conf_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_nginx_conf_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS) \
	-Wl,--wrap=fopen,--wrap=stat,--wrap=lstat,--wrap=scandir,--wrap=opendir,--wrap=glob
tests_fuzz_fuzz_nginx_conf_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_decide_SOURCES = tests/fuzz/fuzz_decide.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_decide_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_decide_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_decide_LDADD = $(FM_FUZZ_LIBS)
tests_fuzz_fuzz_history_SOURCES = tests/fuzz/fuzz_history.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_history_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_history_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_history_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_regex_SOURCES = tests/fuzz/fuzz_regex.c tests/fuzz/fuzz_common.h $(FM_FUZZ_OCF_SOURCES)
tests_fuzz_fuzz_regex_CPPFLAGS = $(FM_FUZZ_OCF_CPPFLAGS)
tests_fuzz_fuzz_regex_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_regex_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_regex_LDADD = $(FM_FUZZ_LIBS)

# The replies of line protocols (src/probe/conv_parse.c).
tests_fuzz_fuzz_conv_SOURCES = tests/fuzz/fuzz_conv.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_conv_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/probe
tests_fuzz_fuzz_conv_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_conv_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_conv_LDADD = $(FM_FUZZ_LIBS)

# The codecs of the binary protocols: pure functions, bytes in, verdict out.
tests_fuzz_fuzz_wire_SOURCES = tests/fuzz/fuzz_wire.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_wire_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/probe
tests_fuzz_fuzz_wire_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_wire_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_wire_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_grpc_SOURCES = tests/fuzz/fuzz_grpc.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_grpc_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_grpc_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_grpc_LDADD = $(FM_FUZZ_LIBS)
# The status pages that tell overload from a hang (src/probe/overload_status.c).
tests_fuzz_fuzz_overload_SOURCES = tests/fuzz/fuzz_overload.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_overload_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_overload_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_overload_LDADD = $(FM_FUZZ_LIBS)

tests_fuzz_fuzz_exporter_SOURCES = tests/fuzz/fuzz_exporter.c tests/fuzz/fuzz_common.h
tests_fuzz_fuzz_exporter_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_exporter_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS)
tests_fuzz_fuzz_exporter_LDADD = $(FM_FUZZ_LIBS)

# Seconds per harness: 11 harnesses in under 2 minutes.
FM_FUZZ_SMOKE_SECONDS = 10

# The smoke run goes through the test harness, so that its TAP cases land in
# tests/fuzz/fuzz-smoke.sh.trs and test-suite.log like every other test's.
if FM_FUZZING
fuzz-smoke: $(FM_FUZZ_HARNESSES)
	$(AM_V_at)FM_FUZZ_SMOKE_SECONDS='$(FM_FUZZ_SMOKE_SECONDS)' \
	FM_FUZZ_HARNESSES='$(FM_FUZZ_HARNESSES)' \
		$(MAKE) $(AM_MAKEFLAGS) check-TESTS TESTS='tests/fuzz/fuzz-smoke.sh'
else
fuzz-smoke:
	@echo "fuzz-smoke: configure with CC=clang --enable-fuzzing first" >&2; exit 1
endif

EXTRA_DIST += tests/fuzz/fuzz-smoke.sh tests/fuzz/README.md tests/fuzz/corpus $(FM_FUZZ_DICTS)
# The smoke run's results (its TESTS are given on the command line, so the
# harness's own clean rules do not know them) and what libFuzzer found.
CLEANFILES += tests/fuzz/fuzz-smoke.log tests/fuzz/fuzz-smoke.trs

clean-local: fm-fuzz-clean
fm-fuzz-clean:
	-rm -rf tests/fuzz/artifacts
.PHONY: fm-fuzz-clean
.PHONY: fuzz-smoke
