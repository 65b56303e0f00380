# rules for tests/fuzz (see Makefile.am)
#
# libFuzzer harnesses for every parser of outside input, built with
# ./configure CC=clang --enable-fuzzing (which instruments the whole build
# for coverage and ASan/UBSan).  `make fuzz-smoke` runs each harness for a
# short fixed time on a copy of its checked-in corpus
# (tests/fuzz/corpus/<harness>/) and fails on any crash, leak, UB report or
# broken property; tests/fuzz/README.md says how to run them longer.

FM_FUZZ_HARNESSES = \
	tests/fuzz/fuzz_http

FM_FUZZ_CFLAGS = $(AM_CFLAGS) $(LIBQB_CFLAGS) $(OPENSSL_CFLAGS) $(PACEMAKER_CFLAGS)
FM_FUZZ_LIBS = src/libfaultmon.la $(PACEMAKER_LIBS)

if FM_FUZZING
noinst_PROGRAMS += $(FM_FUZZ_HARNESSES)
endif
EXTRA_PROGRAMS = $(FM_FUZZ_HARNESSES)

# The probe engine's reading and judging, compiled in (not linked from
# libfaultmon) so that its static functions can be driven; recv() is the
# harness's.
tests_fuzz_fuzz_http_SOURCES = tests/fuzz/fuzz_http.c tests/fuzz/fuzz_common.h \
	src/deadline.c src/http.c src/log.c src/probe_tls.c src/result.c src/target.c
tests_fuzz_fuzz_http_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_fuzz_http_CFLAGS = $(FM_FUZZ_CFLAGS)
tests_fuzz_fuzz_http_LDFLAGS = $(AM_LDFLAGS) $(FM_FUZZ_LDFLAGS) -Wl,--wrap=recv
tests_fuzz_fuzz_http_LDADD = $(LIBQB_LIBS) $(OPENSSL_LIBS)

FM_FUZZ_SMOKE_SECONDS = 15

fuzz-smoke: $(FM_FUZZ_HARNESSES)
	$(AM_V_at)$(MAKE) $(AM_MAKEFLAGS) check-TESTS TESTS='tests/fuzz/fuzz-smoke.sh' \
		FM_FUZZ_SMOKE_SECONDS='$(FM_FUZZ_SMOKE_SECONDS)' FM_FUZZ_HARNESSES='$(FM_FUZZ_HARNESSES)'

EXTRA_DIST += tests/fuzz/fuzz-smoke.sh tests/fuzz/README.md tests/fuzz/corpus
.PHONY: fuzz-smoke
