# The probe core is a convenience library, so that the faultmon program and
# the unit tests link the same objects.
noinst_LTLIBRARIES += src/libfaultmon.la
src_libfaultmon_la_SOURCES = \
	src/deadline.c \
	src/decide.c \
	src/http.c \
	src/json.c \
	src/log.c \
	src/probe_engine.c \
	src/probe_int.h \
	src/probe_tls.c \
	src/regex_guard.c \
	src/result.c \
	src/runconf.c \
	src/state.c \
	src/target.c \
	src/text.c
src_libfaultmon_la_CFLAGS = $(AM_CFLAGS) $(LIBQB_CFLAGS) $(OPENSSL_CFLAGS) $(PACEMAKER_CFLAGS)
src_libfaultmon_la_LIBADD = $(LIBQB_LIBS) $(OPENSSL_LIBS)

bin_PROGRAMS += src/faultmon
src_faultmon_SOURCES = \
	src/cli.c \
	src/cmd_probe.c \
	src/cmd_reset.c \
	src/cmd_run.c \
	src/cmd_simulate.c \
	src/cmd_status.c \
	src/faultmon.c \
	src/pcmk_signal.c
src_faultmon_CFLAGS = $(AM_CFLAGS) $(LIBQB_CFLAGS) $(OPENSSL_CFLAGS) $(PACEMAKER_CFLAGS)
src_faultmon_CPPFLAGS = $(AM_CPPFLAGS) -DFM_ATTRD_UPDATER='"$(ATTRD_UPDATER)"'
src_faultmon_LDADD = src/libfaultmon.la $(PACEMAKER_LIBS)

pkginclude_HEADERS = \
	include/faultmon/commands.h \
	include/faultmon/deadline.h \
	include/faultmon/decide.h \
	include/faultmon/http.h \
	include/faultmon/json.h \
	include/faultmon/log.h \
	include/faultmon/pcmk.h \
	include/faultmon/probe.h \
	include/faultmon/regex_guard.h \
	include/faultmon/result.h \
	include/faultmon/runconf.h \
	include/faultmon/state.h \
	include/faultmon/target.h \
	include/faultmon/text.h

dist_man1_MANS = src/faultmon.1
