# SPDX-License-Identifier: GPL-2.0-or-later
# rules for contrib: the operator's kit (issue 33), installed for Prometheus
# and Grafana to use: alert rules with their promtool unit tests, and a
# dashboard (doc/operator-kit.md).  tests/integration/operator-kit.sh checks
# them against the exporter.

fmprometheusdir = $(pkgdatadir)/prometheus
dist_fmprometheus_DATA = contrib/prometheus/faultmon-alerts.yml \
	contrib/prometheus/faultmon-alerts.test.yml

fmgrafanadir = $(pkgdatadir)/grafana
dist_fmgrafana_DATA = contrib/grafana/faultmon.json
