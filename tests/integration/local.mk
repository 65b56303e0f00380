# SPDX-License-Identifier: GPL-2.0-or-later
# rules for tests/integration (see Makefile.am)
#
# TAP-emitting bash scripts that run the built `faultmon probe` against
# tests/fault_server.py and a real nginx on loopback.  They need python3,
# openssl and nginx (Debian: nginx-light or nginx) at run time, and apache2
# for probe-apache.sh (skipped without it); tests/lib is
# distributed by the top Makefile.am.

FM_INTEGRATION_TESTS = \
	tests/integration/agent-halog.sh \
	tests/integration/metrics.sh \
	tests/integration/exporter.sh \
	tests/integration/operator-kit.sh \
	tests/integration/run-loop.sh \
	tests/integration/run-replay.sh \
	tests/integration/run-spread.sh \
	tests/integration/run-accesslog.sh \
	tests/integration/run-one-wait.sh \
	tests/integration/run-regex-nofork.sh \
	tests/integration/run-close.sh \
	tests/integration/run-timer.sh \
	tests/integration/run-observer.sh \
	tests/integration/run-overload.sh \
	tests/integration/run-overload-nginx.sh \
	tests/integration/run-overload-queue.sh \
	tests/integration/run-overload-noqueue.sh \
	tests/integration/run-observer-loopback.sh \
	tests/integration/run-deps.sh \
	tests/integration/migrate-check.sh \
	tests/integration/run-observer-corosync.sh \
	tests/integration/run-budget.sh \
	tests/integration/run-async.sh \
	tests/integration/run-no-pidfd.sh \
	tests/integration/run-controller-frozen.sh \
	tests/integration/run-libraries.sh \
	tests/integration/run-stay-async.sh \
	tests/integration/run-attrs-frozen.sh \
	tests/integration/status.sh \
	tests/integration/status-cluster.sh \
	tests/integration/status-trust.sh \
	tests/integration/probe-tls-client.sh \
	tests/integration/probe-tls-resume.sh \
	tests/integration/probe-fd-limit.sh \
	tests/integration/probe-resolve-nss.sh \
	tests/integration/probe-resolve.sh \
	tests/integration/probe-usage.sh \
	tests/integration/probe-output.sh \
	tests/integration/doc-examples.sh \
	tests/integration/probe-early-send.sh \
	tests/integration/probe-faults.sh \
	tests/integration/probe-echoed-secrets.sh \
	tests/integration/probe-maintenance.sh \
	tests/integration/probe-nginx.sh \
	tests/integration/probe-apache.sh \
	tests/integration/proto-tcp.sh \
	tests/integration/proto-redis.sh \
	tests/integration/proto-smtp.sh \
	tests/integration/proto-mail.sh \
	tests/integration/proto-ftp.sh \
	tests/integration/proto-grpc.sh \
	tests/integration/proto-h2.sh \
	tests/integration/proto-udp.sh \
	tests/integration/proto-postgres.sh \
	tests/integration/proto-mysql.sh \
	tests/integration/proto-ldap.sh \
	tests/integration/proto-dns.sh \
	tests/integration/proto-hostile.sh \
	tests/integration/proto-icmp.sh \
	tests/integration/proto-exec.sh

TESTS += $(FM_INTEGRATION_TESTS)
EXTRA_DIST += $(FM_INTEGRATION_TESTS) tests/fault_server.py tests/proto_server.py \
	tests/grpc_health_server.py
